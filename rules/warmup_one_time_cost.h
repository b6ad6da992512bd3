#ifndef TRACELINT_RULES_WARMUP_ONE_TIME_COST_H_
#define TRACELINT_RULES_WARMUP_ONE_TIME_COST_H_

#include <string_view>
#include <vector>

#include "analyzer/engine/rule.h"

namespace tracelint {

// warmup-one-time-cost (rules/docs/warmup-one-time-cost.md): the one-time
// work the trace shows (context creation, module loading, cuDNN autotuning,
// graph capture, compilation), reported once with its total time. Its
// findings are one-time findings (docs/design/contract.md, "One-time costs"): no
// per-step saving, ranked after every per-step finding.
class WarmupOneTimeCostRule : public Rule {
 public:
  static constexpr std::string_view kSummary =
      "Warm-up, start-up, graph capture or compilation in the profiled window: a one-time cost, "
      "not a per-step loss";

  std::string_view summary() const override { return kSummary; }
  std::vector<RuleOptionSpec> options() const override;
  RuleOutcome Check(AnalysisContext& ctx, const RuleOptions& options) const override;
  bool needs_steady_steps() const override { return false; }
};

}  // namespace tracelint

#endif  // TRACELINT_RULES_WARMUP_ONE_TIME_COST_H_
