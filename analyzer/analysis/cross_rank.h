#ifndef TRACELINT_ANALYZER_ANALYSIS_CROSS_RANK_H_
#define TRACELINT_ANALYZER_ANALYSIS_CROSS_RANK_H_

// What the cross-rank work (Rule::CrossRankEvidence and CrossRankFindings:
// the collectives matched across ranks, the late rank) reads of one rank:
// plain data with no pointer into a timeline, computed with the rank's other
// analyses, so that it outlives the rank's events and can be written out and
// read back by a process that never saw them (sharded analyze).

#include <cstdint>

#include "analyzer/analysis/collective_matching.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/base/time.h"

namespace tracelint {

class AnalysisContext;

struct RankCrossData {
  // Each collective kernel's duration per judged step.
  RankCollectives collectives;
  // Over the judged steps (AnalysisContext::steps) and the devices with
  // activity in them: step count and mean step, and sums over steps and
  // devices of the step breakdown's kernel, data loader and communication
  // time, of GPU idle (step minus busy) and of the idle whose cause is a
  // device-side wait on a collective.
  int64_t step_count = 0;
  TimeNs mean_step_ns = 0;
  int devices = 0;
  TimeNs compute_ns = 0;
  TimeNs data_loader_ns = 0;
  TimeNs communication_ns = 0;
  TimeNs gpu_idle_ns = 0;
  TimeNs wait_collective_ns = 0;
  // Training or inference and the framework: the words of a late rank's fix.
  JobProfile job;
};

RankCrossData ComputeRankCrossData(AnalysisContext& ctx);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_CROSS_RANK_H_
