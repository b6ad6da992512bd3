#ifndef TRACELINT_RULES_TENSOR_CORES_MATRIX_UNITS_H_
#define TRACELINT_RULES_TENSOR_CORES_MATRIX_UNITS_H_

// tensor-cores-idle on AMD Matrix Cores and MTIA (tensor_cores_matrix_units.cc).

#include <string_view>
#include <vector>

#include "analyzer/engine/rule.h"
#include "analyzer/model/timeline.h"

namespace tracelint::rules_internal {

// The rule's option names the check reads.
struct MatrixUnitOptions {
  std::string_view min_share;  // MinNonTcShare
  std::string_view speedup;    // AssumedSpeedup
  std::string_view min_step;   // MinStepShare
};

// A device whose matrix units run 16-bit work faster than float32 and
// whose GEMM dtypes the trace can say: an AMD GPU, or MTIA.
bool HasMatrixUnitsToJudge(const Timeline& tl, int device);

// The `fp32_matrix_units` finding over those devices.
RuleOutcome CheckMatrixUnits(AnalysisContext& ctx, const RuleOptions& options,
                             const std::vector<int>& device_ids,
                             const MatrixUnitOptions& names);

}  // namespace tracelint::rules_internal

#endif  // TRACELINT_RULES_TENSOR_CORES_MATRIX_UNITS_H_
