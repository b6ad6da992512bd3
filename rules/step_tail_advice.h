#ifndef TRACELINT_RULES_STEP_TAIL_ADVICE_H_
#define TRACELINT_RULES_STEP_TAIL_ADVICE_H_

// Host-bound idle that comes after the step's last device work is the host
// finishing the step before it starts the next: per-step logging, metric
// reads, callbacks, or an inference server's output post-processing
// (docs/design/domain.md, "More rules users expect": heavy per-step callbacks or output
// post-processing). gpu-idle-gaps charges the time; this says where in the
// step it fell and what that calls for.

#include <string_view>
#include <vector>

#include "analyzer/analysis/device_activity.h"
#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/engine/finding.h"

namespace tracelint::rules_internal {

// The share of a cause's idle in step tails from which it gets this advice.
inline constexpr double kStepTailMinShare = 0.5;

struct StepTail {
  // Of `cause`'s idle inside steps, the share that starts at or after the
  // last device activity of its step on its device.
  double share = 0;
  int steps_with_cause = 0;  // steps holding some of the cause's idle
  int steps_mostly_tail = 0;  // ... at least kStepTailMinShare of it in the tail
  // Most steps end that way, not one stall at the end of one step.
  bool every_step() const { return steps_with_cause > 0 && 2 * steps_mostly_tail >= steps_with_cause; }
};

// Empty without step markers: "the end of the step" needs real steps.
StepTail StepTailOf(const StepSet& steps, const std::vector<DeviceActivity>& devices,
                    const IdleAttribution& idle, IdleCause cause);

// From kStepTailMinShare up, adds the evidence and, when most steps end
// that way and no other advice leads the fix yet (`fix_taken`), the fix.
void AddStepTailAdvice(const StepTail& tail, std::string_view accel, const JobProfile& job,
                       bool fix_taken, Finding& f);

}  // namespace tracelint::rules_internal

#endif  // TRACELINT_RULES_STEP_TAIL_ADVICE_H_
