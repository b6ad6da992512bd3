#include "capture/convert/kineto_from_capture.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "analyzer/base/json_escape.h"
#include "fmt/format.h"

namespace tracelint::capture {
namespace {

// Kineto puts a stream's sync waits on a track of their own (docs/design/formats.md A.3).
constexpr int64_t kSyncTidOffset = 1000000;

std::string_view CopyKindName(CopyKind k) {
  switch (k) {
    case CopyKind::kHtoD: return "HtoD";
    case CopyKind::kDtoH: return "DtoH";
    case CopyKind::kHtoA: return "HtoA";
    case CopyKind::kAtoH: return "AtoH";
    case CopyKind::kAtoA: return "AtoA";
    case CopyKind::kAtoD: return "AtoD";
    case CopyKind::kDtoA: return "DtoA";
    case CopyKind::kDtoD: return "DtoD";
    case CopyKind::kHtoH: return "HtoH";
    case CopyKind::kPtoP: return "PtoP";
    default: return "Unknown";
  }
}

std::string_view MemoryKindName(MemoryKind k) {
  switch (k) {
    case MemoryKind::kPageable: return "Pageable";
    case MemoryKind::kPinned: return "Pinned";
    case MemoryKind::kDevice: return "Device";
    case MemoryKind::kArray: return "Array";
    case MemoryKind::kManaged: return "Managed";
    case MemoryKind::kDeviceStatic: return "Device Static";
    case MemoryKind::kManagedStatic: return "Managed Static";
    default: return "Unknown";
  }
}

std::string_view SyncName(SyncKind k) {
  switch (k) {
    case SyncKind::kEventSynchronize: return "Event Sync";
    case SyncKind::kStreamWaitEvent: return "Stream Wait Event";
    case SyncKind::kStreamSynchronize: return "Stream Sync";
    case SyncKind::kContextSynchronize: return "Context Sync";
    default: return "Unknown Sync";
  }
}

std::string_view OverheadName(uint32_t kind) {
  switch (kind) {  // CUpti_ActivityOverheadKind
    case 1: return "CUPTI Overhead: Driver Compiler";
    case 1 << 16: return "CUPTI Overhead: Activity Buffer Flush";
    case 2 << 16: return "CUPTI Overhead: Instrumentation";
    case 3 << 16: return "CUPTI Overhead: Resource";
    case 4 << 16: return "CUPTI Overhead: Runtime Triggered Module Loading";
    case 5 << 16: return "CUPTI Overhead: Lazy Function Loading";
    case 6 << 16: return "CUPTI Overhead: Command Buffer Full";
    case 7 << 16: return "CUPTI Overhead: Activity Buffer Request";
    case 8 << 16: return "CUPTI Overhead: UVM Activity Init";
    default: return "CUPTI Overhead";
  }
}

// One output event, ordered by time (then by the order it was made).
struct Out {
  int64_t ts_ns;
  size_t seq;
  std::string json;
};

class Converter {
 public:
  Converter(const CaptureRecords& r, const ConvertOptions& o, ConvertSummary& s)
      : r_(r), o_(o), s_(s) {}

  std::string Run();

 private:
  int64_t Epoch(uint64_t cupti_ns) const {
    return static_cast<int64_t>(cupti_ns) + r_.process.clock_offset_ns;
  }
  // Kineto's "{us}.{ns:03}", relative to baseTimeNanoseconds.
  std::string Ts(uint64_t cupti_ns) const { return Micros(Epoch(cupti_ns) - base_ns_); }
  static std::string Micros(int64_t ns) {
    if (ns < 0) ns = 0;
    return fmt::format("{}.{:03}", ns / 1000, ns % 1000);
  }
  static std::string Dur(uint64_t start, uint64_t end) {
    return Micros(end > start ? static_cast<int64_t>(end - start) : 0);
  }
  void Emit(uint64_t cupti_ns, std::string json) {
    out_.push_back({Epoch(cupti_ns), out_.size(), std::move(json)});
  }
  std::string Str(StrId id) const { return JsonEscape(r_.str(id)); }
  uint32_t DeviceOf(uint32_t context_id, uint32_t fallback) const {
    auto it = context_device_.find(context_id);
    return it == context_device_.end() ? fallback : it->second;
  }
  // The ac2g flow's end at a device activity, once per correlation.
  void FlowEnd(uint32_t correlation, uint32_t device, uint32_t stream, uint64_t start) {
    if (correlation == 0 || !api_correlations_.count(correlation) ||
        !flowed_.insert(correlation).second) {
      return;
    }
    Emit(start, fmt::format(R"({{"ph": "f", "id": {0}, "pid": {1}, "tid": {2}, "ts": {3}, )"
                            R"("cat": "ac2g", "name": "ac2g", "bp": "e"}})",
                            correlation, device, stream, Ts(start)));
  }

