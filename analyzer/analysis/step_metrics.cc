#include "analyzer/analysis/step_metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/device_activity.h"
#include "analyzer/analysis/hta_breakdown.h"
#include "analyzer/analysis/interval_set.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/model/accelerator.h"

namespace tracelint {
namespace {

// What the metrics need from one kernel.
struct KernelFacts {
  SliceId slice = kNoIndex;
  int device = -1;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  double sm_value = -1;   // min(blocks / SMs, 1); -1 unknown
  double occupancy = -1;  // 0..1; -1 unknown
  bool tensor_core = false;
  bool communication = false;   // collective kernel or launched by a collective op
  SliceId outer_op = kNoIndex;  // outermost cpu_op under the step that launched it
};

// Host-side category sets of the rank (steps clip them).
struct HostSets {
  IntervalSet communication;
  IntervalSet runtime;
  IntervalSet data_loader;
  IntervalSet cpu_exec;
};

// Device-side category sets of one device.
struct DeviceSets {
  int device = -1;
  IntervalSet kernel;         // kernels not launched by a collective op
  IntervalSet communication;  // collective kernels u host collective ops
  const DeviceActivity* activity = nullptr;
  // Piecewise-constant estimated SM efficiency: (start, end, value).
  std::vector<std::pair<Interval, double>> sm_segments;
};

bool IsHostTrack(const Timeline& tl, SliceId s) {
  return tl.tracks()[tl.slices().track[s]].kind == TrackKind::kHostThread;
}

HostSets CollectHostSets(const Timeline& tl) {
  const SliceColumns& c = tl.slices();
  std::vector<Interval> comm, runtime, loader, cpu;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (!IsHostTrack(tl, s) || c.dur_ns[s] <= 0) continue;
    Interval iv{c.ts_ns[s], c.end_ns(s)};
    EventKind k = c.kind[s];
    if (k == EventKind::kRuntime || k == EventKind::kDriver) {
      runtime.push_back(iv);
      continue;
    }
    // Python frames are not ops: counting them would make CPU Exec cover
    // every instant a Python frame is open (the whole step under with_stack),
    // which the TensorBoard plugin never does.
    if (k != EventKind::kCpuOp && k != EventKind::kUserAnnotation) continue;
    if (tl.HasFlag(s, kFlagStepMarker)) continue;
    if (tl.HasFlag(s, kFlagCollective)) comm.push_back(iv);
    if (tl.HasFlag(s, kFlagDataLoader)) loader.push_back(iv);
    cpu.push_back(iv);
  }
  return {IntervalSet::FromUnsorted(std::move(comm)), IntervalSet::FromUnsorted(std::move(runtime)),
          IntervalSet::FromUnsorted(std::move(loader)), IntervalSet::FromUnsorted(std::move(cpu))};
}

// The first tensor dtype in a Kineto "Input type" list
// ('["c10::BFloat16", "c10::BFloat16", ""]').
std::string_view FirstTensorDtype(std::string_view list) {
  size_t pos = 0;
  while (true) {
    size_t open = list.find('"', pos);
    if (open == std::string_view::npos) return {};
    size_t close = list.find('"', open + 1);
    if (close == std::string_view::npos) return {};
    std::string_view item = list.substr(open + 1, close - open - 1);
    if (ClassifyDtype(item) != DtypeClass::kUnknown) return item;
    pos = close + 1;
  }
}

std::string_view OpDtype(const Timeline& tl, SliceId op) {
  if (op == kNoIndex) return {};
  const Arg* arg = tl.FindArg(op, "Input type");
  if (arg == nullptr || arg->value.type != ArgValue::Type::kString) return {};
  return FirstTensorDtype(tl.str(arg->value.s));
}

}  // namespace

