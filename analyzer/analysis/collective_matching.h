#ifndef TRACELINT_ANALYZER_ANALYSIS_COLLECTIVE_MATCHING_H_
#define TRACELINT_ANALYZER_ANALYSIS_COLLECTIVE_MATCHING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/base/time.h"

namespace tracelint {

class AnalysisContext;

// Durations of one rank's collective kernels (kFlagCollective, every device
// stream), per analysed step, in start order.
struct RankCollectives {
  std::vector<int64_t> step_numbers;                 // as the trace names them
  std::vector<std::vector<TimeNs>> durations_ns;     // parallel to step_numbers
};

RankCollectives CollectStepCollectives(AnalysisContext& ctx);

// Waiting vs transfer inside collectives, from all ranks of a run
// (docs/design/domain.md rule 3). The n-th collective of step k is matched across ranks;
// its transfer is the shortest duration among ranks and each rank's waiting
// is its duration minus that, since a rank that arrives late makes the
// others wait inside the kernel. Durations only: clocks of different hosts
// need not agree, durations do.
struct CollectiveSplit {
  int steps_matched = 0;     // steps present on every rank with equal counts
  int steps_mismatched = 0;  // present on every rank, collective counts differ
  std::string mismatch;      // first mismatch, "step 3: rank 0 has 4, rank 1 has 3"
  // Per rank (input order), summed over matched steps.
  std::vector<TimeNs> collective_ns;
  std::vector<TimeNs> waiting_ns;
  std::vector<int64_t> arrived_last;  // matched collectives where it waited least
  // Where the rank arrived last: the second-shortest duration minus the
  // shortest, summed. Had it arrived with the next-latest rank, each of
  // those collectives would have ended that much sooner on every rank, so
  // this is the time the whole job waited for this rank alone.
  std::vector<TimeNs> held_up_ns;
  int64_t first_step = -1;  // matched step numbers, as the trace names them
  int64_t last_step = -1;
  TimeNs transfer_ns = 0;             // same for every rank
  int64_t collectives_matched = 0;
  // The rank index arriving last most often (ties: lowest); -1 if none.
  int MostOftenLast() const;
};

// `rank_names` labels ranks in `mismatch`; same size as `ranks`.
CollectiveSplit MatchCollectives(const std::vector<RankCollectives>& ranks,
                                 const std::vector<int>& rank_names);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_COLLECTIVE_MATCHING_H_
