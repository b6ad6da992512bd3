#ifndef TRACELINT_ANALYZER_ANALYSIS_ANALYSIS_CONTEXT_H_
#define TRACELINT_ANALYZER_ANALYSIS_ANALYSIS_CONTEXT_H_

#include <memory>
#include <vector>

#include "analyzer/model/timeline.h"

namespace tracelint {

struct StepSet;
struct DeviceActivity;
struct StepMetrics;
struct IdleAttribution;
struct RankCollectives;
struct TraceIntegrity;
struct StepPhaseSet;
struct JobProfile;
struct MemoryUsage;
struct OutlierSteps;
struct RooflineAnalysis;
struct RankSummary;
struct RankCrossData;

// Derived analyses of one rank's timeline, each computed on first use and
// cached. Thread-safe: an analysis asked for from two threads at once is
// computed once and the second caller waits, so independent analyses of one
// rank may run on different cores.
class AnalysisContext {
 public:
  explicit AnalysisContext(const Timeline& tl);
  ~AnalysisContext();
  AnalysisContext(AnalysisContext&&);
  AnalysisContext(const AnalysisContext&) = delete;
  AnalysisContext& operator=(const AnalysisContext&) = delete;

  const Timeline& timeline() const { return *tl_; }
  // The judged steps: the steady steps (docs/steady-state.md) less the
  // outlier steps (outlier_steps.h). What every rule, saving and per-step
  // statistic of the steady view uses.
  const StepSet& steps();
  // Every steady step, outliers included (the per-step tables, diff's
  // samples), with one-time work cut out of them.
  const StepSet& steady_steps();
  // The steady steps that are outliers (outlier_steps.h, the one definition
  // every report and saving uses): indices into steady_steps().steps.
  const OutlierSteps& outlier_steps();
  // The metrics of steady_steps(): step_metrics() itself when no step is an
  // outlier.
  const StepMetrics& steady_step_metrics();
  // Every complete step (the TensorBoard plugin's definition), steady or not.
  const StepSet& all_steps();
  // Steady, warm-up, capture or compile, per step of all_steps(), and the
  // one-time costs the trace shows.
  const StepPhaseSet& step_phase();
  const std::vector<DeviceActivity>& device_activity();
  const StepMetrics& step_metrics();
  // The same metrics over all_steps(), for the report's second view.
  const StepMetrics& all_step_metrics();
  const IdleAttribution& idle_attribution();
  // Collective kernel durations per step, for matching across ranks.
  const RankCollectives& step_collectives();
  // Whether this rank's trace can be trusted (trace_integrity.h).
  const TraceIntegrity& trace_integrity();
  // Training or inference, framework, collectives: what the advice of every
  // rule follows (job_profile.h).
  const JobProfile& job_profile();
  // Device memory peaks from the allocator's events (memory_usage.h); empty
  // when the trace was recorded without them.
  const MemoryUsage& memory_usage();
  // Device time per kernel family and the roofline of ops and families
  // (roofline.h).
  const RooflineAnalysis& roofline();
  // This rank's part of the run summary (run_summary.h); SummarizeRank adds
  // its position in the run.
  const RankSummary& rank_summary();
  // What the cross-rank rules read of this rank (cross_rank.h).
  const RankCrossData& cross_rank_data();


 private:
  // Called by each analysis as it is computed: one computed after the
  // timeline released its events would read a timeline without events, a
  // bug that aborts under TRACELINT_STRICT_INVARIANTS (every test) and is
  // reported on stderr otherwise.
  void RequireEvents(const char* analysis) const;

  struct Cache;
  const Timeline* tl_;
  std::unique_ptr<Cache> cache_;  // behind a pointer: once_flags do not move
};

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_ANALYSIS_CONTEXT_H_
