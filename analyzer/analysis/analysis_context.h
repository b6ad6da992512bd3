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

// Derived analyses of one rank's timeline, each computed on first use and
// cached. Each getter is defined next to its analysis (steps.cc,
// device_activity.cc, ...). Not thread-safe: one context per rank.
class AnalysisContext {
 public:
  explicit AnalysisContext(const Timeline& tl);
  ~AnalysisContext();
  AnalysisContext(AnalysisContext&&);
  AnalysisContext(const AnalysisContext&) = delete;
  AnalysisContext& operator=(const AnalysisContext&) = delete;

  const Timeline& timeline() const { return *tl_; }
  const StepSet& steps();
  const std::vector<DeviceActivity>& device_activity();
  const StepMetrics& step_metrics();
  const IdleAttribution& idle_attribution();

 private:
  const Timeline* tl_;
  std::unique_ptr<StepSet> steps_;
  std::unique_ptr<std::vector<DeviceActivity>> device_activity_;
  std::unique_ptr<StepMetrics> step_metrics_;
  std::unique_ptr<IdleAttribution> idle_attribution_;
};

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_ANALYSIS_CONTEXT_H_
