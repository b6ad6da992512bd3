#ifndef TRACELINT_RULES_KERNEL_SMALL_GRIDS_H_
#define TRACELINT_RULES_KERNEL_SMALL_GRIDS_H_

#include <string_view>
#include <vector>

#include "analyzer/engine/rule.h"

namespace tracelint {

// kernel-small-grids (rules/docs/kernel-small-grids.md): kernels that launch
// fewer thread blocks than the GPU has SMs, so part of the GPU idles while
// it is "busy". Owns the SM-idle time inside those kernels (busy time, which
// no idle cause touches); GEMM/conv/attention kernels off Tensor Cores are
// tensor-cores-idle's and left out.
class KernelSmallGridsRule : public Rule {
 public:
  static constexpr std::string_view kSummary =
      "Kernels launch fewer thread blocks than the GPU has SMs, leaving SMs idle while they run";

  std::string_view summary() const override { return kSummary; }
  std::vector<RuleOptionSpec> options() const override;
  RuleOutcome Check(AnalysisContext& ctx, const RuleOptions& options) const override;
};

}  // namespace tracelint

#endif  // TRACELINT_RULES_KERNEL_SMALL_GRIDS_H_
