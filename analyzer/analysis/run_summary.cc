#include "analyzer/analysis/run_summary.h"

#include <algorithm>
#include <numeric>

#include "analyzer/analysis/analysis_context.h"
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
           idle(IdleCause::kOtherHostWork) + idle(IdleCause::kHostSilent)},
      {"communication", "exposed communication and waits on collectives",
       busy(StepCategory::kCommunication) + idle(IdleCause::kDeviceWaitCollective)},
      {"copies", "exposed copies and memsets",
       busy(StepCategory::kMemcpy) + busy(StepCategory::kMemset) +
           idle(IdleCause::kPageableCopy)},
  };
  const BoundCandidate* largest = nullptr;
  for (const BoundCandidate& c : candidates) {
    if (c.ns > 0 && (largest == nullptr || c.ns > largest->ns)) largest = &c;
  }
  const double utilization = share(worst->kernel_busy_ns);
  // "TPU busy with kernels" on a TPU: the words follow the device.
  const std::string& accel = worst->accelerator;
  // Idle after device work with no linked launch has no cause either (it is
  // never guessed): a Chrome trace that does not link launches, or lost
  // correlation ids.
  const TimeNs unattributed_ns = worst->idle_ns[static_cast<int>(IdleCause::kUnattributed)];
  const TimeNs uncharged_ns = withheld_ns + unattributed_ns;
  if (utilization < kComputeBoundUtilization && uncharged_ns > 0 &&
      (largest == nullptr || uncharged_ns > largest->ns)) {
    // Most of what keeps the GPU from work is idle that cannot be charged:
    // naming a bound from the rest would be a guess.
    const std::string why =
        withheld_ns >= unattributed_ns && !integrity.withheld.empty()
            ? integrity.withheld.front().reason
            : fmt::format("{:.0f}% of the step is idle {}, so its host cause is unknown",
                          100 * share(unattributed_ns), worst->unattributed_where);
    Verdict nj = NotJudgeable(fmt::format("rank {}: {} busy with kernels {:.0f}% of the step, "
                                          "and its idle time cannot be charged: {}",
                                          v.rank, accel, 100 * utilization, why));
    nj.rank = v.rank;
    return nj;
  }
  if (utilization >= kComputeBoundUtilization || largest == nullptr) {
    v.bound = "gpu compute";
    v.share = utilization;
    v.line = fmt::format("Verdict: gpu compute (rank {}: {} busy with kernels {:.0f}% of the step)",
                         v.rank, accel, 100 * utilization);
    return v;
  }
  v.bound = std::string(largest->bound);
  v.share = share(largest->ns);
  v.line = fmt::format("Verdict: {} (rank {}: {}, {:.0f}% of the step; {} busy with kernels "
                       "{:.0f}%)",
                       v.bound, v.rank, largest->what, 100 * v.share, accel, 100 * utilization);
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

RankSummary SummarizeRank(AnalysisContext& ctx, int position) {
  RankSummary r;
  const Timeline& tl = ctx.timeline();
  r.position = position;
  r.rank = tl.metadata().rank >= 0 ? tl.metadata().rank : position;
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
  }
  for (const Step& s : ctx.steps().steps) {
    r.steady_steps.push_back({s.number, s.start_ns, s.duration_ns()});
  }
  r.outliers = ctx.outlier_steps();
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
