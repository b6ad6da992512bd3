#include "analyzer/analysis/step_phase.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analyzer/analysis/interval_set.h"
#include "analyzer/base/strings.h"
#include "analyzer/model/classify.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

// A runtime call this long, with the device mostly idle under it, is the
// runtime starting up (context creation, first allocation): steady-state
// runtime calls take microseconds (docs/design/domain.md, "Steady, warm-up ...").
constexpr TimeNs kContextCallMinNs = 100'000'000;
// A kernel launch this long with the device idle is loading the kernel's
// module or code object; a launch blocked by a full queue has the device busy.
constexpr TimeNs kModuleLoadMinNs = 10'000'000;
// The first launch of a kernel name in the trace loads its module lazily
// (CUDA_MODULE_LOADING=LAZY, ROCm code objects): a shorter stall counts
// there, since a steady-state launch takes microseconds.
constexpr TimeNs kFirstLaunchLoadMinNs = 1'000'000;
// ... and the later launches of that name take at most this fraction of it.
constexpr TimeNs kLoadToSteadyLaunchRatio = 10;
// A window is judged after its start-up when what follows is at least this
// share of it and holds this many device activities.
constexpr double kMinSteadyRestShare = 0.5;
constexpr int64_t kMinSteadyRestActivities = 10;
// ... or, shorter than that, when it holds this many training iterations
// (a trace of torch.autograd.profiler has no step markers, but each
// iteration fetches a batch and steps the optimizer): a first iteration of
// seconds of start-up then five of 150 ms is a start-up and a steady run.
constexpr int64_t kMinSteadyRestIterations = 2;
// A step is steady when at least this share of it is left once its
// one-time work is cut out (docs/steady-state.md): num/den = 1/2.
constexpr TimeNs kMinSteadyRemainderNum = 1;
constexpr TimeNs kMinSteadyRemainderDen = 2;
// "Device idle" under a call: less than this share of the call is busy.
constexpr double kMaxBusyShareUnderStall = 0.5;

constexpr std::array<std::string_view, 6> kCompilePrefixes = {
    "compile_fx", "_compile.compile_inner", "inductor_compile", "OutputGraph.call_user_compiler",
    "async_compile", "TorchDynamo compile"};

bool IsHostKind(EventKind k) {
  return k == EventKind::kCpuOp || k == EventKind::kUserAnnotation ||
         k == EventKind::kPythonFunction || k == EventKind::kOther;
}

bool IsCompileName(std::string_view name) {
  if (Contains(name, "(dynamo_timed)")) return true;
  for (std::string_view p : kCompilePrefixes) {
    if (name.starts_with(p)) return true;
  }
  return false;
}

bool IsCaptureAnnotation(std::string_view name) {
  return name.starts_with("capture_") || Contains(name, "CUDAGraphNode.record");
}

bool IsKernelLaunchName(std::string_view name) {
  return Contains(name, "LaunchKernel") || Contains(name, "LaunchCooperativeKernel");
}

// Runtime calls that wait for, or feed, the device: their length says
// nothing about start-up.
// Accelerators that submit jobs (MTIA) wait in their submission calls for
// the device's queue: a per-step cost (`job_submission`), not start-up.
bool IsDeviceBoundCall(std::string_view name) {
  return Contains(name, "Synchronize") || Contains(name, "Memcpy") || Contains(name, "Memset") ||
         Contains(name, "Capture") || Contains(name, "Graph") || Contains(name, "Launch") ||
         IsJobSubmissionName(name);
}

bool DeviceIdleUnder(const IntervalSet& busy, TimeNs start_ns, TimeNs end_ns) {
  TimeNs dur_ns = end_ns - start_ns;
  return static_cast<double>(busy.OverlapNs(start_ns, end_ns)) <
         kMaxBusyShareUnderStall * static_cast<double>(dur_ns);
}

