#ifndef TRACELINT_PARSERS_KINETO_KINETO_RAW_H_
#define TRACELINT_PARSERS_KINETO_KINETO_RAW_H_

// The boundary between the JSON reader (kineto_json_reader.cc, compiled once
// per simdjson kernel) and the rest of the Kineto parser: plain structs of
// string views into the parser's buffers, valid only during a callback.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace tracelint::kineto {

struct JsonScalar {
  enum class Type : uint8_t { kAbsent = 0, kNumber, kString, kBool, kNull, kArray, kOther };
  Type type = Type::kAbsent;
  // Number: the literal text; string: the unescaped content; array: raw JSON.
  std::string_view text;
  bool present() const { return type != Type::kAbsent; }
};

// Args the parser or the analyses read, recognized once by name
// (ClassifyArgKey). Every other arg of a slice is skipped by the JSON reader
// without being read (simdjson's structural skip): a real trace's args are
// mostly Python ids, call stacks, strides and concrete inputs that nothing
// reads, and storing them cost more memory than the slices themselves.
enum class ArgKey : uint8_t {
  kIgnore = 0,
  // Device details, not stored as args.
  kGrid, kBlock, kRegistersPerThread, kSharedMemory, kBlocksPerSm,
  kOccupancyPct, kBytes, kCopyDirection,
  // Link ids, stored in the slice columns.
  kCorrelation, kExternalId,
  // Memory instants.
  kTotalAllocated, kTotalReserved, kDeviceId, kDeviceType,
  // The track of a device event whose pid/tid are not its device/stream.
  kDevice, kStream,
  // Kept as args (normalized spelling in KeptArgName): what the analyses
  // and rules read (op shapes and dtypes, collective sizes, the per-op FLOP
  // count of with_flops traces) and the scalar inputs (is_causal, stride,
  // padding ...) of the few ops whose FLOPs depend on them (KeepsArgFor;
  // analysis/perf_model.h).
  kInputDims, kInputType, kCollectiveName, kInMsgNelems, kOutMsgNelems, kDtype, kFlops,
  kConcreteInputs,
  // A TF1 timeline op's node name ("name" of category "Op" events): the
  // executor's op and the kernels it launched share it (chrome_tf1_launches.h).
  kNodeName,
  // Recognized only as version fingerprints (not kept).
  kRecordFunctionId, kEvIdx,
};
ArgKey ClassifyArgKey(std::string_view key);
// The arg name stored in the timeline (legacy "Input dims" -> "Input Dims").
std::string_view KeptArgName(ArgKey k, std::string_view key_as_written);
bool IsKeptAsArg(ArgKey k);
// Whether the reader should keep an array value's raw text for this key.
bool WantsArrayText(ArgKey k);
// Whether an arg kept by IsKeptAsArg is stored for an event of this name and
// category:
// "Concrete Inputs" only for attention and convolution ops, which the
// roofline models from them; every other op's copy would cost memory for
// nothing.
bool KeepsArgFor(ArgKey k, std::string_view event_name, std::string_view category);

struct RawArg {
  std::string_view key;
  ArgKey id = ArgKey::kIgnore;
  JsonScalar value;
};

struct RawEvent {
  std::string_view ph;
  std::string_view cat;
  bool has_cat = false;
  std::string_view name;
  JsonScalar pid, tid, ts, dur, id;
  std::string_view bp;     // flow binding ("e" = enclosing slice)
  std::string_view scope;  // instant scope "s"
  std::vector<RawArg> args;

  void Clear() {
    ph = cat = name = bp = scope = {};
    has_cat = false;
    pid = tid = ts = dur = id = JsonScalar();
    args.clear();
  }
};

class RawEventSink {
 public:
  virtual ~RawEventSink() = default;
  virtual void OnEvent(const RawEvent& event) = 0;
};

struct RawDevice {
  int64_t id = -1;
  std::string name;
  int64_t total_global_mem = -1;
  int64_t compute_major = -1;
  int64_t compute_minor = -1;
  int64_t num_sms = -1;
  int64_t max_threads_per_sm = -1;
  bool rocm_fields = false;  // maxSharedMemoryPerMultiProcessor etc.
};

struct RawMeta {
  std::optional<int64_t> schema_version;
  bool has_device_properties = false;
  std::vector<RawDevice> devices;
  std::optional<std::string> base_time_text;
  bool has_display_time_unit = false;
  bool has_distributed_info = false;
  std::optional<std::string> rank_text;
  std::optional<std::string> world_size_text;
  std::string backend;
  std::string trace_name;
  std::string host_name;
  bool rocm_hints = false;    // roctracer/hip version keys
  bool nvidia_hints = false;  // cupti/cuda version keys
  bool tracelint_capture = false;  // the "tracelint_capture" key
};

struct ReadResult {
  int64_t events_emitted = 0;
  // Non-OK when the document (or an event) is malformed; error_offset is the
  // position in the document where the reader stopped, when known.
  absl::Status status;
  int64_t error_offset = -1;
};

// One JSON reader per simdjson kernel; all simdjson calls live behind these.
struct JsonReader {
  std::string_view kernel;
  // `json` must be followed by at least kJsonPadding readable bytes.
  ReadResult (*read_events)(std::string_view json, RawEventSink& sink);
  absl::Status (*read_meta)(std::string_view json, RawMeta& meta);
};

// The reader compiled for the best kernel this CPU runs, as chosen by
// simdjson::get_active_implementation().
const JsonReader& ActiveJsonReader();
// Every reader built into this binary (tests compare them).
std::vector<const JsonReader*> AllJsonReaders();

}  // namespace tracelint::kineto

#endif  // TRACELINT_PARSERS_KINETO_KINETO_RAW_H_
