#include "analyzer/analysis/analysis_context.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "analyzer/analysis/collective_matching.h"
#include "analyzer/analysis/cross_rank.h"
#include "analyzer/analysis/device_activity.h"
#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/memory_usage.h"
#include "analyzer/analysis/outlier_steps.h"
#include "analyzer/analysis/roofline.h"
#include "analyzer/analysis/run_summary.h"
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/analysis/step_phase.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/analysis/trace_integrity.h"

namespace tracelint {

struct AnalysisContext::Cache {
  std::once_flag steps_once, device_activity_once, step_metrics_once, idle_once,
      collectives_once, integrity_once, all_steps_once, phase_once,
      all_metrics_once, job_once, memory_once, outliers_once, steady_once,
      steady_metrics_once, roofline_once, rank_summary_once, cross_rank_once;
  std::unique_ptr<StepSet> steps;
  std::unique_ptr<StepSet> steady_steps;
  std::unique_ptr<StepMetrics> steady_step_metrics;
  std::unique_ptr<StepSet> all_steps;
  std::unique_ptr<StepPhaseSet> phase;
  std::unique_ptr<StepMetrics> all_step_metrics;
  std::unique_ptr<std::vector<DeviceActivity>> device_activity;
  std::unique_ptr<StepMetrics> step_metrics;
  std::unique_ptr<IdleAttribution> idle_attribution;
  std::unique_ptr<RankCollectives> collectives;
  std::unique_ptr<TraceIntegrity> integrity;
  std::unique_ptr<JobProfile> job;
  std::unique_ptr<MemoryUsage> memory;
  std::unique_ptr<OutlierSteps> outliers;
  std::unique_ptr<RooflineAnalysis> roofline;
  std::unique_ptr<RankSummary> rank_summary;
  std::unique_ptr<RankCrossData> cross_rank;
};

AnalysisContext::AnalysisContext(const Timeline& tl)
    : tl_(&tl), cache_(std::make_unique<Cache>()) {}
AnalysisContext::~AnalysisContext() = default;
AnalysisContext::AnalysisContext(AnalysisContext&&) = default;

const StepSet& AnalysisContext::all_steps() {
  std::call_once(cache_->all_steps_once, [&] {
    RequireEvents("all_steps");
    cache_->all_steps = std::make_unique<StepSet>(ComputeSteps(*tl_));
  });
  return *cache_->all_steps;
}

const StepPhaseSet& AnalysisContext::step_phase() {
  std::call_once(cache_->phase_once, [&] {
    RequireEvents("step_phase");
    cache_->phase = std::make_unique<StepPhaseSet>(ComputeStepPhase(*tl_, all_steps()));
  });
  return *cache_->phase;
}

const StepSet& AnalysisContext::steady_steps() {
  std::call_once(cache_->steady_once, [&] {
    RequireEvents("steady_steps");
    cache_->steady_steps = std::make_unique<StepSet>(SteadySteps(all_steps(), step_phase()));
  });
  return *cache_->steady_steps;
}

const OutlierSteps& AnalysisContext::outlier_steps() {
  std::call_once(cache_->outliers_once, [&] {
    RequireEvents("outlier_steps");
    std::vector<TimeNs> step_ns;
    for (const Step& s : steady_steps().steps) step_ns.push_back(s.duration_ns());
    cache_->outliers = std::make_unique<OutlierSteps>(FindOutlierSteps(step_ns));
  });
  return *cache_->outliers;
}

const StepSet& AnalysisContext::steps() {
  std::call_once(cache_->steps_once, [&] {
    RequireEvents("steps");
    cache_->steps = std::make_unique<StepSet>(JudgedSteps(steady_steps(), outlier_steps()));
  });
  return *cache_->steps;
}

const StepMetrics& AnalysisContext::steady_step_metrics() {
  if (outlier_steps().indices.empty()) return step_metrics();
  std::call_once(cache_->steady_metrics_once, [&] {
    RequireEvents("steady_step_metrics");
    cache_->steady_step_metrics =
        std::make_unique<StepMetrics>(ComputeStepMetrics(*this, steady_steps()));
  });
  return *cache_->steady_step_metrics;
}

const std::vector<DeviceActivity>& AnalysisContext::device_activity() {
  std::call_once(cache_->device_activity_once, [&] {
    RequireEvents("device_activity");
    cache_->device_activity =
        std::make_unique<std::vector<DeviceActivity>>(ComputeDeviceActivity(*tl_));
  });
  return *cache_->device_activity;
}

const StepMetrics& AnalysisContext::step_metrics() {
  std::call_once(cache_->step_metrics_once, [&] {
    RequireEvents("step_metrics");
    cache_->step_metrics = std::make_unique<StepMetrics>(ComputeStepMetrics(*this));
    // No steady step: what ran is still described (top kernels and ops of
    // every complete step); only per-step claims are withheld.
    StepMetrics& m = *cache_->step_metrics;
    if (m.steps.empty() && !all_steps().steps.empty()) {
      const StepMetrics& all = all_step_metrics();
      m.top_kernels = all.top_kernels;
      m.top_ops = all.top_ops;
      m.total_kernel_ns = all.total_kernel_ns;
      m.top_lists_from_all_steps = !all.top_kernels.empty();
    }
  });
  return *cache_->step_metrics;
}

const StepMetrics& AnalysisContext::all_step_metrics() {
  std::call_once(cache_->all_metrics_once, [&] {
    RequireEvents("all_step_metrics");
    cache_->all_step_metrics =
        std::make_unique<StepMetrics>(ComputeStepMetrics(*this, all_steps()));
  });
  return *cache_->all_step_metrics;
}

const IdleAttribution& AnalysisContext::idle_attribution() {
  std::call_once(cache_->idle_once, [&] {
    RequireEvents("idle_attribution");
    cache_->idle_attribution = std::make_unique<IdleAttribution>(ComputeIdleAttribution(*this));
  });
  return *cache_->idle_attribution;
}

const RankCollectives& AnalysisContext::step_collectives() {
  std::call_once(cache_->collectives_once, [&] {
    RequireEvents("step_collectives");
    cache_->collectives = std::make_unique<RankCollectives>(CollectStepCollectives(*this));
  });
  return *cache_->collectives;
}

const TraceIntegrity& AnalysisContext::trace_integrity() {
  std::call_once(cache_->integrity_once, [&] {
    RequireEvents("trace_integrity");
    cache_->integrity = std::make_unique<TraceIntegrity>(ComputeTraceIntegrity(*this));
  });
  return *cache_->integrity;
}

const JobProfile& AnalysisContext::job_profile() {
  std::call_once(cache_->job_once, [&] {
    RequireEvents("job_profile");
    cache_->job = std::make_unique<JobProfile>(ComputeJobProfile(*tl_));
  });
  return *cache_->job;
}

const MemoryUsage& AnalysisContext::memory_usage() {
  std::call_once(cache_->memory_once, [&] {
    RequireEvents("memory_usage");
    cache_->memory = std::make_unique<MemoryUsage>(ComputeMemoryUsage(*tl_, all_steps(), steps()));
  });
  return *cache_->memory;
}

const RooflineAnalysis& AnalysisContext::roofline() {
  std::call_once(cache_->roofline_once, [&] {
    RequireEvents("roofline");
    cache_->roofline = std::make_unique<RooflineAnalysis>(ComputeRoofline(*this));
  });
  return *cache_->roofline;
}

const RankSummary& AnalysisContext::rank_summary() {
  std::call_once(cache_->rank_summary_once, [&] {
    RequireEvents("rank_summary");
    cache_->rank_summary = std::make_unique<RankSummary>(ComputeRankSummary(*this));
  });
  return *cache_->rank_summary;
}

const RankCrossData& AnalysisContext::cross_rank_data() {
  std::call_once(cache_->cross_rank_once, [&] {
    RequireEvents("cross_rank_data");
    cache_->cross_rank = std::make_unique<RankCrossData>(ComputeRankCrossData(*this));
  });
  return *cache_->cross_rank;
}

void AnalysisContext::RequireEvents(const char* analysis) const {
  if (!tl_->events_released()) return;
  std::fprintf(stderr,
               "tracelint: internal error: %s computed after rank '%s' released its events; "
               "its figures are missing from the report\n",
               analysis, tl_->metadata().source_path.c_str());
  if (std::getenv("TRACELINT_STRICT_INVARIANTS") != nullptr) std::abort();
}

}  // namespace tracelint
