#include "parsers/kineto/chrome_tf1_launches.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace tracelint::kineto {

namespace {

int64_t LinkOps(const std::vector<Tf1Track>& tracks, StringId key, TimelineBuilder& b) {
  struct Op {
    TimeNs ts_ns;
    uint32_t index;
  };
  // (GPU, node name) -> its ops, by start.
  absl::flat_hash_map<std::pair<int, StringId>, std::vector<Op>> ops;
  b.EditSlices([&](TimelineBuilder::SliceEditor& e) {
    const TrackId t = e.track();
    if (t >= tracks.size() || !tracks[t].host_ops || tracks[t].device < 0) return;
    if (e.kind() != EventKind::kCpuOp) return;
    e.add_flags(kFlagDeviceOpDispatch);
    const StringId node = e.StringArg(key);
    if (node == kNoIndex) return;
    ops[{tracks[t].device, node}].push_back({e.ts_ns(), e.index()});
  });
  if (ops.empty()) return 0;
  for (auto& [unused, list] : ops) {
    std::sort(list.begin(), list.end(), [](const Op& x, const Op& y) {
      return std::tie(x.ts_ns, x.index) < std::tie(y.ts_ns, y.index);
    });
  }
  // An op's id is its input position + 1: unique, and never 0 ("none").
  // TF1 writes no correlation ids to collide with; an activity of a
  // hand-made file that has one keeps it.
  absl::flat_hash_set<uint32_t> linked_ops;
  int64_t linked = 0;
  b.EditSlices([&](TimelineBuilder::SliceEditor& e) {
    const TrackId t = e.track();
    if (t >= tracks.size() || !tracks[t].stream || tracks[t].device < 0) return;
    if (!IsDeviceActivity(e.kind()) || e.correlation() != 0) return;
    const StringId node = e.StringArg(key);
    if (node == kNoIndex) return;
    auto it = ops.find(std::make_pair(tracks[t].device, node));
    if (it == ops.end()) return;
    const std::vector<Op>& list = it->second;
    auto after = std::upper_bound(list.begin(), list.end(), e.ts_ns(),
                                  [](TimeNs ts, const Op& op) { return ts < op.ts_ns; });
    if (after == list.begin()) return;  // its op started later: not its launch
    const uint32_t op = std::prev(after)->index;
    e.set_correlation(int64_t{op} + 1);
    linked_ops.insert(op);
    ++linked;
  });
  b.EditSlices([&](TimelineBuilder::SliceEditor& e) {
    if (linked_ops.contains(e.index()) && e.correlation() == 0) {
      e.set_correlation(int64_t{e.index()} + 1);
    }
  });
  return linked;
}

// One session.run: every executor (one per device's partition graph) ran
// its `_SOURCE` node at most once, and one did. A file that concatenates
// several runs' timelines has more, and is left to iteration inference.
bool AddRunStep(const std::vector<Tf1Track>& tracks, StringId key, TimelineBuilder& b) {
  const std::optional<StringId> source = b.strings().Find("_SOURCE");
  if (!source.has_value()) return false;
  absl::flat_hash_map<int64_t, int> sources_of_process;
  TimeNs first_ns = std::numeric_limits<TimeNs>::max();
  TimeNs last_ns = std::numeric_limits<TimeNs>::min();
  int64_t max_pid = 0;
  for (const Track& t : b.tracks()) max_pid = std::max(max_pid, t.pid);
  bool repeated = false;
  b.EditSlices([&](TimelineBuilder::SliceEditor& e) {
    const TrackId t = e.track();
    if (t >= tracks.size() || !(tracks[t].host_ops || tracks[t].stream)) return;
    first_ns = std::min(first_ns, e.ts_ns());
    last_ns = std::max(last_ns, e.ts_ns() + e.dur_ns());
    if (tracks[t].host_ops && e.StringArg(key) == *source) {
      repeated = repeated || ++sources_of_process[b.tracks()[t].pid] > 1;
    }
  });
  if (repeated || sources_of_process.empty() || last_ns <= first_ns ||
      max_pid == std::numeric_limits<int64_t>::max()) {
    return false;
  }
  const TrackId track = b.GetTrack(TrackKind::kHostThread, max_pid + 1, 0);
  b.SetTrackName(track, b.Intern("Steps (TF1 session.run)"));
  SliceSpec step;
  step.ts_ns = first_ns;
  step.dur_ns = last_ns - first_ns;
  step.track = track;
  step.name = b.Intern("ProfilerStep#0");
  step.kind = EventKind::kUserAnnotation;
  b.AddSlice(step);
  b.AddArg(b.Intern("tf1_step_source"), ArgValue::String(b.Intern("one session.run")));
  return true;
}

}  // namespace

Tf1Links ApplyTf1Links(const std::vector<Tf1Track>& tracks, TimelineBuilder& b) {
  Tf1Links out;
  const std::optional<StringId> key = b.strings().Find("name");
  if (!key.has_value()) return out;
  out.linked = LinkOps(tracks, *key, b);
  out.run_step = AddRunStep(tracks, *key, b);
  return out;
}

}  // namespace tracelint::kineto
