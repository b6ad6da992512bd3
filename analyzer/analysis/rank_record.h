#ifndef TRACELINT_ANALYZER_ANALYSIS_RANK_RECORD_H_
#define TRACELINT_ANALYZER_ANALYSIS_RANK_RECORD_H_

// Everything the reports (text, JSON, Markdown, SARIF, HTML outside its
// timeline), batch's table, diff and the run summary read of one analysed
// rank: plain data with no pointer into the rank's timeline or its
// AnalysisContext. A run of many ranks keeps one record per rank and drops
// the rank's timeline and analyses once the record is made, so its memory
// grows with the ranks being parsed at once, not with the ranks in the run;
// a sharded analyze writes the same records for a merge in another process.
//
// The fields (and the two step-metrics accessors) carry the names of the
// AnalysisContext accessors they copy, so that what a reporter reads is one
// definition whichever way it is reached.

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "analyzer/analysis/cross_rank.h"
#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/memory_usage.h"
#include "analyzer/analysis/outlier_steps.h"
#include "analyzer/analysis/roofline.h"
#include "analyzer/analysis/run_summary.h"
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/analysis/step_phase.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/base/time.h"
#include "analyzer/model/diagnostics.h"
#include "analyzer/model/metadata.h"

namespace tracelint {

class AnalysisContext;

struct RankRecord {
  // Of the timeline.
  RunMetadata metadata;
  std::pair<TimeNs, TimeNs> bounds{0, 0};  // Timeline::Bounds()
  std::vector<Diagnostic> diagnostics;     // ImportDiagnostics::List()

  // Of the analyses: AnalysisContext's accessors of the same names.
  StepSet steps;
  StepSet steady_steps;
  StepSet all_steps;
  OutlierSteps outlier_steps;
  StepPhaseSet step_phase;
  StepMetrics step_metrics;
  // The metrics of the steady steps (outliers included) and of every
  // complete step: the same as step_metrics when their steps are the judged
  // steps (no outlier; every step steady and uncut), which is most runs, so
  // a copy is held only where they differ. A record lives as long as the
  // run: on a run of many ranks these copies are most of what it holds.
  const StepMetrics& steady_step_metrics() const {
    return own_steady_step_metrics ? *own_steady_step_metrics : step_metrics;
  }
  const StepMetrics& all_step_metrics() const {
    return own_all_step_metrics ? *own_all_step_metrics : step_metrics;
  }
  std::optional<StepMetrics> own_steady_step_metrics;
  std::optional<StepMetrics> own_all_step_metrics;
  // Without its pieces (one per idle gap, the bulk of its memory): totals,
  // per step and inferred. Only the HTML timeline draws the pieces, and it
  // reads the rank's context.
  IdleAttribution idle_attribution;
  MemoryUsage memory_usage;
  RankRoofline roofline;  // AnalysisContext::roofline().summary
  JobProfile job_profile;
  // The devices of AnalysisContext::device_activity(), in its order.
  std::vector<int> active_devices;
  // rank_summary(), without a position (SummarizeRecord adds it).
  RankSummary summary;
  RankCrossData cross_rank;  // empty unless made with cross_rank
};

// The record of `ctx`'s rank; computes what is not computed yet, so it must
// be made before the timeline releases its events. `cross_rank`: also the
// cross-rank data, which only a run of several ranks reads (left empty
// otherwise: a batch of one-file runs need not match collectives).
RankRecord MakeRankRecord(AnalysisContext& ctx, bool cross_rank = true);

// The rank's summary at `position` in the run's file order (its rank when
// the metadata names none).
RankSummary SummarizeRecord(const RankRecord& record, int position);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_RANK_RECORD_H_
