#ifndef TRACELINT_RULES_COMM_LATE_RANK_H_
#define TRACELINT_RULES_COMM_LATE_RANK_H_

#include <vector>

#include "analyzer/engine/finding.h"

namespace tracelint {

struct RankCrossData;

// comm-clustered-allreduce's cross-rank cause `late_rank` (a straggler;
// rules/docs/comm-clustered-allreduce.md, "Late rank"). From the collectives
// matched across all ranks (collective_matching.h): the rank the others wait
// for, how much the job waits for it, and what that rank does longer than the
// others (compute, data loading, host work).
//
// The waiting sits inside the other ranks' collective time, which this rule
// owns, so the finding takes its saving out of the rule's own merged
// findings (`merged`): the two never count one instant twice. Returns the
// findings to keep, the new one included when the imbalance reaches
// `min_imbalance_share` of the step.
std::vector<Finding> SplitOutLateRank(const std::vector<const RankCrossData*>& ranks,
                                      const std::vector<int>& rank_names,
                                      double min_imbalance_share, std::vector<Finding> merged);

}  // namespace tracelint

#endif  // TRACELINT_RULES_COMM_LATE_RANK_H_