// The aten::cudnn_convolution* op above `s`, or kNoIndex.
SliceId CudnnConvAncestor(const Timeline& tl, SliceId s) {
  const SliceColumns& c = tl.slices();
  for (SliceId p = c.parent[s]; p != kNoIndex; p = c.parent[p]) {
    if (tl.str(c.name[p]).starts_with("aten::cudnn_convolution")) return p;
  }
  return kNoIndex;
}

std::vector<OneTimeEvent> FindEvents(const Timeline& tl) {
  const SliceColumns& c = tl.slices();
  std::vector<Interval> busy;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (IsDeviceActivity(c.kind[s]) && tl.tracks()[c.track[s]].kind == TrackKind::kDeviceStream) {
      busy.push_back({c.ts_ns[s], c.end_ns(s)});
    }
  }
  IntervalSet device_busy = IntervalSet::FromUnsorted(std::move(busy));

  // The first launch of each kernel name that stalled long enough to be a
  // lazy load, when that name's later launches (if any) are fast: a stall
  // that recurs every step is not a load. Found in passes over the slices
  // so that no per-slice table is needed on huge traces.
  absl::flat_hash_set<SliceId> long_launches;
  for (SliceId s = 0; s < c.size(); ++s) {
    if ((c.kind[s] == EventKind::kRuntime || c.kind[s] == EventKind::kDriver) &&
        c.dur_ns[s] >= kFirstLaunchLoadMinNs && IsKernelLaunchName(tl.str(c.name[s]))) {
      long_launches.insert(s);
    }
  }
  absl::flat_hash_set<SliceId> first_launches;
  if (!long_launches.empty()) {
    absl::flat_hash_set<StringId> names;
    for (SliceId s = 0; s < c.size(); ++s) {
      if (IsDeviceActivity(c.kind[s]) && c.launch[s] != kNoIndex &&
          long_launches.contains(c.launch[s])) {
        names.insert(c.name[s]);
      }
    }
    struct Launch {
      TimeNs ts_ns;
      SliceId launch;
    };
    absl::flat_hash_map<StringId, std::vector<Launch>> by_name;
    for (SliceId s = 0; s < c.size(); ++s) {
      if (IsDeviceActivity(c.kind[s]) && names.contains(c.name[s])) {
        by_name[c.name[s]].push_back({c.ts_ns[s], c.launch[s]});
      }
    }
    for (auto& [name, launches] : by_name) {
      std::sort(launches.begin(), launches.end(),
                [](const Launch& a, const Launch& b) { return a.ts_ns < b.ts_ns; });
      SliceId first = launches.front().launch;
      if (first == kNoIndex || !long_launches.contains(first)) continue;
      bool later_fast = std::all_of(launches.begin() + 1, launches.end(), [&](const Launch& l) {
        // Divided, not multiplied: a hostile duration times the ratio can pass int64.
        return l.launch == kNoIndex ||
               c.dur_ns[l.launch] <= c.dur_ns[first] / kLoadToSteadyLaunchRatio;
      });
      if (later_fast) first_launches.insert(first);
    }
  }

  std::vector<OneTimeEvent> events;
  auto add = [&](OneTimeKind kind, SliceId s, TimeNs start_ns, TimeNs end_ns) {
    if (end_ns <= start_ns) return;
    events.push_back({kind, s, std::string(tl.str(c.name[s])), start_ns, end_ns});
  };
  // Open cudaStreamBeginCapture per host track, closed by EndCapture.
  std::vector<std::pair<TrackId, SliceId>> open_captures;
  std::vector<SliceId> autotuned_ops;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (tl.tracks()[c.track[s]].kind != TrackKind::kHostThread) {
      // Kineto's "overhead" events ("Lazy Function Loading") may sit on
      // their own track.
      if (c.kind[s] == EventKind::kOverhead && Contains(tl.str(c.name[s]), "Loading")) {
        add(OneTimeKind::kModuleLoading, s, c.ts_ns[s], c.end_ns(s));
      }
      continue;
    }
    std::string_view name = tl.str(c.name[s]);
    EventKind kind = c.kind[s];
    if (kind == EventKind::kOverhead) {
      if (Contains(name, "Loading")) add(OneTimeKind::kModuleLoading, s, c.ts_ns[s], c.end_ns(s));
      continue;
    }
    if (kind == EventKind::kRuntime || kind == EventKind::kDriver) {
      if (Contains(name, "StreamBeginCapture")) {
        open_captures.push_back({c.track[s], s});
      } else if (Contains(name, "StreamEndCapture")) {
        auto it = std::find_if(open_captures.rbegin(), open_captures.rend(),
                               [&](const auto& o) { return o.first == c.track[s]; });
        if (it != open_captures.rend()) {
          add(OneTimeKind::kGraphCapture, it->second, c.ts_ns[it->second], c.end_ns(s));
          open_captures.erase(std::next(it).base());
        } else {
          add(OneTimeKind::kGraphCapture, s, c.ts_ns[s], c.end_ns(s));
        }
      } else if (Contains(name, "GraphInstantiate")) {
        add(OneTimeKind::kGraphCapture, s, c.ts_ns[s], c.end_ns(s));
      } else if (Contains(name, "EventElapsedTime") || Contains(name, "EventSynchronize")) {
        SliceId op = CudnnConvAncestor(tl, s);
        if (op != kNoIndex && Contains(name, "EventElapsedTime")) autotuned_ops.push_back(op);
      } else if (IsKernelLaunchName(name) &&
                 (c.dur_ns[s] >= kModuleLoadMinNs || first_launches.contains(s)) &&
                 c.dur_ns[s] >= kFirstLaunchLoadMinNs &&
                 DeviceIdleUnder(device_busy, c.ts_ns[s], c.end_ns(s))) {
        add(OneTimeKind::kModuleLoading, s, c.ts_ns[s], c.end_ns(s));
      } else if (!IsDeviceBoundCall(name) && !tl.HasFlag(s, kFlagSyncCall) &&
                 c.dur_ns[s] >= kContextCallMinNs &&
                 DeviceIdleUnder(device_busy, c.ts_ns[s], c.end_ns(s))) {
        add(OneTimeKind::kContextCreation, s, c.ts_ns[s], c.end_ns(s));
      }
      continue;
    }
    if (!IsHostKind(kind)) continue;
    if (IsCompileName(name)) {
      add(OneTimeKind::kCompilation, s, c.ts_ns[s], c.end_ns(s));
    } else if (IsCaptureAnnotation(name)) {
      add(OneTimeKind::kGraphCapture, s, c.ts_ns[s], c.end_ns(s));
    }
  }
  // A capture begun and never ended in the trace runs to the end of the call.
  for (const auto& [track, s] : open_captures) {
    add(OneTimeKind::kGraphCapture, s, c.ts_ns[s], c.end_ns(s));
  }
  std::sort(autotuned_ops.begin(), autotuned_ops.end());
  autotuned_ops.erase(std::unique(autotuned_ops.begin(), autotuned_ops.end()), autotuned_ops.end());
  for (SliceId op : autotuned_ops) add(OneTimeKind::kAutotuning, op, c.ts_ns[op], c.end_ns(op));
  step_phase_internal::FindFirstCallEvents(tl, device_busy, events);
  return events;
}

