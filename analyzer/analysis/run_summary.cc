#include "analyzer/analysis/run_summary.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/roofline.h"
#include "analyzer/analysis/device_activity.h"
#include "analyzer/analysis/interval_set.h"
#include "analyzer/analysis/step_phase.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/model/accelerator.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

// The GPU-compute verdict needs the kernels to cover this share of the step
// (docs/design/contract.md, "Verdict"); below it the GPU is starved and the largest cause wins.
constexpr double kComputeBoundUtilization = 0.8;

struct BoundCandidate {
  std::string_view bound;
  std::string_view what;
  TimeNs ns = 0;
};

Verdict NotJudgeable(std::string reason) {
  Verdict v;
  v.bound = "not judgeable";
  v.reason = std::move(reason);
  v.line = fmt::format("Verdict: not judgeable ({})", v.reason);
  return v;
}

// XLA's async copy pairs ("copy-start.4" ... "copy-done.4", the XSpace
// reader's memcpy events on TPU op lines), as the step breakdown counts
// them: in the analysed steps, on no kernel.
bool IsXlaAsyncCopy(std::string_view name) {
  return name.starts_with("copy-start") || name.starts_with("copy-done");
}

TimeNs XlaAsyncCopyExposedNs(AnalysisContext& ctx) {
  const Timeline& tl = ctx.timeline();
  const SliceColumns& c = tl.slices();
  std::map<int, std::vector<Interval>> by_device;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (c.kind[s] != EventKind::kMemcpy) continue;
    const Track& t = tl.tracks()[c.track[s]];
    if (t.kind != TrackKind::kDeviceStream || !IsXlaAsyncCopy(tl.str(c.name[s]))) continue;
    by_device[t.device].push_back({c.ts_ns[s], c.end_ns(s)});
  }
  if (by_device.empty()) return 0;
  TimeNs total_ns = 0;
  for (const DeviceActivity& a : ctx.device_activity()) {
    auto it = by_device.find(a.device);
    if (it == by_device.end()) continue;
    IntervalSet exposed = IntervalSet::FromUnsorted(std::move(it->second)).Subtract(a.kernels);
    total_ns += ctx.steps().OverlapNs(exposed);  // outside the one-time cuts
  }
  return total_ns;
}

