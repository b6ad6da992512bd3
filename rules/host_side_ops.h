#ifndef TRACELINT_RULES_HOST_SIDE_OPS_H_
#define TRACELINT_RULES_HOST_SIDE_OPS_H_

#include <string_view>
#include <vector>

#include "analyzer/engine/rule.h"

namespace tracelint {

// host-side-ops (rules/docs/host-side-ops.md): work done on the host in the
// middle of device work. Owns two idle causes (docs/design/domain.md, "Time
// accounting"): synchronizing calls (.item(), .cpu(), cudaStreamSynchronize,
// synchronous cudaMemcpy) and host ops with long self time that launch
// nothing. D2H -> host op -> H2D round trips are reported as evidence.
class HostSideOpsRule : public Rule {
 public:
  static constexpr std::string_view kSummary =
      "Host-side ops and implicit syncs (.item(), .cpu(), synchronize) stall the GPU in the "
      "middle of the step";

  std::string_view summary() const override { return kSummary; }
  std::vector<RuleOptionSpec> options() const override;
  RuleOutcome Check(AnalysisContext& ctx, const RuleOptions& options) const override;
};

}  // namespace tracelint

#endif  // TRACELINT_RULES_HOST_SIDE_OPS_H_