  void ComputeBase();
  void Kernels();
  void Copies();
  void Memsets();
  void Apis();
  void Syncs();
  void Markers();
  void Graphs();
  void Overheads();
  std::string Document();

  const CaptureRecords& r_;
  const ConvertOptions& o_;
  ConvertSummary& s_;
  int64_t base_ns_ = 0;
  std::vector<Out> out_;
  std::unordered_map<uint32_t, uint32_t> context_device_;
  std::unordered_map<uint32_t, const DeviceRecord*> devices_;
  std::unordered_set<uint32_t> api_correlations_;
  std::unordered_set<uint32_t> flowed_;
  std::set<std::pair<uint32_t, uint32_t>> streams_;  // (device, stream)
  std::set<std::pair<uint32_t, uint32_t>> threads_;  // (pid, tid)
};

void Converter::ComputeBase() {
  uint64_t first = std::numeric_limits<uint64_t>::max();
  auto see = [&](uint64_t t) {
    if (t > 0) first = std::min(first, t);
  };
  for (const auto& x : r_.kernels) see(x.start_ns);
  for (const auto& x : r_.memcpys) see(x.start_ns);
  for (const auto& x : r_.memsets) see(x.start_ns);
  for (const auto& x : r_.apis) see(x.start_ns);
  for (const auto& x : r_.syncs) see(x.start_ns);
  for (const auto& x : r_.markers) see(x.ts_ns);
  for (const auto& x : r_.graphs) see(x.start_ns);
  for (const auto& x : r_.overheads) see(x.start_ns);
  for (const auto& x : r_.dropped) see(x.ts_ns);
  if (first == std::numeric_limits<uint64_t>::max()) first = 0;
  // Whole seconds, as Kineto's base is a round number.
  int64_t epoch = Epoch(first);
  base_ns_ = epoch - ((epoch % 1000000000) + 1000000000) % 1000000000;
}

void Converter::Kernels() {
  for (const KernelRecord& k : r_.kernels) {
    ++s_.kernels;
    uint32_t device = k.device_id;
    streams_.insert({device, k.stream_id});
    std::string args = fmt::format(
        R"("queued": {}, "device": {}, "context": {}, "stream": {}, "correlation": {}, )"
        R"("registers per thread": {}, "shared memory": {}, )",
        k.queued_ns > 0 && k.queued_ns <= k.start_ns ? Dur(k.queued_ns, k.start_ns) : "0",
        device, k.context_id, k.stream_id, k.correlation_id, k.registers_per_thread,
        static_cast<int64_t>(k.static_shared_bytes) + k.dynamic_shared_bytes);
    auto dev = devices_.find(device);
    if (dev != devices_.end() && dev->second->sm_count > 0) {
      double blocks = static_cast<double>(std::max(1, k.grid[0])) * std::max(1, k.grid[1]) *
                      std::max(1, k.grid[2]);
      int64_t threads = int64_t{std::max(1, k.block[0])} * std::max(1, k.block[1]) *
                        std::max(1, k.block[2]);
      double warps = blocks * static_cast<double>((threads + 31) / 32);
      args += fmt::format(R"("blocks per SM": {:.6g}, "warps per SM": {:.6g}, )",
                          blocks / dev->second->sm_count, warps / dev->second->sm_count);
    }
    args += fmt::format(R"("grid": [{}, {}, {}], "block": [{}, {}, {}])", k.grid[0], k.grid[1],
                        k.grid[2], k.block[0], k.block[1], k.block[2]);
    if (k.graph_id != 0) {
      args += fmt::format(R"(, "graph id": {}, "graph node id": {})", k.graph_id,
                          k.graph_node_id);
    }
    Emit(k.start_ns,
         fmt::format(R"({{"ph": "X", "cat": "kernel", "name": "{}", "pid": {}, "tid": {}, )"
                     R"("ts": {}, "dur": {}, "args": {{{}}}}})",
                     JsonEscape(DemangleKernelName(r_.str(k.name))), device, k.stream_id,
                     Ts(k.start_ns), Dur(k.start_ns, k.end_ns), args));
    FlowEnd(k.correlation_id, device, k.stream_id, k.start_ns);
  }
}

void Converter::Copies() {
  for (const MemcpyRecord& m : r_.memcpys) {
    ++s_.copies;
    streams_.insert({m.device_id, m.stream_id});
    uint64_t dur = m.end_ns > m.start_ns ? m.end_ns - m.start_ns : 0;
    std::string args = fmt::format(
        R"("device": {}, "context": {}, "stream": {}, "correlation": {}, "bytes": {}, )"
        R"j("memory bandwidth (GB/s)": {:.6g})j",
        m.device_id, m.context_id, m.stream_id, m.correlation_id, m.bytes,
        dur > 0 ? static_cast<double>(m.bytes) / static_cast<double>(dur) : 0.0);
    if (m.src_device >= 0 || m.dst_device >= 0) {
      args += fmt::format(R"(, "fromDevice": {}, "inDevice": {}, "toDevice": {})", m.src_device,
                          m.device_id, m.dst_device);
    }
    if (m.graph_id != 0) args += fmt::format(R"(, "graph id": {})", m.graph_id);
    Emit(m.start_ns,
         fmt::format(R"({{"ph": "X", "cat": "gpu_memcpy", "name": "{}", "pid": {}, "tid": {}, )"
                     R"("ts": {}, "dur": {}, "args": {{{}}}}})",
                     MemcpyName(m.copy_kind, m.src_kind, m.dst_kind), m.device_id, m.stream_id,
                     Ts(m.start_ns), Dur(m.start_ns, m.end_ns), args));
    FlowEnd(m.correlation_id, m.device_id, m.stream_id, m.start_ns);
  }
}

void Converter::Memsets() {
  for (const MemsetRecord& m : r_.memsets) {
    ++s_.memsets;
    streams_.insert({m.device_id, m.stream_id});
    uint64_t dur = m.end_ns > m.start_ns ? m.end_ns - m.start_ns : 0;
    Emit(m.start_ns,
         fmt::format(R"j({{"ph": "X", "cat": "gpu_memset", "name": "Memset ({})", "pid": {}, )j"
                     R"("tid": {}, "ts": {}, "dur": {}, "args": {{"device": {}, "context": {}, )"
                     R"("stream": {}, "correlation": {}, "bytes": {}, )"
                     R"j("memory bandwidth (GB/s)": {:.6g}}}}})j",
                     MemoryKindName(m.memory_kind), m.device_id, m.stream_id, Ts(m.start_ns),
                     Dur(m.start_ns, m.end_ns), m.device_id, m.context_id, m.stream_id,
                     m.correlation_id, m.bytes,
                     dur > 0 ? static_cast<double>(m.bytes) / static_cast<double>(dur) : 0.0));
    FlowEnd(m.correlation_id, m.device_id, m.stream_id, m.start_ns);
  }
}

void Converter::Apis() {
  // Only calls that launched device work start a flow (as Kineto does).
  std::unordered_set<uint32_t> device_correlations;
  for (const auto& x : r_.kernels) device_correlations.insert(x.correlation_id);
  for (const auto& x : r_.memcpys) device_correlations.insert(x.correlation_id);
  for (const auto& x : r_.memsets) device_correlations.insert(x.correlation_id);
  for (const auto& x : r_.graphs) device_correlations.insert(x.correlation_id);
  // A driver call made inside a runtime call on the same thread is the
  // runtime's own work: dropped unless device work names it as its launch.
  std::unordered_map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> runtime_calls;
  for (const ApiRecord& a : r_.apis) {
    if (a.domain == ApiDomain::kRuntime) runtime_calls[a.tid].push_back({a.start_ns, a.end_ns});
  }
  for (auto& [tid, calls] : runtime_calls) std::sort(calls.begin(), calls.end());
  auto inside_runtime = [&](const ApiRecord& a) {
    auto it = runtime_calls.find(a.tid);
    if (it == runtime_calls.end()) return false;
    auto after = std::upper_bound(it->second.begin(), it->second.end(),
                                  std::make_pair(a.start_ns, UINT64_MAX));
    if (after == it->second.begin()) return false;
    --after;
    return after->first <= a.start_ns && a.end_ns <= after->second;
  };
  std::unordered_set<uint32_t> started;
  for (const ApiRecord& a : r_.apis) {
    if (a.domain == ApiDomain::kDriver && !device_correlations.count(a.correlation_id) &&
        inside_runtime(a)) {
      ++s_.nested_driver_calls;
      continue;
    }
    ++s_.api_calls;
    uint32_t pid = a.pid != 0 ? a.pid : r_.process.pid;
    threads_.insert({pid, a.tid});
    std::string name = ApiDisplayName(r_.str(a.name));
    if (name.empty()) name = fmt::format("cbid {}", a.cbid);
    Emit(a.start_ns,
         fmt::format(R"({{"ph": "X", "cat": "{}", "name": "{}", "pid": {}, "tid": {}, )"
                     R"("ts": {}, "dur": {}, "args": {{"cbid": {}, "correlation": {}}}}})",
                     a.domain == ApiDomain::kDriver ? "cuda_driver" : "cuda_runtime",
                     JsonEscape(name), pid, a.tid, Ts(a.start_ns), Dur(a.start_ns, a.end_ns),
                     a.cbid, a.correlation_id));
    if (a.correlation_id != 0 && device_correlations.count(a.correlation_id) &&
        started.insert(a.correlation_id).second) {
      api_correlations_.insert(a.correlation_id);
      Emit(a.start_ns, fmt::format(R"({{"ph": "s", "id": {}, "pid": {}, "tid": {}, "ts": {}, )"
                                   R"("cat": "ac2g", "name": "ac2g"}})",
                                   a.correlation_id, pid, a.tid, Ts(a.start_ns)));
    }
  }
}

void Converter::Syncs() {
  for (const SyncRecord& y : r_.syncs) {
    ++s_.syncs;
    uint32_t device = DeviceOf(y.context_id, 0);
    int64_t stream = y.stream_id == kNoStream ? 0 : y.stream_id;
    std::string args = fmt::format(
        R"("cuda_sync_kind": "{}", "device": {}, "context": {}, "stream": {}, "correlation": {})",
        SyncName(y.kind), device, y.context_id, stream, y.correlation_id);
    if (y.kind == SyncKind::kStreamWaitEvent || y.kind == SyncKind::kEventSynchronize) {
      args += fmt::format(R"(, "wait_on_cuda_event_id": {})", y.event_id);
    }
    Emit(y.start_ns,
         fmt::format(R"({{"ph": "X", "cat": "cuda_sync", "name": "{}", "pid": {}, "tid": {}, )"
                     R"("ts": {}, "dur": {}, "args": {{{}}}}})",
                     SyncName(y.kind), device, stream + kSyncTidOffset, Ts(y.start_ns),
                     Dur(y.start_ns, y.end_ns), args));
  }
}

void Converter::Markers() {
  // Start and end share an id; either may come first in the dump.
  std::map<uint32_t, const MarkerRecord*> starts, ends;
  std::vector<const MarkerRecord*> instants;
  for (const MarkerRecord& m : r_.markers) {
    if (m.flags & kMarkerInstant) {
      instants.push_back(&m);
    } else if (m.flags & kMarkerStart) {
      starts[m.id] = &m;
    } else if (m.flags & kMarkerEnd) {
      ends[m.id] = &m;
    }
  }
  struct Range {
    const MarkerRecord* start;
    uint64_t end_ns;
  };
  std::vector<Range> ranges;
  for (const auto& [id, start] : starts) {
    auto end = ends.find(id);
    if (end == ends.end()) {
      ++s_.unmatched_ranges;
      continue;
    }
    ranges.push_back({start, std::max(end->second->ts_ns, start->ts_ns)});
  }
  for (const auto& [id, end] : ends) {
    if (!starts.count(id)) ++s_.unmatched_ranges;
  }
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) {
    return a.start->ts_ns != b.start->ts_ns ? a.start->ts_ns < b.start->ts_ns
                                            : a.start->id < b.start->id;
  });
  int64_t step = 0;
  std::set<std::string> names_seen;
  for (const Range& g : ranges) {
    const MarkerRecord& m = *g.start;
    ++s_.ranges;
    uint32_t pid = m.pid != 0 ? m.pid : r_.process.pid;
    threads_.insert({pid, m.tid});
    const std::string& raw = r_.str(m.name);
    if (names_seen.size() < 20) names_seen.insert(raw);
    std::string name = JsonEscape(raw);
    std::string args = fmt::format(R"("nvtx id": {})", m.id);
    if (!o_.steps_range.empty() && raw == o_.steps_range) {
      name = fmt::format("ProfilerStep#{}", step++);
      args += fmt::format(R"(, "nvtx name": "{}")", JsonEscape(raw));
    }
    if (!r_.str(m.domain).empty()) args += fmt::format(R"(, "domain": "{}")", Str(m.domain));
    Emit(m.ts_ns,
         fmt::format(R"({{"ph": "X", "cat": "user_annotation", "name": "{}", "pid": {}, )"
                     R"("tid": {}, "ts": {}, "dur": {}, "args": {{{}}}}})",
                     name, pid, m.tid, Ts(m.ts_ns), Dur(m.ts_ns, g.end_ns), args));
  }
  s_.steps = step;
  if (!o_.steps_range.empty() && step == 0) {
    std::vector<std::string> names(names_seen.begin(), names_seen.end());
    s_.warnings.push_back(fmt::format(
        "--steps {}: no NVTX range of that name was recorded ({})", o_.steps_range,
        names.empty() ? std::string("no NVTX ranges at all")
                      : fmt::format("ranges seen: {}", fmt::join(names, ", "))));
  }
  for (const MarkerRecord* m : instants) {
    ++s_.instants;
    uint32_t pid = m->pid != 0 ? m->pid : r_.process.pid;
    threads_.insert({pid, m->tid});
    Emit(m->ts_ns, fmt::format(R"({{"ph": "i", "s": "t", "cat": "user_annotation", "name": "{}", )"
                               R"("pid": {}, "tid": {}, "ts": {}}})",
                               Str(m->name), pid, m->tid, Ts(m->ts_ns)));
  }
}