Verdict ComputeVerdict(const std::vector<RankSummary>& ranks) {
  // The worst rank: the longest mean step among ranks with steps and device work.
  const RankSummary* worst = nullptr;
  bool any_steps = false;
  std::string fragment_reason;
  for (const RankSummary& r : ranks) {
    // A fragment is no profile of the job: nothing bounds "the run" there.
    if (r.integrity.fragment()) {
      if (fragment_reason.empty()) fragment_reason = r.integrity.fragment_reason;
      continue;
    }
    if (r.step_count <= 0) continue;
    any_steps = true;
    if (!r.has_device) continue;
    if (worst == nullptr || r.mean_step_ns > worst->mean_step_ns) worst = &r;
  }
  if (worst == nullptr) {
    const bool warmup_only =
        !any_steps && !ranks.empty() &&
        std::all_of(ranks.begin(), ranks.end(), [](const RankSummary& r) { return r.no_steady_step; });
    return NotJudgeable(warmup_only ? "no steady step: the window is warm-up, capture or compile "
                                      "only; no per-step claim is made"
                        : !fragment_reason.empty() ? fragment_reason + "; no per-step claim is made"
                        : any_steps                ? "no device activity in the analysed steps"
                                                   : "no complete step with device activity");
  }
  Verdict v;
  v.judgeable = true;
  v.rank = worst->rank;
  const TimeNs step_ns = worst->device_step_ns;
  const TraceIntegrity& integrity = worst->integrity;
  // A cause the trace's integrity withholds bounds nothing either: the
  // verdict says no more than the findings may.
  auto withheld = [&](IdleCause c) {
    return std::any_of(integrity.withheld.begin(), integrity.withheld.end(),
                       [&](const WithheldCause& w) { return w.cause == IdleCauseName(c); });
  };
  auto idle = [&](IdleCause c) {
    return withheld(c) ? 0 : worst->idle_ns[static_cast<int>(c)];
  };
  TimeNs withheld_ns = 0;
  for (int c = 0; c < kIdleCauseCount; ++c) {
    if (withheld(static_cast<IdleCause>(c))) withheld_ns += worst->idle_ns[c];
  }
  auto busy = [&](StepCategory c) { return worst->breakdown_ns[static_cast<int>(c)]; };
  // A share of the step, in [0, 1] (sums of overlapping work can pass it).
  auto share = [&](TimeNs ns) {
    return step_ns > 0
               ? std::clamp(static_cast<double>(ns) / static_cast<double>(step_ns), 0.0, 1.0)
               : 0.0;
  };
  // In tie order. Device waits on other streams and unattributed idle
  // belong to no bound: they say nothing about what to change.
  const BoundCandidate candidates[] = {
      {"input", "data loader idle", idle(IdleCause::kDataLoader)},
      {"host", "host-side idle (syncs, host ops, launches, other host work)",
       idle(IdleCause::kSyncCall) + idle(IdleCause::kHostSideOp) +
           idle(IdleCause::kLaunchOverhead) + idle(IdleCause::kLaunchStall) +
           idle(IdleCause::kAllocator) + idle(IdleCause::kJobSubmission) +
           idle(IdleCause::kOtherHostWork) + idle(IdleCause::kHostSilent)},
      {"communication", "exposed communication and waits on collectives",
       busy(StepCategory::kCommunication) + idle(IdleCause::kDeviceWaitCollective)},
      {"copies", "exposed copies and memsets",
       std::max<TimeNs>(0, busy(StepCategory::kMemcpy) - worst->xla_async_copy_ns) +
           busy(StepCategory::kMemset) + idle(IdleCause::kPageableCopy)},
  };
  const BoundCandidate* largest = nullptr;
  for (const BoundCandidate& c : candidates) {
    if (c.ns > 0 && (largest == nullptr || c.ns > largest->ns)) largest = &c;
  }
  // docs/design/contract.md, "Verdict": compute kernels only; communication
  // kernels never count as compute. Exposed communication bounds the run
  // when it outweighs compute busy time as well as every idle cause; below
  // that the GPU computes more than it waits on collectives.
  const TimeNs compute_ns = busy(StepCategory::kKernel);
  if (largest != nullptr && largest->bound == "communication" && largest->ns <= compute_ns) {
    largest = nullptr;
  }
  const double utilization = share(compute_ns);
  // "compute kernels" once collectives run beside them; else all kernels are.
  const std::string_view kernels_word =
      busy(StepCategory::kCommunication) > 0 ? "compute kernels" : "kernels";
  // "TPU busy with kernels" on a TPU: the words follow the device.
  const std::string& accel = worst->accelerator;
  // Idle after device work with no linked launch has no cause either (it is
  // never guessed): a Chrome trace that does not link launches, or lost
  // correlation ids.
  const TimeNs unattributed_ns = worst->idle_ns[static_cast<int>(IdleCause::kUnattributed)];
  const TimeNs uncharged_ns = withheld_ns + unattributed_ns;
  if (utilization < kComputeBoundUtilization && uncharged_ns > 0 &&
      (largest == nullptr || uncharged_ns > largest->ns)) {
    // Most of what keeps the GPU from work is idle that cannot be charged.
    // Where the recorded host names a likely cause for the unlinked idle
    // (docs/design/contract.md, "Unlinked device work"), the verdict says
    // so, labelled inferred; no finding claims it.
    if (unattributed_ns >= withheld_ns) {
      const auto& inferred = worst->inferred_idle_ns;
      const TimeNs input_ns = inferred[static_cast<int>(IdleCause::kDataLoader)];
      // A host blocked in a sync while the device idles is waiting for the
      // device (a replay's own order, work missing from the trace): it names
      // no host bound.
      const TimeNs host_ns = inferred[static_cast<int>(IdleCause::kAllocator)] +
                             inferred[static_cast<int>(IdleCause::kJobSubmission)] +
                             inferred[static_cast<int>(IdleCause::kOtherHostWork)];
      const bool input = input_ns > host_ns;
      const TimeNs named_ns = input ? input_ns : host_ns;
      if (2 * named_ns >= unattributed_ns && named_ns > 0) {
        v.bound = input ? "input" : "host";
        v.share = share(named_ns);
        v.line = fmt::format(
            "Verdict: {} (rank {}, inferred: {:.0f}% of the step is idle {}, while the recorded "
            "host {}; no saving is claimed for it; {} busy with {} {:.0f}%)",
            v.bound, v.rank, 100 * share(unattributed_ns), worst->unattributed_where,
            input ? "waits for input" : "runs framework and host code", accel, kernels_word,
            100 * utilization);
        return v;
      }
    }
    const std::string why =
        withheld_ns >= unattributed_ns && !integrity.withheld.empty()
            ? integrity.withheld.front().reason
            : fmt::format("{:.0f}% of the step is idle {}, so its host cause is unknown",
                          100 * share(unattributed_ns), worst->unattributed_where);
    Verdict nj = NotJudgeable(fmt::format("rank {}: {} busy with {} {:.0f}% of the step, "
                                          "and its idle time cannot be charged: {}",
                                          v.rank, accel, kernels_word, 100 * utilization, why));
    nj.rank = v.rank;
    return nj;
  }
  // Said whenever XLA's async copies took a visible share: they are left
  // out of "copies" (docs/design/contract.md, "Verdict").
  const std::string async_note =
      share(worst->xla_async_copy_ns) >= 0.05
          ? fmt::format("; XLA async copies (copy-start/copy-done, {:.0f}% of the step) run "
                        "beside compute and are not counted as exposed copies",
                        100 * share(worst->xla_async_copy_ns))
          : std::string();
  if (utilization >= kComputeBoundUtilization || largest == nullptr) {
    v.bound = "gpu compute";
    v.share = utilization;
    // The verdict text names the dominant kernel family and its efficiency
    // (contract: details go in the text, never in the enum).
    v.line = fmt::format(
        "Verdict: gpu compute (rank {}: {} busy with {} {:.0f}% of the step{}{})", v.rank,
        accel, kernels_word, 100 * utilization,
        worst->dominant_family.empty() ? "" : "; " + worst->dominant_family, async_note);
    return v;
  }
  v.bound = std::string(largest->bound);
  v.share = share(largest->ns);
  v.line = fmt::format("Verdict: {} (rank {}: {}, {:.0f}% of the step; {} busy with {} "
                       "{:.0f}%{})",
                       v.bound, v.rank, largest->what, 100 * v.share, accel, kernels_word,
                       100 * utilization, async_note);
  return v;
}

