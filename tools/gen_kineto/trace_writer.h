#ifndef TRACELINT_TOOLS_GEN_KINETO_TRACE_WRITER_H_
#define TRACELINT_TOOLS_GEN_KINETO_TRACE_WRITER_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "tools/gen_kineto/byte_sink.h"
#include "tools/gen_kineto/workload_names.h"

namespace tracelint::gen {

// What one traceEvents entry is. The order is the order of the counters in
// TraceWriter::counts().
enum class RecKind : uint8_t {
  kCpuOp,
  kUserAnnotation,
  kGpuUserAnnotation,
  kPythonFunction,
  kRuntime,
  kKernel,
  kMemcpy,
  kMemset,
  kMemoryInstant,
  kFlowStart,
  kFlowEnd,
  kMetadata,
  kOther,  // span event, global instants
  kCount,
};
inline constexpr int kRecKindCount = static_cast<int>(RecKind::kCount);

// "ph/cat" label of a kind as the trace spells it, e.g. "X/cpu_op".
std::string_view RecKindLabel(RecKind kind);

// Collective arguments of a record_param_comms op and of its NCCL kernel.
struct CollectiveArgs {
  const char* collective = "allreduce";
  int64_t nelems = 0;
  const char* dtype = "Float";
  int group_size = 1;
  const char* group_ranks = "[0]";
};

// One event before serialization; times are integer ns and printed as
// microseconds with three decimals, as Kineto writes them since 2024.
struct Rec {
  RecKind kind = RecKind::kCpuOp;
  bool fwdbwd = false;  // flows: fwdbwd instead of ac2g
  const char* name = "";
  int64_t pid = 0;
  int64_t tid = 0;
  int64_t ts_ns = 0;
  int64_t dur_ns = 0;
  int64_t external_id = 0;
  int64_t record_function_id = 0;
  int64_t ev_idx = 0;
  int64_t sequence = -1;  // autograd sequence number, -1 = none
  int64_t fwd_thread = 0;
  int64_t correlation = 0;  // also the flow id
  int32_t cbid = 0;
  int32_t stream = 0;
  int64_t bytes = 0;
  int64_t addr = 0;             // [memory]
  int64_t total_allocated = 0;  // [memory]
  int64_t total_reserved = 0;   // [memory]
  int64_t python_id = 0;
  int64_t python_parent_id = 0;
  int64_t python_module_id = -1;
  const KernelSpec* kernel = nullptr;
  const CollectiveArgs* collective = nullptr;
};

// Header fields of the top-level object.
struct DocumentInfo {
  int rank = 0;
  int world_size = 1;
  int device_count = 8;
  std::string group_ranks = "[0]";  // "[0, 1, ...]"
  std::string trace_name;
};

// Serializes records in Kineto's own layout (two-space indent, one event per
// object block) so bytes per event and whitespace match real files. Output
// is buffered and handed to the sink in ~1 MiB chunks.
class TraceWriter {
 public:
  explicit TraceWriter(ByteSink* sink);

  void BeginDocument(const DocumentInfo& info);
  void Write(const Rec& r);
  void WriteProcessMetadata(int64_t pid, const char* label, int64_t sort_index);
  void WriteThreadName(int64_t pid, int64_t tid, const std::string& name);
  // Writes the profiler span event covering [start, end] and Kineto's
  // closing "Record Window End" instant, then the trailing keys.
  void EndDocument(const DocumentInfo& info, int64_t start_ts_ns,
                   int64_t end_ts_ns);

  // Hands buffered bytes to the sink when more than `min_bytes` are held.
  absl::Status Flush(size_t min_bytes = 0);

  int64_t bytes_written() const { return flushed_bytes_ + buf_.size(); }
  int64_t events_written() const { return events_; }
  const std::array<int64_t, kRecKindCount>& counts() const { return counts_; }

 private:
  void BeginEvent();
  void Int(int64_t v);
  void Micros(int64_t ns);
  void Fixed6(double v);
  void Shortest(double v);
  void Lit(std::string_view s) { buf_.append(s); }
  void Str(std::string_view s) {
    buf_.push_back('"');
    buf_.append(s);
    buf_.push_back('"');
  }
  void WriteFlow(const Rec& r);
  void WriteInstant(const Rec& r);
  void WriteArgs(const Rec& r);
  void WriteCollectiveArgs(const CollectiveArgs& c, bool on_kernel);

  ByteSink* sink_;
  std::string buf_;
  int64_t flushed_bytes_ = 0;
  int64_t events_ = 0;
  std::array<int64_t, kRecKindCount> counts_{};
};

}  // namespace tracelint::gen

#endif  // TRACELINT_TOOLS_GEN_KINETO_TRACE_WRITER_H_
