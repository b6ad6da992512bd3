#ifndef TRACELINT_ANALYZER_ANALYSIS_STEPS_H_
#define TRACELINT_ANALYZER_ANALYSIS_STEPS_H_

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis/interval_set.h"
#include "analyzer/model/timeline.h"

namespace tracelint {

// Where a step's bounds come from (JSON `steps[].source`).
enum class StepSource : uint8_t {
  kMarker = 0,  // ProfilerStep#N markers
  kWindow,      // no markers and no repeats found: the whole window
  kInferred,    // an iteration inferred from repeats (docs/steady-state.md)
};
std::string_view StepSourceName(StepSource source);  // "marker", "window", "inferred"

struct Step {
  int64_t number = -1;           // N of ProfilerStep#N; 0 for the single window
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;             // includes device work launched inside the step
  SliceId marker = kNoIndex;     // the host ProfilerStep#N slice, if any
  TimeNs host_end_ns = 0;        // end of the host marker
  int64_t device_activities = 0; // device activities launched inside the step
  // One-time work cut out of the step as time (docs/steady-state.md,
  // "One-time work inside a step"): sorted, disjoint, inside [start, end).
  // Only steps of the steady view carry cuts; the "all steps" view keeps
  // wall time.
  std::vector<Interval> cut;
  TimeNs wall_ns() const { return end_ns - start_ns; }
  TimeNs cut_ns() const {
    TimeNs t = 0;
    for (const Interval& i : cut) t += i.length_ns();
    return t;
  }
  // The step's judged time: its wall time less the one-time work cut out.
  TimeNs duration_ns() const { return wall_ns() - cut_ns(); }
  // |set inside the step, outside its cuts|.
  TimeNs OverlapNs(const IntervalSet& set) const;
  // The step's judged time as intervals: [start, end) less the cuts.
  IntervalSet Judged() const;
  // Inside [start, end) and not in a cut.
  bool Covers(TimeNs ts_ns) const;
};

struct StepSet {
  std::vector<Step> steps;        // the analysed (complete) steps, in time order
  // RunMetadata::framework: the words steps are named in (StepLabel).
  std::string framework;
  bool from_markers = false;      // false: one window over the whole trace
  int dropped_incomplete = 0;     // trailing steps whose device work is missing
  std::vector<std::string> notes; // why steps look the way they do
  // Window edges (docs/steady-state.md). Device work launched before the
  // trace began that ran at the start of the first step; the first step
  // starts where it ends (the TensorBoard plugin's rule).
  TimeNs inherited_device_ns = 0;
  // The last step's profiler-stop tail: host and device silent until its
  // marker ends. Cut from the step: an edge of the window, not a loss.
  TimeNs stop_tail_ns = 0;
  // A window without markers whose GPU work was queued early and then ran
  // back to back: the lead-in before the device started, cut from the window.
  TimeNs lead_in_ns = 0;
  StepSource source = StepSource::kWindow;
  TimeNs TotalNs() const {
    TimeNs t = 0;
    for (const Step& s : steps) t += s.duration_ns();
    return t;
  }
  // Time of `set` inside the steps, one-time cuts excluded (Step::OverlapNs).
  TimeNs OverlapNs(const IntervalSet& set) const {
    TimeNs t = 0;
    for (const Step& s : steps) t += s.OverlapNs(set);
    return t;
  }
};

// A step as its framework calls it: PyTorch's marker "ProfilerStep#5";
// "step 5" on TensorFlow and JAX, whose step ids (StepTraceAnnotation,
// TraceMe step_num) the XSpace reader turns into step markers.
std::string StepLabel(std::string_view framework, int64_t number);
// "ProfilerStep#1..#6" / "steps 1..6".
std::string StepRangeLabel(std::string_view framework, int64_t first, int64_t last);
// How the framework marks its steps, for the note of a trace without them.
std::string_view StepMarkerHint(std::string_view framework);
// How reports name a step of `steps`: its framework's label for a marked
// step (StepLabel), "iteration 3" for an inferred one, "the window" for the
// single window.
std::string StepName(const StepSet& steps, int64_t number);
// Steps of their own (markers or inferred iterations), not one window.
inline bool HasSteps(const StepSet& steps) { return steps.source != StepSource::kWindow; }

// timeline_to_steps: the TensorBoard plugin's step rule (docs/design/domain.md, "Steps").
StepSet ComputeSteps(const Timeline& tl);

// Index of the step of `steps` containing ts_ns, or -1.
inline int StepIndexAt(const StepSet& steps, TimeNs ts_ns) {
  auto it = std::upper_bound(steps.steps.begin(), steps.steps.end(), ts_ns,
                             [](TimeNs t, const Step& s) { return t < s.start_ns; });
  if (it == steps.steps.begin()) return -1;
  --it;
  return it->Covers(ts_ns) ? static_cast<int>(it - steps.steps.begin()) : -1;
}

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_STEPS_H_
