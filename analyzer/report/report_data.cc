#include "analyzer/report/report_data.h"

#include <algorithm>
#include <numeric>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/roofline.h"
#include "analyzer/analysis/step_phase.h"
#include "analyzer/analysis/trace_integrity.h"
#include "analyzer/model/accelerator.h"
#include "fmt/format.h"

namespace tracelint {

std::optional<Throughput> ComputeThroughput(const ReportInput& input) {
  if (input.options.batch_size <= 0) return std::nullopt;
  TimeNs sum_ns = 0;
  int with_steps = 0;
  int world_size = 0;
  for (size_t i = 0; i < input.contexts.size(); ++i) {
    const StepMetrics& m = input.contexts[i]->step_metrics();
    if (m.step_count > 0) {
      sum_ns += m.mean_step_ns;
      ++with_steps;
    }
    world_size = std::max(world_size, input.contexts[i]->timeline().metadata().world_size);
  }
  if (with_steps == 0 || sum_ns <= 0) return std::nullopt;
  Throughput t;
  t.batch_size_per_rank = input.options.batch_size;
  // One rank's trace of a larger job still stands for the whole job: every
  // rank runs the same steps.
  int traces = static_cast<int>(input.contexts.size());
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
  if (input.options.price_per_hour > 0) {
    t.price_per_hour = input.options.price_per_hour;
    t.samples_per_dollar = t.samples_per_s * 3600 / input.options.price_per_hour;
    t.assumptions += fmt::format("; price {} per hour for all machines of the run",
                                 input.options.price_per_hour);
  }
  return t;
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

FindingsSummary SummarizeFindings(const std::vector<Finding>& findings) {
  FindingsSummary s;
  s.count = static_cast<int>(findings.size());
  for (const Finding& f : findings) {
    s.recoverable_ns_per_step += f.recoverable_ns_per_step;
    s.recoverable_share += f.recoverable_share;
  }
  s.recoverable_share = std::min(1.0, s.recoverable_share);
  if (s.count == 0) {
    s.line = "no findings";
  } else {
    s.line = fmt::format("{} finding{}, up to {:.0f}% of step time recoverable", s.count,
                         s.count == 1 ? "" : "s", 100 * s.recoverable_share);
  }
  return s;
}

namespace {

// The GPU-compute verdict needs the kernels to cover this share of the step
// (contract.md); below it the GPU is starved and the largest cause wins.
constexpr double kComputeBoundUtilization = 0.8;

struct BoundCandidate {
  std::string_view bound;
  std::string_view what;
  TimeNs ns = 0;
};

}  // namespace

Verdict ComputeVerdict(const ReportInput& input) {
  Verdict v;
  // The worst rank: the longest mean step among ranks with steps and device work.
  AnalysisContext* worst = nullptr;
  size_t worst_position = 0;
  bool any_steps = false;
  std::string fragment_reason;
  for (size_t i = 0; i < input.contexts.size(); ++i) {
    // A fragment is no profile of the job: nothing bounds "the run" there.
    if (const TraceIntegrity& t = input.contexts[i]->trace_integrity(); t.fragment()) {
      if (fragment_reason.empty()) fragment_reason = t.fragment_reason;
      continue;
    }
    const StepMetrics& m = input.contexts[i]->step_metrics();
    if (m.step_count <= 0) continue;
    any_steps = true;
    bool has_device = std::any_of(m.summary.begin(), m.summary.end(),
                                  [](const DeviceMetrics& d) { return d.device >= 0; });
    if (!has_device) continue;
    if (worst == nullptr || m.mean_step_ns > worst->step_metrics().mean_step_ns) {
      worst = input.contexts[i];
      worst_position = i;
    }
  }
  if (worst == nullptr) {
    v.bound = "not judgeable";
    const bool warmup_only =
        !any_steps && !input.contexts.empty() &&
        std::all_of(input.contexts.begin(), input.contexts.end(), [](AnalysisContext* c) {
          return c->step_phase().NoSteadyStep();
        });
    v.reason = warmup_only ? "no steady step: the window is warm-up, capture or compile only; "
                             "no per-step claim is made"
               : !fragment_reason.empty() ? fragment_reason + "; no per-step claim is made"
               : any_steps                ? "no device activity in the analysed steps"
                                          : "no complete step with device activity";
    v.line = fmt::format("Verdict: not judgeable ({})", v.reason);
    return v;
  }
  v.judgeable = true;
  v.rank = RankOf(worst->timeline(), worst_position);
  const StepMetrics& m = worst->step_metrics();
  // Device-time sums over the rank's devices: each device-instant of a step
  // is in one breakdown category, and each idle instant has one cause.
  TimeNs step_ns = 0, kernel_busy_ns = 0;
  std::array<TimeNs, kStepCategoryCount> breakdown_ns{};
  for (const DeviceMetrics& d : m.summary) {
    if (d.device < 0) continue;
    step_ns += d.step_ns;
    kernel_busy_ns += d.kernel_busy_ns;
    for (int c = 0; c < kStepCategoryCount; ++c) breakdown_ns[c] += d.breakdown_ns[c];
  }
  const std::array<TimeNs, kIdleCauseCount>& idle_ns = worst->idle_attribution().total_ns;
  // A cause the trace's integrity withholds bounds nothing either: the
  // verdict says no more than the findings may.
  const TraceIntegrity& integrity = worst->trace_integrity();
  auto withheld = [&](IdleCause c) {
    return std::any_of(integrity.withheld.begin(), integrity.withheld.end(),
                       [&](const WithheldCause& w) { return w.cause == IdleCauseName(c); });
  };
  auto idle = [&](IdleCause c) { return withheld(c) ? 0 : idle_ns[static_cast<int>(c)]; };
  TimeNs withheld_ns = 0;
  for (int c = 0; c < kIdleCauseCount; ++c) {
    if (withheld(static_cast<IdleCause>(c))) withheld_ns += idle_ns[c];
  }
  auto busy = [&](StepCategory c) { return breakdown_ns[static_cast<int>(c)]; };
  auto share = [&](TimeNs ns) {
    return step_ns > 0 ? static_cast<double>(ns) / static_cast<double>(step_ns) : 0.0;
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
  double utilization = share(kernel_busy_ns);
  // "TPU busy with kernels" on a TPU: the words follow the device.
  const std::string_view accel = AcceleratorName(worst->timeline().metadata());
  // Idle after device work with no linked launch has no cause either (it is
  // never guessed): a Chrome trace that does not link launches, or lost
  // correlation ids.
  const TimeNs unattributed_ns = idle_ns[static_cast<int>(IdleCause::kUnattributed)];
  const TimeNs uncharged_ns = withheld_ns + unattributed_ns;
  if (utilization < kComputeBoundUtilization && uncharged_ns > 0 &&
      (largest == nullptr || uncharged_ns > largest->ns)) {
    // Most of what keeps the GPU from work is idle that cannot be charged:
    // naming a bound from the rest would be a guess.
    v.judgeable = false;
    v.bound = "not judgeable";
    const std::string why =
        withheld_ns >= unattributed_ns && !integrity.withheld.empty()
            ? integrity.withheld.front().reason
            : fmt::format("{:.0f}% of the step is idle {}, so its host cause is unknown",
                          100 * share(unattributed_ns),
                          UnattributedIdleWhere(worst->timeline(), worst->idle_attribution()));
    v.reason = fmt::format("rank {}: {} busy with kernels {:.0f}% of the step, and its idle "
                           "time cannot be charged: {}",
                           v.rank, accel, 100 * utilization, why);
    v.line = fmt::format("Verdict: not judgeable ({})", v.reason);
    return v;
  }
  if (utilization >= kComputeBoundUtilization || largest == nullptr) {
    v.bound = "gpu compute";
    v.share = utilization;
    // The verdict text names the dominant kernel family and its efficiency
    // (contract: details go in the text, never in the enum).
    const std::string family = DominantFamilyText(worst->roofline().summary);
    v.line = fmt::format("Verdict: gpu compute (rank {}: {} busy with kernels {:.0f}% of the step{})",
                         v.rank, accel, 100 * utilization, family.empty() ? "" : "; " + family);
    return v;
  }
  v.bound = std::string(largest->bound);
  v.share = share(largest->ns);
  v.line = fmt::format("Verdict: {} (rank {}: {}, {:.0f}% of the step; {} busy with kernels "
                       "{:.0f}%)",
                       v.bound, v.rank, largest->what, 100 * v.share, accel, 100 * utilization);
  return v;
}

bool NoRankHasSteadyStep(const ReportInput& input) {
  if (input.contexts.empty()) return false;
  return std::all_of(input.contexts.begin(), input.contexts.end(),
                     [](AnalysisContext* c) { return c->step_phase().NoSteadyStep(); });
}

std::string_view TensorCoreCell(TensorCoreUse tc, std::string_view accelerator) {
  return accelerator == "GPU" ? TensorCoreUseName(tc) : std::string_view("-");
}

std::string DeviceLabel(int device, std::string_view accelerator) {
  return device < 0 ? std::string("host") : fmt::format("{} {}", accelerator, device);
}

int RankOf(const Timeline& tl, size_t position) {
  return tl.metadata().rank >= 0 ? tl.metadata().rank : static_cast<int>(position);
}

RunIntegrity SummarizeIntegrity(const ReportInput& input) {
  RunIntegrity out;
  for (size_t i = 0; i < input.ranks.size() && i < input.contexts.size(); ++i) {
    const TraceIntegrity& t = input.contexts[i]->trace_integrity();
    int rank = RankOf(*input.ranks[i], i);
    out.per_rank.emplace_back(rank, t.verdict);
    if (out.worst == nullptr || t.verdict > out.worst->verdict) {
      out.worst = &t;
      out.worst_rank = rank;
    }
  }
  if (out.worst == nullptr) return out;
  out.line = fmt::format("Trace integrity{}: {}",
                         input.ranks.size() > 1 ? fmt::format(" (rank {})", out.worst_rank) : "",
                         out.worst->summary);
  return out;
}

}  // namespace tracelint
