#include "analyzer/analysis/steps.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <optional>

#include "analyzer/analysis/interval_set.h"
#include "analyzer/analysis/iterations.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace tracelint {
namespace {

// A trailing step whose device work is below this share of the previous
// step's was cut off by the end of the profiling window (TensorBoard
// plugin's rule).
constexpr double kCompleteStepMinShare = 0.8;
// The last step's silent tail is the profiler stopping when it is this many
// times the step's work, and the step is longer than this many times the
// median of the others (when there are others): a host that is merely slow
// in its last step keeps it.
constexpr TimeNs kStopTailMinFactor = 9;
constexpr TimeNs kStopTailStepFactor = 2;
// A window whose device is busy this share of the span from its first to its
// last activity ran its queued work back to back.
constexpr double kQueuedBusyMinShare = 0.9;

struct HostMarker {
  int64_t number = -1;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  SliceId slice = kNoIndex;
};

int64_t StepNumberOf(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (!name.starts_with(kPrefix)) return -1;
  std::string_view digits = name.substr(kPrefix.size());
  int64_t n = -1;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc()) return -1;
  return n;
}

// "ProfilerStep#3", "iteration 3": how notes name a step.
std::string Label(const StepSet& out, int64_t number) {
  return out.source == StepSource::kInferred ? fmt::format("iteration {}", number)
                                             : fmt::format("ProfilerStep#{}", number);
}
std::string Labels(const StepSet& out, const std::vector<int64_t>& numbers) {
  std::vector<std::string> parts;
  for (int64_t n : numbers) parts.push_back(Label(out, n));
  return fmt::format("{}", fmt::join(parts, ", "));
}

bool IsHostTrack(const Timeline& tl, TrackId t) {
  return tl.tracks()[t].kind == TrackKind::kHostThread;
}
bool IsDeviceTrack(const Timeline& tl, TrackId t) {
  return tl.tracks()[t].kind == TrackKind::kDeviceStream;
}

// Host step markers, one per step number (a marker recorded on several
// threads, or split by the nesting repair, is merged), in time order.
std::vector<HostMarker> CollectMarkers(const Timeline& tl) {
  const SliceColumns& c = tl.slices();
  std::vector<HostMarker> markers;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (!tl.HasFlag(s, kFlagStepMarker) || !IsHostTrack(tl, c.track[s])) continue;
    HostMarker m{StepNumberOf(tl.str(c.name[s])), c.ts_ns[s], c.end_ns(s), s};
    markers.push_back(m);
  }
  std::sort(markers.begin(), markers.end(), [](const HostMarker& a, const HostMarker& b) {
    if (a.number != b.number) return a.number < b.number;
    return a.start_ns < b.start_ns;
  });
  std::vector<HostMarker> merged;
  for (const HostMarker& m : markers) {
    if (!merged.empty() && m.number >= 0 && merged.back().number == m.number) {
      merged.back().start_ns = std::min(merged.back().start_ns, m.start_ns);
      merged.back().end_ns = std::max(merged.back().end_ns, m.end_ns);
      continue;
    }
    merged.push_back(m);
  }
  std::sort(merged.begin(), merged.end(), [](const HostMarker& a, const HostMarker& b) {
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    return a.number < b.number;
  });
  return merged;
}

