#include "tools/gen_kineto/step_simulator.h"

#include <algorithm>

#include "fmt/format.h"

namespace tracelint::gen {

StepSimulator::StepSimulator(const GeneratorOptions& options,
                             TraceWriter* writer)
    : options_(options),
      writer_(writer),
      rng_(options.seed * 1000003 + static_cast<uint64_t>(options.rank)),
      catalog_(BuildKernelCatalog()),
      pid_(2910249 + 1000 * int64_t{options.rank}),
      tid_{pid_, pid_ + 9503},
      device_(options.rank % 8) {
  group_ranks_ = "[";
  for (int r = 0; r < options.world_size; ++r) {
    group_ranks_ += fmt::format("{}{}", r == 0 ? "" : ", ", r);
  }
  group_ranks_ += "]";
  for (int i = 0; i < options.layers; ++i) {
    module_names_.push_back(fmt::format("nn.Module: Conv2d_{}", i));
    module_names_.push_back(fmt::format("nn.Module: BatchNorm2d_{}", i));
    module_names_.push_back(fmt::format("nn.Module: ReLU_{}", i));
  }
  now_[kMain] = now_[kAutograd] = kBaseTsNs + 50000;
  stream_now_[kCompute] = stream_now_[kNccl] = kBaseTsNs;
}

size_t StepSimulator::Open(Thread t, RecKind kind, const char* name) {
  Advance(t, 2000, 9000);
  Rec& r = recs_.emplace_back();
  r.kind = kind;
  r.name = name;
  r.pid = pid_;
  r.tid = tid_[t];
  r.ts_ns = now_[t];
  if (kind == RecKind::kPythonFunction) {
    r.python_id = next_python_id_++;
    r.python_parent_id = python_stack_.empty() ? 0 : python_stack_.back();
    python_stack_.push_back(r.python_id);
  } else {
    r.external_id = next_external_id_++;
    r.record_function_id = next_record_function_id_++;
  }
  r.ev_idx = next_ev_idx_++;
  stack_[t].push_back(recs_.size() - 1);
  return recs_.size() - 1;
}

void StepSimulator::Close(Thread t) {
  size_t i = stack_[t].back();
  stack_[t].pop_back();
  Advance(t, 300, 2500);
  recs_[i].dur_ns = now_[t] - recs_[i].ts_ns;
  if (recs_[i].kind == RecKind::kPythonFunction) python_stack_.pop_back();
}

int64_t StepSimulator::InnermostExternalId(Thread t) const {
  for (auto it = stack_[t].rbegin(); it != stack_[t].rend(); ++it) {
    if (recs_[*it].external_id != 0) return recs_[*it].external_id;
  }
  return 0;
}

Rec& StepSimulator::HostRec(Thread t, RecKind kind, const char* name,
                            int64_t dur_ns) {
  Rec& r = recs_.emplace_back();
  r.kind = kind;
  r.name = name;
  r.pid = pid_;
  r.tid = tid_[t];
  r.ts_ns = now_[t];
  r.dur_ns = dur_ns;
  return r;
}

void StepSimulator::Flow(RecKind kind, bool fwdbwd, int64_t id, int64_t pid,
                         int64_t tid, int64_t ts_ns) {
  Rec& f = recs_.emplace_back();
  f.kind = kind;
  f.fwdbwd = fwdbwd;
  f.correlation = id;
  f.pid = pid;
  f.tid = tid;
  f.ts_ns = ts_ns;
}

void StepSimulator::Runtime(Thread t, const char* name, int cbid) {
  Advance(t, 500, 2000);
  int64_t ext = InnermostExternalId(t);
  Rec& r = HostRec(t, RecKind::kRuntime, name, rng_.Uniform(700, 3500));
  r.external_id = ext;
  r.cbid = cbid;
  r.correlation = next_correlation_++;
  int64_t ts = r.ts_ns;
  now_[t] += r.dur_ns;
  // Kineto binds an ac2g flow end to every runtime call it correlates, even
  // without a flow start; the reference trace has ~1.3 of these per launch.
  Flow(RecKind::kFlowEnd, false, r.correlation, pid_, tid_[t], ts);
}

void StepSimulator::DeviceActivity(Rec& launch, RecKind kind,
                                   const char* name, Stream s,
                                   int64_t dur_ns) {
  int64_t correlation = launch.correlation;
  int64_t external_id = launch.external_id;
  int64_t earliest = launch.ts_ns + rng_.Uniform(4000, 15000);
  Flow(RecKind::kFlowStart, false, correlation, pid_, launch.tid, launch.ts_ns);
  // `launch` may dangle from here on (recs_ grows).
  int64_t ts = std::max(stream_now_[s], earliest);
  if (s == kNccl) ts = std::max(ts, stream_now_[kCompute]);  // event wait
  Rec& d = recs_.emplace_back();
  d.kind = kind;
  d.name = name;
  d.pid = device_;
  d.tid = stream_id_[s];
  d.stream = stream_id_[s];
  d.ts_ns = ts;
  d.dur_ns = dur_ns;
  d.external_id = external_id;
  d.correlation = correlation;
  stream_now_[s] = ts + dur_ns;
  for (size_t p : open_phases_) {
    if (phases_[p].stream != s) continue;
    phases_[p].first_ns = std::min(phases_[p].first_ns, ts);
    phases_[p].last_end_ns = std::max(phases_[p].last_end_ns, ts + dur_ns);
  }
  Flow(RecKind::kFlowEnd, false, correlation, device_, stream_id_[s], ts);
}

void StepSimulator::Launch(Thread t, const KernelSpec& k, Stream s,
                           const CollectiveArgs* collective, int cbid) {
  Advance(t, 500, 3000);
  int64_t ext = InnermostExternalId(t);
  Rec& r = HostRec(t, RecKind::kRuntime,
                   cbid == kCbidLaunchKernelExC ? "cudaLaunchKernelExC"
                                                : "cudaLaunchKernel",
                   rng_.Uniform(3500, 14000));
  r.external_id = ext;
  r.cbid = cbid;
  r.correlation = next_correlation_++;
  now_[t] += r.dur_ns;
  DeviceActivity(r, RecKind::kKernel, k.name.c_str(), s,
                 rng_.Jitter(k.mean_dur_ns));
  Rec& kernel = recs_[recs_.size() - 2];  // followed by its flow end
  kernel.kernel = &k;
  kernel.collective = collective;
  if (collective != nullptr) ++nccl_kernels_;
}

void StepSimulator::Copy(Thread t, const char* name, int64_t bytes,
                         int64_t bytes_per_us, bool blocking) {
  Advance(t, 500, 3000);
  int64_t ext = InnermostExternalId(t);
  Rec& r = HostRec(t, RecKind::kRuntime, "cudaMemcpyAsync",
                   rng_.Uniform(6000, 30000));
  r.external_id = ext;
  r.cbid = 41;
  r.correlation = next_correlation_++;
  now_[t] += r.dur_ns;
  int64_t dur = 1500 + rng_.Jitter(bytes * 1000 / bytes_per_us);
  DeviceActivity(r, RecKind::kMemcpy, name, kCompute, dur);
  recs_[recs_.size() - 2].bytes = bytes;
  if (blocking) {
    Advance(t, 500, 1500);
    int64_t wait = std::max<int64_t>(stream_now_[kCompute] - now_[t], 0);
    Rec& sync = HostRec(t, RecKind::kRuntime, "cudaStreamSynchronize",
                        wait + rng_.Uniform(1000, 4000));
    sync.external_id = ext;
    sync.cbid = 131;
    sync.correlation = next_correlation_++;
    now_[t] += sync.dur_ns;
  }
}

void StepSimulator::Memset(Thread t, int64_t bytes) {
  Advance(t, 500, 3000);
  int64_t ext = InnermostExternalId(t);
  Rec& r = HostRec(t, RecKind::kRuntime, "cudaMemsetAsync",
                   rng_.Uniform(5000, 16000));
  r.external_id = ext;
  r.cbid = 51;
  r.correlation = next_correlation_++;
  now_[t] += r.dur_ns;
  DeviceActivity(r, RecKind::kMemset, "Memset (Device)", kCompute,
                 2000 + rng_.Jitter(bytes / 1300));
  recs_[recs_.size() - 2].bytes = bytes;
}

void StepSimulator::Memory(Thread t, int64_t bytes) {
  int64_t addr = next_addr_;
  if (bytes > 0) {
    live_allocations_.push_back({addr, bytes});
    next_addr_ += (bytes + 511) / 512 * 512;
  } else {
    // Frees release the most recent live block (activations die in
    // reverse order of creation during backward).
    if (live_allocations_.empty()) return;
    addr = live_allocations_.back().first;
    bytes = -live_allocations_.back().second;
    live_allocations_.pop_back();
  }
  Rec& r = HostRec(t, RecKind::kMemoryInstant, "[memory]", 0);
  r.bytes = bytes;
  r.addr = addr;
  total_allocated_ += bytes;
  constexpr int64_t kSegmentBytes = int64_t{2} << 20;
  total_reserved_ =
      std::max(total_reserved_, (total_allocated_ + kSegmentBytes - 1) /
                                    kSegmentBytes * kSegmentBytes);
  r.total_allocated = total_allocated_;
  r.total_reserved = total_reserved_;
  r.ev_idx = next_ev_idx_++;
}

size_t StepSimulator::OpenGpuPhase(size_t host_rec, Stream s) {
  Rec& g = recs_.emplace_back();
  g.kind = RecKind::kGpuUserAnnotation;
  g.name = recs_[host_rec].name;
  g.pid = device_;
  g.tid = stream_id_[s];
  g.external_id = recs_[host_rec].external_id;
  phases_.push_back({recs_.size() - 1, s});
  open_phases_.push_back(phases_.size() - 1);
  return phases_.size() - 1;
}

void StepSimulator::CloseGpuPhase(size_t phase) {
  open_phases_.erase(std::find(open_phases_.begin(), open_phases_.end(), phase));
  GpuPhase& p = phases_[phase];
  Rec& g = recs_[p.rec];
  if (p.first_ns == INT64_MAX) p.first_ns = p.last_end_ns = stream_now_[p.stream];
  // Kineto widens GPU annotations by 1 ns each side so they enclose kernels.
  g.ts_ns = p.first_ns - 1;
  g.dur_ns = p.last_end_ns - p.first_ns + 2;
}

void StepSimulator::Node(size_t op_rec, NodeKind kind, int layer,
                         int64_t activation_bytes, int params,
                         int64_t param_bytes) {
  AutogradNode n{kind, layer, next_sequence_++, next_fwdbwd_id_++,
                 activation_bytes, params, param_bytes};
  recs_[op_rec].sequence = n.sequence;
  recs_[op_rec].fwd_thread = 0;
  Flow(RecKind::kFlowStart, true, n.flow_id, pid_, tid_[kMain],
       recs_[op_rec].ts_ns);
  nodes_.push_back(n);
}

}  // namespace tracelint::gen
