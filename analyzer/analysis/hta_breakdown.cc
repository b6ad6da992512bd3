#include "analyzer/analysis/hta_breakdown.h"

#include <algorithm>
#include <map>
#include <set>

#include "analyzer/analysis/interval_set.h"
#include "analyzer/base/strings.h"

namespace tracelint {
namespace {

// What HTA loads as a GPU "kernel" (a row with a stream and a correlation
// id): kernels, copies, memsets and CUDA sync waits alike.
bool IsHtaGpuRow(const Timeline& tl, SliceId s) {
  EventKind k = tl.slices().kind[s];
  return IsDeviceActivity(k) || k == EventKind::kCudaSync;
}

struct PerDevice {
  std::vector<Interval> all;
  std::vector<Interval> compute;
  int64_t excluded = 0;
};

}  // namespace

HtaKernelType HtaKernelTypeOf(std::string_view name) {
  if (name.starts_with("nccl") || Contains(name, "gloo:")) return HtaKernelType::kCommunication;
  if (Contains(name, "Memcpy") || Contains(name, "Memset")) return HtaKernelType::kMemory;
  return HtaKernelType::kComputation;
}

std::vector<HtaBreakdown> ComputeHtaBreakdown(const Timeline& tl) {
  const SliceColumns& c = tl.slices();
  // Trace._filter_irrelevant_gpu_kernels: with two or more ProfilerStep
  // names, keep only GPU rows whose correlated host call starts before the
  // last ProfilerStep row starts. HTA's "CPU" rows include the GPU-side
  // ProfilerStep annotations (they carry no stream), so they count too.
  std::set<std::string_view> step_names;
  TimeNs last_step_start_ns = 0;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (!tl.HasFlag(s, kFlagStepMarker) && !tl.HasFlag(s, kFlagGpuStepMarker)) continue;
    step_names.insert(tl.str(c.name[s]));
    last_step_start_ns = std::max(last_step_start_ns, c.ts_ns[s]);
  }
  const bool filter = step_names.size() >= 2;

  // HTA's name rule only fits names Kineto writes; an XSpace trace names its
  // copies copy-start/copy-done and its collectives all-reduce.
  const bool by_kind = tl.metadata().format == "xspace";
  auto compute = [&](SliceId s) {
    if (!by_kind) return HtaKernelTypeOf(tl.str(c.name[s])) == HtaKernelType::kComputation;
    EventKind k = c.kind[s];
    return k != EventKind::kMemcpy && k != EventKind::kMemset &&
           !tl.HasFlag(s, kFlagCollective);
  };
  std::map<int, PerDevice> by_device;
  for (SliceId s = 0; s < c.size(); ++s) {
    const Track& track = tl.tracks()[c.track[s]];
    if (track.kind != TrackKind::kDeviceStream || !IsHtaGpuRow(tl, s)) continue;
    PerDevice& d = by_device[track.device];
    if (filter) {
      SliceId launch = c.launch[s];
      if (launch == kNoIndex || c.ts_ns[launch] >= last_step_start_ns) {
        ++d.excluded;
        continue;
      }
    }
    Interval iv{c.ts_ns[s], c.end_ns(s)};
    d.all.push_back(iv);
    if (compute(s)) d.compute.push_back(iv);
  }

  std::vector<HtaBreakdown> out;
  for (auto& [device, d] : by_device) {
    if (d.all.empty()) continue;
    IntervalSet all = IntervalSet::FromUnsorted(std::move(d.all));
    // Zero-length kernels leave no interval: such a device has no span.
    if (all.intervals().empty()) continue;
    HtaBreakdown h;
    h.device = device;
    h.span_start_ns = all.intervals().front().start_ns;
    h.span_end_ns = all.intervals().back().end_ns;
    TimeNs busy_ns = all.TotalNs();
    h.idle_ns = h.span_ns() - busy_ns;
    h.compute_ns = IntervalSet::FromUnsorted(std::move(d.compute)).TotalNs();
    h.non_compute_ns = busy_ns - h.compute_ns;
    h.excluded_activities = d.excluded;
    h.launch_filter = filter;
    h.by_kind = by_kind;
    out.push_back(h);
  }
  return out;
}

}  // namespace tracelint
