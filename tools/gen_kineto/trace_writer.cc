#include "tools/gen_kineto/trace_writer.h"

#include <charconv>
#include <cmath>

#include "fmt/format.h"

namespace tracelint::gen {
namespace {

constexpr int kSmCount = 108;  // A100, as in the reference trace
constexpr int kMaxWarpsPerSm = 64;

constexpr std::string_view kLabels[kRecKindCount] = {
    "X/cpu_op",        "X/user_annotation", "X/gpu_user_annotation",
    "X/python_function", "X/cuda_runtime",  "X/kernel",
    "X/gpu_memcpy",    "X/gpu_memset",      "i/cpu_instant_event",
    "s/flow",          "f/flow",            "M/metadata",
    "other"};

std::string_view CategoryOf(RecKind kind) {
  switch (kind) {
    case RecKind::kCpuOp: return "cpu_op";
    case RecKind::kUserAnnotation: return "user_annotation";
    case RecKind::kGpuUserAnnotation: return "gpu_user_annotation";
    case RecKind::kPythonFunction: return "python_function";
    case RecKind::kRuntime: return "cuda_runtime";
    case RecKind::kKernel: return "kernel";
    case RecKind::kMemcpy: return "gpu_memcpy";
    case RecKind::kMemset: return "gpu_memset";
    default: return "";
  }
}

}  // namespace

std::string_view RecKindLabel(RecKind kind) {
  return kLabels[static_cast<int>(kind)];
}

TraceWriter::TraceWriter(ByteSink* sink) : sink_(sink) {
  buf_.reserve(size_t{2} << 20);
}

void TraceWriter::Int(int64_t v) {
  char tmp[24];
  auto [end, ec] = std::to_chars(tmp, tmp + sizeof(tmp), v);
  buf_.append(tmp, end);
}

void TraceWriter::Micros(int64_t ns) {
  // Timestamps are non-negative here; three decimals = ns resolution.
  Int(ns / 1000);
  char frac[4] = {'.', static_cast<char>('0' + (ns / 100) % 10),
                  static_cast<char>('0' + (ns / 10) % 10),
                  static_cast<char>('0' + ns % 10)};
  buf_.append(frac, 4);
}

void TraceWriter::Fixed6(double v) {
  char tmp[48];
  auto [end, ec] = std::to_chars(tmp, tmp + sizeof(tmp), v,
                                 std::chars_format::fixed, 6);
  buf_.append(tmp, end);
}

void TraceWriter::Shortest(double v) {
  char tmp[48];
  auto [end, ec] = std::to_chars(tmp, tmp + sizeof(tmp), v);
  buf_.append(tmp, end);
}

void TraceWriter::BeginEvent() {
  if (events_ > 0) buf_.append(",\n");
  buf_.append("  {\n    ");
  ++events_;
}

void TraceWriter::BeginDocument(const DocumentInfo& info) {
  Lit("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n");
  for (int d = 0; d < info.device_count; ++d) {
    buf_.append(fmt::format(
        "    {{\n      \"id\": {}, \"name\": \"NVIDIA A100-SXM4-80GB\", "
        "\"totalGlobalMem\": 85051572224,\n      \"computeMajor\": 8, "
        "\"computeMinor\": 0,\n      \"maxThreadsPerBlock\": 1024, "
        "\"maxThreadsPerMultiprocessor\": 2048,\n      \"regsPerBlock\": "
        "65536, \"warpSize\": 32,\n      \"sharedMemPerBlock\": 49152, "
        "\"numSms\": {}\n    , \"regsPerMultiprocessor\": 65536, "
        "\"sharedMemPerBlockOptin\": 166912, \"sharedMemPerMultiprocessor\": "
        "167936\n    }}{}\n",
        d, kSmCount, d + 1 < info.device_count ? "," : ""));
  }
  buf_.append(fmt::format(
      "  ],\n  \"distributedInfo\": {{\"backend\": \"nccl\", \"rank\": {}, "
      "\"world_size\": {}, \"pg_count\": 1, \"pg_config\": [{{\"pg_name\": "
      "\"0\", \"pg_desc\": \"default_pg\", \"backend_config\": "
      "\"cuda:nccl\", \"pg_size\": {}, \"ranks\": {}}}], \"nccl_version\": "
      "\"2.17.1\"}},\n  \"traceEvents\": [\n",
      info.rank, info.world_size, info.world_size, info.group_ranks));
}

void TraceWriter::Write(const Rec& r) {
  ++counts_[static_cast<int>(r.kind)];
  if (r.kind == RecKind::kFlowStart || r.kind == RecKind::kFlowEnd) {
    WriteFlow(r);
    return;
  }
  if (r.kind == RecKind::kMemoryInstant) {
    WriteInstant(r);
    return;
  }
  BeginEvent();
  Lit("\"ph\": \"X\", \"cat\": ");
  Str(CategoryOf(r.kind));
  Lit(", \"name\": ");
  Str(r.name);
  Lit(", \"pid\": ");
  Int(r.pid);
  Lit(", \"tid\": ");
  Int(r.tid);
  Lit(",\n    \"ts\": ");
  Micros(r.ts_ns);
  Lit(", \"dur\": ");
  Micros(r.dur_ns);
  Lit(",\n    \"args\": {\n      ");
  WriteArgs(r);
  Lit("\n    }\n  }");
}

void TraceWriter::WriteArgs(const Rec& r) {
  switch (r.kind) {
    case RecKind::kCpuOp:
    case RecKind::kUserAnnotation:
      Lit("\"External id\": ");
      Int(r.external_id);
      Lit(",\"Record function id\": ");
      Int(r.record_function_id);
      if (r.sequence >= 0) {
        Lit(", \"Sequence number\": ");
        Int(r.sequence);
        Lit(", \"Fwd thread id\": ");
        Int(r.fwd_thread);
      }
      if (r.collective != nullptr) WriteCollectiveArgs(*r.collective, false);
      Lit(", \"Ev Idx\": ");
      Int(r.ev_idx);
      return;
    case RecKind::kGpuUserAnnotation:
      Lit("\"External id\": ");
      Int(r.external_id);
      return;
    case RecKind::kPythonFunction:
      Lit("\"Python parent id\": ");
      Int(r.python_parent_id);
      Lit(", \"Python id\": ");
      Int(r.python_id);
      if (r.python_module_id >= 0) {
        Lit(", \"Python module id\": ");
        Int(r.python_module_id);
      }
      Lit(", \"Ev Idx\": ");
      Int(r.ev_idx);
      return;
    case RecKind::kRuntime:
      Lit("\"External id\": ");
      Int(r.external_id);
      Lit(",      \"cbid\": ");
      Int(r.cbid);
      Lit(", \"correlation\": ");
      Int(r.correlation);
      return;
    default:
      break;
  }
  // Device activities share the identity block.
  Lit("\"External id\": ");
  Int(r.external_id);
  if (r.kind == RecKind::kKernel) Lit(",      \"queued\": 0");
  Lit(", \"device\": ");
  Int(r.pid);
  Lit(", \"context\": 1,      \"stream\": ");
  Int(r.stream);
  Lit(", \"correlation\": ");
  Int(r.correlation);
  if (r.kind != RecKind::kKernel) {
    Lit(",      \"bytes\": ");
    Int(r.bytes);
    Lit(", \"memory bandwidth (GB/s)\": ");
    Shortest(r.dur_ns > 0 ? static_cast<double>(r.bytes) / r.dur_ns : 0.0);
    return;
  }
  const KernelSpec& k = *r.kernel;
  int64_t blocks = int64_t{k.grid[0]} * k.grid[1] * k.grid[2];
  int64_t threads = int64_t{k.block[0]} * k.block[1] * k.block[2];
  double blocks_per_sm = static_cast<double>(blocks) / kSmCount;
  double warps_per_sm = blocks_per_sm * ((threads + 31) / 32);
  int occupancy = static_cast<int>(
      std::min(100.0, std::floor(100.0 * warps_per_sm / kMaxWarpsPerSm)));
  Lit(",      \"registers per thread\": ");
  Int(k.registers_per_thread);
  Lit(",      \"shared memory\": ");
  Int(k.shared_memory_bytes);
  Lit(",      \"blocks per SM\": ");
  Fixed6(blocks_per_sm);
  Lit(",      \"warps per SM\": ");
  Fixed6(warps_per_sm);
  Lit(",      \"grid\": [");
  Int(k.grid[0]);
  Lit(", ");
  Int(k.grid[1]);
  Lit(", ");
  Int(k.grid[2]);
  Lit("],      \"block\": [");
  Int(k.block[0]);
  Lit(", ");
  Int(k.block[1]);
  Lit(", ");
  Int(k.block[2]);
  Lit("],      \"est. achieved occupancy %\": ");
  Int(occupancy);
  if (r.collective != nullptr) WriteCollectiveArgs(*r.collective, true);
}

void TraceWriter::WriteCollectiveArgs(const CollectiveArgs& c,
                                      bool on_kernel) {
  // Key order differs between the op and the kernel in real traces; both
  // orders are kept so parsers see the variety.
  if (on_kernel) {
    Lit(", \"Collective name\": ");
    Str(c.collective);
    Lit(", \"In msg nelems\": ");
    Int(c.nelems);
    Lit(", \"Out msg nelems\": ");
    Int(c.nelems);
    Lit(", \"Group size\": ");
    Int(c.group_size);
    Lit(", \"dtype\": ");
    Str(c.dtype);
    Lit(", \"In split size\": \"[]\", \"Out split size\": \"[]\", "
        "\"Process Group Name\": \"0\", \"Process Group Description\": "
        "\"default_pg\", \"Process Group Ranks\": ");
    Str(c.group_ranks);
    return;
  }
  Lit(", \"Process Group Name\": \"0\", \"Global rank stride\": 1, "
      "\"Out msg nelems\": ");
  Int(c.nelems);
  Lit(", \"Process Group Ranks\": ");
  Str(c.group_ranks);
  Lit(", \"Group size\": ");
  Int(c.group_size);
  Lit(", \"Global rank start\": 0, \"In msg nelems\": ");
  Int(c.nelems);
  Lit(", \"In split size\": \"[]\", \"Out split size\": \"[]\", \"dtype\": ");
  Str(c.dtype);
  Lit(", \"Process Group Description\": \"default_pg\", "
      "\"Collective name\": ");
  Str(c.collective);
}

void TraceWriter::WriteFlow(const Rec& r) {
  BeginEvent();
  Lit(r.kind == RecKind::kFlowStart ? "\"ph\": \"s\", \"id\": "
                                    : "\"ph\": \"f\", \"id\": ");
  Int(r.correlation);
  Lit(", \"pid\": ");
  Int(r.pid);
  Lit(", \"tid\": ");
  Int(r.tid);
  Lit(", \"ts\": ");
  Micros(r.ts_ns);
  Lit(r.fwdbwd ? ",\n    \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\""
               : ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"");
  if (r.kind == RecKind::kFlowEnd) Lit(", \"bp\": \"e\"");
  Lit("\n  }");
}

void TraceWriter::WriteInstant(const Rec& r) {
  BeginEvent();
  Lit("\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", "
      "\"name\": \"[memory]\",\n    \"pid\": ");
  Int(r.pid);
  Lit(", \"tid\": ");
  Int(r.tid);
  Lit(",\n    \"ts\": ");
  Micros(r.ts_ns);
  Lit(",\n    \"args\": {\n      \"Total Reserved\": ");
  Int(r.total_reserved);
  Lit(", \"Total Allocated\": ");
  Int(r.total_allocated);
  Lit(", \"Bytes\": ");
  Int(r.bytes);
  Lit(", \"Addr\": ");
  Int(r.addr);
  Lit(", \"Device Id\": ");
  Int(r.pid < 64 ? r.pid : 0);
  Lit(", \"Device Type\": 1, \"Ev Idx\": ");
  Int(r.ev_idx);
  Lit("\n    }\n  }");
}

void TraceWriter::WriteProcessMetadata(int64_t pid, const char* label,
                                       int64_t sort_index) {
  ++counts_[static_cast<int>(RecKind::kMetadata)];
  BeginEvent();
  buf_.append(fmt::format(
      "\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": {}, "
      "\"tid\": 0,\n    \"args\": {{\n      \"name\": \"python3.10\"\n    "
      "}}\n  }}",
      pid));
  ++counts_[static_cast<int>(RecKind::kMetadata)];
  BeginEvent();
  buf_.append(fmt::format(
      "\"name\": \"process_labels\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": "
      "{}, \"tid\": 0,\n    \"args\": {{\n      \"labels\": \"{}\"\n    }}\n  "
      "}}",
      pid, label));
  ++counts_[static_cast<int>(RecKind::kMetadata)];
  BeginEvent();
  buf_.append(fmt::format(
      "\"name\": \"process_sort_index\", \"ph\": \"M\", \"ts\": 0.000, "
      "\"pid\": {}, \"tid\": 0,\n    \"args\": {{\n      \"sort_index\": {}\n "
      "   }}\n  }}",
      pid, sort_index));
}

void TraceWriter::WriteThreadName(int64_t pid, int64_t tid,
                                  const std::string& name) {
  ++counts_[static_cast<int>(RecKind::kMetadata)];
  BeginEvent();
  buf_.append(fmt::format(
      "\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": {}, "
      "\"tid\": {},\n    \"args\": {{\n      \"name\": \"{}\"\n    }}\n  }}",
      pid, tid, name));
}

void TraceWriter::EndDocument(const DocumentInfo& info, int64_t start_ts_ns,
                              int64_t end_ts_ns) {
  counts_[static_cast<int>(RecKind::kOther)] += 2;
  BeginEvent();
  Lit("\"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ");
  Micros(start_ts_ns);
  Lit(", \"dur\": ");
  Micros(end_ts_ns - start_ts_ns);
  Lit(",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n    "
      "\"name\": \"PyTorch Profiler (0)\",\n    \"args\": {\n      "
      "\"Op count\": 0\n    }\n  }");
  BeginEvent();
  Lit("\"ph\": \"i\", \"s\": \"g\", \"name\": \"Record Window End\", "
      "\"pid\": \"\", \"tid\": \"\",\n    \"ts\": ");
  Micros(end_ts_ns);
  Lit("\n  }\n],\n  \"traceName\": ");
  Str(info.trace_name);
  Lit("\n}\n");
}

absl::Status TraceWriter::Flush(size_t min_bytes) {
  if (buf_.size() <= min_bytes || buf_.empty()) return absl::OkStatus();
  absl::Status s = sink_->Write(buf_);
  flushed_bytes_ += static_cast<int64_t>(buf_.size());
  buf_.clear();
  return s;
}

}  // namespace tracelint::gen
