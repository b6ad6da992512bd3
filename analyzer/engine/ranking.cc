#include "analyzer/engine/ranking.h"

#include <algorithm>
#include <tuple>

namespace tracelint {

bool RanksBefore(const Finding& a, const Finding& b) {
  if (a.recoverable_ns_per_step != b.recoverable_ns_per_step) {
    return a.recoverable_ns_per_step > b.recoverable_ns_per_step;
  }
  if (a.severity != b.severity) return a.severity > b.severity;
  return std::tie(a.rule_id, a.location.start_ns, a.cause, a.location.rank, a.title) <
         std::tie(b.rule_id, b.location.start_ns, b.cause, b.location.rank, b.title);
}

void RankFindings(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), RanksBefore);
}

}  // namespace tracelint