// A stall found by its length alone (a slow launch or runtime call) that
// recurs in most steps is a per-step cost (an allocator freeing and growing
// every iteration, a library's per-call workspace), not one-time work:
// docs/steady-state.md. Its idle keeps its per-step cause.
constexpr size_t kMinStepsForRecurrence = 3;
void DropRecurringStalls(const Timeline& tl, const StepSet& all_steps,
                         std::vector<OneTimeEvent>& events, std::vector<std::string>& notes) {
  const size_t n = all_steps.steps.size();
  if (n < kMinStepsForRecurrence) return;
  const SliceColumns& c = tl.slices();
  auto by_length = [&](const OneTimeEvent& e) {
    return (e.kind == OneTimeKind::kModuleLoading || e.kind == OneTimeKind::kContextCreation) &&
           e.slice != kNoIndex &&
           (c.kind[e.slice] == EventKind::kRuntime || c.kind[e.slice] == EventKind::kDriver);
  };
  std::map<std::string, std::set<int>> steps_of;
  for (const OneTimeEvent& e : events) {
    if (!by_length(e)) continue;
    const int step = StepIndexAt(all_steps, e.start_ns);
    if (step >= 0) steps_of[e.name].insert(step);
  }
  std::set<std::string> recurring;
  for (const auto& [name, steps] : steps_of) {
    if (2 * steps.size() > n) {
      recurring.insert(name);
      notes.push_back(fmt::format(
          "{} stalls in {} of {} steps: a per-step cost (its idle keeps its per-step cause), "
          "not one-time work",
          name, steps.size(), n));
    }
  }
  if (recurring.empty()) return;
  std::erase_if(events,
                [&](const OneTimeEvent& e) { return by_length(e) && recurring.contains(e.name); });
}

