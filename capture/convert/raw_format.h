#ifndef TRACELINT_CAPTURE_CONVERT_RAW_FORMAT_H_
#define TRACELINT_CAPTURE_CONVERT_RAW_FORMAT_H_

// The raw dump the injected library writes: "TLCAPRAW", a uint32 version,
// then records, each a uint8 tag, a uint32 payload size and the payload
// (fixed-width little-endian fields in the order of the field lists below;
// a string is a uint32 size and its bytes). A reader skips tags it does not
// know and fields past the ones it knows, so the format can grow. A dump
// cut inside a record (the process was killed while writing) keeps every
// record before the cut.
//
// This header and raw_writer.cc use only the standard library: the
// injected library compiles them in and stays small.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "capture/convert/records.h"

namespace tracelint::capture {

inline constexpr std::string_view kRawMagic = "TLCAPRAW";
inline constexpr uint32_t kRawVersion = 1;
// The file names the injected library writes under its raw directory.
inline constexpr std::string_view kRawSuffix = ".tlraw";

enum class RawTag : uint8_t {
  kProcess = 1, kString = 2, kDevice = 3, kContext = 4, kKernel = 5,
  kMemcpy = 6, kMemset = 7, kApi = 8, kSync = 9, kMarker = 10,
  kGraph = 11, kOverhead = 12, kDropped = 13, kEnd = 14,
};

// One field list per record, shared by the writer and the reader.
#define TRACELINT_RAW_FIELDS(Type, ...)                                   \
  template <class F>                                                      \
  void VisitRecordFields(F& f, Type& r) { f.All(__VA_ARGS__); }           \
  template <class F>                                                      \
  void VisitRecordFields(F& f, const Type& r) { f.All(__VA_ARGS__); }

TRACELINT_RAW_FIELDS(ProcessInfo, r.pid, r.host, r.rank, r.world_size, r.local_rank,
                     r.clock_offset_ns, r.cupti_version, r.command)
TRACELINT_RAW_FIELDS(DeviceRecord, r.id, r.name, r.global_memory_bytes, r.sm_count,
                     r.compute_major, r.compute_minor, r.max_threads_per_block,
                     r.max_warps_per_sm, r.max_registers_per_block, r.max_registers_per_sm,
                     r.threads_per_warp, r.max_shared_memory_per_block,
                     r.max_shared_memory_per_sm)
TRACELINT_RAW_FIELDS(ContextRecord, r.context_id, r.device_id)
TRACELINT_RAW_FIELDS(KernelRecord, r.start_ns, r.end_ns, r.queued_ns, r.device_id, r.context_id,
                     r.stream_id, r.correlation_id, r.grid[0], r.grid[1], r.grid[2], r.block[0],
                     r.block[1], r.block[2], r.registers_per_thread, r.static_shared_bytes,
                     r.dynamic_shared_bytes, r.graph_id, r.graph_node_id, r.name)
TRACELINT_RAW_FIELDS(MemcpyRecord, r.start_ns, r.end_ns, r.bytes, r.device_id, r.context_id,
                     r.stream_id, r.correlation_id, r.copy_kind, r.src_kind, r.dst_kind, r.async,
                     r.graph_id, r.src_device, r.dst_device)
TRACELINT_RAW_FIELDS(MemsetRecord, r.start_ns, r.end_ns, r.bytes, r.device_id, r.context_id,
                     r.stream_id, r.correlation_id, r.value, r.memory_kind, r.graph_id)
TRACELINT_RAW_FIELDS(ApiRecord, r.start_ns, r.end_ns, r.pid, r.tid, r.correlation_id, r.cbid,
                     r.return_value, r.domain, r.name)
TRACELINT_RAW_FIELDS(SyncRecord, r.start_ns, r.end_ns, r.correlation_id, r.context_id,
                     r.stream_id, r.event_id, r.kind)
TRACELINT_RAW_FIELDS(MarkerRecord, r.ts_ns, r.id, r.flags, r.pid, r.tid, r.name, r.domain)
TRACELINT_RAW_FIELDS(GraphTraceRecord, r.start_ns, r.end_ns, r.device_id, r.context_id,
                     r.stream_id, r.correlation_id, r.graph_id)
TRACELINT_RAW_FIELDS(OverheadRecord, r.start_ns, r.end_ns, r.kind, r.pid, r.tid)
TRACELINT_RAW_FIELDS(DroppedRecord, r.ts_ns, r.context_id, r.stream_id, r.count)
TRACELINT_RAW_FIELDS(EndRecord, r.ts_ns, r.dropped_total, r.reason)

#undef TRACELINT_RAW_FIELDS

// Builds a dump in memory. Not thread-safe: the injected library calls it
// from its one writer thread. Take() hands over what was added since the
// last Take() (the header comes with the first), so a process can append
// to its file buffer by buffer.
class RawWriter {
 public:
  RawWriter();
  // Interns a string; the first use of a text adds its kString record.
  StrId Intern(std::string_view s);

  void Add(const ProcessInfo& r) { Put(RawTag::kProcess, r); }
  void Add(const DeviceRecord& r) { Put(RawTag::kDevice, r); }
  void Add(const ContextRecord& r) { Put(RawTag::kContext, r); }
  void Add(const KernelRecord& r) { Put(RawTag::kKernel, r); }
  void Add(const MemcpyRecord& r) { Put(RawTag::kMemcpy, r); }
  void Add(const MemsetRecord& r) { Put(RawTag::kMemset, r); }
  void Add(const ApiRecord& r) { Put(RawTag::kApi, r); }
  void Add(const SyncRecord& r) { Put(RawTag::kSync, r); }
  void Add(const MarkerRecord& r) { Put(RawTag::kMarker, r); }
  void Add(const GraphTraceRecord& r) { Put(RawTag::kGraph, r); }
  void Add(const OverheadRecord& r) { Put(RawTag::kOverhead, r); }
  void Add(const DroppedRecord& r) { Put(RawTag::kDropped, r); }
  void Add(const EndRecord& r) { Put(RawTag::kEnd, r); }

  const std::string& pending() const { return out_; }
  std::string Take();

 private:
  template <class R> void Put(RawTag tag, const R& r);
  void Begin(RawTag tag);
  void End();

  std::string out_;
  size_t record_start_ = 0;
  std::unordered_map<std::string, StrId> ids_;
};

// Every record of a CaptureRecords, in a fixed order (tests and tools).
std::string EncodeRawCapture(const CaptureRecords& records);

}  // namespace tracelint::capture

#endif  // TRACELINT_CAPTURE_CONVERT_RAW_FORMAT_H_