void Converter::Graphs() {
  for (const GraphTraceRecord& g : r_.graphs) {
    ++s_.graphs;
    streams_.insert({g.device_id, g.stream_id});
    Emit(g.start_ns,
         fmt::format(R"({{"ph": "X", "cat": "kernel", "name": "CUDA graph {}", "pid": {}, )"
                     R"("tid": {}, "ts": {}, "dur": {}, "args": {{"device": {}, "context": {}, )"
                     R"("stream": {}, "correlation": {}, "graph id": {}}}}})",
                     g.graph_id, g.device_id, g.stream_id, Ts(g.start_ns),
                     Dur(g.start_ns, g.end_ns), g.device_id, g.context_id, g.stream_id,
                     g.correlation_id, g.graph_id));
    FlowEnd(g.correlation_id, g.device_id, g.stream_id, g.start_ns);
  }
}

void Converter::Overheads() {
  for (const OverheadRecord& o : r_.overheads) {
    Emit(o.start_ns, fmt::format(R"({{"ph": "X", "cat": "overhead", "name": "{}", "pid": -1, )"
                                 R"("tid": 0, "ts": {}, "dur": {}}})",
                                 OverheadName(o.kind), Ts(o.start_ns), Dur(o.start_ns, o.end_ns)));
  }
  for (const DroppedRecord& d : r_.dropped) {
    s_.dropped_records += d.count;
    Emit(d.ts_ns, fmt::format(R"({{"ph": "X", "cat": "overhead", "name": "CUPTI dropped records", )"
                              R"("pid": -1, "tid": 0, "ts": {}, "dur": 0.000, "args": )"
                              R"({{"count": {}, "context": {}, "stream": {}}}}})",
                              Ts(d.ts_ns), d.count, d.context_id, d.stream_id));
  }
  if (s_.dropped_records > 0) {
    s_.warnings.push_back(fmt::format(
        "CUPTI dropped {} activity record(s) in process {}: its buffers filled faster than they "
        "were flushed",
        s_.dropped_records, r_.process.pid));
  }
  // A process that died before its last flush lost what was still buffered:
  // say so in the trace, where the integrity pass sees it.
  if (!r_.has_end || r_.truncated) {
    uint64_t last = 0;
    for (const auto& x : r_.apis) last = std::max(last, x.end_ns);
    for (const auto& x : r_.kernels) last = std::max(last, x.end_ns);
    Emit(last, fmt::format(R"({{"ph": "X", "cat": "overhead", )"
                           R"("name": "Capture ended early: records dropped", "pid": -1, )"
                           R"("tid": 0, "ts": {}, "dur": 0.000}})",
                           Ts(last)));
    s_.warnings.push_back(fmt::format(
        "process {} ended before its capture was finished (killed?): records still in its "
        "buffers are missing",
        r_.process.pid));
  }
}