RunIntegrity SummarizeIntegrity(const std::vector<RankSummary>& ranks) {
  RunIntegrity out;
  const RankSummary* worst = nullptr;
  for (const RankSummary& r : ranks) {
    out.per_rank.emplace_back(r.rank, r.integrity.verdict);
    if (worst == nullptr || r.integrity.verdict > worst->integrity.verdict) worst = &r;
  }
  if (worst == nullptr) return out;
  out.worst = worst->integrity;
  out.worst_rank = worst->rank;
  out.line = fmt::format("Trace integrity{}: {}",
                         ranks.size() > 1 ? fmt::format(" (rank {})", out.worst_rank) : "",
                         worst->integrity.summary);
  return out;
}

std::optional<Throughput> ComputeThroughput(const std::vector<RankSummary>& ranks,
                                            const ThroughputOptions& options) {
  if (options.batch_size <= 0) return std::nullopt;
  TimeNs sum_ns = 0;
  int with_steps = 0;
  int world_size = 0;
  for (const RankSummary& r : ranks) {
    if (r.step_count > 0) {
      sum_ns += r.mean_step_ns;
      ++with_steps;
    }
    world_size = std::max(world_size, r.world_size);
  }
  if (with_steps == 0 || sum_ns <= 0) return std::nullopt;
  Throughput t;
  t.batch_size_per_rank = options.batch_size;
  // One rank's trace of a larger job still stands for the whole job: every
  // rank runs the same steps.
  const int traces = static_cast<int>(ranks.size());
  t.ranks = std::max(traces, world_size);
  t.mean_step_ns = sum_ns / with_steps;
  t.samples_per_s = static_cast<double>(t.batch_size_per_rank) * t.ranks /
                    (static_cast<double>(t.mean_step_ns) / kNsPerS);
  t.assumptions = fmt::format(
      "batch size {} per rank x {} ranks ({}) / mean step time {} (mean over ranks of the "
      "mean analysed step)",
      t.batch_size_per_rank, t.ranks,
      world_size > traces ? "world size from the trace" : "rank traces loaded",
      FormatDurationNs(t.mean_step_ns));
  if (options.price_per_hour > 0) {
    t.price_per_hour = options.price_per_hour;
    t.samples_per_dollar = t.samples_per_s * 3600 / options.price_per_hour;
    t.assumptions += fmt::format("; price {} per hour for all machines of the run",
                                 options.price_per_hour);
  }
  return t;
}

}  // namespace