// Training iterations that start at or after `from_ns`, counted by the
// batches fetched and by the optimizer steps (whichever shows more: a
// loop may fetch with its own code, or not step an optimizer).
int64_t IterationsFrom(const Timeline& tl, TimeNs from_ns) {
  const SliceColumns& c = tl.slices();
  int64_t batches = 0;
  int64_t optimizer_steps = 0;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (c.ts_ns[s] < from_ns) continue;
    if (tl.HasFlag(s, kFlagDataLoader)) ++batches;
    if (tl.HasFlag(s, kFlagOptimizer) && tl.str(c.name[s]).starts_with("Optimizer.step")) {
      ++optimizer_steps;
    }
  }
  return std::max(batches, optimizer_steps);
}

// A window (no step markers) that opens with start-up and then runs: judge
// what follows the last one-time work, as a user would profile it with a
// schedule, when that is most of the window and the device works in it.
void CutWindowStartUp(const Timeline& tl, const StepSet& all_steps, StepPhaseSet& out) {
  if (all_steps.source != StepSource::kWindow || all_steps.steps.size() != 1 ||
      out.costs.empty() ||
      out.phases[0] == StepPhase::kSteady) {
    return;
  }
  const Step& window = all_steps.steps[0];
  TimeNs one_time_end_ns = window.start_ns;
  for (const OneTimeCost& cost : out.costs) {
    for (const OneTimeEvent& e : cost.events) one_time_end_ns = std::max(one_time_end_ns, e.end_ns);
  }
  const SliceColumns& c = tl.slices();
  TimeNs rest_ns = window.end_ns - one_time_end_ns;
  if (static_cast<double>(rest_ns) <
          kMinSteadyRestShare * static_cast<double>(window.duration_ns()) &&
      IterationsFrom(tl, one_time_end_ns) < kMinSteadyRestIterations) {
    return;
  }
  int64_t device_after = 0;
  for (SliceId s = 0; s < c.size() && device_after < kMinSteadyRestActivities; ++s) {
    if (IsDeviceActivity(c.kind[s]) && tl.tracks()[c.track[s]].kind == TrackKind::kDeviceStream &&
        c.ts_ns[s] >= one_time_end_ns) {
      ++device_after;
    }
  }
  if (device_after < kMinSteadyRestActivities) return;
  out.window_steady_start_ns = one_time_end_ns;
  out.phases[0] = StepPhase::kSteady;
  out.cuts[0].clear();
  out.steady_count = 1;
}

