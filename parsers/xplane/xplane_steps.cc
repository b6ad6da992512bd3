// Step markers from XSpace: host events with step_num, or the device
// "Steps" line (docs/design/formats.md C.6), become ProfilerStep#N slices on one
// synthetic host track so the shared step rule (docs/design/domain.md "Steps") applies.

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "parsers/xplane/xplane_convert.h"

namespace tracelint::xplane {
namespace {

std::optional<int64_t> ParseWholeInt(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<int64_t> XSpaceConverter::RecordStep(std::map<int64_t, StepSpan>& steps,
                                                   const EventVisitor& e, int64_t base_ns) {
  std::optional<int64_t> number;
  if (auto s = e.GetStat(StatType::kStepNum)) number = s->IntValue();
  if (!number.has_value()) {
    if (auto s = e.GetStat(StatType::kGroupId)) number = s->IntValue();
  }
  if (!number.has_value()) {
    if (auto s = e.GetStat(StatType::kStepName)) number = ParseWholeInt(s->StrOrRefValue());
  }
  if (!number.has_value()) number = ParseWholeInt(e.name());
  if (!number.has_value() || e.is_aggregated()) {
    b_.diagnostics().Add("xspace_step_without_number", Severity::kInfo,
                         "step events with no step_num, group_id or numeric name; not used");
    return std::nullopt;
  }
  int64_t start_ns = e.start_ns() + base_ns;
  int64_t end_ns = e.end_ns() + base_ns;
  auto [it, inserted] = steps.try_emplace(*number, StepSpan{start_ns, end_ns});
  if (!inserted) {
    // One number on several devices (or threads) normally overlaps. When
    // it does not (replicas of different workers in one host file), the
    // merged step also holds the time between them: say so.
    if (end_ns < it->second.start_ns || start_ns > it->second.end_ns) {
      b_.diagnostics().Add(
          "xspace_step_spans_disjoint", Severity::kWarning,
          "one step number found at disjoint times (e.g. on two devices); the step spans both");
    }
    it->second.start_ns = std::min(it->second.start_ns, start_ns);
    it->second.end_ns = std::max(it->second.end_ns, end_ns);
  }
  return number;
}

int64_t XSpaceConverter::DeviceStepsToLaunchSpans() {
  std::sort(device_work_.begin(), device_work_.end(),
            [](const DeviceWork& a, const DeviceWork& b) { return a.start_ns < b.start_ns; });
  int64_t moved = 0;
  for (auto& [number, span] : device_steps_) {
    auto it = std::lower_bound(
        device_work_.begin(), device_work_.end(), span.start_ns,
        [](const DeviceWork& w, int64_t t) { return w.start_ns < t; });
    int64_t first_ns = std::numeric_limits<int64_t>::max();
    int64_t last_ns = std::numeric_limits<int64_t>::min();
    for (; it != device_work_.end() && it->start_ns < span.end_ns; ++it) {
      auto call = host_calls_.find(it->correlation);
      if (call == host_calls_.end()) continue;
      first_ns = std::min(first_ns, call->second.start_ns);
      last_ns = std::max(last_ns, call->second.end_ns);
    }
    if (first_ns < last_ns) {
      span = StepSpan{first_ns, last_ns};
      ++moved;
    }
  }
  return moved;
}

void XSpaceConverter::EmitStepMarkers() {
  // A host annotation with step_num is the user's own step marker (closest
  // to Kineto's ProfilerStep#N). Otherwise the device "Steps" line gives
  // the steps, moved to the host span of the calls that launched their
  // work: the shared step rule starts a step on the host and extends it to
  // the end of the device work launched inside it.
  const bool from_host = !host_steps_.empty();
  int64_t moved = from_host ? 0 : DeviceStepsToLaunchSpans();
  const std::map<int64_t, StepSpan>& chosen = from_host ? host_steps_ : device_steps_;
  if (chosen.empty()) return;
  std::vector<std::pair<int64_t, StepSpan>> ordered(chosen.begin(), chosen.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    return a.second.start_ns < b.second.start_ns;
  });
  // Kineto puts ProfilerStep#N on the thread that runs the loop, and the
  // idle at the end of the last step is judged on that thread; so do the
  // same when the host step events all come from one thread. Otherwise they
  // stay as they were and the markers get a track of their own.
  bool one_thread = from_host && !host_step_events_.empty();
  for (const HostStepEvent& e : host_step_events_) {
    one_thread = one_thread && e.track == host_step_events_.front().track;
  }
  absl::flat_hash_map<int64_t, StringId> event_name_of_step;
  TrackId track;
  if (one_thread) {
    track = host_step_events_.front().track;
    for (const HostStepEvent& e : host_step_events_) event_name_of_step.emplace(e.number, e.name);
  } else {
    for (const HostStepEvent& e : host_step_events_) {
      SliceSpec s;
      s.ts_ns = e.start_ns;
      s.dur_ns = e.end_ns - e.start_ns;
      s.track = e.track;
      s.name = e.name;
      s.kind = EventKind::kUserAnnotation;
      b_.AddSlice(s);
      b_.AddArg(b_.Intern("step_num"), ArgValue::Int(e.number));
    }
    track = b_.GetTrack(TrackKind::kHostThread, kStepTrackPid, kStepTrackTid);
    b_.SetTrackName(track, b_.Intern("Steps (XSpace)"));
  }
  StringId source_key = b_.Intern("xspace_step_source");
  StringId event_key = b_.Intern("xspace_step_event");
  StringId source = b_.Intern(from_host ? "host step_num" : "device Steps line");
  int64_t prev_end_ns = std::numeric_limits<int64_t>::min();
  int64_t clipped = 0;
  for (const auto& [number, span] : ordered) {
    // Markers of one track must nest; a step never starts before the
    // previous one ends (the TensorBoard step rule makes the same cut).
    int64_t start_ns = std::max(span.start_ns, prev_end_ns);
    if (start_ns != span.start_ns) ++clipped;
    if (span.end_ns <= start_ns) continue;
    SliceSpec s;
    s.ts_ns = start_ns;
    s.dur_ns = span.end_ns - start_ns;
    s.track = track;
    s.name = b_.Intern(fmt::format("ProfilerStep#{}", number));
    s.kind = EventKind::kUserAnnotation;
    b_.AddSlice(s);
    b_.AddArg(source_key, ArgValue::String(source));
    if (auto it = event_name_of_step.find(number); it != event_name_of_step.end()) {
      b_.AddArg(event_key, ArgValue::String(it->second));
    }
    prev_end_ns = span.end_ns;
  }
  ImportDiagnostics& diag = b_.diagnostics();
  if (moved > 0) {
    diag.Add("xspace_steps_from_launch_span", Severity::kInfo,
             "device Steps placed at the host span of the calls that launched their work",
             moved);
  }
  if (clipped > 0) {
    diag.Add("xspace_step_overlap_clipped", Severity::kInfo,
             "step spans that began before the previous step ended; start moved to its end",
             clipped);
  }
}

}  // namespace tracelint::xplane
