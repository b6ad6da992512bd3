#ifndef TRACELINT_RULES_COMM_CLUSTERED_ALLREDUCE_H_
#define TRACELINT_RULES_COMM_CLUSTERED_ALLREDUCE_H_

#include <string_view>
#include <vector>

#include "analyzer/engine/rule.h"

namespace tracelint {

// comm-clustered-allreduce (rules/docs/comm-clustered-allreduce.md):
// gradient collectives that run after backward instead of overlapping it,
// and communication the GPU waits for. Owns exposed communication and
// device-side waits on a collective (docs/design/domain.md, "Time accounting").
class CommClusteredAllreduceRule : public Rule {
 public:
  static constexpr std::string_view kSummary =
      "Collectives bunch up after backward or run exposed instead of overlapping compute";

  std::string_view summary() const override { return kSummary; }
  std::vector<RuleOptionSpec> options() const override;
  RuleOutcome Check(AnalysisContext& ctx, const RuleOptions& options) const override;
  // Splits the located rank's collective time into waiting for a late rank
  // and transfer (analyzer/analysis/collective_matching.h).
  std::vector<Evidence> CrossRankEvidence(const std::vector<const RankCrossData*>& ranks,
                                          const std::vector<int>& rank_names,
                                          size_t located) const override;
  // The late rank (a straggler) the others wait for: cause `late_rank`,
  // whose time comes out of this rule's other findings (comm_late_rank.h).
  std::vector<Finding> CrossRankFindings(const std::vector<const RankCrossData*>& ranks,
                                         const std::vector<int>& rank_names,
                                         const RuleOptions& options,
                                         std::vector<Finding> merged) const override;
};

}  // namespace tracelint

#endif  // TRACELINT_RULES_COMM_CLUSTERED_ALLREDUCE_H_