// A cut trace without markers: the window keeps only the time whose device
// work the file order proves was all read (ReadCoverage); false when less
// than kClippedWindowMinShare of it is left.
constexpr double kClippedWindowMinShare = 0.5;
bool ClipWindowToTheCut(const Timeline& tl, Step& window, StepSet& out) {
  const ReadCoverage& coverage = tl.metadata().read_coverage;
  std::vector<std::pair<TimeNs, TimeNs>> candidates;
  if (coverage.blocks == 1) {
    if (coverage.horizon_ns > std::numeric_limits<TimeNs>::min()) {
      candidates.push_back({coverage.first_start_ns, coverage.horizon_ns - 1});
    }
  } else if (!coverage.interleaved) {
    for (const ReadCoverage::TrackCoverage& t : coverage.tracks) {
      for (const ReadCoverage::Range& r : t.complete) candidates.push_back({r.start_ns, r.end_ns});
    }
  }
  TimeNs best_start_ns = 0, best_end_ns = -1;
  for (auto [start_ns, end_ns] : candidates) {
    start_ns = std::max(start_ns, window.start_ns);
    end_ns = std::min(end_ns, window.end_ns);
    if (end_ns <= start_ns || !coverage.Covers(start_ns, end_ns)) continue;
    if (end_ns - start_ns > best_end_ns - best_start_ns) {
      best_start_ns = start_ns;
      best_end_ns = end_ns;
    }
  }
  // Without markers the window has no natural extent; a sliver of it (the
  // start-up copies, one burst) would be reported as if it were the run.
  const TimeNs window_ns = window.end_ns - window.start_ns;
  if (best_end_ns <= best_start_ns ||
      static_cast<double>(best_end_ns - best_start_ns) <
          kClippedWindowMinShare * static_cast<double>(window_ns)) {
    out.dropped_incomplete = 1;
    out.notes.push_back(fmt::format(
        "the trace is cut short and less than {:.0f}% of the window is provably whole ({} of "
        "{}: {}); nothing is analysed per window",
        kClippedWindowMinShare * 100,
        FormatDurationNs(std::max<TimeNs>(0, best_end_ns - best_start_ns)),
        FormatDurationNs(window_ns), coverage.Describe()));
    return false;
  }
  if (best_start_ns == window.start_ns && best_end_ns == window.end_ns) return true;
  out.notes.push_back(fmt::format(
      "the trace is cut short: the window keeps {} of {} whose device work was provably all "
      "read ({})",
      FormatDurationNs(best_end_ns - best_start_ns),
      FormatDurationNs(window.end_ns - window.start_ns), coverage.Describe()));
  const SliceColumns& c = tl.slices();
  window.device_activities = 0;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (IsDeviceTrack(tl, c.track[s]) && IsDeviceActivity(c.kind[s]) &&
        c.ts_ns[s] >= best_start_ns && c.ts_ns[s] <= best_end_ns) {
      ++window.device_activities;
    }
  }
  window.start_ns = best_start_ns;
  window.end_ns = best_end_ns;
  window.host_end_ns = std::min(window.host_end_ns, best_end_ns);
  return true;
}

StepSet SingleWindow(const Timeline& tl) {
  StepSet out;
  const SliceColumns& c = tl.slices();
  TimeNs first_ns = std::numeric_limits<TimeNs>::max();
  TimeNs last_ns = std::numeric_limits<TimeNs>::min();
  int64_t device_activities = 0, launched = 0;
  TimeNs last_launch_end_ns = std::numeric_limits<TimeNs>::min();
  std::vector<Interval> busy;
  std::vector<TimeNs> launch_end_ns;
  for (SliceId s = 0; s < c.size(); ++s) {
    TrackId t = c.track[s];
    // kOther tracks hold the profiler's own span and counters, which can
    // reach far beyond the work.
    if (!IsHostTrack(tl, t) && !IsDeviceTrack(tl, t)) continue;
    first_ns = std::min(first_ns, c.ts_ns[s]);
    last_ns = std::max(last_ns, c.end_ns(s));
    if (IsDeviceTrack(tl, t) && IsDeviceActivity(c.kind[s])) {
      ++device_activities;
      busy.push_back({c.ts_ns[s], c.end_ns(s)});
      if (c.launch[s] != kNoIndex) {
        ++launched;
        last_launch_end_ns = std::max(last_launch_end_ns, c.end_ns(c.launch[s]));
        launch_end_ns.push_back(c.end_ns(c.launch[s]));
      }
    }
  }
  out.from_markers = false;
  out.notes.push_back(
      "no ProfilerStep#N markers: one window from the first to the last event of the rank; "
      "per-step numbers are per window");
  if (first_ns > last_ns) {
    out.notes.push_back("no host or device events: nothing to analyse");
    return out;
  }
  Step window;
  window.number = 0;
  window.start_ns = first_ns;
  window.end_ns = last_ns;
  window.host_end_ns = last_ns;
  window.device_activities = device_activities;
  // GPU work queued early that then runs back to back: the job is GPU-bound
  // and the lead-in before the device started is not host idle time.
  IntervalSet device_busy = IntervalSet::FromUnsorted(std::move(busy));
  if (!device_busy.empty() && 2 * launched >= device_activities) {
    TimeNs device_start_ns = device_busy.intervals().front().start_ns;
    TimeNs device_end_ns = device_busy.intervals().back().end_ns;
    TimeNs span_ns = device_end_ns - device_start_ns;
    // The host ran ahead: it finished queueing before the device finished,
    // and had queued more than one activity before the device started.
    int64_t queued_before_start = std::count_if(
        launch_end_ns.begin(), launch_end_ns.end(),
        [&](TimeNs t) { return t <= device_start_ns; });
    bool queued_ahead = last_launch_end_ns < device_end_ns && queued_before_start >= 2;
    bool back_to_back = static_cast<double>(device_busy.TotalNs()) >=
                        kQueuedBusyMinShare * static_cast<double>(span_ns);
    if (queued_ahead && back_to_back && span_ns > 0 && device_start_ns > window.start_ns) {
      out.lead_in_ns = device_start_ns - window.start_ns;
      window.start_ns = device_start_ns;
      out.notes.push_back(fmt::format(
          "GPU-bound window: its work was queued early and ran back to back; the {} lead-in "
          "before the device started is cut from the window, not counted as host idle",
          FormatDurationNs(out.lead_in_ns)));
    }
  }
  if (tl.metadata().truncated && !ClipWindowToTheCut(tl, window, out)) return out;
  out.steps.push_back(window);
  return out;
}


