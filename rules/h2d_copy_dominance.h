#ifndef TRACELINT_RULES_H2D_COPY_DOMINANCE_H_
#define TRACELINT_RULES_H2D_COPY_DOMINANCE_H_

#include <string_view>
#include <vector>

#include "analyzer/engine/rule.h"

namespace tracelint {

// h2d-copy-dominance (rules/docs/h2d-copy-dominance.md): host-to-device
// copies that the GPU waits for. Owns two causes of lost time (docs/design/domain.md,
// "Time accounting"): idle time charged to pageable copies, and H2D copy
// time not overlapped by any kernel.
class H2dCopyDominanceRule : public Rule {
 public:
  static constexpr std::string_view kSummary =
      "Host-to-device copies take a large, exposed share of the step (pageable source, "
      "synchronous copies, low GB/s)";

  std::string_view summary() const override { return kSummary; }
  std::vector<RuleOptionSpec> options() const override;
  RuleOutcome Check(AnalysisContext& ctx, const RuleOptions& options) const override;
};

}  // namespace tracelint

#endif  // TRACELINT_RULES_H2D_COPY_DOMINANCE_H_
