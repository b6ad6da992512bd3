#ifndef TRACELINT_RULES_IDLE_FINDINGS_H_
#define TRACELINT_RULES_IDLE_FINDINGS_H_

// Shared by the rules that own idle causes (gpu-idle-gaps, host-side-ops):
// summarise the idle pieces of one cause into the numbers and location a
// Finding needs, so both rules measure the same way.

#include <functional>
#include <string>
#include <vector>

#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/engine/finding.h"
#include "analyzer/model/timeline.h"

namespace tracelint::rules_internal {

// One idle interval of a device (pieces with the same gap id), as far as
// the cause being summarised is concerned.
struct GapSummary {
  int gap = -1;
  int step_index = -1;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  TimeNs cause_ns = 0;   // idle of this cause inside the gap
  SliceId host_op = kNoIndex;  // host op holding the most of it
};

// The gaps of one place (the host op holding most of each gap, by name; or
// no host event): five gaps in the same op are one line of a message.
struct GapGroup {
  SliceId host_op = kNoIndex;  // the first gap's op (names the group)
  int64_t count = 0;
  TimeNs total_ns = 0;
  TimeNs min_ns = 0;
  TimeNs max_ns = 0;
  std::vector<int> step_indices;  // ascending, distinct; -1 entries dropped
};

struct CauseSummary {
  TimeNs total_ns = 0;          // over analysed steps and devices
  TimeNs per_step_ns = 0;       // mean per step and device, at most the mean step
  // Per step (of IdleScope::step_ns) and device, each at most its step: the
  // samples `diff` tests a finding's change with (Finding::recoverable_ns_steps).
  std::vector<TimeNs> step_values_ns;
  double share = 0;             // of the mean step, 0..1
  std::vector<TopItem> top_ops; // host ops the idle fell in, largest first
  std::vector<GapSummary> worst_gaps;  // largest first
  // Every gap grouped by place, largest total first, at most top_n groups.
  std::vector<GapGroup> gap_groups;
  int64_t pieces = 0;
};

struct IdleScope {
  TimeNs mean_step_ns = 0;
  int devices = 1;
  size_t steps = 0;
  std::vector<TimeNs> step_ns;  // duration of each step, in StepSet order
};
IdleScope ScopeOf(const StepSet& steps, size_t device_count);

// A count per step as a count reads: "2" when it is whole, "1.5" when not
// (never "2.0 synchronizing calls per step").
std::string CountPerStep(double count);

// Summarises the pieces for which `keep` is true. top_n bounds the lists.
// `op_of` names the host op a piece is charged to (default: its host_slice).
CauseSummary SummarizeIdle(const Timeline& tl, const IdleAttribution& idle,
                           const IdleScope& scope,
                           const std::function<bool(const IdlePiece&)>& keep, size_t top_n,
                           const std::function<SliceId(const IdlePiece&)>& op_of = nullptr);

// Rank-independent location: step range, thread, worst gap, top ops, and the
// Python stack of the worst gap's host op.
FindingLocation LocateIdle(const Timeline& tl, const StepSet& steps, const CauseSummary& summary);

// "12.3% of step"
std::string ShareText(double share);

}  // namespace tracelint::rules_internal

#endif  // TRACELINT_RULES_IDLE_FINDINGS_H_
