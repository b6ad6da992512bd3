// One-time work shown by the first call of something, beyond the kinds of
// step_phase.cc (docs/steady-state.md): TorchScript's profiling executor
// and fuser compiling on the first calls, TensorFlow's first-run cuDNN
// autotuning, and the first pageable copy of the window. Each is a first
// occurrence far slower than the later ones, with the device idle under it.
#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analyzer/analysis/step_phase.h"
#include "analyzer/base/strings.h"

namespace tracelint::step_phase_internal {
namespace {

// A silent stretch before a TorchScript first call this long is compiling
// (profiling runs, then NNC/nvfuser code generation and NVRTC).
constexpr TimeNs kTorchScriptCompileMinNs = 10'000'000;
// TensorFlow's first Conv2D on the GPU times cuDNN's algorithms on the host
// side: hundreds of ms; a steady Conv2D's host side takes microseconds.
constexpr TimeNs kTfAutotuneMinNs = 100'000'000;
// The first pageable copy of a window sets up staging buffers and pins
// memory; later ones take a fraction of it.
constexpr TimeNs kFirstPageableCopyMinNs = 10'000'000;
// Later occurrences take at most this fraction of the first.
constexpr TimeNs kFirstToSteadyRatio = 10;
// "Device idle" under an interval: less than this share of it is busy.
constexpr double kMaxBusyShare = 0.5;

bool IdleUnder(const IntervalSet& busy, TimeNs a, TimeNs b) {
  return b > a && static_cast<double>(busy.OverlapNs(a, b)) <
                      kMaxBusyShare * static_cast<double>(b - a);
}

bool IsHostTrack(const Timeline& tl, SliceId s) {
  return tl.tracks()[tl.slices().track[s]].kind == TrackKind::kHostThread;
}

// Where the host thread of `s` last did something before `s` began: the end
// of the latest earlier slice that ended by then, or the start of the
// innermost slice still open around it (a bounded scan back).
TimeNs SilentSince(const Timeline& tl, SliceId s) {
  const SliceColumns& c = tl.slices();
  auto [first, last] = tl.track_range(c.track[s]);
  const TimeNs ts = c.ts_ns[s];
  TimeNs since = std::numeric_limits<TimeNs>::min();
  int scanned = 0;
  for (SliceId i = s; i > first && scanned < 256; ++scanned) {
    --i;
    if (c.ts_ns[i] > ts) continue;
    if (c.end_ns(i) > ts) return std::max(since, c.ts_ns[i]);  // an ancestor
    since = std::max(since, c.end_ns(i));
  }
  return since == std::numeric_limits<TimeNs>::min() ? ts : since;
}

bool IsTorchScriptFirstCallOp(std::string_view name) {
  return name == "fallback_function" || name.starts_with("prim::FusionGroup") ||
         name.starts_with("prim::TensorExprGroup") || name.starts_with("prim::CudaFusionGroup");
}

bool IsTfConvOp(std::string_view name) {
  return name.starts_with("Conv2D") || name.starts_with("Conv3D") ||
         name.starts_with("DepthwiseConv2dNative") || name.starts_with("FusedConv2D") ||
         name.starts_with("_FusedConv2D");
}

// The first of a name's occurrences, when the later ones are fast.
template <typename Pred>
std::vector<SliceId> FirstOfEachName(const Timeline& tl, Pred keep) {
  const SliceColumns& c = tl.slices();
  absl::flat_hash_map<StringId, std::vector<SliceId>> by_name;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (keep(s)) by_name[c.name[s]].push_back(s);
  }
  std::vector<SliceId> out;
  for (auto& [name, slices] : by_name) {
    std::sort(slices.begin(), slices.end(), [&](SliceId a, SliceId b) {
      return c.ts_ns[a] != c.ts_ns[b] ? c.ts_ns[a] < c.ts_ns[b] : a < b;
    });
    out.push_back(slices.front());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

void FindFirstCallEvents(const Timeline& tl, const IntervalSet& device_busy,
                         std::vector<OneTimeEvent>& events) {
  const SliceColumns& c = tl.slices();
  auto add = [&](OneTimeKind kind, SliceId s, TimeNs a, TimeNs b) {
    events.push_back({kind, s, std::string(tl.str(c.name[s])), a, b});
  };
  // TorchScript: the first call of each fused op or fused kernel launch
  // ends a long silent stretch of its thread (the executor profiling runs
  // and the fuser compiling).
  std::vector<SliceId> firsts = FirstOfEachName(tl, [&](SliceId s) {
    return IsHostTrack(tl, s) && c.kind[s] == EventKind::kCpuOp &&
           IsTorchScriptFirstCallOp(tl.str(c.name[s]));
  });
  for (SliceId s : firsts) {
    const TimeNs since = SilentSince(tl, s);
    if (c.ts_ns[s] - since >= kTorchScriptCompileMinNs && IdleUnder(device_busy, since, c.ts_ns[s])) {
      add(OneTimeKind::kCompilation, s, since, c.ts_ns[s]);
    }
  }
  // ... and the first launch of each fused kernel (cuLaunchKernel of
  // "fused_*", NNC's names; "kernel_*" for nvfuser).
  absl::flat_hash_map<StringId, SliceId> first_launch_of_kernel;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (c.kind[s] != EventKind::kKernel || c.launch[s] == kNoIndex) continue;
    std::string_view kernel = tl.str(c.name[s]);
    if (!kernel.starts_with("fused_") && !kernel.starts_with("kernel_") &&
        !kernel.starts_with("CudaCodeGen::")) {
      continue;
    }
    const SliceId launch = c.launch[s];
    if (c.kind[launch] != EventKind::kDriver) continue;
    auto [it, added] = first_launch_of_kernel.try_emplace(c.name[s], launch);
    if (!added && c.ts_ns[launch] < c.ts_ns[it->second]) it->second = launch;
  }
  for (const auto& [kernel, launch] : first_launch_of_kernel) {
    const TimeNs since = SilentSince(tl, launch);
    if (c.ts_ns[launch] - since >= kTorchScriptCompileMinNs &&
        IdleUnder(device_busy, since, c.ts_ns[launch])) {
      add(OneTimeKind::kCompilation, launch, since, c.ts_ns[launch]);
    }
  }

  // TensorFlow: the first Conv2D of a name whose host side takes hundreds
  // of ms (cuDNN autotuning), the later ones a tenth of it at most.
  absl::flat_hash_map<StringId, std::vector<SliceId>> convs;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (c.kind[s] == EventKind::kCpuOp && IsHostTrack(tl, s) && IsTfConvOp(tl.str(c.name[s]))) {
      convs[c.name[s]].push_back(s);
    }
  }
  for (auto& [name, slices] : convs) {
    std::sort(slices.begin(), slices.end(), [&](SliceId a, SliceId b) {
      return c.ts_ns[a] != c.ts_ns[b] ? c.ts_ns[a] < c.ts_ns[b] : a < b;
    });
    const SliceId first = slices.front();
    if (c.dur_ns[first] < kTfAutotuneMinNs) continue;
    const bool later_fast = std::all_of(slices.begin() + 1, slices.end(), [&](SliceId s) {
      return c.dur_ns[s] <= c.dur_ns[first] / kFirstToSteadyRatio;
    });
    if (later_fast && IdleUnder(device_busy, c.ts_ns[first], c.end_ns(first))) {
      add(OneTimeKind::kAutotuning, first, c.ts_ns[first], c.end_ns(first));
    }
  }