std::optional<double> KernelSmFill(const Timeline& tl, SliceId kernel) {
  const DeviceDetails* d = tl.details(kernel);
  if (d == nullptr) return std::nullopt;
  const DeviceInfo* info =
      tl.metadata().FindDevice(tl.tracks()[tl.slices().track[kernel]].device);
  const int64_t blocks = d->BlockCount();
  if (blocks > 0 && info != nullptr && info->sm_count > 0) {
    return static_cast<double>(blocks) / info->sm_count;
  }
  if (d->blocks_per_sm >= 0) return static_cast<double>(d->blocks_per_sm);
  return std::nullopt;
}

namespace {

std::vector<KernelFacts> CollectKernels(const Timeline& tl) {
  const SliceColumns& c = tl.slices();
  absl::flat_hash_map<StringId, KernelClass> by_name;
  absl::flat_hash_map<std::pair<StringId, std::string>, KernelClass> by_name_and_dtype;
  std::vector<KernelFacts> out;
  for (SliceId s = 0; s < c.size(); ++s) {
    const Track& track = tl.tracks()[c.track[s]];
    if (track.kind != TrackKind::kDeviceStream || c.kind[s] != EventKind::kKernel) continue;
    KernelFacts k;
    k.slice = s;
    k.device = track.device;
    k.start_ns = c.ts_ns[s];
    k.end_ns = c.end_ns(s);
    k.communication = tl.HasFlag(s, kFlagCollective);

    // Walk from the launch call up to the step marker: the innermost cpu_op
    // gives the dtype, the outermost the "top ops" row, and any collective
    // op on the way makes the kernel communication.
    SliceId innermost_op = kNoIndex;
    for (SliceId cur = c.launch[s]; cur != kNoIndex; cur = c.parent[cur]) {
      if (tl.HasFlag(cur, kFlagStepMarker)) break;
      if (tl.HasFlag(cur, kFlagCollective)) k.communication = true;
      if (c.kind[cur] == EventKind::kCpuOp) {
        if (innermost_op == kNoIndex) innermost_op = cur;
        k.outer_op = cur;
      }
    }

    auto [it, inserted] = by_name.try_emplace(c.name[s]);
    if (inserted) it->second = ClassifyKernel(tl.str(c.name[s]));
    KernelClass kc = it->second;
    if (kc.tc == TensorCoreUse::kUnknown && kc.family != KernelFamily::kElementwiseOther) {
      std::string_view dtype = OpDtype(tl, innermost_op);
      if (!dtype.empty()) {
        auto [cached, added] =
            by_name_and_dtype.try_emplace(std::make_pair(c.name[s], std::string(dtype)));
        if (added) cached->second = ClassifyKernel(tl.str(c.name[s]), dtype);
        kc = cached->second;
      }
    }
    k.tensor_core = kc.tc == TensorCoreUse::kYes;

    if (std::optional<double> fill = KernelSmFill(tl, s)) k.sm_value = std::min(1.0, *fill);
    if (const DeviceDetails* d = tl.details(s)) {
      // A kernel that ran had some warps resident: Kineto writes 0 when the
      // occupancy calculator failed (e.g. opt-in shared memory above the
      // default 48 KiB it assumes), so 0 is unknown, not a measurement.
      if (d->est_achieved_occupancy_pct > 0) {
        k.occupancy = std::min(100.0, static_cast<double>(d->est_achieved_occupancy_pct)) / 100;
      }
    }
    out.push_back(k);
  }
  return out;
}

// The TensorBoard plugin's merge of concurrent kernels: at each instant the
// efficiencies of the running kernels add up, capped at 1. docs/design/domain.md's sum
// over kernels is the same wherever kernels do not overlap; the cap keeps the
// estimate a fraction when they do.
std::vector<std::pair<Interval, double>> SmSegments(const std::vector<KernelFacts>& kernels,
                                                    int device) {
  std::vector<std::pair<TimeNs, double>> edges;
  for (const KernelFacts& k : kernels) {
    if (k.device != device || k.sm_value <= 0 || k.end_ns <= k.start_ns) continue;
    edges.push_back({k.start_ns, k.sm_value});
    edges.push_back({k.end_ns, -k.sm_value});
  }
  std::sort(edges.begin(), edges.end());
  std::vector<std::pair<Interval, double>> out;
  double level = 0;
  for (size_t i = 0; i < edges.size(); ++i) {
    level += edges[i].second;
    if (level < 1e-9) level = 0;  // float drift after removals
    if (i + 1 < edges.size() && edges[i + 1].first > edges[i].first && level > 0) {
      out.push_back({{edges[i].first, edges[i + 1].first}, std::min(level, 1.0)});
    }
  }
  return out;
}

double SmIntegral(const std::vector<std::pair<Interval, double>>& segments, TimeNs start_ns,
                  TimeNs end_ns) {
  auto it = std::lower_bound(
      segments.begin(), segments.end(), start_ns,
      [](const std::pair<Interval, double>& s, TimeNs t) { return s.first.end_ns <= t; });
  double total = 0;
  for (; it != segments.end() && it->first.start_ns < end_ns; ++it) {
    TimeNs lo = std::max(start_ns, it->first.start_ns);
    TimeNs hi = std::min(end_ns, it->first.end_ns);
    if (hi > lo) total += it->second * static_cast<double>(hi - lo);
  }
  return total;
}

double Ratio(double num, double den) { return den > 0 ? num / den : 0; }

// A share of a whole: in [0, 1] even when the parts are sums that saturate
// or overlap (huge in-range kernel durations summed past int64 on one side
// of the ratio and not the other).
double UnitShare(double num, double den) {
  double r = Ratio(num, den);
  return std::isfinite(r) ? std::clamp(r, 0.0, 1.0) : 0.0;
}

// Ratios and optional estimates from the raw sums.
void Finish(DeviceMetrics& m) {
  m.gpu_utilization =
      UnitShare(static_cast<double>(m.kernel_busy_ns), static_cast<double>(m.step_ns));
  m.busy_including_copies =
      UnitShare(static_cast<double>(m.busy_ns), static_cast<double>(m.step_ns));
  m.est_sm_efficiency.reset();
  m.est_achieved_occupancy.reset();
  m.tensor_core_kernel_share.reset();
  m.sm_efficiency_coverage.reset();
  if (m.kernel_ns > 0) {
    m.sm_efficiency_coverage =
        UnitShare(static_cast<double>(m.sm_dims_known_ns), static_cast<double>(m.kernel_ns));
  }
  if (m.sm_efficiency_known && m.step_ns > 0 &&
      m.sm_efficiency_coverage.value_or(0) >= kMinSmEfficiencyCoverage) {
    m.est_sm_efficiency = UnitShare(m.sm_efficiency_ns, static_cast<double>(m.step_ns));
  }
  if (m.occupancy_known_ns > 0) {
    m.est_achieved_occupancy =
        UnitShare(m.occupancy_weighted_ns, static_cast<double>(m.occupancy_known_ns));
  }
  if (m.kernel_ns > 0) {
    m.tensor_core_kernel_share = UnitShare(static_cast<double>(m.tensor_core_kernel_ns),
                                           static_cast<double>(m.kernel_ns));
  }
}

// Priority attribution: each instant of [start, end) goes to the first
// category whose set covers it.
std::array<TimeNs, kStepCategoryCount> Breakdown(const DeviceSets& d, const HostSets& h,
                                                 const Step& step) {
  const TimeNs start_ns = step.start_ns, end_ns = step.end_ns;
  std::array<TimeNs, kStepCategoryCount> out{};
  // One-time work cut out of the step belongs to no category.
  IntervalSet remaining = step.Judged();
  const IntervalSet none;
  const IntervalSet* order[kStepCategoryCount - 1] = {
      &d.kernel,
      d.activity ? &d.activity->memcpy : &none,
      d.activity ? &d.activity->memset : &none,
      &d.communication,
      &h.runtime,
      &h.data_loader,
      &h.cpu_exec};
  for (int i = 0; i < kStepCategoryCount - 1; ++i) {
    IntervalSet piece = order[i]->Clip(start_ns, end_ns).Intersect(remaining);
    out[i] = piece.TotalNs();
    if (out[i] > 0) remaining = remaining.Subtract(piece);
  }
  out[static_cast<int>(StepCategory::kOther)] = remaining.TotalNs();
  return out;
}

void AddInto(DeviceMetrics& sum, const DeviceMetrics& m) {
  sum.step_ns += m.step_ns;
  sum.kernel_busy_ns += m.kernel_busy_ns;
  sum.busy_ns += m.busy_ns;
  for (int i = 0; i < kStepCategoryCount; ++i) sum.breakdown_ns[i] += m.breakdown_ns[i];
  // Durations of overlapping kernels can sum past int64 in a hostile trace.
  sum.kernel_ns = SaturatingAddNs(sum.kernel_ns, m.kernel_ns);
  sum.tensor_core_kernel_ns = SaturatingAddNs(sum.tensor_core_kernel_ns, m.tensor_core_kernel_ns);
  sum.sm_efficiency_ns += m.sm_efficiency_ns;
  sum.occupancy_weighted_ns += m.occupancy_weighted_ns;
  sum.occupancy_known_ns = SaturatingAddNs(sum.occupancy_known_ns, m.occupancy_known_ns);
  sum.sm_efficiency_known = sum.sm_efficiency_known || m.sm_efficiency_known;
  sum.sm_dims_known_ns = SaturatingAddNs(sum.sm_dims_known_ns, m.sm_dims_known_ns);
}

void ComputeTopLists(const Timeline& tl, const StepSet& steps,
                     const std::vector<KernelFacts>& kernels, StepMetrics& out) {
  const SliceColumns& c = tl.slices();
  std::map<std::string_view, KernelStat> by_kernel;
  std::map<std::string_view, OpStat> by_op;
  absl::flat_hash_set<SliceId> ops_seen;
  // Keys of the two pseudo-ops, outside the string pool's ids.
  constexpr StringId kUnlinkedKey = UINT32_MAX;
  constexpr StringId kNoHostOpKey = UINT32_MAX - 1;
  absl::flat_hash_map<StringId, KernelStat*> kernel_by_id;
  absl::flat_hash_map<StringId, OpStat*> op_by_id;
  for (const KernelFacts& k : kernels) {
    // A kernel belongs to the step it starts in (steps are disjoint).
    auto step = std::upper_bound(steps.steps.begin(), steps.steps.end(), k.start_ns,
                                 [](TimeNs t, const Step& s) { return t < s.end_ns; });
    if (step == steps.steps.end() || !step->Covers(k.start_ns)) continue;
    TimeNs dur_ns = k.end_ns - k.start_ns;
    // The name-ordered maps are looked up once per distinct name; after
    // that an id lookup finds the (stable) map node.
    auto [kernel_it, new_kernel] = kernel_by_id.try_emplace(c.name[k.slice], nullptr);
    if (new_kernel) kernel_it->second = &by_kernel[tl.str(c.name[k.slice])];
    KernelStat& ks = *kernel_it->second;
    ++ks.count;
    ks.total_ns = SaturatingAddNs(ks.total_ns, dur_ns);
    const StringId op_key = c.launch[k.slice] == kNoIndex ? kUnlinkedKey
                            : k.outer_op == kNoIndex      ? kNoHostOpKey
                                                          : c.name[k.outer_op];
    auto [op_it, new_op] = op_by_id.try_emplace(op_key, nullptr);
    if (new_op) {
      std::string_view op_name = op_key == kUnlinkedKey ? kUnlinkedKernelName
                                 : op_key == kNoHostOpKey ? kNoHostOpName
                                                          : tl.str(op_key);
      op_it->second = &by_op[op_name];
    }
    OpStat& os = *op_it->second;
    ++os.kernel_count;
    os.device_ns = SaturatingAddNs(os.device_ns, dur_ns);
    // Pseudo-ops count kernels, not op instances.
    if (k.outer_op == kNoIndex || ops_seen.insert(k.outer_op).second) ++os.count;
    out.total_kernel_ns = SaturatingAddNs(out.total_kernel_ns, dur_ns);
  }
  double total = static_cast<double>(out.total_kernel_ns);
  for (auto& [name, ks] : by_kernel) {
    ks.name = std::string(name);
    ks.mean_ns = ks.total_ns / ks.count;
    ks.share = UnitShare(static_cast<double>(ks.total_ns), total);
    ks.kernel_class = ClassifyKernel(name);
    out.top_kernels.push_back(std::move(ks));
  }
  for (auto& [name, os] : by_op) {
    os.name = std::string(name);
    os.mean_device_ns = os.count > 0 ? os.device_ns / os.count : 0;
    os.share = UnitShare(static_cast<double>(os.device_ns), total);
    out.top_ops.push_back(std::move(os));
  }
  // Stable sorts over name-ordered input: ties stay in name order.
  std::stable_sort(out.top_kernels.begin(), out.top_kernels.end(),
                   [](const KernelStat& a, const KernelStat& b) { return a.total_ns > b.total_ns; });
  std::stable_sort(out.top_ops.begin(), out.top_ops.end(),
                   [](const OpStat& a, const OpStat& b) { return a.device_ns > b.device_ns; });
}

}  // namespace

