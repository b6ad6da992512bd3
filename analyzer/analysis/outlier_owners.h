#ifndef TRACELINT_ANALYZER_ANALYSIS_OUTLIER_OWNERS_H_
#define TRACELINT_ANALYZER_ANALYSIS_OUTLIER_OWNERS_H_

// Which cause owns the extra time of each outlier step (docs/design/contract.md,
// "Outlier steps"): outlier steps leave every per-step saving, and their
// extra time (the step less the median steady step) is reported on the
// finding of the cause that grew the most in that step, compared with the
// mean judged step: an idle cause (its owning rule), exposed communication
// (comm-clustered-allreduce) or exposed copies (h2d-copy-dominance). When
// compute kernels grew the most, no rule owns it.

#include <string>
#include <vector>

#include "analyzer/base/time.h"

namespace tracelint {

class AnalysisContext;

struct OutlierOwner {
  int64_t step = -1;     // the step's number
  TimeNs extra_ns = 0;   // the step's time less the median steady step
  std::string rule_id;   // empty: no rule owns it (compute kernels grew)
  // The finding's cause within the rule; empty: any finding of the rule
  // (a rule with one finding whose cause names its flavour).
  std::string cause;
  std::string what;      // "data_loader", "exposed communication", "compute kernels"
};

std::vector<OutlierOwner> AttributeOutliers(AnalysisContext& ctx);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_OUTLIER_OWNERS_H_