// Inferred iterations (no step markers): the leading ones that take more
// than kSlowFirstIterationFactor times the median iteration are warm-up
// (first calls: lazy initialisation, allocator growth, autotuning), even
// where the trace names no one-time event in them.
constexpr TimeNs kSlowFirstIterationFactor = 2;
void MarkSlowFirstIterations(const StepSet& all_steps, StepPhaseSet& out) {
  if (all_steps.source != StepSource::kInferred || all_steps.steps.size() < 3) return;
  std::vector<TimeNs> ns;
  for (const Step& s : all_steps.steps) ns.push_back(s.wall_ns());
  std::nth_element(ns.begin(), ns.begin() + ns.size() / 2, ns.end());
  const TimeNs median_ns = ns[ns.size() / 2];
  // At most half of them: slow is then the run's normal.
  for (size_t i = 0; i < all_steps.steps.size() / 2; ++i) {
    if (all_steps.steps[i].wall_ns() / kSlowFirstIterationFactor <= median_ns) break;
    if (out.phases[i] == StepPhase::kSteady) {
      out.phases[i] = StepPhase::kWarmup;
      out.cuts[i].clear();
      --out.steady_count;
    }
  }
}

}  // namespace

std::string_view StepPhaseName(StepPhase p) {
  switch (p) {
    case StepPhase::kSteady: return "steady";
    case StepPhase::kWarmup: return "warm-up";
    case StepPhase::kCapture: return "capture";
    case StepPhase::kCompile: return "compile";
  }
  return "steady";
}

std::string_view OneTimeKindKey(OneTimeKind k) {
  switch (k) {
    case OneTimeKind::kCompilation: return "compilation";
    case OneTimeKind::kGraphCapture: return "graph_capture";
    case OneTimeKind::kAutotuning: return "autotuning";
    case OneTimeKind::kModuleLoading: return "module_loading";
    case OneTimeKind::kContextCreation: return "context_creation";
  }
  return "context_creation";
}

std::string_view OneTimeKindLabel(OneTimeKind k) {
  switch (k) {
    case OneTimeKind::kCompilation: return "Dynamo/Inductor compilation";
    case OneTimeKind::kGraphCapture: return "CUDA/HIP graph capture";
    case OneTimeKind::kAutotuning: return "cuDNN benchmark autotuning";
    case OneTimeKind::kModuleLoading: return "first-launch module loading";
    case OneTimeKind::kContextCreation: return "CUDA/HIP context creation and runtime start-up";
  }
  return "";
}

StepPhase PhaseOf(OneTimeKind k) {
  switch (k) {
    case OneTimeKind::kCompilation: return StepPhase::kCompile;
    case OneTimeKind::kGraphCapture: return StepPhase::kCapture;
    default: return StepPhase::kWarmup;
  }
}