// End of the device work launched before the trace began: activities
// without a launch in the file that start before the first step's own first
// activity, wherever they run (docs/steady-state.md, "Inherited device
// work"; the TensorBoard plugin's step rule). Capped at that first own
// activity: a step never starts after its own work began. Only when most
// activities are linked: a trace without flows links none.
TimeNs InheritedWorkEnd(size_t launched_count, const std::vector<Interval>& unlaunched,
                        TimeNs first_launched_ns, TimeNs first_marker_ns) {
  TimeNs end_ns = std::numeric_limits<TimeNs>::min();
  if (launched_count == 0 || unlaunched.size() > launched_count ||
      first_launched_ns == std::numeric_limits<TimeNs>::max()) {
    return end_ns;
  }
  for (const Interval& u : unlaunched) {
    if (u.start_ns >= first_launched_ns || u.end_ns <= first_marker_ns) continue;
    end_ns = std::max(end_ns, std::min(u.end_ns, first_launched_ns));
  }
  return end_ns;
}

// The last step's marker often runs on until the profiler stops, long after
// the step's work (seen: a 13 s ProfilerStep#1 around 1.5 ms of work). When
// the silent tail is longer than the rest of the step, the step ends where
// its host and device work end.
void CutStopTail(const Timeline& tl, TimeNs launched_end_ns, StepSet& out) {
  Step& last = out.steps.back();
  const SliceColumns& c = tl.slices();
  TimeNs work_end_ns = launched_end_ns;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (!IsHostTrack(tl, c.track[s]) || tl.HasFlag(s, kFlagStepMarker)) continue;
    EventKind k = c.kind[s];
    if (k == EventKind::kTraceSpan || k == EventKind::kOverhead || k == EventKind::kInstant) {
      continue;
    }
    if (c.ts_ns[s] < last.start_ns || c.ts_ns[s] >= last.end_ns) continue;
    work_end_ns = std::max(work_end_ns, std::min(c.end_ns(s), last.end_ns));
  }
  if (work_end_ns <= last.start_ns) return;
  TimeNs tail_ns = last.end_ns - work_end_ns;
  // Divided, not multiplied: a hostile span times the factor can pass int64
  // (tail < k * work exactly when tail / k < work, in integers).
  if (tail_ns / kStopTailMinFactor < work_end_ns - last.start_ns) return;
  if (out.steps.size() >= 2) {
    std::vector<TimeNs> others;
    for (size_t i = 0; i + 1 < out.steps.size(); ++i) others.push_back(out.steps[i].duration_ns());
    std::nth_element(others.begin(), others.begin() + others.size() / 2, others.end());
    // d <= k * m exactly when ceil(d / k) <= m.
    const TimeNs median_ns = others[others.size() / 2];
    if ((last.duration_ns() + kStopTailStepFactor - 1) / kStopTailStepFactor <= median_ns) return;
  }
  out.stop_tail_ns = tail_ns;
  out.notes.push_back(fmt::format(
      "the last step ({}) ends where its work ends: its {} runs on {} with "
      "the host and device silent (the profiler stopping), an edge of the window, not a loss",
      Label(out, last.number), out.source == StepSource::kInferred ? "range" : "marker",
      FormatDurationNs(tail_ns)));
  last.end_ns = work_end_ns;
  last.host_end_ns = std::min(last.host_end_ns, work_end_ns);
}

