#include "analyzer/analysis/run_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <map>

#include "analyzer/analysis/outlier_steps.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

std::vector<double> StepTimes(const DiffRank& r) {
  std::vector<double> v;
  for (const DiffStep& s : r.steady_steps) v.push_back(static_cast<double>(s.step_ns));
  return v;
}

// --rank, else the rank with the slowest median steady step (the lowest rank
// on a tie): the one that bounds the run.
absl::StatusOr<const DiffRank*> PickRank(const DiffRun& run, int wanted) {
  const DiffRank* pick = nullptr;
  double worst_ns = -1;
  for (const DiffRank& r : run.ranks) {
    if (wanted >= 0) {
      if (r.rank == wanted) pick = &r;
      continue;
    }
    if (r.steady_steps.empty()) continue;
    double median_ns = Median(StepTimes(r));
    if (median_ns > worst_ns || (median_ns == worst_ns && r.rank < pick->rank)) {
      pick = &r;
      worst_ns = median_ns;
    }
  }
  if (pick == nullptr && wanted >= 0) {
    return absl::InvalidArgumentError(fmt::format("{}: no rank {}", run.label, wanted));
  }
  if (pick == nullptr || pick->steady_steps.empty()) {
    // Said, never compared as empty samples: exit 5 (not judgeable).
    return absl::FailedPreconditionError(fmt::format(
        "{}: no steady step to compare{} (every step is warm-up, capture or compile, or none "
        "is complete; profile after warm-up)",
        run.label, wanted >= 0 ? fmt::format(" on rank {}", wanted) : std::string()));
  }
  return pick;
}

// Base's rank with the given id that has steady steps, or nullptr.
const DiffRank* SameRank(const DiffRun& run, int rank) {
  for (const DiffRank& r : run.ranks) {
    if (r.rank == rank && !r.steady_steps.empty()) return &r;
  }
  return nullptr;
}

// The outlier steps of a rank's samples (FindOutlierSteps, the one
// definition), slowest first.
std::vector<DiffOutlier> OutliersOf(const DiffRank& r, std::vector<double>* rest) {
  std::vector<TimeNs> step_ns;
  for (const DiffStep& s : r.steady_steps) step_ns.push_back(s.step_ns);
  OutlierSteps found = FindOutlierSteps(step_ns);
  std::vector<DiffOutlier> out;
  for (size_t i = 0; i < step_ns.size(); ++i) {
    if (found.Contains(i)) {
      out.push_back({r.steady_steps[i].number, step_ns[i] - found.median_ns});
    } else if (rest != nullptr) {
      rest->push_back(static_cast<double>(step_ns[i]));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const DiffOutlier& a, const DiffOutlier& b) {
    return a.excess_ns > b.excess_ns;
  });
  return out;
}

