#ifndef TRACELINT_ANALYZER_ANALYSIS_STEP_METRICS_H_
#define TRACELINT_ANALYZER_ANALYSIS_STEP_METRICS_H_

// PLACEHOLDER until the metrics work lands: the struct is filled in by
// step_metrics.cc's owner.
namespace tracelint {
class AnalysisContext;
struct StepMetrics {};
StepMetrics ComputeStepMetrics(AnalysisContext& ctx);
}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_STEP_METRICS_H_
