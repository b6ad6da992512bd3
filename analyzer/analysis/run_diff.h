#ifndef TRACELINT_ANALYZER_ANALYSIS_RUN_DIFF_H_
#define TRACELINT_ANALYZER_ANALYSIS_RUN_DIFF_H_

// Comparison of two runs (docs/design/contract.md, "diff"): per metric, the steady steps
// of one rank of each run as independent samples, a two-sided Mann-Whitney U
// test at alpha 0.05 and the Hodges-Lehmann shift with its 95% interval;
// findings matched by fingerprint; kernels and ops by device time per step.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/analysis/stats.h"
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/base/time.h"

namespace tracelint {

// What a diff compares of one run (diff/diff_input.h builds it from a fresh
// analysis or from a saved JSON report).
// One step of the rank's primary device (the one with the most kernel busy
// time; a rank's steps are the same on all its devices, its utilization and
// breakdown are not).
struct DiffStep {
  int64_t number = -1;
  TimeNs step_ns = 0;
  double gpu_utilization = 0;
  std::array<TimeNs, kStepCategoryCount> breakdown_ns{};
};

// A kernel or op and its device time over the analysed steps.
struct DiffNamedTime {
  std::string name;
  int64_t count = 0;
  TimeNs total_ns = 0;
};

struct DiffRank {
  int rank = 0;
  std::string accelerator = "GPU";  // "TPU", "MTIA": what the labels call the device
  // What the run-mismatch warning compares (docs/design/contract.md, "diff:
  // outliers, compared ranks, warnings"); empty / -1 where unknown.
  std::string framework;
  int world_size = -1;
  std::string device_name;  // the primary device's, else the first named
  int64_t analysed_steps = 0;  // divides kernel and op times into per-step values
  // The largest allocated peak of the rank's devices and that device's
  // memory (analysis/memory_usage.h); -1 when not recorded or unknown.
  int64_t peak_allocated_bytes = -1;
  int64_t device_memory_bytes = -1;
  std::vector<DiffStep> steady_steps;
  std::vector<DiffNamedTime> kernels;
  std::vector<DiffNamedTime> ops;
};

struct DiffFinding {
  std::string fingerprint;
  std::string rule_id;
  std::string cause;
  std::string title;
  std::string severity;
  int rank = -1;
  TimeNs recoverable_ns_per_step = 0;
  // Per steady step (Finding::recoverable_ns_steps); empty when the rule
  // gives only the mean, or the report predates the field.
  std::vector<TimeNs> recoverable_ns_steps;
  double recoverable_share = 0;
  TimeNs one_time_ns = 0;
};

struct DiffRun {
  std::string label;  // the path given on the command line
  // The run's verdict (report_data.h): a run analyze cannot judge (a
  // fragment, no device activity) makes a diff with it exit 5 as well.
  bool judgeable = true;
  std::string verdict_line;
  std::vector<DiffRank> ranks;
  std::vector<DiffFinding> findings;  // ranked, as the report lists them
};

// A finding's recoverable time moves by more than this share with too few
// steps to judge noise: "changed".
inline constexpr double kFindingChangeShareWithoutNoise = 0.20;

struct DiffOptions {
  int rank = -1;                     // -1: the worst rank of each run
  int top_n = 10;                    // kernels / ops listed
  double fail_on_regression_pct = -1;  // < 0: no gate
};

struct MetricDiff {
  std::string name;  // "step_time", "gpu_utilization", "breakdown.kernel", ...
  bool is_share = false;  // values are fractions 0..1, else ns
  SampleComparison comparison;
};

enum class FindingChangeKind { kAdded, kRemoved, kChanged, kUnchanged };
std::string_view FindingChangeName(FindingChangeKind k);  // "added", ...

// How a matched finding was judged changed or unchanged.
enum class FindingJudgedBy {
  kNone,          // added or removed: nothing to judge
  kTest,          // Mann-Whitney over both runs' per-step values
  kTooFewSteps,   // per-step values, fewer than kMinSamplesToJudgeNoise on a side: 20%
  kMeanOnly,      // the rule gives only a mean on a side: 20%
  kOneTime,       // a one-time cost (no per-step value): 20%
};
// "test", "too-few-steps", "mean-only", "one-time"; "" for kNone.
std::string_view FindingJudgedByName(FindingJudgedBy j);

struct FindingChange {
  FindingChangeKind kind = FindingChangeKind::kUnchanged;
  DiffFinding base;  // empty when added
  DiffFinding next;  // empty when removed
  TimeNs delta_ns_per_step = 0;  // next - base recoverable time per step
  TimeNs delta_one_time_ns = 0;
  FindingJudgedBy judged_by = FindingJudgedBy::kNone;
  // The per-step values compared (judged_by == kTest, or kTooFewSteps for
  // the medians): shift and interval of the recoverable time per step.
  SampleComparison comparison;
};

struct NamedDelta {
  std::string name;
  TimeNs base_ns_per_step = 0;
  TimeNs new_ns_per_step = 0;
  TimeNs delta_ns_per_step() const { return new_ns_per_step - base_ns_per_step; }
};

// The compared ranks' largest allocated device-memory peak (informational:
// one value per run, no noise test); -1 where a run recorded none.
struct PeakMemoryDiff {
  int64_t base_bytes = -1;
  int64_t new_bytes = -1;
  int64_t device_bytes = -1;  // the new run's device memory, else the base's
  bool any() const { return base_bytes >= 0 || new_bytes >= 0; }
};

// An outlier step of a compared rank (analysis/outlier_steps.h, the one
// definition): its number and how much slower than the rank's median it was.
struct DiffOutlier {
  int64_t number = -1;
  TimeNs excess_ns = 0;
};

// How the compared ranks were chosen (the header says it).
enum class RankChoice {
  kAsked,        // --rank R on both sides
  kSameAsNew,    // New's slowest rank, and the same rank id in Base
  kEachWorst,    // Base lacks New's slowest rank id: each run's slowest
};

struct RunDiff {
  std::string base_label;
  std::string new_label;
  int base_rank = -1;
  int new_rank = -1;
  RankChoice rank_choice = RankChoice::kSameAsNew;
  // Differences that make the comparison suspect (device, world size,
  // framework, op set): each a sentence, shown above everything else.
  std::vector<std::string> warnings;
  // Outlier steps of each compared rank, slowest first, and the step-time
  // change without them (Hodges-Lehmann shift of the rest, in percent of
  // the rest's base median). The significance test and the gate use every
  // steady step; these only explain the headline.
  std::vector<DiffOutlier> base_outliers;
  std::vector<DiffOutlier> new_outliers;
  double trimmed_change_pct = 0;
  bool has_outliers() const { return !base_outliers.empty() || !new_outliers.empty(); }
  // What the metric labels call the device ("GPU utilization", "TPU
  // utilization"): the new run's, as the change is read against it.
  std::string accelerator = "GPU";
  PeakMemoryDiff peak_memory;
  bool judged = false;  // both sides have kMinSamplesToJudgeNoise steady steps
  std::vector<MetricDiff> metrics;       // step_time first
  std::vector<FindingChange> findings;   // added, removed, changed; then unchanged
  std::vector<NamedDelta> kernels;       // largest |delta| first, non-zero only, top_n
  std::vector<NamedDelta> ops;
  // The compared ranks' steady steps (the samples), for per-step charts.
  std::vector<DiffStep> base_steps;
  std::vector<DiffStep> new_steps;
  // Step-time change relative to the base median, in percent: the shift and
  // its 95% interval (meaningful when judged).
  double step_change_pct = 0;
  double step_change_low_pct = 0;
  double step_change_high_pct = 0;
  // --fail-on-regression: whether it was asked, could be evaluated, tripped.
  double fail_on_regression_pct = -1;
  bool gate_evaluated = false;
  bool gate_tripped = false;
  // Nothing beyond noise, no finding added, removed or changed, no kernel or
  // op time moved.
  bool empty() const;
  const MetricDiff& step_time() const { return metrics.front(); }
};

// Op-set similarity below which the runs are warned to be different
// programs (Jaccard index of the compared ranks' op names).
inline constexpr double kDiffMinOpJaccard = 0.5;

// Errors: a run without analysed steps on the compared rank (FailedPrecondition),
// --rank naming a rank a run lacks (InvalidArgument).
absl::StatusOr<RunDiff> ComputeRunDiff(const DiffRun& base, const DiffRun& next,
                                       const DiffOptions& options);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_RUN_DIFF_H_