std::string_view StepCategoryName(StepCategory c) {
  switch (c) {
    case StepCategory::kKernel: return "kernel";
    case StepCategory::kMemcpy: return "memcpy";
    case StepCategory::kMemset: return "memset";
    case StepCategory::kCommunication: return "communication";
    case StepCategory::kRuntime: return "runtime";
    case StepCategory::kDataLoader: return "data_loader";
    case StepCategory::kCpuExec: return "cpu_exec";
    case StepCategory::kOther: return "other";
  }
  return "other";
}

StepMetrics ComputeStepMetrics(AnalysisContext& ctx) {
  return ComputeStepMetrics(ctx, ctx.steps());
}

StepMetrics ComputeStepMetrics(AnalysisContext& ctx, const StepSet& steps) {
  const Timeline& tl = ctx.timeline();
  const std::vector<DeviceActivity>& activity = ctx.device_activity();
  StepMetrics out;

  std::vector<KernelFacts> kernels = CollectKernels(tl);
  HostSets host = CollectHostSets(tl);

  // One entry per device with activity; a host-only rank still gets a
  // breakdown (all host categories and Other) under device -1.
  std::vector<DeviceSets> devices;
  for (const DeviceActivity& a : activity) {
    DeviceSets d;
    d.device = a.device;
    d.activity = &a;
    std::vector<Interval> kernel, comm;
    for (const KernelFacts& k : kernels) {
      if (k.device != a.device) continue;
      (k.communication ? comm : kernel).push_back({k.start_ns, k.end_ns});
    }
    d.kernel = IntervalSet::FromUnsorted(std::move(kernel));
    d.communication = IntervalSet::FromUnsorted(std::move(comm)).Union(host.communication);
    d.sm_segments = SmSegments(kernels, a.device);
    devices.push_back(std::move(d));
  }
  if (devices.empty()) {
    DeviceSets d;
    d.communication = host.communication;
    devices.push_back(std::move(d));
  }
  absl::flat_hash_map<int, size_t> device_index;
  for (size_t i = 0; i < devices.size(); ++i) device_index[devices[i].device] = i;

  for (const Step& s : steps.steps) {
    StepRow row;
    row.number = s.number;
    row.start_ns = s.start_ns;
    row.end_ns = s.end_ns;
    for (const DeviceSets& d : devices) {
      DeviceMetrics m;
      m.device = d.device;
      m.step_ns = s.duration_ns();
      if (d.activity != nullptr) {
        m.kernel_busy_ns = s.OverlapNs(d.activity->kernels);
        m.busy_ns = s.OverlapNs(d.activity->all);
      }
      m.breakdown_ns = Breakdown(d, host, s);
      m.sm_efficiency_ns = SmIntegral(d.sm_segments, s.start_ns, s.end_ns);
      for (const Interval& cut : s.cut) {
        m.sm_efficiency_ns -= SmIntegral(d.sm_segments, cut.start_ns, cut.end_ns);
      }
      row.devices.push_back(m);
    }
    out.steps.push_back(std::move(row));
  }

  // Per-kernel sums, clipped to each step the kernel overlaps.
  for (const KernelFacts& k : kernels) {
    auto it = device_index.find(k.device);
    if (it == device_index.end()) continue;
    auto first = std::upper_bound(steps.steps.begin(), steps.steps.end(), k.start_ns,
                                  [](TimeNs t, const Step& s) { return t < s.end_ns; });
    for (auto st = first; st != steps.steps.end() && st->start_ns < k.end_ns; ++st) {
      TimeNs clipped_ns = std::min(k.end_ns, st->end_ns) - std::max(k.start_ns, st->start_ns);
      for (const Interval& cut : st->cut) {
        clipped_ns -= std::max<TimeNs>(
            0, std::min(k.end_ns, cut.end_ns) - std::max(k.start_ns, cut.start_ns));
      }
      if (clipped_ns <= 0) continue;
      DeviceMetrics& m = out.steps[st - steps.steps.begin()].devices[it->second];
      m.kernel_ns = SaturatingAddNs(m.kernel_ns, clipped_ns);
      if (k.tensor_core) {
        m.tensor_core_kernel_ns = SaturatingAddNs(m.tensor_core_kernel_ns, clipped_ns);
      }
      if (k.sm_value >= 0) {
        m.sm_efficiency_known = true;
        m.sm_dims_known_ns = SaturatingAddNs(m.sm_dims_known_ns, clipped_ns);
      }
      if (k.occupancy >= 0) {
        m.occupancy_weighted_ns += k.occupancy * static_cast<double>(clipped_ns);
        m.occupancy_known_ns = SaturatingAddNs(m.occupancy_known_ns, clipped_ns);
      }
    }
  }

  out.summary.resize(devices.size());
  for (size_t i = 0; i < devices.size(); ++i) out.summary[i].device = devices[i].device;
  for (StepRow& row : out.steps) {
    for (size_t i = 0; i < row.devices.size(); ++i) {
      Finish(row.devices[i]);
      AddInto(out.summary[i], row.devices[i]);
    }
  }
  for (DeviceMetrics& m : out.summary) Finish(m);
  // Tensor Cores are NVIDIA's: a TPU's or MTIA's matrix units, or an AMD
  // GPU's, are not classified by these kernel names, so 0% would be a claim.
  auto no_tensor_cores = [&](int device) {
    if (AcceleratorName(tl.metadata()) != "GPU") return true;
    const std::vector<DeviceInfo>& devices = tl.metadata().devices;
    const DeviceInfo* info = tl.metadata().FindDevice(device);
    if (info != nullptr) return !info->vendor.empty() && info->vendor != "NVIDIA";
    // A device the properties do not name (ROCm numbers them its own way):
    // a rank's devices are all of one vendor.
    return !devices.empty() && std::all_of(devices.begin(), devices.end(), [](const DeviceInfo& d) {
      return !d.vendor.empty() && d.vendor != "NVIDIA";
    });
  };
  for (DeviceMetrics& m : out.summary) {
    if (no_tensor_cores(m.device)) m.tensor_core_kernel_share.reset();
  }
  for (StepRow& row : out.steps) {
    for (DeviceMetrics& m : row.devices) {
      if (no_tensor_cores(m.device)) m.tensor_core_kernel_share.reset();
    }
  }
  out.step_count = static_cast<int64_t>(steps.steps.size());
  out.total_step_ns = steps.TotalNs();
  out.mean_step_ns = out.step_count > 0 ? out.total_step_ns / out.step_count : 0;

  out.hta = ComputeHtaBreakdown(tl);

  ComputeTopLists(tl, steps, kernels, out);
  return out;
}

}  // namespace tracelint
