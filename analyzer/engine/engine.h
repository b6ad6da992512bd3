#ifndef TRACELINT_ANALYZER_ENGINE_ENGINE_H_
#define TRACELINT_ANALYZER_ENGINE_ENGINE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "analyzer/engine/finding.h"
#include "analyzer/engine/registry.h"

namespace tracelint {

class AnalysisContext;
struct RankRecord;

struct EngineOptions {
  std::string rules_glob = "*";              // --rules
  std::vector<std::string> set_overrides;    // --set id.Option=V, applied last
  std::string config_path;                   // --config (JSON or TOML)
  // --rules was given: it wins over a config file's selection.
  bool rules_given = false;
};

struct EngineResult {
  // Ranked (ranking.h); rule ids stamped; one finding per (rule, cause)
  // across ranks, located at the worst rank with per-rank values.
  std::vector<Finding> findings;
  // Rules that could not judge a rank, one entry per (rule, reason).
  std::vector<RuleOutcome> not_judged;
  // Broken engine invariants (a rank's savings over its step, a non-finite
  // number a rule produced and the engine zeroed). Empty in a healthy build;
  // the tests require it.
  std::vector<std::string> warnings;
};

// The selected rules (in selection order) with their resolved options.
struct PreparedRules {
  std::string config_path;  // the config file used; empty: none
  std::string rules_glob;   // the selection in effect (--rules, else the config's, else "*")
  std::vector<std::string> selected;
  std::map<std::string, RuleOptions> options;
};
// Fails on everything that can be wrong with the options, before any trace
// is read: bad registry, unknown rule or option, out-of-range value,
// unreadable config, a --rules glob that matches nothing.
absl::StatusOr<PreparedRules> PrepareRules(const RuleRegistry& registry,
                                           const EngineOptions& options);

// Every selected rule on one rank, in selection order. Rules keep no state,
// so ranks may be evaluated on different threads at once (one thread per
// AnalysisContext).
std::vector<RuleOutcome> EvaluateRank(const RuleRegistry& registry, const PreparedRules& rules,
                                      AnalysisContext& rank);

// Merges outcomes[r] (EvaluateRank on rank r) into the run's findings, as
// RunRules does; serial and deterministic whatever order the ranks were
// evaluated in. It reads each rank's record only (its metadata rank, trace
// integrity and cross-rank data), so the ranks' timelines may be gone.
EngineResult MergeRankOutcomes(const RuleRegistry& registry, const PreparedRules& rules,
                               const std::vector<const RankRecord*>& ranks,
                               std::vector<std::vector<RuleOutcome>> outcomes);

// Runs each selected rule on each rank (ranks in the given order; a rank is
// named by its metadata rank, else its position). With >= 2 ranks, each
// merged finding also gets its rule's Rule::CrossRankEvidence lines.
//
// Invariant (docs/design/domain.md, "Time accounting"): on every rank the
// recoverable shares of all findings sum to at most 1, because each idle
// instant has one cause and each cause one owning rule. The engine checks it
// and reports a violation in `warnings`.
absl::StatusOr<EngineResult> RunRules(const RuleRegistry& registry, const EngineOptions& options,
                                      std::vector<AnalysisContext*>& ranks);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ENGINE_ENGINE_H_
