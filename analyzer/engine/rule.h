#ifndef TRACELINT_ANALYZER_ENGINE_RULE_H_
#define TRACELINT_ANALYZER_ENGINE_RULE_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/engine/finding.h"

namespace tracelint {

class AnalysisContext;
struct RankCrossData;

// A named, documented threshold. Overridable as `<rule-id>.<name>=value`.
struct RuleOptionSpec {
  std::string name;         // CamelCase, e.g. "MinIdleShare"
  double default_value = 0;
  std::string unit;         // "share", "ns", "count", "factor"
  std::string description;
  double min_value = 0;     // values outside [min, max] are rejected at start
  double max_value = 1e18;
};

// Effective option values for one rule (defaults merged with overrides).
// Aborts under TRACELINT_STRICT_INVARIANTS (registry.cc).
void UndeclaredOption(std::string_view name);

class RuleOptions {
 public:
  RuleOptions() = default;
  explicit RuleOptions(std::map<std::string, double> values) : values_(std::move(values)) {}
  // Returns the value. An undeclared name is a programming error: under
  // TRACELINT_STRICT_INVARIANTS (every test sets it) it aborts naming the
  // option, so a misspelled lookup fails the test that reaches it instead
  // of silently reading 0; elsewhere it reads 0.
  double Get(std::string_view name) const {
    auto it = values_.find(std::string(name));
    if (it == values_.end()) {
      UndeclaredOption(name);
      return 0.0;
    }
    return it->second;
  }
  const std::map<std::string, double>& values() const { return values_; }

 private:
  std::map<std::string, double> values_;
};

// One check. Rules read signals from the AnalysisContext, never raw format
// details, and never name themselves: the registry owns the id and stamps
// it on every finding.
class Rule {
 public:
  virtual ~Rule() = default;
  // One line, shared with the rule's doc page.
  virtual std::string_view summary() const = 0;
  virtual std::vector<RuleOptionSpec> options() const = 0;
  // Gate + check for one rank. Set outcome.applicable=false with
  // not_judged_reason when the trace lacks what the rule needs.
  virtual RuleOutcome Check(AnalysisContext& ctx, const RuleOptions& options) const = 0;
  // False for a rule that judges the one-time work itself: the engine does
  // not call the others on a rank without a steady step (they could only
  // make per-step claims about warm-up) and lists them as not judged.
  virtual bool needs_steady_steps() const { return true; }
  // Optional cross-rank hook: facts that need every rank at once (Check sees
  // one). When the run has >= 2 ranks, the engine calls it for each merged
  // finding of the rule, `located` being the index in `ranks` of the rank
  // the finding is located at, and appends the result to its evidence.
  // Evidence only: recoverable time stays what Check measured per rank.
  // Both see each rank through its RankCrossData (cross_rank.h): plain data
  // that outlives the rank's events.
  virtual std::vector<Evidence> CrossRankEvidence(const std::vector<const RankCrossData*>& ranks,
                                                  const std::vector<int>& rank_names,
                                                  size_t located) const {
    return {};
  }
  // Optional cross-rank findings: facts only the whole run shows (a rank the
  // others wait for). When the run has >= 2 ranks, the engine passes this
  // rule's merged findings in `merged` and uses what the hook returns in
  // their place, so the hook may add findings and lower the others' savings:
  // time moves only between findings of one rule, so each cause keeps one
  // owner (docs/design/domain.md, "Time accounting"). Severity and fingerprints are the
  // engine's, as for every finding; `location.rank` is the rank's name.
  virtual std::vector<Finding> CrossRankFindings(const std::vector<const RankCrossData*>& ranks,
                                                 const std::vector<int>& rank_names,
                                                 const RuleOptions& options,
                                                 std::vector<Finding> merged) const {
    return merged;
  }
};

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ENGINE_RULE_H_
