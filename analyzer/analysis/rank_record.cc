#include "analyzer/analysis/rank_record.h"

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/device_activity.h"

namespace tracelint {
namespace {

bool SameSteps(const StepSet& a, const StepSet& b) {
  if (a.steps.size() != b.steps.size()) return false;
  for (size_t i = 0; i < a.steps.size(); ++i) {
    const Step& x = a.steps[i];
    const Step& y = b.steps[i];
    if (x.number != y.number || x.start_ns != y.start_ns || x.end_ns != y.end_ns ||
        x.cut != y.cut) {
      return false;
    }
  }
  return true;
}

}  // namespace

RankRecord MakeRankRecord(AnalysisContext& ctx, bool cross_rank) {
  RankRecord r;
  const Timeline& tl = ctx.timeline();
  r.metadata = tl.metadata();
  r.bounds = tl.Bounds();
  r.diagnostics = tl.diagnostics().List();
  r.steps = ctx.steps();
  r.steady_steps = ctx.steady_steps();
  r.all_steps = ctx.all_steps();
  r.outlier_steps = ctx.outlier_steps();
  r.step_phase = ctx.step_phase();
  r.step_metrics = ctx.step_metrics();
  // The step metrics are a function of the steps' numbers, bounds and cuts
  // (ComputeStepMetrics): equal steps, equal metrics.
  if (!SameSteps(ctx.steady_steps(), ctx.steps())) {
    r.own_steady_step_metrics = ctx.steady_step_metrics();
  }
  if (!SameSteps(ctx.all_steps(), ctx.steps())) r.own_all_step_metrics = ctx.all_step_metrics();
  // Field by field: a copy of the whole would copy every piece first.
  const IdleAttribution& idle = ctx.idle_attribution();
  r.idle_attribution.per_step_ns = idle.per_step_ns;
  r.idle_attribution.total_ns = idle.total_ns;
  r.idle_attribution.total_idle_ns = idle.total_idle_ns;
  r.idle_attribution.unmarked_tail_ns = idle.unmarked_tail_ns;
  r.idle_attribution.inferred_ns = idle.inferred_ns;
  r.memory_usage = ctx.memory_usage();
  r.roofline = ctx.roofline().summary;
  r.job_profile = ctx.job_profile();
  for (const DeviceActivity& a : ctx.device_activity()) r.active_devices.push_back(a.device);
  r.summary = ctx.rank_summary();
  if (cross_rank) r.cross_rank = ctx.cross_rank_data();
  return r;
}

RankSummary SummarizeRecord(const RankRecord& record, int position) {
  return PlaceRankSummary(record.summary, position);
}

}  // namespace tracelint
