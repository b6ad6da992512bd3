#ifndef TRACELINT_RULES_TENSOR_CORES_IDLE_H_
#define TRACELINT_RULES_TENSOR_CORES_IDLE_H_

#include <string_view>
#include <vector>

#include "analyzer/engine/rule.h"

namespace tracelint {

// tensor-cores-idle (rules/docs/tensor-cores-idle.md): GEMM, convolution and
// attention kernels that run on CUDA cores on an NVIDIA GPU with Tensor
// Cores. Owns that busy time; the saving is a modelled bound.
class TensorCoresIdleRule : public Rule {
 public:
  static constexpr std::string_view kSummary =
      "GEMM, convolution and attention kernels run without Tensor Cores on a GPU that has them";

  std::string_view summary() const override { return kSummary; }
  std::vector<RuleOptionSpec> options() const override;
  RuleOutcome Check(AnalysisContext& ctx, const RuleOptions& options) const override;
};

}  // namespace tracelint

#endif  // TRACELINT_RULES_TENSOR_CORES_IDLE_H_
