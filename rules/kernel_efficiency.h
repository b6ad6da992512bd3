#ifndef TRACELINT_RULES_KERNEL_EFFICIENCY_H_
#define TRACELINT_RULES_KERNEL_EFFICIENCY_H_

#include <string_view>
#include <vector>

#include "analyzer/engine/rule.h"

namespace tracelint {

// kernel-efficiency (rules/docs/kernel-efficiency.md): compute kernels whose
// ops run far below the device's roofline for their shapes. One finding per
// compute family and dtype; it owns the busy time tensor-cores-idle and
// kernel-small-grids leave, and claims a saving only in steps the device
// bounds.
class KernelEfficiencyRule : public Rule {
 public:
  static constexpr std::string_view kSummary =
      "Compute kernels run far below the device's roofline for their shapes";

  std::string_view summary() const override { return kSummary; }
  std::vector<RuleOptionSpec> options() const override;
  RuleOutcome Check(AnalysisContext& ctx, const RuleOptions& options) const override;
};

// The efficiency kernel-efficiency expects of an op whose roofline time per
// call is `roofline_ns`, for a family target `target` (a fraction of the
// peak the efficiency uses): the full target from 20 us, 0.7x from 5 us,
// 0.4x from 1 us, and 0 (not judged: launch-bound work) below.
double SizeClassTarget(double target, double roofline_ns);

}  // namespace tracelint

#endif  // TRACELINT_RULES_KERNEL_EFFICIENCY_H_
