#ifndef TRACELINT_ANALYZER_ENGINE_FINDING_H_
#define TRACELINT_ANALYZER_ENGINE_FINDING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/base/time.h"

namespace tracelint {

enum class FindingSeverity : uint8_t { kLow = 0, kMedium = 1, kHigh = 2 };
// How the recoverable time was obtained.
enum class Confidence : uint8_t {
  kInferred = 0,  // from names / heuristics
  kModelled = 1,  // from a model (e.g. an assumed Tensor Core speed-up)
  kMeasured = 2,  // measured directly on the timeline
};

std::string_view FindingSeverityName(FindingSeverity s);

// docs/design/contract.md, "Severity": one scale over the recoverable share of the mean
// step, assigned by the engine (SeverityForShare), never by a rule's options.
inline constexpr double kHighSeverityShare = 0.15;
inline constexpr double kMediumSeverityShare = 0.05;
FindingSeverity SeverityForShare(double recoverable_share);
std::string_view ConfidenceName(Confidence c);

// "GPU idle 38% of step (threshold 10%)": a value shown against its threshold.
struct Evidence {
  std::string text;
  double value = 0;       // in the unit named by `unit`
  double threshold = 0;   // NaN-free; 0 when there is none
  std::string unit;       // "share", "ns", "GB/s", "count"
};

struct TopItem {
  std::string name;          // op or kernel name
  TimeNs total_ns = 0;
  int64_t count = 0;
  std::string detail;        // shapes, dtype, cause ...
};

struct FindingLocation {
  int rank = -1;
  int64_t first_step = -1;   // step numbers as the trace names them
  int64_t last_step = -1;
  std::string track;         // "stream 7", "thread 1102"
  TimeNs start_ns = 0;       // time range of the worst instance
  TimeNs end_ns = 0;
  std::vector<TopItem> top_items;
  std::vector<std::string> python_stack;  // innermost last, when present
};

// One rank's own finding behind a merged multi-rank finding.
struct RankValue {
  int rank = -1;                 // as the run names it
  bool fired = false;            // false: below threshold on this rank
  TimeNs recoverable_ns_per_step = 0;
  double recoverable_share = 0;  // of that rank's mean step
};

struct Finding {
  std::string rule_id;           // stamped by the engine, never by a rule
  std::string cause;             // sub-cause key, e.g. "data_loader"
  FindingSeverity severity = FindingSeverity::kLow;
  TimeNs recoverable_ns_per_step = 0;  // an upper bound, mean over steps
  // The same recoverable time for each steady step, in the order of
  // AnalysisContext::steps(), when the rule measures it step by step; empty
  // when it can only give the mean (diff then compares means with the
  // too-few-steps rule and says so). Scaled with recoverable_ns_per_step.
  std::vector<TimeNs> recoverable_ns_steps;
  double recoverable_share = 0;        // of the mean step, 0..1
  Confidence confidence = Confidence::kMeasured;
  std::string title;
  std::string message;
  std::vector<Evidence> evidence;
  FindingLocation location;
  std::string fix;
  // Per-rank lines when the run has several ranks ("rank 3: 12.1 ms"). The
  // engine writes them from rank_values after the cross-rank hooks, so a hook
  // that moves time between findings moves it in the per-rank values too; a
  // finding a hook adds may write its own lines and leave rank_values empty.
  std::vector<std::string> per_rank;
  std::vector<RankValue> rank_values;
  // One-time findings (warm-up, start-up, capture, compile; docs/design/contract.md):
  // the total cost, not per step. Such a finding has recoverable_ns_per_step
  // == 0 and recoverable_share == 0, so it never counts in per-step totals.
  TimeNs one_time_ns = 0;
  // Outlier steps (docs/design/contract.md, "Outlier steps") are left out of
  // recoverable time; the extra time of those whose excess this finding's
  // cause owns is reported here (the sum over them), with their numbers.
  TimeNs outlier_step_ns = 0;
  std::vector<int64_t> outlier_steps;
  // Stable identity across re-runs of the same code (fingerprint.h); stamped
  // by the engine after the cross-rank merge, never by a rule.
  std::string fingerprint;
};

// Multiplies a finding's recoverable time per step, and each of its per-step
// values, by `scale` (rounded down), leaving the share to the caller: the
// engine caps claims with it, a cross-rank hook moves time between findings.
void ScaleRecoverable(Finding& f, double scale);

// Outcome of one rule on one rank: findings, or why it could not judge.
struct RuleOutcome {
  std::string rule_id;
  bool applicable = true;            // the gate said yes
  std::string not_judged_reason;     // set when the rule could not analyse
  std::vector<Finding> findings;
};

// The findings of a run in one line, for every report and the gate.
struct FindingsSummary {
  int count = 0;
  TimeNs recoverable_ns_per_step = 0;
  double recoverable_share = 0;  // capped at 1: causes are charged once
  std::string line;              // "3 findings, up to 41% of step time recoverable"
};
FindingsSummary SummarizeFindings(const std::vector<Finding>& findings);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ENGINE_FINDING_H_
