#include "analyzer/analysis/steps.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "fmt/format.h"

namespace tracelint {
namespace {

// A trailing step whose device work is below this share of the previous
// step's was cut off by the end of the profiling window (TensorBoard
// plugin's rule).
constexpr double kCompleteStepMinShare = 0.8;

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

StepSet SingleWindow(const Timeline& tl) {
  StepSet out;
  const SliceColumns& c = tl.slices();
  TimeNs first_ns = std::numeric_limits<TimeNs>::max();
  TimeNs last_ns = std::numeric_limits<TimeNs>::min();
  int64_t device_activities = 0;
  for (SliceId s = 0; s < c.size(); ++s) {
    TrackId t = c.track[s];
    // kOther tracks hold the profiler's own span and counters, which can
    // reach far beyond the work.
    if (!IsHostTrack(tl, t) && !IsDeviceTrack(tl, t)) continue;
    first_ns = std::min(first_ns, c.ts_ns[s]);
    last_ns = std::max(last_ns, c.end_ns(s));
    if (IsDeviceTrack(tl, t) && IsDeviceActivity(c.kind[s])) ++device_activities;
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
  out.steps.push_back(window);
  return out;
}

}  // namespace

StepSet ComputeSteps(const Timeline& tl) {
  std::vector<HostMarker> markers = CollectMarkers(tl);
  if (markers.empty()) return SingleWindow(tl);

  // Device activities by the start of their launch call, so each step finds
  // the work launched inside its host range with a binary search.
  struct Launched {
    TimeNs launch_ns;
    TimeNs end_ns;
  };
  const SliceColumns& c = tl.slices();
  std::vector<Launched> launched;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (!IsDeviceActivity(c.kind[s]) || !IsDeviceTrack(tl, c.track[s])) continue;
    SliceId launch = c.launch[s];
    if (launch == kNoIndex) continue;
    launched.push_back({c.ts_ns[launch], c.end_ns(s)});
  }
  std::sort(launched.begin(), launched.end(), [](const Launched& a, const Launched& b) {
    return a.launch_ns != b.launch_ns ? a.launch_ns < b.launch_ns : a.end_ns < b.end_ns;
  });

  StepSet out;
  out.from_markers = true;
  TimeNs prev_end_ns = std::numeric_limits<TimeNs>::min();
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
    TimeNs device_end_ns = m.end_ns;
    for (auto it = lo; it != hi; ++it) device_end_ns = std::max(device_end_ns, it->end_ns);
    // Steps never overlap: a step starts where the previous one's device
    // work ended, if that is after its own marker started.
    step.start_ns = std::max(m.start_ns, prev_end_ns);
    step.end_ns = std::max(step.start_ns, device_end_ns);
    prev_end_ns = step.end_ns;
    out.steps.push_back(step);
  }

  if (out.steps.size() >= 2) {
    const Step& last = out.steps.back();
    const Step& prev = out.steps[out.steps.size() - 2];
    if (static_cast<double>(last.device_activities) <
        kCompleteStepMinShare * static_cast<double>(prev.device_activities)) {
      out.notes.push_back(fmt::format(
          "dropped the last step (ProfilerStep#{}): {} device activities launched in it vs {} "
          "in the previous step (below {:.0f}%), so the profiler stopped before its device "
          "work was recorded",
          last.number, last.device_activities, prev.device_activities,
          kCompleteStepMinShare * 100));
      out.steps.pop_back();
      out.dropped_incomplete = 1;
    }
  }
  return out;
}

}  // namespace tracelint
