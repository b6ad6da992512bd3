#include "rules/step_tail_advice.h"

#include <algorithm>
#include <map>
#include <string>

#include "fmt/format.h"
#include "rules/launch_context.h"

namespace tracelint::rules_internal {

StepTail StepTailOf(const StepSet& steps, const std::vector<DeviceActivity>& devices,
                    const IdleAttribution& idle, IdleCause cause) {
  StepTail out;
  if (!HasSteps(steps) || steps.steps.empty()) return out;
  // Per device, the end of the last activity inside each step (-1: none).
  std::map<int, std::vector<TimeNs>> last_end;
  for (const DeviceActivity& da : devices) {
    std::vector<TimeNs>& ends = last_end[da.device];
    ends.assign(steps.steps.size(), -1);
    const std::vector<Interval>& all = da.all.intervals();
    for (size_t i = 0; i < steps.steps.size(); ++i) {
      const Step& step = steps.steps[i];
      auto it = std::lower_bound(all.begin(), all.end(), step.end_ns,
                                 [](const Interval& v, TimeNs t) { return v.start_ns < t; });
      if (it == all.begin()) continue;
      --it;
      if (it->end_ns > step.start_ns) ends[i] = std::min(it->end_ns, step.end_ns);
    }
  }
  std::vector<TimeNs> total_ns(steps.steps.size(), 0), tail_ns(steps.steps.size(), 0);
  for (const IdlePiece& p : idle.pieces) {
    if (p.cause != cause || p.step_index < 0 ||
        static_cast<size_t>(p.step_index) >= steps.steps.size()) {
      continue;
    }
    total_ns[p.step_index] += p.end_ns - p.start_ns;
    auto it = last_end.find(p.device);
    if (it == last_end.end()) continue;
    const TimeNs end_ns = it->second[p.step_index];
    if (end_ns >= 0 && p.start_ns >= end_ns) tail_ns[p.step_index] += p.end_ns - p.start_ns;
  }
  TimeNs total = 0, tail = 0;
  for (size_t i = 0; i < steps.steps.size(); ++i) {
    total += total_ns[i];
    tail += tail_ns[i];
    if (total_ns[i] == 0) continue;
    ++out.steps_with_cause;
    if (static_cast<double>(tail_ns[i]) >= kStepTailMinShare * static_cast<double>(total_ns[i])) {
      ++out.steps_mostly_tail;
    }
  }
  out.share = SafeShare(static_cast<double>(tail), static_cast<double>(total));
  return out;
}

void AddStepTailAdvice(const StepTail& tail, std::string_view accel, const JobProfile& job,
                       bool fix_taken, Finding& f) {
  if (tail.share < kStepTailMinShare) return;
  f.evidence.push_back(
      {fmt::format("{:.0f}% of it comes after the step's last {} work, at the end of the step "
                   "(mostly so in {} of {} steps)",
                   tail.share * 100, accel, tail.steps_mostly_tail, tail.steps_with_cause),
       tail.share, kStepTailMinShare, "share"});
  if (fix_taken || !tail.every_step()) return;
  const std::string lead =
      job.is_inference()
          ? fmt::format(
                "Most of this idle is at the end of each step, after the {}'s last work: the "
                "host finishes the request (sampling or detokenizing on the host, converting or "
                "post-processing outputs) before it launches the next. Launch the next batch "
                "first and post-process while it runs, or move the post-processing to the {} or "
                "another thread. ",
                accel, accel)
          : fmt::format(
                "Most of this idle is at the end of each step, after the {}'s last work: the "
                "host finishes the step (logging, metric reads, callbacks, progress or "
                "checkpoint bookkeeping) before it launches the next. Do that every N steps or "
                "on a background thread, and launch the next step's work first. ",
                accel);
  f.fix = lead + f.fix;
}

}  // namespace tracelint::rules_internal