RankSummary PlaceRankSummary(RankSummary r, int position) {
  r.position = position;
  if (r.rank < 0) r.rank = position;
  return r;
}

RankSummary SummarizeRank(AnalysisContext& ctx, int position) {
  return PlaceRankSummary(ctx.rank_summary(), position);
}

RankSummary ComputeRankSummary(AnalysisContext& ctx) {
  RankSummary r;
  const Timeline& tl = ctx.timeline();
  r.rank = tl.metadata().rank;
  r.world_size = tl.metadata().world_size;
  r.accelerator = std::string(AcceleratorName(tl.metadata()));
  r.no_steady_step = ctx.step_phase().NoSteadyStep();
  r.integrity = ctx.trace_integrity();
  const StepMetrics& m = ctx.step_metrics();
  r.step_count = m.step_count;
  r.mean_step_ns = m.mean_step_ns;
  for (const DeviceMetrics& d : m.summary) {
    if (d.device < 0) continue;
    r.has_device = true;
    ++r.active_devices;
    r.device_step_ns += d.step_ns;
    r.kernel_busy_ns += d.kernel_busy_ns;
    for (int c = 0; c < kStepCategoryCount; ++c) r.breakdown_ns[c] += d.breakdown_ns[c];
  }
  const IdleAttribution& idle = ctx.idle_attribution();
  r.idle_ns = idle.total_ns;
  if (r.idle_ns[static_cast<int>(IdleCause::kUnattributed)] > 0) {
    r.unattributed_where = UnattributedIdleWhere(tl, idle);
    r.inferred_idle_ns = idle.inferred_ns;
  }
  for (const Step& s : ctx.steady_steps().steps) {
    r.steady_steps.push_back({s.number, s.start_ns, s.duration_ns()});
  }
  r.outliers = ctx.outlier_steps();
  r.dominant_family = DominantFamilyText(ctx.roofline().summary);
  r.xla_async_copy_ns = XlaAsyncCopyExposedNs(ctx);
  return r;
}

RunSummary SummarizeRun(std::vector<RankSummary> ranks, const ThroughputOptions& throughput) {
  RunSummary s;
  s.ranks = std::move(ranks);
  s.verdict = ComputeVerdict(s.ranks);
  s.no_rank_has_steady_step =
      !s.ranks.empty() && std::all_of(s.ranks.begin(), s.ranks.end(),
                                      [](const RankSummary& r) { return r.no_steady_step; });
  s.integrity = SummarizeIntegrity(s.ranks);
  s.throughput = ComputeThroughput(s.ranks, throughput);
  return s;
}

std::array<TimeNs, kStepCategoryCount> MeanBreakdownNs(const DeviceMetrics& summary,
                                                       int64_t step_count) {
  std::array<TimeNs, kStepCategoryCount> out{};
  if (step_count <= 0) return out;
  TimeNs mean_step_ns = summary.step_ns / step_count;
  TimeNs assigned_ns = 0;
  std::array<TimeNs, kStepCategoryCount> remainder{};
  for (int i = 0; i < kStepCategoryCount; ++i) {
    out[i] = summary.breakdown_ns[i] / step_count;
    remainder[i] = summary.breakdown_ns[i] % step_count;
    assigned_ns += out[i];
  }
  // Largest remainders first, ties by category order: deterministic.
  std::array<int, kStepCategoryCount> order;
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return remainder[a] > remainder[b]; });
  for (int i = 0; assigned_ns < mean_step_ns && i < kStepCategoryCount; ++i) {
    ++out[order[i]];
    ++assigned_ns;
  }
  return out;
}

}  // namespace tracelint