  // The first pageable copy of the window, blocking for tens of ms: its
  // launch call, when the later pageable copies' calls are fast.
  std::vector<SliceId> pageable_calls;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (c.kind[s] != EventKind::kMemcpy || c.launch[s] == kNoIndex) continue;
    const DeviceDetails* d = tl.details(s);
    if (d == nullptr || (d->src != MemorySpace::kPageable && d->dst != MemorySpace::kPageable)) {
      continue;
    }
    pageable_calls.push_back(c.launch[s]);
  }
  if (!pageable_calls.empty()) {
    std::sort(pageable_calls.begin(), pageable_calls.end(), [&](SliceId a, SliceId b) {
      return c.ts_ns[a] != c.ts_ns[b] ? c.ts_ns[a] < c.ts_ns[b] : a < b;
    });
    pageable_calls.erase(std::unique(pageable_calls.begin(), pageable_calls.end()),
                         pageable_calls.end());
    const SliceId first = pageable_calls.front();
    const bool later_fast =
        std::all_of(pageable_calls.begin() + 1, pageable_calls.end(), [&](SliceId s) {
          return c.dur_ns[s] <= c.dur_ns[first] / kFirstToSteadyRatio;
        });
    if (c.dur_ns[first] >= kFirstPageableCopyMinNs && later_fast &&
        IdleUnder(device_busy, c.ts_ns[first], c.end_ns(first))) {
      add(OneTimeKind::kContextCreation, first, c.ts_ns[first], c.end_ns(first));
    }
  }
}

}  // namespace tracelint::step_phase_internal
