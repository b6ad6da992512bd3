#ifndef TRACELINT_RULES_GPU_IDLE_GAPS_H_
#define TRACELINT_RULES_GPU_IDLE_GAPS_H_

#include <string_view>
#include <vector>

#include "analyzer/engine/rule.h"

namespace tracelint {

// gpu-idle-gaps (rules/docs/gpu-idle-gaps.md): the GPU waits for the host.
// Owns the idle causes data loader, launch overhead, other host work, host
// silent and device-side waits not on a collective (docs/design/domain.md, "Time
// accounting"); one finding per owned cause.
class GpuIdleGapsRule : public Rule {
 public:
  static constexpr std::string_view kSummary =
      "The GPU sits idle for a large share of the step, waiting for the host (data loading, "
      "launches, other host work)";

  std::string_view summary() const override { return kSummary; }
  std::vector<RuleOptionSpec> options() const override;
  RuleOutcome Check(AnalysisContext& ctx, const RuleOptions& options) const override;
};

}  // namespace tracelint

#endif  // TRACELINT_RULES_GPU_IDLE_GAPS_H_
