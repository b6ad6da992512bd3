#include "analyzer/model/timeline_invariants.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

absl::Status Violation(const SliceColumns& c, SliceId s, std::string_view what) {
  return absl::InternalError(fmt::format(
      "timeline invariant violated at slice {} (name id {}, track {}, ts {} ns, dur {} ns): {}",
      s, c.name[s], c.track[s], c.ts_ns[s], c.dur_ns[s], what));
}

absl::Status CheckColumns(const SliceColumns& c) {
  size_t n = c.size();
  const size_t sizes[] = {c.dur_ns.size(),      c.track.size(),      c.name.size(),
                          c.kind.size(),        c.flags.size(),      c.depth.size(),
                          c.parent.size(),      c.correlation.size(), c.external_id.size(),
                          c.args_begin.size(),  c.args_count.size(), c.details.size(),
                          c.launch.size()};
  for (size_t size : sizes) {
    if (size != n) {
      return absl::InternalError(
          fmt::format("timeline invariant violated: a slice column has {} rows, ts_ns {}", size,
                      n));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckTracksAndNesting(const SliceColumns& c, size_t track_count) {
  std::vector<SliceId> stack;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (c.dur_ns[s] < 0) return Violation(c, s, "negative duration");
    if (c.track[s] >= track_count) return Violation(c, s, "track id out of range");
    bool new_track = s == 0 || c.track[s] != c.track[s - 1];
    if (new_track) {
      if (s > 0 && c.track[s] < c.track[s - 1]) return Violation(c, s, "tracks not grouped");
      stack.clear();
    } else if (c.ts_ns[s] < c.ts_ns[s - 1]) {
      return Violation(c, s, "starts before the previous slice of its track");
    }
    while (!stack.empty() && c.end_ns(stack.back()) <= c.ts_ns[s]) stack.pop_back();
    SliceId expected_parent = stack.empty() ? kNoIndex : stack.back();
    if (!stack.empty() && c.end_ns(s) > c.end_ns(stack.back())) {
      return Violation(c, s, "overlaps its enclosing slice partially");
    }
    // Zero-length slices at a parent's end may be attached either way.
    if (c.parent[s] != expected_parent &&
        !(c.dur_ns[s] == 0 || (expected_parent != kNoIndex && c.dur_ns[expected_parent] == 0))) {
      return Violation(c, s, fmt::format("parent is {}, nesting says {}",
                                          static_cast<int64_t>(c.parent[s]),
                                          static_cast<int64_t>(expected_parent)));
    }
    if (c.parent[s] != kNoIndex) {
      SliceId p = c.parent[s];
      if (p >= s || c.track[p] != c.track[s]) return Violation(c, s, "parent not before it on its track");
      if (c.ts_ns[p] > c.ts_ns[s] || c.end_ns(p) < c.end_ns(s)) {
        return Violation(c, s, "not contained in its parent");
      }
      if (c.depth[s] != c.depth[p] + 1) return Violation(c, s, "depth != parent depth + 1");
    } else if (c.depth[s] != 0) {
      return Violation(c, s, "root slice with non-zero depth");
    }
    stack.push_back(s);
  }
  return absl::OkStatus();
}

absl::Status CheckLaunchLinks(const SliceColumns& c) {
  size_t n = c.size();
  absl::flat_hash_set<int64_t> launch_correlations;
  for (SliceId s = 0; s < n; ++s) {
    if ((c.kind[s] == EventKind::kRuntime || c.kind[s] == EventKind::kDriver ||
         (c.flags[s] & kFlagDeviceOpDispatch) != 0) &&
        c.correlation[s] != 0) {
      launch_correlations.insert(c.correlation[s]);
    }
  }
  for (SliceId s = 0; s < n; ++s) {
    SliceId l = c.launch[s];
    if (l != kNoIndex) {
      if (l >= n) return Violation(c, s, "launch link out of range");
      if (c.kind[l] != EventKind::kRuntime && c.kind[l] != EventKind::kDriver &&
          (c.flags[l] & kFlagDeviceOpDispatch) == 0) {
        return Violation(c, s,
                         "launch link to a slice that is neither a runtime/driver call nor a "
                         "dispatched op");
      }
      if (c.correlation[l] != c.correlation[s]) {
        return Violation(c, s, "launch link with a different correlation id");
      }
    } else if (IsDeviceActivity(c.kind[s]) && c.correlation[s] != 0 &&
               launch_correlations.contains(c.correlation[s])) {
      return Violation(c, s, "device activity not linked to its launch");
    }
  }
  return absl::OkStatus();
}

absl::Status CheckTimelineParts(const Timeline& tl) {
  const SliceColumns& c = tl.slices();
  size_t n = c.size();
  for (SliceId s = 0; s < n; ++s) {
    auto [begin, end] = tl.track_range(c.track[s]);
    if (s < begin || s >= end) return Violation(c, s, "outside its track's range");
    if (c.name[s] >= tl.strings().size()) return Violation(c, s, "name id out of range");
  }
  for (const Flow& f : tl.flows()) {
    if (f.from >= n || f.to >= n) {
      return absl::InternalError(fmt::format(
          "timeline invariant violated: flow {} points outside the slices", f.id));
    }
  }
  const std::vector<CounterSample>& counters = tl.counters();
  for (size_t i = 1; i < counters.size(); ++i) {
    if (counters[i].ts_ns < counters[i - 1].ts_ns) {
      return absl::InternalError(
          fmt::format("timeline invariant violated: counter sample {} out of time order", i));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckSliceColumnInvariants(const SliceColumns& slices, size_t track_count) {
  if (absl::Status s = CheckColumns(slices); !s.ok()) return s;
  if (absl::Status s = CheckTracksAndNesting(slices, track_count); !s.ok()) return s;
  return CheckLaunchLinks(slices);
}

absl::Status CheckTimelineInvariants(const Timeline& timeline) {
  if (absl::Status s = CheckSliceColumnInvariants(timeline.slices(), timeline.tracks().size());
      !s.ok()) {
    return s;
  }
  return CheckTimelineParts(timeline);
}

}  // namespace tracelint
