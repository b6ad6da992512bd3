#ifndef TRACELINT_CAPTURE_CONVERT_RECORDS_H_
#define TRACELINT_CAPTURE_CONVERT_RECORDS_H_

// Plain mirrors of the CUPTI activity records that `tracelint capture`
// keeps (cupti_activity.h: CUpti_ActivityKernel10, Memcpy6, MemcpyPtoP4,
// Memset4, API, Synchronization2, Marker2, GraphTrace2, Overhead3,
// Device5, Context3), with no CUDA type in them. The injected library
// fills them from CUPTI's buffers and writes them as a raw dump
// (raw_format.h); `tracelint` reads the dump back and converts it to
// Kineto JSON (kineto_from_capture.h). Tests build them by hand, so the
// whole conversion runs without a GPU.
//
// Times are CUPTI timestamps in nanoseconds; ProcessInfo::clock_offset_ns
// turns them into Unix-epoch nanoseconds. Enum values are CUPTI's own, so
// the injected library copies them without a table.

#include <cstdint>
#include <string>
#include <vector>

namespace tracelint::capture {

// CUpti_ActivityMemcpyKind.
enum class CopyKind : uint8_t {
  kUnknown = 0, kHtoD = 1, kDtoH = 2, kHtoA = 3, kAtoH = 4, kAtoA = 5,
  kAtoD = 6, kDtoA = 7, kDtoD = 8, kHtoH = 9, kPtoP = 10,
};
// CUpti_ActivityMemoryKind.
enum class MemoryKind : uint8_t {
  kUnknown = 0, kPageable = 1, kPinned = 2, kDevice = 3, kArray = 4,
  kManaged = 5, kDeviceStatic = 6, kManagedStatic = 7,
};
// CUpti_ActivitySynchronizationType.
enum class SyncKind : uint8_t {
  kUnknown = 0, kEventSynchronize = 1, kStreamWaitEvent = 2,
  kStreamSynchronize = 3, kContextSynchronize = 4,
};
// CUpti_ActivityFlag bits of marker records.
inline constexpr uint32_t kMarkerInstant = 1u << 0;
inline constexpr uint32_t kMarkerStart = 1u << 1;
inline constexpr uint32_t kMarkerEnd = 1u << 2;
// CUpti_CallbackDomain values of API records.
enum class ApiDomain : uint8_t { kDriver = 1, kRuntime = 2 };
// A stream id CUPTI uses for "no stream" (context-wide syncs).
inline constexpr uint32_t kNoStream = 0xffffffffu;

// Strings are interned per dump: records hold an index into
// CaptureRecords::strings (0 is the empty string).
using StrId = uint32_t;

// What the injected process says about itself (one per dump).
struct ProcessInfo {
  uint32_t pid = 0;
  std::string host;
  int32_t rank = -1;        // RANK from the launcher's environment; -1: unset
  int32_t world_size = -1;  // WORLD_SIZE
  int32_t local_rank = -1;  // LOCAL_RANK
  int64_t clock_offset_ns = 0;  // epoch ns = CUPTI ns + this
  uint32_t cupti_version = 0;
  std::string command;      // the process's argv[0] and arguments, shortened
};

struct DeviceRecord {
  uint32_t id = 0;
  StrId name = 0;
  uint64_t global_memory_bytes = 0;
  uint32_t sm_count = 0;
  uint32_t compute_major = 0;
  uint32_t compute_minor = 0;
  uint32_t max_threads_per_block = 0;
  uint32_t max_warps_per_sm = 0;
  uint32_t max_registers_per_block = 0;
  uint32_t max_registers_per_sm = 0;
  uint32_t threads_per_warp = 0;
  uint32_t max_shared_memory_per_block = 0;
  uint32_t max_shared_memory_per_sm = 0;
};

struct ContextRecord {
  uint32_t context_id = 0;
  uint32_t device_id = 0;
};

struct KernelRecord {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t queued_ns = 0;  // 0: unknown
  uint32_t device_id = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0;
  uint32_t correlation_id = 0;
  int32_t grid[3] = {0, 0, 0};
  int32_t block[3] = {0, 0, 0};
  uint32_t registers_per_thread = 0;
  int32_t static_shared_bytes = 0;
  int32_t dynamic_shared_bytes = 0;
  uint32_t graph_id = 0;       // 0: not launched from a CUDA graph
  uint64_t graph_node_id = 0;
  StrId name = 0;              // as CUPTI gives it (usually mangled)
};

struct MemcpyRecord {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t bytes = 0;
  uint32_t device_id = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0;
  uint32_t correlation_id = 0;
  CopyKind copy_kind = CopyKind::kUnknown;
  MemoryKind src_kind = MemoryKind::kUnknown;
  MemoryKind dst_kind = MemoryKind::kUnknown;
  bool async = false;
  uint32_t graph_id = 0;
  // Peer copies (CUpti_ActivityMemcpyPtoP4); -1 for the others.
  int32_t src_device = -1;
  int32_t dst_device = -1;
};

struct MemsetRecord {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t bytes = 0;
  uint32_t device_id = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0;
  uint32_t correlation_id = 0;
  uint32_t value = 0;
  MemoryKind memory_kind = MemoryKind::kUnknown;
  uint32_t graph_id = 0;
};

// A runtime or driver API call on a host thread.
struct ApiRecord {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint32_t correlation_id = 0;
  uint32_t cbid = 0;
  uint32_t return_value = 0;
  ApiDomain domain = ApiDomain::kRuntime;
  StrId name = 0;  // cuptiGetCallbackName, e.g. "cudaLaunchKernel_v7000"
};

// Host time spent blocked in a synchronization.
struct SyncRecord {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t correlation_id = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = kNoStream;
  uint32_t event_id = 0;
  SyncKind kind = SyncKind::kUnknown;
};

// One NVTX marker record: the start or end of a range, or an instant.
// Start and end share `id`; they may come in any order and any buffer.
struct MarkerRecord {
  uint64_t ts_ns = 0;
  uint32_t id = 0;
  uint32_t flags = 0;  // kMarker* bits
  uint32_t pid = 0;
  uint32_t tid = 0;
  StrId name = 0;      // set on starts and instants
  StrId domain = 0;
};

// A whole CUDA graph's execution (graph-level tracing).
struct GraphTraceRecord {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t device_id = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0;
  uint32_t correlation_id = 0;
  uint32_t graph_id = 0;
};

// CUPTI's own work (buffer flushes, instrumentation).
struct OverheadRecord {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t kind = 0;  // CUpti_ActivityOverheadKind
  uint32_t pid = 0;
  uint32_t tid = 0;
};

// cuptiActivityGetNumDroppedRecords > 0 for a buffer: records were lost.
struct DroppedRecord {
  uint64_t ts_ns = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0;
  uint64_t count = 0;
};

// Written last by a process that finished its capture cleanly.
struct EndRecord {
  uint64_t ts_ns = 0;
  uint64_t dropped_total = 0;
  uint32_t reason = 0;  // kEnd* below
};
inline constexpr uint32_t kEndAtExit = 1;
inline constexpr uint32_t kEndSignal = 2;
inline constexpr uint32_t kEndDuration = 3;

// Everything one process recorded.
struct CaptureRecords {
  ProcessInfo process;
  std::vector<std::string> strings = {""};
  std::vector<DeviceRecord> devices;
  std::vector<ContextRecord> contexts;
  std::vector<KernelRecord> kernels;
  std::vector<MemcpyRecord> memcpys;
  std::vector<MemsetRecord> memsets;
  std::vector<ApiRecord> apis;
  std::vector<SyncRecord> syncs;
  std::vector<MarkerRecord> markers;
  std::vector<GraphTraceRecord> graphs;
  std::vector<OverheadRecord> overheads;
  std::vector<DroppedRecord> dropped;
  bool has_end = false;  // false: the process died before its final flush
  EndRecord end;
  // The dump ended inside a record (the process was killed while writing).
  bool truncated = false;

  const std::string& str(StrId id) const {
    static const std::string kEmpty;
    return id < strings.size() ? strings[id] : kEmpty;
  }
};

}  // namespace tracelint::capture

#endif  // TRACELINT_CAPTURE_CONVERT_RECORDS_H_
