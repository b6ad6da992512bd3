#include "analyzer/analysis/analysis_context.h"

#include "analyzer/analysis/device_activity.h"
#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/analysis/steps.h"

namespace tracelint {

AnalysisContext::AnalysisContext(const Timeline& tl) : tl_(&tl) {}
AnalysisContext::~AnalysisContext() = default;
AnalysisContext::AnalysisContext(AnalysisContext&&) = default;

const StepSet& AnalysisContext::steps() {
  if (!steps_) steps_ = std::make_unique<StepSet>(ComputeSteps(*tl_));
  return *steps_;
}

const std::vector<DeviceActivity>& AnalysisContext::device_activity() {
  if (!device_activity_) {
    device_activity_ =
        std::make_unique<std::vector<DeviceActivity>>(ComputeDeviceActivity(*tl_));
  }
  return *device_activity_;
}

const StepMetrics& AnalysisContext::step_metrics() {
  if (!step_metrics_) step_metrics_ = std::make_unique<StepMetrics>(ComputeStepMetrics(*this));
  return *step_metrics_;
}

const IdleAttribution& AnalysisContext::idle_attribution() {
  if (!idle_attribution_) {
    idle_attribution_ = std::make_unique<IdleAttribution>(ComputeIdleAttribution(*this));
  }
  return *idle_attribution_;
}

}  // namespace tracelint