StepPhaseSet ComputeStepPhase(const Timeline& tl, const StepSet& all_steps) {
  StepPhaseSet out;
  std::vector<OneTimeEvent> events = FindEvents(tl);
  DropRecurringStalls(tl, all_steps, events, out.recurring_notes);

  // Per kind, the time not already charged to a kind before it.
  IntervalSet charged;
  std::array<IntervalSet, kOneTimeKindCount> own;
  for (int k = 0; k < kOneTimeKindCount; ++k) {
    std::vector<Interval> spans;
    for (const OneTimeEvent& e : events) {
      if (static_cast<int>(e.kind) == k) spans.push_back({e.start_ns, e.end_ns});
    }
    IntervalSet all = IntervalSet::FromUnsorted(std::move(spans));
    own[k] = all.Subtract(charged);
    charged = charged.Union(all);
    if (all.empty()) continue;
    OneTimeCost cost;
    cost.kind = static_cast<OneTimeKind>(k);
    cost.total_ns = own[k].TotalNs();
    for (const OneTimeEvent& e : events) {
      if (static_cast<int>(e.kind) == k) cost.events.push_back(e);
    }
    std::stable_sort(cost.events.begin(), cost.events.end(),
                     [](const OneTimeEvent& a, const OneTimeEvent& b) {
                       if (a.end_ns - a.start_ns != b.end_ns - b.start_ns) {
                         return a.end_ns - a.start_ns > b.end_ns - b.start_ns;
                       }
                       return a.start_ns < b.start_ns;
                     });
    if (cost.total_ns > 0) out.costs.push_back(std::move(cost));
  }

  // One-time work is cut out of every step as time (docs/steady-state.md,
  // "One-time work inside a step"): a step is steady when at least half of
  // it is left; otherwise capture and compile name the step when present
  // (they bring warm-up work with them).
  for (const Step& step : all_steps.steps) {
    IntervalSet in_step = charged.Clip(step.start_ns, step.end_ns);
    const TimeNs cut_ns = in_step.TotalNs();
    StepPhase phase = StepPhase::kSteady;
    std::vector<Interval> cut;
    if (cut_ns > 0 && (step.wall_ns() - cut_ns) * kMinSteadyRemainderDen <
                          step.wall_ns() * kMinSteadyRemainderNum) {
      for (int k = 0; k < kOneTimeKindCount && phase == StepPhase::kSteady; ++k) {
        if (own[k].OverlapNs(step.start_ns, step.end_ns) > 0) {
          phase = PhaseOf(static_cast<OneTimeKind>(k));
        }
      }
    } else {
      cut = in_step.intervals();
    }
    out.phases.push_back(phase);
    out.cuts.push_back(std::move(cut));
    if (phase == StepPhase::kSteady) ++out.steady_count;
  }
  CutWindowStartUp(tl, all_steps, out);
  MarkSlowFirstIterations(all_steps, out);
  return out;
}

std::string OneTimeSummary(const StepPhaseSet& phase) {
  std::vector<std::string> parts;
  for (const OneTimeCost& c : phase.costs) {
    parts.push_back(fmt::format("{} {}", OneTimeKindLabel(c.kind), FormatDurationNs(c.total_ns)));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

StepSet SteadySteps(const StepSet& all_steps, const StepPhaseSet& phase) {
  StepSet out = all_steps;
  out.steps.clear();
  std::vector<std::string> left_out;
  int cut_steps = 0;
  TimeNs cut_total_ns = 0;
  for (size_t i = 0; i < all_steps.steps.size(); ++i) {
    if (phase.phases[i] == StepPhase::kSteady) {
      out.steps.push_back(all_steps.steps[i]);
      Step& step = out.steps.back();
      if (i < phase.cuts.size() && !phase.cuts[i].empty()) {
        step.cut = phase.cuts[i];
        ++cut_steps;
        cut_total_ns += step.cut_ns();
      }
      if (phase.window_steady_start_ns >= 0) {
        out.notes.push_back(fmt::format(
            "start-up cut from the window: its one-time work ({}) runs until +{}, so it is "
            "judged from there on",
            OneTimeSummary(phase),
            FormatDurationNs(phase.window_steady_start_ns - step.start_ns)));
        step.start_ns = phase.window_steady_start_ns;
      }
      continue;
    }
    // StepName: the framework's words for a marked step, "iteration N" for
    // an inferred one, "the window" for the single window.
    left_out.push_back(fmt::format("{} ({})", StepName(all_steps, all_steps.steps[i].number),
                                   StepPhaseName(phase.phases[i])));
  }
  if (cut_steps > 0) {
    out.notes.push_back(fmt::format(
        "one-time work cut out of {} steady {} as time ({} in all): {} judged on the rest, "
        "and the one-time costs are reported once",
        cut_steps,
        all_steps.source == StepSource::kWindow ? "window"
                                                : (cut_steps == 1 ? "step" : "steps"),
        FormatDurationNs(cut_total_ns), cut_steps == 1 ? "it is" : "they are"));
  }
  for (const std::string& note : phase.recurring_notes) out.notes.push_back(note);
  if (!left_out.empty()) {
    out.notes.push_back(fmt::format(
        "not steady, left out of per-step statistics and savings: {}", fmt::join(left_out, ", ")));
  }
  return out;
}

}  // namespace tracelint
