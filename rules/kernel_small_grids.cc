#include "rules/kernel_small_grids.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/device_activity.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/kernel_classify.h"
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/model/accelerator.h"
#include "fmt/format.h"
#include "rules/launch_context.h"

namespace tracelint {
namespace {

using rules_internal::ArgText;
using rules_internal::FindLaunchContext;
using rules_internal::FirstTensorDtype;
using rules_internal::Percent;
using rules_internal::SafeShare;

constexpr std::string_view kMinSmIdleShare = "MinSmIdleShare";
// The SM estimate needs launch dimensions on most of the kernel time, as the
// report's Est. SM efficiency does (step_metrics.h).
constexpr double kMinDimsCoverage = 0.5;
// Kernels this short are launch-sized work: fusing them is the fix.
constexpr TimeNs kShortKernelNs = 20 * kNsPerUs;
constexpr size_t kMaxTopItems = 5;

struct NameStat {
  TopItem item;
  double sm_idle_ns = 0;  // sum of duration x (1 - blocks/SMs), concurrency ignored
  int64_t blocks = 0;     // of the longest instance
  double fill = 0;        // its blocks / SMs
  TimeNs longest_ns = -1;
  KernelClass kclass;
  SliceId longest = kNoIndex;
};

struct DeviceGrids {
  int device = -1;
  const DeviceInfo* info = nullptr;
  TimeNs kernel_ns = 0;      // kernel durations in steps (clipped)
  TimeNs dims_known_ns = 0;  // ... of kernels whose blocks are known
  TimeNs candidate_ns = 0;   // ... of kernels with fewer blocks than SMs
  double sm_idle_ns = 0;     // SM-idle time inside them, concurrency counted
  std::vector<double> sm_idle_steps;
  std::map<std::string, NameStat> by_name;
};

// Why the device cannot be judged, or "".
std::string CannotJudge(const Timeline& tl, int device) {
  std::string_view accelerator = AcceleratorName(tl.metadata());
  if (accelerator != "GPU") {
    return fmt::format("{} {} is not a GPU; grids are judged against NVIDIA SMs only", accelerator,
                       device);
  }
  const DeviceInfo* info = tl.metadata().FindDevice(device);
  // Without device properties the kernels' own "blocks per SM" (CUPTI's,
  // so NVIDIA) still gives the fill; MeasureDevice needs one or the other.
  if (info == nullptr) return "";
  // ROCm traces take the grid from the launch call's arguments: work-items
  // on some paths (Tensile's hipExtModuleLaunchKernel), workgroups on
  // others, so blocks cannot be counted reliably.
  if (!rules_internal::IsNvidia(*info)) {
    return fmt::format(
        "device {} ({}) is not an NVIDIA GPU; its launch grids are not counted "
        "in blocks reliably",
        device, info->name.empty() ? info->vendor : info->name);
  }
  return "";
}

bool IsMatmul(KernelFamily f) {
  return f == KernelFamily::kGemm || f == KernelFamily::kConv || f == KernelFamily::kAttention;
}

// While at least one candidate runs, the SM share no kernel fills: 1 minus
// the fills of the running kernels, capped at 1 (the plugin's merge of
// concurrent kernels), integrated over time.
double SweepSmIdleNs(std::vector<std::tuple<TimeNs, float, int8_t>>& edges) {
  std::sort(edges.begin(), edges.end());
  double level = 0, idle_ns = 0;
  int running = 0;
  for (size_t i = 0; i + 1 < edges.size(); ++i) {
    level += std::get<1>(edges[i]);
    running += std::get<2>(edges[i]);
    if (level < 1e-6) level = 0;  // float drift after removals
    const TimeNs from_ns = std::get<0>(edges[i]);
    const TimeNs to_ns = std::get<0>(edges[i + 1]);
    if (running <= 0 || to_ns <= from_ns || level >= 1.0) continue;
    idle_ns += (1.0 - level) * static_cast<double>(to_ns - from_ns);
  }
  return idle_ns;
}

DeviceGrids MeasureDevice(AnalysisContext& ctx, int device) {
  const Timeline& tl = ctx.timeline();
  const StepSet& steps = ctx.steps();
  const SliceColumns& c = tl.slices();
  DeviceGrids out;
  out.device = device;
  out.info = tl.metadata().FindDevice(device);
  out.sm_idle_steps.assign(steps.steps.size(), 0);
  const int sm_count = out.info != nullptr ? out.info->sm_count : -1;
  absl::flat_hash_map<StringId, KernelClass> by_name;
  absl::flat_hash_map<std::pair<StringId, std::string>, KernelClass> by_name_and_dtype;
  std::vector<std::pair<SliceId, SliceId>> streams;  // the device's tracks
  for (TrackId t = 0; t < tl.tracks().size(); ++t) {
    const Track& track = tl.tracks()[t];
    if (track.kind == TrackKind::kDeviceStream && track.device == device) {
      streams.push_back(tl.track_range(t));
    }
  }
  // (time, change of the SM fill, change of running candidates), one step
  // at a time so memory follows the longest step, not the trace.
  std::vector<std::tuple<TimeNs, float, int8_t>> edges;
  for (size_t step = 0; step < steps.steps.size(); ++step) {
    edges.clear();
    for (const auto& [begin, end] : streams) {
      // A track's slices are sorted by start.
      const TimeNs* first = c.ts_ns.data();
      SliceId s = static_cast<SliceId>(
          std::lower_bound(first + begin, first + end, steps.steps[step].start_ns) - first);
      for (; s < end && c.ts_ns[s] < steps.steps[step].end_ns; ++s) {
        if (c.kind[s] != EventKind::kKernel) continue;
        // Kernels of one-time work cut out of the step are not judged.
        if (!steps.steps[step].Covers(c.ts_ns[s])) continue;
        const TimeNs start_ns = c.ts_ns[s];
        const TimeNs end_ns = std::min(c.end_ns(s), steps.steps[step].end_ns);
        if (end_ns <= start_ns) continue;
        const TimeNs dur_ns = end_ns - start_ns;
        out.kernel_ns = SaturatingAddNs(out.kernel_ns, dur_ns);
        const double fill = KernelSmFill(tl, s).value_or(-1);
        // Unknown dimensions count as a full GPU: they may fill the SMs a
        // concurrent small grid leaves free, so claiming less is the safe side.
        double level = fill >= 0 ? std::min(1.0, fill) : 1.0;
        if (fill >= 0) out.dims_known_ns = SaturatingAddNs(out.dims_known_ns, dur_ns);
        bool candidate = fill >= 0 && fill < 1.0 && !tl.HasFlag(s, kFlagCollective);
        if (candidate) {
          auto [it, added] = by_name.try_emplace(c.name[s]);
          if (added) it->second = ClassifyKernel(tl.str(c.name[s]));
          KernelClass kc = it->second;
          if (IsMatmul(kc.family) && kc.tc == TensorCoreUse::kUnknown) {
            const std::string dtype =
                FirstTensorDtype(ArgText(tl, FindLaunchContext(tl, s).op, "Input type"));
            auto [cached, fresh] = by_name_and_dtype.try_emplace(std::make_pair(c.name[s], dtype));
            if (fresh) cached->second = ClassifyKernel(tl.str(c.name[s]), dtype);
            kc = cached->second;
          }
          // Collectives use few blocks by design; matmuls off Tensor Cores
          // are tensor-cores-idle's time, and undecided ones are left alone.
          candidate = kc.family != KernelFamily::kCollective &&
                      (!IsMatmul(kc.family) || kc.tc == TensorCoreUse::kYes);
          // While such a matmul runs its time is tensor-cores-idle's: it
          // counts as filling the GPU, so no instant is claimed twice.
          if (IsMatmul(kc.family) && kc.tc != TensorCoreUse::kYes) level = 1.0;
          if (candidate) {
            out.candidate_ns = SaturatingAddNs(out.candidate_ns, dur_ns);
            NameStat& n = out.by_name[std::string(tl.str(c.name[s]))];
            if (n.item.count == 0) {
              n.item.name = std::string(tl.str(c.name[s]));
              n.kclass = kc;
            }
            n.item.total_ns = SaturatingAddNs(n.item.total_ns, dur_ns);
            ++n.item.count;
            n.sm_idle_ns += static_cast<double>(dur_ns) * (1.0 - fill);
            if (dur_ns > n.longest_ns) {
              n.longest_ns = dur_ns;
              n.longest = s;
              // For the top items: the grid's blocks, or blocks per SM x SMs.
            const DeviceDetails* d = tl.details(s);
            n.blocks = d != nullptr && d->BlockCount() > 0 ? d->BlockCount()
                       : sm_count > 0 ? static_cast<int64_t>(fill * sm_count + 0.5)
                                      : 0;
              n.fill = fill;
            }
          }
        }
        edges.emplace_back(start_ns, static_cast<float>(level), candidate ? 1 : 0);
        edges.emplace_back(end_ns, static_cast<float>(-level), candidate ? -1 : 0);
      }
    }
    out.sm_idle_steps[step] = SweepSmIdleNs(edges);
    out.sm_idle_ns += out.sm_idle_steps[step];
  }
  return out;
}

enum class Pattern { kShortKernels, kMatmuls, kOther };

// What most of the SM-idle time is in, by the per-kernel estimate.
Pattern Dominant(const std::vector<const NameStat*>& names) {
  double total = 0, short_ns = 0, matmul_ns = 0;
  for (const NameStat* n : names) {
    total += n->sm_idle_ns;
    if (n->item.total_ns / std::max<int64_t>(1, n->item.count) < kShortKernelNs) {
      short_ns += n->sm_idle_ns;
    } else if (IsMatmul(n->kclass.family)) {
      matmul_ns += n->sm_idle_ns;
    }
  }
  if (short_ns >= 0.5 * total) return Pattern::kShortKernels;
  if (matmul_ns >= 0.5 * total) return Pattern::kMatmuls;
  return Pattern::kOther;
}

std::string Fix(Pattern pattern, const JobProfile& job) {
  const bool inference = job.is_inference();
  switch (pattern) {
    case Pattern::kShortKernels:
      if (job.framework == JobFramework::kTensorFlow) {
        return "Most of it is in short kernels too small to fill the GPU: compile the step with "
               "XLA (tf.function(jit_compile=True)) so chains of small ops fuse into larger "
               "kernels, and raise the batch size where memory allows.";
      }
      if (job.framework == JobFramework::kJax) {
        return "Most of it is in short kernels too small to fill the GPU: jit larger regions "
               "(the whole step) so XLA fuses them, and raise the per-device batch size where "
               "memory allows.";
      }
      if (!job.is_pytorch()) {
        return "Most of it is in short kernels too small to fill the GPU: fuse chains of small "
               "ops into larger kernels (compile the step with the framework's graph "
               "compiler), and raise the batch size where memory allows.";
      }
      return fmt::format(
          "Most of it is in short kernels (under 20 us) too small to fill the GPU: fuse them "
          "into fewer, larger kernels with torch.compile (Inductor fuses pointwise and "
          "reduction chains), and {}.",
          inference ? "batch more requests so each kernel has more work"
                    : "raise the batch size where memory allows");
    case Pattern::kMatmuls:
      if (!job.is_pytorch()) {
        return inference ? "The matmuls are too small for this GPU (few requests in flight): "
                           "batch more requests per step, or serve on a smaller GPU."
                         : "The matmuls are too small for this GPU: raise the batch (or "
                           "micro-batch) size or pack sequences so each GEMM has a tile for "
                           "every SM.";
      }
      if (inference) {
        return "The matmuls are too small for this GPU (few requests in flight, as in decode): "
               "batch more requests (continuous batching, a larger max batch size); for fixed "
               "small shapes torch.compile(mode=\"max-autotune\") can pick split-K kernels that "
               "spread one matmul over more SMs; or serve on a smaller GPU.";
      }
      return "The matmuls are too small for this GPU: raise the batch (or micro-batch) size or "
             "pack sequences so each GEMM has a tile for every SM; for skinny shapes "
             "torch.compile(mode=\"max-autotune\") can pick split-K kernels that spread one "
             "matmul over more SMs.";
    case Pattern::kOther:
      break;
  }
  return fmt::format(
      "These kernels' grids are smaller than the GPU (small tensors, or work split over a "
      "short dimension, such as a reduction over few rows): raise the batch size, fuse them "
      "into neighbouring ops ({}), or use implementations that split the work further.",
      job.is_pytorch() ? "torch.compile" : "a graph compiler");
}

}  // namespace

std::vector<RuleOptionSpec> KernelSmallGridsRule::options() const {
  return {
      {std::string(kMinSmIdleShare), 0.10, "share",
       "Fire when SM-idle time inside kernels with fewer blocks than SMs reaches this share of "
       "the step.",
       0, 1},
  };
}

RuleOutcome KernelSmallGridsRule::Check(AnalysisContext& ctx, const RuleOptions& options) const {
  RuleOutcome outcome;
  if (!rules_internal::HasDeviceActivityAndSteps(ctx, outcome)) return outcome;
  const Timeline& tl = ctx.timeline();
  const StepSet& steps = ctx.steps();
  std::vector<std::string> reasons;
  std::vector<DeviceGrids> measured;
  for (const DeviceActivity& da : ctx.device_activity()) {
    if (da.kernel_count == 0) continue;
    std::string reason = CannotJudge(tl, da.device);
    if (!reason.empty()) {
      reasons.push_back(std::move(reason));
      continue;
    }
    DeviceGrids d = MeasureDevice(ctx, da.device);
    if (d.kernel_ns > 0 && SafeShare(d.dims_known_ns, d.kernel_ns) < kMinDimsCoverage) {
      reasons.push_back(fmt::format(
          "device {}: launch dimensions (grid, blocks per SM) on only {} of kernel time", d.device,
          Percent(SafeShare(d.dims_known_ns, d.kernel_ns))));
      continue;
    }
    measured.push_back(std::move(d));
  }
  if (measured.empty()) {
    outcome.applicable = false;
    outcome.not_judged_reason =
        reasons.empty() ? "no GPU kernels in the analysed steps" : reasons.front();
    return outcome;
  }
  const DeviceGrids* d = &measured.front();
  for (const DeviceGrids& m : measured) {
    if (m.sm_idle_ns > d->sm_idle_ns) d = &m;
  }
  const TimeNs step_total_ns = steps.TotalNs();
  const double min_share = options.Get(kMinSmIdleShare);
  const double share = SafeShare(d->sm_idle_ns, static_cast<double>(step_total_ns));
  if (d->sm_idle_ns <= 0 || share < min_share) return outcome;

  // Fired by the worst device, claimed as the mean over the rank's devices
  // like every per-device rule, so devices never add up past the step.
  const int64_t n = static_cast<int64_t>(steps.steps.size());
  const int64_t device_count =
      std::max<int64_t>(1, static_cast<int64_t>(ctx.device_activity().size()));
  double rank_idle_ns = 0;
  std::vector<double> per_step(steps.steps.size(), 0);
  for (const DeviceGrids& m : measured) {
    rank_idle_ns += m.sm_idle_ns;
    for (size_t i = 0; i < per_step.size(); ++i) per_step[i] += m.sm_idle_steps[i];
  }
  std::vector<const NameStat*> names;
  for (const auto& [name, stat] : d->by_name) names.push_back(&stat);
  std::sort(names.begin(), names.end(), [](const NameStat* a, const NameStat* b) {
    if (a->sm_idle_ns != b->sm_idle_ns) return a->sm_idle_ns > b->sm_idle_ns;
    return a->item.name < b->item.name;
  });
  const int sm_count = d->info != nullptr ? d->info->sm_count : -1;
  const std::string sms = sm_count > 0 ? fmt::format("{} SMs", sm_count) : std::string("its SMs");
  const std::string device_name = d->info != nullptr && !d->info->name.empty()
                                      ? d->info->name
                                      : fmt::format("device {}", d->device);

  Finding f;
  f.cause = "small_grids";
  f.recoverable_ns_per_step =
      static_cast<TimeNs>(rank_idle_ns / static_cast<double>(n * device_count));
  f.recoverable_share =
      std::min(1.0, SafeShare(rank_idle_ns, static_cast<double>(step_total_ns) * device_count));
  for (double ns : per_step) {
    f.recoverable_ns_steps.push_back(static_cast<TimeNs>(ns / static_cast<double>(device_count)));
  }
  // Spreading the same work over every SM is assumed to scale: a bound.
  f.confidence = Confidence::kModelled;
  f.title = fmt::format(
      "{} of the step the GPU's SMs idle inside kernels with fewer blocks "
      "than SMs ({}, {})",
      Percent(share), device_name, sms);
  f.message = fmt::format(
      "On device {}, kernels that launch fewer thread blocks than the GPU has SMs run {} per "
      "step; while they run, about {} per step of the GPU's SM time idles (the TensorBoard "
      "plugin's estimate: each kernel fills min(1, blocks / SMs) of the GPU, concurrent kernels "
      "added up). Spreading the same work over every SM would save up to {} per step{} (a "
      "modelled bound: it assumes the work scales with SMs). Collectives and GEMM/conv/attention "
      "kernels off Tensor Cores (tensor-cores-idle) are not counted.{}",
      d->device, FormatDurationNs(d->candidate_ns / n),
      FormatDurationNs(static_cast<TimeNs>(d->sm_idle_ns / static_cast<double>(n))),
      FormatDurationNs(f.recoverable_ns_per_step),
      device_count > 1 ? fmt::format(" (the mean over the rank's {} devices)", device_count)
                       : std::string(),
      rules_internal::StepCaveat(steps));
  f.evidence.push_back(
      {fmt::format("SM-idle time in kernels with fewer blocks than SMs {} of step (threshold {})",
                   Percent(share), Percent(min_share)),
       share, min_share, "share"});
  f.evidence.push_back(
      {fmt::format("Those kernels take {} of kernel time; launch dimensions known on {} of it",
                   Percent(SafeShare(d->candidate_ns, d->kernel_ns)),
                   Percent(SafeShare(d->dims_known_ns, d->kernel_ns))),
       SafeShare(d->candidate_ns, d->kernel_ns), 0, "share"});
  for (size_t i = 0; i < names.size() && i < kMaxTopItems; ++i) {
    TopItem item = names[i]->item;
    item.detail = fmt::format(
        "{} blocks on {} ({} of the SMs), mean {}; {}",
        names[i]->blocks > 0 ? fmt::format("{}", names[i]->blocks) : std::string("few"), sms,
        Percent(names[i]->fill), FormatDurationNs(item.total_ns / std::max<int64_t>(1, item.count)),
        KernelFamilyName(names[i]->kclass.family));
    f.location.top_items.push_back(std::move(item));
  }
  f.fix = Fix(Dominant(names), ctx.job_profile());
  f.location.first_step = steps.steps.front().number;
  f.location.last_step = steps.steps.back().number;
  if (!names.empty() && names.front()->longest != kNoIndex) {
    const SliceId worst = names.front()->longest;
    f.location.track = rules_internal::StreamName(tl, worst);
    f.location.start_ns = tl.slices().ts_ns[worst];
    f.location.end_ns = tl.slices().end_ns(worst);
    const SliceId launch = tl.slices().launch[worst];
    if (launch != kNoIndex) f.location.python_stack = rules_internal::PythonStack(tl, launch, 8);
  }
  outcome.findings.push_back(std::move(f));
  return outcome;
}

}  // namespace tracelint
