#ifndef TRACELINT_ANALYZER_ENGINE_RANKING_H_
#define TRACELINT_ANALYZER_ENGINE_RANKING_H_

#include <vector>

#include "analyzer/engine/finding.h"

namespace tracelint {

// The report order (docs/design/architecture.md): recoverable time per step
// descending, then severity descending, then rule id, then the start of the
// located time range; cause, rank and title settle the remaining ties so
// the order never depends on input order.
bool RanksBefore(const Finding& a, const Finding& b);
void RankFindings(std::vector<Finding>& findings);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ENGINE_RANKING_H_
