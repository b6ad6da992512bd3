#ifndef TRACELINT_ANALYZER_ANALYSIS_STEP_PHASE_H_
#define TRACELINT_ANALYZER_ANALYSIS_STEP_PHASE_H_

// Steady state or not (docs/steady-state.md): finds the one-time work a
// trace shows (context creation, module loading, cuDNN autotuning, graph
// capture, Dynamo/Inductor compilation) and classifies each step, or the
// single window, as steady, warm-up, capture or compile. The question "is
// this step steady?" is answered here once; AnalysisContext::steps() is the
// steady view every rule and per-step statistic uses.

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis/interval_set.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/base/time.h"
#include "analyzer/model/timeline.h"

namespace tracelint {

enum class StepPhase : uint8_t { kSteady = 0, kWarmup, kCapture, kCompile };
std::string_view StepPhaseName(StepPhase p);  // "steady", "warm-up", ...

// Where one-time time went. Order is the attribution priority when two
// kinds overlap (compilation launches kernels that load modules, ...).
enum class OneTimeKind : uint8_t {
  kCompilation = 0,   // Dynamo/Inductor: "(dynamo_timed)", compile_fx ...
  kGraphCapture,      // cudaStreamBeginCapture..EndCapture, GraphInstantiate, capture_*
  kAutotuning,        // cudaEventSynchronize/ElapsedTime inside aten::cudnn_convolution*
  kModuleLoading,     // a launch call stalled >= 10 ms with the device idle
  kContextCreation,   // another runtime call >= 100 ms with the device idle
};
inline constexpr int kOneTimeKindCount = static_cast<int>(OneTimeKind::kContextCreation) + 1;
std::string_view OneTimeKindKey(OneTimeKind k);   // "compilation", ... (finding cause)
std::string_view OneTimeKindLabel(OneTimeKind k); // "Dynamo/Inductor compilation", ...
StepPhase PhaseOf(OneTimeKind k);

// One host interval of one-time work.
struct OneTimeEvent {
  OneTimeKind kind = OneTimeKind::kContextCreation;
  SliceId slice = kNoIndex;  // the call, op or annotation that shows it
  std::string name;          // its name ("cudaFree", "capture_32_FULL")
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
};

struct OneTimeCost {
  OneTimeKind kind = OneTimeKind::kContextCreation;
  // |union of this kind's intervals minus those of kinds before it|.
  TimeNs total_ns = 0;
  std::vector<OneTimeEvent> events;  // longest first
};

struct StepPhaseSet {
  // Indexed like the StepSet it was computed from (all complete steps).
  std::vector<StepPhase> phases;
  // Per step, the one-time work cut out of it as time (sorted, disjoint,
  // inside the step): a steady step is judged on the rest. Empty for a
  // step without one-time work and for a step that is not steady.
  std::vector<std::vector<Interval>> cuts;
  // One-time-looking stalls that recur in most steps: per-step costs
  // (docs/steady-state.md), kept out of the one-time costs. Notes for the
  // report ("hipFree stalls in 5 of 6 steps ...").
  std::vector<std::string> recurring_notes;
  std::vector<OneTimeCost> costs;  // kinds with time, in OneTimeKind order
  int steady_count = 0;
  // A window without step markers whose one-time work all comes early is
  // judged from where that work ends (steady when what follows is most of
  // the window and has device work); -1 when not cut.
  TimeNs window_steady_start_ns = -1;
  // Steps existed, and none of them is steady: nothing per step can be judged.
  bool NoSteadyStep() const { return !phases.empty() && steady_count == 0; }
  // The steady view is the same as the all-steps view.
  bool AllSteady() const {
    return static_cast<size_t>(steady_count) == phases.size() && window_steady_start_ns < 0 &&
           CutNs() == 0;
  }
  // Time cut out of steady steps.
  TimeNs CutNs() const {
    TimeNs t = 0;
    for (const std::vector<Interval>& step : cuts) {
      for (const Interval& i : step) t += i.length_ns();
    }
    return t;
  }
  TimeNs TotalOneTimeNs() const {
    TimeNs t = 0;
    for (const OneTimeCost& c : costs) t += c.total_ns;
    return t;
  }
};

StepPhaseSet ComputeStepPhase(const Timeline& tl, const StepSet& all_steps);

// "CUDA/HIP context creation ... 1.451 s, first-launch module loading ...".
std::string OneTimeSummary(const StepPhaseSet& phase);

// The steps of `all_steps` whose phase is steady, with a note naming the
// ones left out.
StepSet SteadySteps(const StepSet& all_steps, const StepPhaseSet& phase);

namespace step_phase_internal {
// first_call_costs.cc: one-time work shown by first calls (TorchScript's
// executor and fuser, TensorFlow's cuDNN autotuning, the first pageable
// copy), appended to `events`.
void FindFirstCallEvents(const Timeline& tl, const IntervalSet& device_busy,
                         std::vector<OneTimeEvent>& events);
}  // namespace step_phase_internal

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_STEP_PHASE_H_