// A salvaged (cut) trace: a step is complete only when the order the file
// wrote its device work in proves all of it was read. Steps without that
// evidence are dropped, however many, and never analysed as complete steps.
void DropStepsPastTheCut(const Timeline& tl, StepSet& out) {
  // The busiest step is taken before any is dropped: a cut can leave the
  // steps before the horizon with none of their work.
  const SliceColumns& c = tl.slices();
  std::vector<TimeNs> device_starts;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (IsDeviceTrack(tl, c.track[s]) && IsDeviceActivity(c.kind[s])) {
      device_starts.push_back(c.ts_ns[s]);
    }
  }
  std::sort(device_starts.begin(), device_starts.end());
  auto on_device = [&](const Step& st) {
    return std::lower_bound(device_starts.begin(), device_starts.end(), st.end_ns) -
           std::lower_bound(device_starts.begin(), device_starts.end(), st.start_ns);
  };
  int64_t most_linked = 0, most_on_device = 0;
  for (const Step& st : out.steps) {
    most_linked = std::max(most_linked, st.device_activities);
    most_on_device = std::max<int64_t>(most_on_device, on_device(st));
  }
  // Kineto writes host ops first, then launches and device work in
  // activity blocks, so a cut leaves steps without (all) their kernels; the
  // file order tells which steps were read whole (ReadCoverage).
  const ReadCoverage& coverage = tl.metadata().read_coverage;
  std::vector<int64_t> unread;
  std::erase_if(out.steps, [&](const Step& st) {
    bool whole = coverage.Covers(st.start_ns, st.end_ns);
    if (!whole) unread.push_back(st.number);
    return !whole;
  });
  if (!unread.empty()) {
    out.dropped_incomplete += static_cast<int>(unread.size());
    out.notes.push_back(fmt::format(
        "the trace is cut short: dropped {} step(s) ({}) whose device work the "
        "reading did not provably get all of: {}",
        unread.size(), Labels(out, unread), coverage.Describe()));
  }
  // Events are not always written in time order (rewritten traces; a
  // buffer of late kernels flushed among the host ops; flow events that link
  // kernels to their launches written at the end): a step before the horizon
  // may still have lost part of its work or its links. The last-step rule
  // then holds for every step, on both counts: one with fewer than
  // kCompleteStepMinShare of the busiest step's linked device activities, or
  // of its device activities over its time, is dropped.
  auto below = [](int64_t n, int64_t most) {
    return static_cast<double>(n) < kCompleteStepMinShare * static_cast<double>(most);
  };
  std::vector<int64_t> short_steps;
  std::erase_if(out.steps, [&](const Step& st) {
    bool cut = below(st.device_activities, most_linked) || below(on_device(st), most_on_device);
    if (cut) short_steps.push_back(st.number);
    return cut;
  });
  if (short_steps.empty()) return;
  out.dropped_incomplete += static_cast<int>(short_steps.size());
  out.notes.push_back(fmt::format(
      "the trace is cut short: dropped step(s) {} with fewer than {:.0f}% of the "
      "busiest step's device activities, or of its linked ones (their work or its links may "
      "be missing)",
      Labels(out, short_steps), kCompleteStepMinShare * 100));
}

}  // namespace

std::string_view StepSourceName(StepSource source) {
  switch (source) {
    case StepSource::kMarker: return "marker";
    case StepSource::kWindow: return "window";
    case StepSource::kInferred: return "inferred";
  }
  return "window";
}

