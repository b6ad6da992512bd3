#include "analyzer/analysis/cross_rank.h"

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/step_metrics.h"

namespace tracelint {

RankCrossData ComputeRankCrossData(AnalysisContext& ctx) {
  RankCrossData r;
  r.collectives = ctx.step_collectives();
  r.job = ctx.job_profile();
  const StepMetrics& m = ctx.step_metrics();
  r.step_count = m.step_count;
  r.mean_step_ns = m.mean_step_ns;
  for (const DeviceMetrics& d : m.summary) {
    if (d.device < 0) continue;
    ++r.devices;
    r.compute_ns += d.breakdown_ns[static_cast<int>(StepCategory::kKernel)];
    r.data_loader_ns += d.breakdown_ns[static_cast<int>(StepCategory::kDataLoader)];
    r.communication_ns += d.breakdown_ns[static_cast<int>(StepCategory::kCommunication)];
    r.gpu_idle_ns += d.step_ns - d.busy_ns;
  }
  r.wait_collective_ns =
      ctx.idle_attribution().total_ns[static_cast<int>(IdleCause::kDeviceWaitCollective)];
  return r;
}

}  // namespace tracelint
