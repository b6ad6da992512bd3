#include "analyzer/engine/ranking.h"

#include <algorithm>
#include <tuple>

namespace tracelint {

bool RanksBefore(const Finding& a, const Finding& b) {
  // Per-step findings by recoverable time first, then one-time findings by
  // their total (docs/design/contract.md, "One-time costs").
  const bool a_once = a.one_time_ns > 0, b_once = b.one_time_ns > 0;
  if (a_once != b_once) return b_once;
  if (a.one_time_ns != b.one_time_ns) return a.one_time_ns > b.one_time_ns;
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