std::string StepName(const StepSet& steps, int64_t number) {
  switch (steps.source) {
    case StepSource::kMarker: return StepLabel(steps.framework, number);
    case StepSource::kInferred: return fmt::format("iteration {}", number);
    case StepSource::kWindow: break;
  }
  return "the window";
}

TimeNs Step::OverlapNs(const IntervalSet& set) const {
  TimeNs total = set.OverlapNs(start_ns, end_ns);
  for (const Interval& i : cut) total -= set.OverlapNs(i.start_ns, i.end_ns);
  return total;
}

IntervalSet Step::Judged() const {
  IntervalSet whole = IntervalSet::FromUnsorted({{start_ns, end_ns}});
  if (cut.empty()) return whole;
  return whole.Subtract(IntervalSet::FromUnsorted(cut));
}

bool Step::Covers(TimeNs ts_ns) const {
  if (ts_ns < start_ns || ts_ns >= end_ns) return false;
  for (const Interval& i : cut) {
    if (ts_ns >= i.start_ns && ts_ns < i.end_ns) return false;
  }
  return true;
}

namespace {

// A step ends where the device work launched in it ends (the TensorBoard
// plugin's rule), so a step whose GPU work runs past its marker is longer
// than the marker and the next one shorter. Users compare with the marker
// durations they see in a timeline viewer: say where and by how much.
void NoteOverrunMarkers(const SliceColumns& c, StepSet& out) {
  int overran = 0;
  TimeNs longest_ns = 0;
  int64_t longest_step = -1;
  for (const Step& s : out.steps) {
    if (s.marker == kNoIndex) continue;
    const TimeNs marker_ns = s.host_end_ns - c.ts_ns[s.marker];
    const TimeNs over_ns = s.end_ns - s.host_end_ns;
    if (over_ns <= 0 || over_ns <= marker_ns / 10) continue;
    ++overran;
    if (over_ns > longest_ns) {
      longest_ns = over_ns;
      longest_step = s.number;
    }
  }
  if (overran == 0) return;
  out.notes.push_back(fmt::format(
      "{} of {} steps end after their ProfilerStep marker, where the device work launched in "
      "them ends (the TensorBoard plugin's step; longest: {} past ProfilerStep#{}); the next "
      "step starts there, so step times differ from the markers' durations",
      overran, out.steps.size(), FormatDurationNs(longest_ns), longest_step));
}


// Host ranges standing for step markers, one per inferred iteration: an
// iteration runs from one anchor to the next (from the end of one
// optimizer step to the end of the next; from one forward's start to the
// next's). The first takes the window's lead-in, the last runs for the
// median spacing after its anchor.
std::vector<HostMarker> IterationMarkers(const Timeline& tl, const IterationAnchors& anchors) {
  const SliceColumns& c = tl.slices();
  TimeNs first_ns = std::numeric_limits<TimeNs>::max();
  TimeNs last_ns = std::numeric_limits<TimeNs>::min();
  for (SliceId s = 0; s < c.size(); ++s) {
    if (!IsHostTrack(tl, c.track[s]) && !IsDeviceTrack(tl, c.track[s])) continue;
    first_ns = std::min(first_ns, c.ts_ns[s]);
    last_ns = std::max(last_ns, c.end_ns(s));
  }
  std::vector<TimeNs> at;
  for (SliceId s : anchors.slices) at.push_back(anchors.ends_iteration ? c.end_ns(s) : c.ts_ns[s]);
  std::vector<TimeNs> spacing;
  for (size_t i = 1; i < at.size(); ++i) spacing.push_back(at[i] - at[i - 1]);
  std::nth_element(spacing.begin(), spacing.begin() + spacing.size() / 2, spacing.end());
  const TimeNs median_spacing_ns = spacing[spacing.size() / 2];
  std::vector<HostMarker> markers;
  for (size_t i = 0; i < at.size(); ++i) {
    HostMarker m;
    m.number = static_cast<int64_t>(i) + 1;
    m.slice = anchors.slices[i];
    if (anchors.ends_iteration) {
      m.start_ns = i == 0 ? std::min(first_ns, at[0]) : at[i - 1];
      m.end_ns = at[i];
    } else {
      m.start_ns = i == 0 ? std::min(first_ns, at[0]) : at[i];
      m.end_ns = i + 1 < at.size() ? at[i + 1] : std::min(last_ns, at[i] + median_spacing_ns);
      m.end_ns = std::max(m.end_ns, c.end_ns(anchors.slices[i]));
    }
    if (m.end_ns > m.start_ns) markers.push_back(m);
  }
  return markers;
}

}  // namespace