std::string Converter::Document() {
  std::string doc = "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [";
  bool first = true;
  std::vector<const DeviceRecord*> devices;
  for (const DeviceRecord& d : r_.devices) devices.push_back(&d);
  std::sort(devices.begin(), devices.end(),
            [](const DeviceRecord* a, const DeviceRecord* b) { return a->id < b->id; });
  for (const DeviceRecord* d : devices) {
    doc += fmt::format(
        R"({}{{"id": {}, "name": "{}", "totalGlobalMem": {}, "computeMajor": {}, )"
        R"("computeMinor": {}, "maxThreadsPerBlock": {}, "maxThreadsPerMultiprocessor": {}, )"
        R"("regsPerBlock": {}, "regsPerMultiprocessor": {}, "warpSize": {}, )"
        R"("sharedMemPerBlock": {}, "sharedMemPerMultiprocessor": {}, "numSms": {}}})",
        first ? "\n    " : ",\n    ", d->id, Str(d->name), d->global_memory_bytes,
        d->compute_major, d->compute_minor, d->max_threads_per_block,
        d->max_warps_per_sm * std::max(1u, d->threads_per_warp), d->max_registers_per_block,
        d->max_registers_per_sm, d->threads_per_warp, d->max_shared_memory_per_block,
        d->max_shared_memory_per_sm, d->sm_count);
    first = false;
  }
  doc += "],\n";
  const ProcessInfo& p = r_.process;
  if (p.rank >= 0) {
    doc += fmt::format("  \"distributedInfo\": {{\"rank\": {}, \"world_size\": {}}},\n", p.rank,
                       p.world_size >= 0 ? p.world_size : p.rank + 1);
  }
  if (p.cupti_version != 0) doc += fmt::format("  \"cupti_version\": {},\n", p.cupti_version);
  doc += fmt::format("  \"host_name\": \"{}\",\n", JsonEscape(p.host));
  doc += fmt::format(
      "  \"tracelint_capture\": {{\"pid\": {}, \"command\": \"{}\", \"dropped_records\": {}, "
      "\"unmatched_nvtx_ranges\": {}, \"finished\": {}}},\n",
      p.pid, JsonEscape(p.command), s_.dropped_records, s_.unmatched_ranges,
      r_.has_end && !r_.truncated ? "true" : "false");
  doc += fmt::format("  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": {},\n",
                     base_ns_);
  doc += "  \"traceEvents\": [\n";
  // Metadata events name the tracks, as Kineto does.
  std::vector<std::string> meta;
  meta.push_back(fmt::format(R"({{"ph": "M", "name": "process_name", "pid": {}, "tid": 0, )"
                             R"("args": {{"name": "{}"}}}})",
                             p.pid, JsonEscape(p.command.substr(0, p.command.find(' ')))));
  std::set<uint32_t> device_pids;
  for (const auto& [device, stream] : streams_) device_pids.insert(device);
  for (uint32_t d : device_pids) {
    meta.push_back(fmt::format(R"({{"ph": "M", "name": "process_name", "pid": {0}, "tid": 0, )"
                               R"("args": {{"name": "GPU {0}"}}}})",
                               d));
    meta.push_back(fmt::format(R"({{"ph": "M", "name": "process_labels", "pid": {0}, )"
                               R"("tid": 0, "args": {{"labels": "GPU {0}"}}}})",
                               d));
  }
  for (const auto& [device, stream] : streams_) {
    meta.push_back(fmt::format(R"({{"ph": "M", "name": "thread_name", "pid": {}, "tid": {}, )"
                               R"("args": {{"name": "stream {} "}}}})",
                               device, stream, stream));
  }
  for (const auto& [pid, tid] : threads_) {
    meta.push_back(fmt::format(R"({{"ph": "M", "name": "thread_name", "pid": {}, "tid": {}, )"
                               R"("args": {{"name": "thread {}"}}}})",
                               pid, tid, tid));
  }
  std::stable_sort(out_.begin(), out_.end(), [](const Out& a, const Out& b) {
    return a.ts_ns != b.ts_ns ? a.ts_ns < b.ts_ns : a.seq < b.seq;
  });
  first = true;
  for (const std::string& m : meta) {
    doc += first ? "  " : ",\n  ";
    doc += m;
    first = false;
  }
  for (const Out& o : out_) {
    doc += first ? "  " : ",\n  ";
    doc += o.json;
    first = false;
  }
  doc += fmt::format("\n  ],\n  \"traceName\": \"{}\"\n}}\n",
                     JsonEscape(CaptureTraceFileName(p)));
  return doc;
}