// Sorted distinct op names of a rank, without the pseudo-op of device work
// no launch links to (it names no code of the program).
std::vector<std::string> OpNames(const DiffRank& r) {
  std::vector<std::string> names;
  for (const DiffNamedTime& o : r.ops) {
    if (!o.name.empty() && o.name.front() != '[') names.push_back(o.name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// docs/design/contract.md, "diff: outliers, compared ranks, warnings": a
// warning heads the diff when the runs differ in device, world size,
// framework or op set.
std::vector<std::string> MismatchWarnings(const DiffRank& b, const DiffRank& n) {
  std::vector<std::string> out;
  if (!b.device_name.empty() && !n.device_name.empty() && b.device_name != n.device_name) {
    out.push_back(fmt::format("the runs ran on different devices ({} and {})", b.device_name,
                              n.device_name));
  }
  if (b.world_size > 0 && n.world_size > 0 && b.world_size != n.world_size) {
    out.push_back(fmt::format("the world sizes differ ({} and {} ranks)", b.world_size,
                              n.world_size));
  }
  if (!b.framework.empty() && !n.framework.empty() && b.framework != n.framework) {
    out.push_back(fmt::format("the frameworks differ ({} and {})", b.framework, n.framework));
  }
  std::vector<std::string> ops_b = OpNames(b), ops_n = OpNames(n);
  if (!ops_b.empty() && !ops_n.empty()) {
    std::vector<std::string> common;
    std::set_intersection(ops_b.begin(), ops_b.end(), ops_n.begin(), ops_n.end(),
                          std::back_inserter(common));
    double jaccard = static_cast<double>(common.size()) /
                     static_cast<double>(ops_b.size() + ops_n.size() - common.size());
    if (jaccard < kDiffMinOpJaccard) {
      out.push_back(fmt::format(
          "the runs share {} of {} op names (Jaccard {:.2f} < {:.1f}): probably different "
          "programs",
          common.size(), ops_b.size() + ops_n.size() - common.size(), jaccard,
          kDiffMinOpJaccard));
    }
  }
  return out;
}

MetricDiff Compare(std::string name, bool is_share, const DiffRank& base, const DiffRank& next,
                   double (*value)(const DiffStep&, int), int arg) {
  std::vector<double> b, n;
  for (const DiffStep& s : base.steady_steps) b.push_back(value(s, arg));
  for (const DiffStep& s : next.steady_steps) n.push_back(value(s, arg));
  return {std::move(name), is_share, CompareSamples(b, n)};
}

// Device time per step of each name, both runs, largest change first.
std::vector<NamedDelta> NamedDeltas(const std::vector<DiffNamedTime>& base, int64_t base_steps,
                                    const std::vector<DiffNamedTime>& next, int64_t new_steps,
                                    int top_n) {
  std::map<std::string, NamedDelta> by_name;
  for (const DiffNamedTime& t : base) {
    NamedDelta& d = by_name[t.name];
    d.name = t.name;
    d.base_ns_per_step += base_steps > 0 ? t.total_ns / base_steps : 0;
  }
  for (const DiffNamedTime& t : next) {
    NamedDelta& d = by_name[t.name];
    d.name = t.name;
    d.new_ns_per_step += new_steps > 0 ? t.total_ns / new_steps : 0;
  }
  std::vector<NamedDelta> out;
  for (auto& [name, d] : by_name) {
    if (d.delta_ns_per_step() != 0) out.push_back(std::move(d));
  }
  // By |delta|, then name (the map's order): deterministic.
  std::stable_sort(out.begin(), out.end(), [](const NamedDelta& a, const NamedDelta& b) {
    return std::llabs(a.delta_ns_per_step()) > std::llabs(b.delta_ns_per_step());
  });
  if (out.size() > static_cast<size_t>(std::max(0, top_n))) out.resize(std::max(0, top_n));
  return out;
}

bool MovedBeyondShare(TimeNs base_ns, TimeNs new_ns) {
  TimeNs delta_ns = new_ns - base_ns;
  if (delta_ns == 0) return false;
  return std::fabs(static_cast<double>(delta_ns)) >
         kFindingChangeShareWithoutNoise * static_cast<double>(std::max<TimeNs>(base_ns, 1));
}

std::vector<double> Samples(const std::vector<TimeNs>& ns) {
  return std::vector<double>(ns.begin(), ns.end());
}

// docs/design/contract.md "diff": a matched finding changed when its recoverable time
// per step moved beyond the step-time test, applied to the finding's own
// per-step values (Mann-Whitney U, alpha 0.05); with fewer than 5 steady
// steps on a side, or a rule that gives only a mean, when it moved by more
// than 20%. A one-time cost has no per-step values: 20% of the total.
void JudgeChange(FindingChange& c) {
  const DiffFinding& b = c.base;
  const DiffFinding& n = c.next;
  bool moved = false;
  if (b.one_time_ns > 0 || n.one_time_ns > 0) {
    c.judged_by = FindingJudgedBy::kOneTime;
    moved = MovedBeyondShare(b.one_time_ns, n.one_time_ns);
  } else if (b.recoverable_ns_steps.empty() || n.recoverable_ns_steps.empty()) {
    c.judged_by = FindingJudgedBy::kMeanOnly;
    moved = MovedBeyondShare(b.recoverable_ns_per_step, n.recoverable_ns_per_step);
  } else {
    c.comparison =
        CompareSamples(Samples(b.recoverable_ns_steps), Samples(n.recoverable_ns_steps));
    if (c.comparison.judged) {
      c.judged_by = FindingJudgedBy::kTest;
      moved = c.comparison.beyond_noise;
    } else {
      c.judged_by = FindingJudgedBy::kTooFewSteps;
      moved = MovedBeyondShare(b.recoverable_ns_per_step, n.recoverable_ns_per_step);
    }
  }
  c.kind = moved ? FindingChangeKind::kChanged : FindingChangeKind::kUnchanged;
}

// Findings by fingerprint: added, removed, changed, then unchanged, each in
// the order the reports rank them.
std::vector<FindingChange> MatchFindings(const DiffRun& base, const DiffRun& next) {
  std::vector<FindingChange> added, removed, changed, unchanged;
  std::vector<bool> used(next.findings.size(), false);
  for (const DiffFinding& b : base.findings) {
    size_t match = next.findings.size();
    for (size_t i = 0; i < next.findings.size(); ++i) {
      if (!used[i] && next.findings[i].fingerprint == b.fingerprint) {
        match = i;
        break;
      }
    }
    if (match == next.findings.size()) {
      removed.push_back({FindingChangeKind::kRemoved, b, {}, -b.recoverable_ns_per_step,
                         -b.one_time_ns});
      continue;
    }
    used[match] = true;
    const DiffFinding& n = next.findings[match];
    FindingChange c{FindingChangeKind::kUnchanged, b, n,
                    n.recoverable_ns_per_step - b.recoverable_ns_per_step,
                    n.one_time_ns - b.one_time_ns};
    JudgeChange(c);
    (c.kind == FindingChangeKind::kChanged ? changed : unchanged).push_back(std::move(c));
  }
  for (size_t i = 0; i < next.findings.size(); ++i) {
    if (used[i]) continue;
    const DiffFinding& n = next.findings[i];
    added.push_back({FindingChangeKind::kAdded, {}, n, n.recoverable_ns_per_step, n.one_time_ns});
  }
  std::vector<FindingChange> out;
  for (auto* part : {&added, &removed, &changed, &unchanged}) {
    for (FindingChange& c : *part) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

std::string_view FindingChangeName(FindingChangeKind k) {
  switch (k) {
    case FindingChangeKind::kAdded: return "added";
    case FindingChangeKind::kRemoved: return "removed";
    case FindingChangeKind::kChanged: return "changed";
    case FindingChangeKind::kUnchanged: return "unchanged";
  }
  return "unchanged";
}

std::string_view FindingJudgedByName(FindingJudgedBy j) {
  switch (j) {
    case FindingJudgedBy::kNone: return "";
    case FindingJudgedBy::kTest: return "test";
    case FindingJudgedBy::kTooFewSteps: return "too-few-steps";
    case FindingJudgedBy::kMeanOnly: return "mean-only";
    case FindingJudgedBy::kOneTime: return "one-time";
  }
  return "";
}

bool RunDiff::empty() const {
  for (const MetricDiff& m : metrics) {
    if (m.comparison.beyond_noise) return false;
  }
  for (const FindingChange& f : findings) {
    if (f.kind != FindingChangeKind::kUnchanged) return false;
  }
  return kernels.empty() && ops.empty();
}

absl::StatusOr<RunDiff> ComputeRunDiff(const DiffRun& base, const DiffRun& next,
                                       const DiffOptions& options) {
  // docs/design/contract.md, "diff: outliers, compared ranks, warnings":
  // New's slowest rank, and the same rank id in Base when it has one.
  absl::StatusOr<const DiffRank*> new_rank = PickRank(next, options.rank);
  if (!new_rank.ok()) return new_rank.status();
  RankChoice choice = options.rank >= 0 ? RankChoice::kAsked : RankChoice::kSameAsNew;
  const DiffRank* same = options.rank >= 0 ? nullptr : SameRank(base, (*new_rank)->rank);
  absl::StatusOr<const DiffRank*> base_rank =
      same != nullptr ? absl::StatusOr<const DiffRank*>(same) : PickRank(base, options.rank);
  if (!base_rank.ok()) return base_rank.status();
  if (options.rank < 0 && same == nullptr) choice = RankChoice::kEachWorst;
  const DiffRank& b = **base_rank;
  const DiffRank& n = **new_rank;

  RunDiff d;
  d.base_label = base.label;
  d.new_label = next.label;
  d.base_rank = b.rank;
  d.new_rank = n.rank;
  d.rank_choice = choice;
  d.warnings = MismatchWarnings(b, n);
  d.accelerator = n.accelerator;
  d.peak_memory.base_bytes = b.peak_allocated_bytes;
  d.peak_memory.new_bytes = n.peak_allocated_bytes;
  d.peak_memory.device_bytes =
      n.device_memory_bytes > 0 ? n.device_memory_bytes : b.device_memory_bytes;
  d.base_steps = b.steady_steps;
  d.new_steps = n.steady_steps;
  d.metrics.push_back(Compare("step_time", false, b, n,
                              [](const DiffStep& s, int) { return double(s.step_ns); }, 0));
  d.metrics.push_back(Compare("gpu_utilization", true, b, n,
                              [](const DiffStep& s, int) { return s.gpu_utilization; }, 0));
  for (int i = 0; i < kStepCategoryCount; ++i) {
    d.metrics.push_back(Compare(
        fmt::format("breakdown.{}", StepCategoryName(static_cast<StepCategory>(i))), false, b,
        n, [](const DiffStep& s, int c) { return double(s.breakdown_ns[c]); }, i));
  }
  const SampleComparison& step = d.step_time().comparison;
  d.judged = step.judged;
  double base_median_ns = std::max(step.median_base, 1.0);
  if (d.judged) {
    d.step_change_pct = 100 * step.shift.estimate / base_median_ns;
    d.step_change_low_pct = 100 * step.shift.low / base_median_ns;
    d.step_change_high_pct = 100 * step.shift.high / base_median_ns;
  } else {
    d.step_change_pct = 100 * (step.median_new - step.median_base) / base_median_ns;
  }
  // The outliers explain the headline; the test above keeps every step.
  std::vector<double> base_rest, new_rest;
  d.base_outliers = OutliersOf(b, &base_rest);
  d.new_outliers = OutliersOf(n, &new_rest);
  if (d.has_outliers() && !base_rest.empty() && !new_rest.empty()) {
    ShiftEstimate trimmed = HodgesLehmann(base_rest, new_rest, 0.95);
    d.trimmed_change_pct = 100 * trimmed.estimate / std::max(Median(base_rest), 1.0);
  }
  d.findings = MatchFindings(base, next);
  d.kernels = NamedDeltas(b.kernels, b.analysed_steps, n.kernels, n.analysed_steps, options.top_n);
  d.ops = NamedDeltas(b.ops, b.analysed_steps, n.ops, n.analysed_steps, options.top_n);

  d.fail_on_regression_pct = options.fail_on_regression_pct;
  if (options.fail_on_regression_pct >= 0 && d.judged) {
    d.gate_evaluated = true;
    d.gate_tripped = d.step_change_low_pct > options.fail_on_regression_pct;
  }
  return d;
}

}  // namespace tracelint