namespace {

bool NamesStepsByNumber(std::string_view framework) {
  return framework == "TensorFlow" || framework == "JAX";
}

}  // namespace

std::string StepLabel(std::string_view framework, int64_t number) {
  return NamesStepsByNumber(framework) ? fmt::format("step {}", number)
                                       : fmt::format("ProfilerStep#{}", number);
}

std::string StepRangeLabel(std::string_view framework, int64_t first, int64_t last) {
  if (first == last) return StepLabel(framework, first);
  return NamesStepsByNumber(framework) ? fmt::format("steps {}..{}", first, last)
                                       : fmt::format("ProfilerStep#{}..#{}", first, last);
}

std::string_view StepMarkerHint(std::string_view framework) {
  if (framework == "TensorFlow") {
    return "mark each step with tf.profiler.experimental.Trace('train', step_num=step, _r=1)";
  }
  if (framework == "JAX") {
    return "mark each step with jax.profiler.StepTraceAnnotation('train', step_num=step)";
  }
  if (framework == "PyTorch") {
    return "call prof.step() once per iteration inside torch.profiler.profile";
  }
  return "mark each iteration with the framework's step annotation";
}

namespace {

StepSet ComputeStepsOfMarkers(const Timeline& tl);

}  // namespace

StepSet ComputeSteps(const Timeline& tl) {
  StepSet out = ComputeStepsOfMarkers(tl);
  out.framework = tl.metadata().framework;
  // The notes above speak of PyTorch's markers; a TensorFlow or JAX trace
  // gets its own words (its steps are "step N") and the no-marker note says
  // how that framework marks steps.
  const bool by_number = NamesStepsByNumber(out.framework);
  for (std::string& note : out.notes) {
    // The single window's note; an inferred set's note (same opening) names
    // its iterations and keeps its text.
    if (out.source == StepSource::kWindow && note.starts_with("no ProfilerStep#N markers")) {
      note = fmt::format("no {} markers ({}): one window from the first to the last event of "
                         "the rank; per-step numbers are per window",
                         by_number ? "step" : "ProfilerStep#N", StepMarkerHint(out.framework));
      continue;
    }
    if (!by_number) continue;
    for (size_t at = note.find("ProfilerStep#"); at != std::string::npos;
         at = note.find("ProfilerStep#", at)) {
      note.replace(at, std::string_view("ProfilerStep#").size(), "step ");
    }
  }
  return out;
}