std::string Converter::Run() {
  for (const ContextRecord& c : r_.contexts) context_device_[c.context_id] = c.device_id;
  for (const KernelRecord& k : r_.kernels) context_device_.emplace(k.context_id, k.device_id);
  for (const DeviceRecord& d : r_.devices) devices_[d.id] = &d;
  ComputeBase();
  Apis();  // first: device activities draw their flows to these calls
  Kernels();
  Copies();
  Memsets();
  Graphs();
  Syncs();
  Markers();
  Overheads();
  return Document();
}

}  // namespace

std::string ApiDisplayName(std::string_view name) {
  std::string out(name);
  // "_v7000": CUPTI's version suffix (4+ digits; "cuMemcpyHtoD_v2" keeps its _v2).
  size_t v = out.rfind("_v");
  if (v != std::string::npos && out.size() - v - 2 >= 4 &&
      std::all_of(out.begin() + static_cast<std::ptrdiff_t>(v) + 2, out.end(),
                  [](char c) { return c >= '0' && c <= '9'; })) {
    out.resize(v);
  }
  for (std::string_view suffix : {"_ptsz", "_ptds"}) {
    if (out.size() > suffix.size() && out.ends_with(suffix)) out.resize(out.size() - suffix.size());
  }
  return out;
}

std::string MemcpyName(CopyKind kind, MemoryKind src, MemoryKind dst) {
  return fmt::format("Memcpy {} ({} -> {})", CopyKindName(kind), MemoryKindName(src),
                     MemoryKindName(dst));
}

std::string DemangleKernelName(const std::string& name) {
  if (!name.starts_with("_Z")) return name;
  int status = 0;
  char* demangled = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return name;
  std::string out(demangled);
  std::free(demangled);
  return out;
}

std::string CaptureTraceFileName(const ProcessInfo& p) {
  std::string host = p.host.empty() ? "host" : p.host;
  // Host names never hold a path separator, but the file name must not.
  std::replace(host.begin(), host.end(), '/', '_');
  if (p.rank >= 0) return fmt::format("{}.{}.rank{}.pt.trace.json", host, p.pid, p.rank);
  return fmt::format("{}.{}.pt.trace.json", host, p.pid);
}

std::string CaptureToKinetoJson(const CaptureRecords& records, const ConvertOptions& options,
                                ConvertSummary* summary) {
  ConvertSummary local;
  Converter c(records, options, summary ? *summary : local);
  return c.Run();
}

}  // namespace tracelint::capture
