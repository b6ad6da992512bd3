#ifndef TRACELINT_ANALYZER_ANALYSIS_IDLE_ATTRIBUTION_H_
#define TRACELINT_ANALYZER_ANALYSIS_IDLE_ATTRIBUTION_H_

// PLACEHOLDER until the rules work lands.
namespace tracelint {
class AnalysisContext;
struct IdleAttribution {};
IdleAttribution ComputeIdleAttribution(AnalysisContext& ctx);
}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_IDLE_ATTRIBUTION_H_