namespace {

StepSet ComputeStepsOfMarkers(const Timeline& tl) {
  std::vector<HostMarker> markers = CollectMarkers(tl);
  StepSource source = StepSource::kMarker;
  std::optional<IterationAnchors> anchors;
  if (markers.empty()) {
    anchors = FindIterationAnchors(tl);
    if (!anchors.has_value()) return SingleWindow(tl);
    markers = IterationMarkers(tl, *anchors);
    source = StepSource::kInferred;
    if (markers.size() < kMinIterations) return SingleWindow(tl);
  }
  // Device activities by the start of their launch call, so each step finds
  // the work launched inside its host range with a binary search.
  struct Launched {
    TimeNs launch_ns;
    TimeNs end_ns;
  };
  const SliceColumns& c = tl.slices();
  std::vector<Launched> launched;
  std::vector<Interval> unlaunched;
  TimeNs first_launched_ns = std::numeric_limits<TimeNs>::max();
  for (SliceId s = 0; s < c.size(); ++s) {
    if (!IsDeviceActivity(c.kind[s]) || !IsDeviceTrack(tl, c.track[s])) continue;
    SliceId launch = c.launch[s];
    if (launch == kNoIndex) {
      unlaunched.push_back({c.ts_ns[s], c.end_ns(s)});
      continue;
    }
    launched.push_back({c.ts_ns[launch], c.end_ns(s)});
    // The first step's own first activity: launched inside its host range.
    // A first step that launches nothing inherits nothing (its unlinked
    // work may be its own: a graph replay, a lost correlation).
    if (c.ts_ns[launch] >= markers.front().start_ns && c.ts_ns[launch] < markers.front().end_ns) {
      first_launched_ns = std::min(first_launched_ns, c.ts_ns[s]);
    }
  }
  std::sort(launched.begin(), launched.end(), [](const Launched& a, const Launched& b) {
    return a.launch_ns != b.launch_ns ? a.launch_ns < b.launch_ns : a.end_ns < b.end_ns;
  });

  StepSet out;
  out.from_markers = source == StepSource::kMarker;
  out.source = source;
  if (anchors.has_value()) {
    out.notes.push_back(fmt::format(
        "no ProfilerStep#N markers: {} iterations inferred from the repeats of {} ({}; spacing "
        "varies by {:.0f}%); findings built on them carry one confidence level less",
        markers.size(), anchors->name, anchors->what, anchors->spacing_cv * 100));
  }
  // A TF1 timeline's step is its whole session.run (chrome_tf1_launches.h):
  // no work precedes it, and its unlinked copies (send/recv's) are its own.
  const bool whole_run = markers.front().slice != kNoIndex &&
                         tl.FindArg(markers.front().slice, "tf1_step_source") != nullptr;
  TimeNs prev_end_ns = whole_run ? std::numeric_limits<TimeNs>::min()
                                 : InheritedWorkEnd(launched.size(), unlaunched,
                                                    first_launched_ns, markers.front().start_ns);
  std::vector<TimeNs> work_end_ns;  // per step: end of its launched device work
  for (const HostMarker& m : markers) {
    auto lo = std::lower_bound(launched.begin(), launched.end(), m.start_ns,
                               [](const Launched& l, TimeNs t) { return l.launch_ns < t; });
    auto hi = std::lower_bound(lo, launched.end(), m.end_ns,
                               [](const Launched& l, TimeNs t) { return l.launch_ns < t; });
    Step step;
    step.number = m.number;
    step.marker = m.slice;
    step.host_end_ns = m.end_ns;
    step.device_activities = hi - lo;
    TimeNs launched_end_ns = std::numeric_limits<TimeNs>::min();
    for (auto it = lo; it != hi; ++it) launched_end_ns = std::max(launched_end_ns, it->end_ns);
    // Steps never overlap: a step starts where the previous one's device
    // work (or, for the first, the inherited work) ended, if that is after
    // its own marker started.
    step.start_ns = std::max(m.start_ns, prev_end_ns);
    step.end_ns = std::max({step.start_ns, m.end_ns, launched_end_ns});
    if (out.steps.empty() && step.start_ns > m.start_ns) {
      out.inherited_device_ns = step.start_ns - m.start_ns;
      out.notes.push_back(fmt::format(
          "the first step ({}) starts {} after its {}, where device work "
          "launched before the trace began ends",
          Label(out, m.number), FormatDurationNs(out.inherited_device_ns),
          source == StepSource::kInferred ? "range" : "marker"));
    }
    prev_end_ns = step.end_ns;
    work_end_ns.push_back(launched_end_ns);
    out.steps.push_back(step);
  }

  if (out.steps.size() >= 2) {
    const Step& last = out.steps.back();
    const Step& prev = out.steps[out.steps.size() - 2];
    if (static_cast<double>(last.device_activities) <
        kCompleteStepMinShare * static_cast<double>(prev.device_activities)) {
      out.notes.push_back(fmt::format(
          "dropped the last step ({}): {} device activities launched in it vs {} "
          "in the previous step (below {:.0f}%), so the profiler stopped before its device "
          "work was recorded",
          Label(out, last.number), last.device_activities, prev.device_activities,
          kCompleteStepMinShare * 100));
      out.steps.pop_back();
      out.dropped_incomplete = 1;
    }
  }
  if (tl.metadata().truncated) DropStepsPastTheCut(tl, out);
  if (!out.steps.empty()) CutStopTail(tl, work_end_ns[out.steps.size() - 1], out);
  if (source == StepSource::kMarker) NoteOverrunMarkers(c, out);
  return out;
}

}  // namespace

}  // namespace tracelint
