#include "analyzer/analysis/outlier_owners.h"

#include <array>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/outlier_steps.h"
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/analysis/steps.h"

namespace tracelint {
namespace {

// The rule that owns an idle cause (docs/design/domain.md, "Time accounting").
std::string_view OwnerOf(IdleCause cause) {
  switch (cause) {
    case IdleCause::kSyncCall:
    case IdleCause::kHostSideOp: return "host-side-ops";
    case IdleCause::kPageableCopy: return "h2d-copy-dominance";
    case IdleCause::kDeviceWaitCollective: return "comm-clustered-allreduce";
    case IdleCause::kProfilerOverhead:
    case IdleCause::kUnattributed: return "";
    default: return "gpu-idle-gaps";
  }
}

struct Candidate {
  std::string rule_id;
  std::string cause;
  std::string what;
  double delta_ns = 0;
};

// Per step: idle per cause, then the busy categories that have owners.
constexpr int kCommSlot = kIdleCauseCount;
constexpr int kCopySlot = kIdleCauseCount + 1;
constexpr int kComputeSlot = kIdleCauseCount + 2;
constexpr int kSlots = kIdleCauseCount + 3;
using Slots = std::array<double, kSlots>;

Slots StepSlots(const IdleAttribution& idle, const StepMetrics& metrics, size_t i) {
  Slots out{};
  if (i < idle.per_step_ns.size()) {
    for (int c = 0; c < kIdleCauseCount; ++c) out[c] = static_cast<double>(idle.per_step_ns[i][c]);
  }
  if (i < metrics.steps.size()) {
    for (const DeviceMetrics& d : metrics.steps[i].devices) {
      if (d.device < 0) continue;
      out[kCommSlot] += static_cast<double>(
          d.breakdown_ns[static_cast<int>(StepCategory::kCommunication)]);
      out[kCopySlot] +=
          static_cast<double>(d.breakdown_ns[static_cast<int>(StepCategory::kMemcpy)] +
                              d.breakdown_ns[static_cast<int>(StepCategory::kMemset)]);
      out[kComputeSlot] +=
          static_cast<double>(d.breakdown_ns[static_cast<int>(StepCategory::kKernel)]);
    }
  }
  return out;
}

}  // namespace

std::vector<OutlierOwner> AttributeOutliers(AnalysisContext& ctx) {
  std::vector<OutlierOwner> out;
  const OutlierSteps& outliers = ctx.outlier_steps();
  if (outliers.indices.empty()) return out;
  const StepSet& steady = ctx.steady_steps();
  StepSet slow = steady;
  slow.steps.clear();
  for (size_t i : outliers.indices) slow.steps.push_back(steady.steps[i]);
  const IdleAttribution slow_idle = ComputeIdleAttribution(ctx, IdleAttributionOptions{}, slow);
  const StepMetrics slow_metrics = ComputeStepMetrics(ctx, slow);

  // The mean judged step, slot by slot.
  const IdleAttribution& idle = ctx.idle_attribution();
  const StepMetrics& metrics = ctx.step_metrics();
  const size_t judged = ctx.steps().steps.size();
  Slots mean{};
  for (size_t i = 0; i < judged; ++i) {
    Slots s = StepSlots(idle, metrics, i);
    for (int k = 0; k < kSlots; ++k) mean[k] += s[k];
  }
  if (judged > 0) {
    for (double& v : mean) v /= static_cast<double>(judged);
  }
  for (size_t j = 0; j < outliers.indices.size(); ++j) {
    const Step& step = slow.steps[j];
    Slots s = StepSlots(slow_idle, slow_metrics, j);
    int best = -1;
    double best_delta = 0;
    for (int k = 0; k < kSlots; ++k) {
      const double delta = s[k] - mean[k];
      if (delta > best_delta) {
        best_delta = delta;
        best = k;
      }
    }
    OutlierOwner o;
    o.step = step.number;
    o.extra_ns = std::max<TimeNs>(0, step.duration_ns() - outliers.median_ns);
    if (best < 0 || best == kComputeSlot) {
      o.what = "compute kernels";
    } else if (best == kCommSlot) {
      o.rule_id = "comm-clustered-allreduce";
      o.what = "exposed communication";
    } else if (best == kCopySlot) {
      o.rule_id = "h2d-copy-dominance";
      o.what = "exposed copies";
    } else {
      const IdleCause cause = static_cast<IdleCause>(best);
      o.rule_id = std::string(OwnerOf(cause));
      // Rules with one finding per cause are matched by it.
      if (o.rule_id == "gpu-idle-gaps" || o.rule_id == "host-side-ops") {
        o.cause = std::string(IdleCauseName(cause));
      }
      o.what = std::string(IdleCauseName(cause));
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace tracelint
