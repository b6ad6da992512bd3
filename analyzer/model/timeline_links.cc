// TimelineBuilder::Finalize's cross-slice links: device activity to the
// launch that caused it (correlation ids) and flow arrows to the slices they
// connect. Split from timeline_builder.cc to keep files short.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analyzer/model/builder_helpers.h"
#include "analyzer/model/classify.h"
#include "analyzer/model/timeline_builder.h"

namespace tracelint {

using builder_internal::PartitionPointNear;

void TimelineBuilder::LinkCorrelations(Timeline& tl) {
  SliceColumns& c = tl.slices_;
  // A framework op flagged as dispatch launches what shares its id where the
  // trace links ops to device work directly (TF1 timelines).
  auto is_launch = [&c](SliceId s) {
    EventKind k = c.kind[s];
    return (k == EventKind::kRuntime || k == EventKind::kDriver ||
            (c.flags[s] & kFlagDeviceOpDispatch) != 0) &&
           c.correlation[s] != 0;
  };
  size_t launch_count = 0;
  int64_t min_id = INT64_MAX;
  int64_t max_id = INT64_MIN;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (!is_launch(s)) continue;
    ++launch_count;
    min_id = std::min(min_id, c.correlation[s]);
    max_id = std::max(max_id, c.correlation[s]);
  }
  // Profilers number correlations with a counter: when the ids are dense, a
  // table indexed by id replaces the hash map (and its cache misses). Either
  // way the first launch with an id wins.
  // Unsigned: the span of arbitrary int64 ids can exceed INT64_MAX.
  auto offset_of = [min_id](int64_t id) {
    return static_cast<uint64_t>(id) - static_cast<uint64_t>(min_id);
  };
  const bool dense = launch_count > 0 && offset_of(max_id) < 4 * launch_count + 1024;
  std::vector<SliceId> by_id;
  absl::flat_hash_map<int64_t, SliceId> launches;
  if (dense) {
    by_id.assign(offset_of(max_id) + 1, kNoIndex);
  } else {
    launches.reserve(launch_count);
  }
  int64_t duplicate = 0;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (!is_launch(s)) continue;
    bool added;
    if (dense) {
      SliceId& slot = by_id[offset_of(c.correlation[s])];
      added = slot == kNoIndex;
      if (added) slot = s;
    } else {
      added = launches.emplace(c.correlation[s], s).second;
    }
    if (!added) ++duplicate;
  }
  auto find_launch = [&](int64_t id) -> SliceId {
    if (dense) {
      if (id < min_id || id > max_id) return kNoIndex;
      return by_id[offset_of(id)];
    }
    auto it = launches.find(id);
    return it == launches.end() ? kNoIndex : it->second;
  };
  int64_t orphans = 0;
  int64_t with_id = 0;
  for (SliceId s = 0; s < c.size(); ++s) {
    EventKind k = c.kind[s];
    if (!IsDeviceKind(k) || k == EventKind::kGpuUserAnnotation) continue;
    if (c.correlation[s] == 0) continue;
    ++with_id;
    SliceId launch = find_launch(c.correlation[s]);
    if (launch == kNoIndex) {
      if (IsDeviceActivity(k)) ++orphans;
      continue;
    }
    c.launch[s] = launch;
    if (IsDeviceActivity(k) && (c.flags[launch] & kFlagDeviceOpDispatch) == 0) {
      c.flags[launch] |= kFlagLaunch;
    }
  }
  if (duplicate > 0) {
    tl.diagnostics_.Add("duplicate_correlation", Severity::kWarning,
                        "runtime calls sharing a correlation id; the first is linked", duplicate);
  }
  if (orphans > 0) {
    tl.diagnostics_.Add("device_activity_without_launch", Severity::kInfo,
                        "device activities whose correlation id has no runtime call in the trace "
                        "(launched outside the window, filtered, or graph replays)",
                        orphans);
  }
}

void TimelineBuilder::ResolveFlows(Timeline& tl) {
  const SliceColumns& c = tl.slices_;
  // Consecutive flow points of a track are mostly close in time: searching
  // outward from the previous answer on the track touches a few cache lines
  // instead of a full binary search's worth.
  std::vector<size_t> near(tl.track_begin_.size(), 0);
  // The deepest slice on `track` that contains ts (or, for a non-enclosing
  // binding, the first slice starting at or after ts).
  auto bind = [&](const FlowPoint& p) -> SliceId {
    if (p.track + 1 >= tl.track_begin_.size()) return kNoIndex;
    SliceId lo = tl.track_begin_[p.track];
    SliceId hi = tl.track_begin_[p.track + 1];
    const TimeNs ts_ns = p.ts_ns;
    size_t& hint = near[p.track];
    if (!p.bind_enclosing) {
      // lower_bound: the first slice with ts >= ts_ns.
      size_t at = PartitionPointNear(c.ts_ns.data(), lo, hi, hint,
                                     [ts_ns](TimeNs t) { return t < ts_ns; });
      hint = at;
      return at == hi ? kNoIndex : static_cast<SliceId>(at);
    }
    // upper_bound: the first slice with ts > ts_ns.
    size_t at = PartitionPointNear(c.ts_ns.data(), lo, hi, hint,
                                   [ts_ns](TimeNs t) { return t <= ts_ns; });
    hint = at;
    if (at == lo) return kNoIndex;
    SliceId s = static_cast<SliceId>(at) - 1;
    while (s != kNoIndex && c.end_ns(s) < ts_ns) s = c.parent[s];
    return s;
  };
  absl::flat_hash_map<std::pair<StringId, int64_t>, size_t> open;
  tl.flows_.reserve(flow_points_.size() / 2);
  int64_t unresolved = 0;
  int64_t ends_without_start = 0;
  // File order pairs an id used twice; an end written before its start
  // (PyTorch 2.x writes device activity blocks, with their flow ends, before
  // the host's runtime calls) is paired once every start is known. Such ends
  // wait as point indexes (4 bytes each, bound again when paired): on a
  // reversed file that is every launch's end, plus Kineto's start-less ones.
  std::vector<uint32_t> ends_before_start;
  for (size_t i = 0; i < flow_points_.size(); ++i) {
    const FlowPoint& p = flow_points_[i];
    SliceId s = bind(p);
    auto key = std::make_pair(p.category, p.id);
    if (p.is_start) {
      Flow f;
      f.id = p.id;
      f.category = p.category;
      f.from = s;
      open[key] = tl.flows_.size();
      tl.flows_.push_back(f);
    } else {
      auto it = open.find(key);
      if (it == open.end()) {
        if (i > std::numeric_limits<uint32_t>::max()) {
          ++ends_without_start;  // past 4G points, left unpaired
        } else {
          ends_before_start.push_back(static_cast<uint32_t>(i));
        }
        continue;
      }
      tl.flows_[it->second].to = s;
      open.erase(it);
    }
  }
  for (uint32_t i : ends_before_start) {
    const FlowPoint& p = flow_points_[i];
    auto it = open.find(std::make_pair(p.category, p.id));
    if (it == open.end()) {
      ++ends_without_start;
      continue;
    }
    tl.flows_[it->second].to = bind(p);
    open.erase(it);
  }
  std::vector<Flow> kept;
  kept.reserve(tl.flows_.size());
  for (const Flow& f : tl.flows_) {
    if (f.from == kNoIndex || f.to == kNoIndex) {
      ++unresolved;
    } else {
      kept.push_back(f);
    }
  }
  tl.flows_ = std::move(kept);
  if (unresolved > 0) {
    tl.diagnostics_.Add("flow_unresolved", Severity::kInfo,
                        "flow arrows with a missing end or no slice at their time", unresolved);
  }
  // Apart from the above: Kineto ends an ac2g flow on every runtime call it
  // correlates, launch or not, and starts only those that launched device
  // work, so real traces hold thousands of these and they mean nothing lost.
  if (ends_without_start > 0) {
    tl.diagnostics_.Add("flow_end_without_start", Severity::kInfo,
                        "flow ends with no start in the trace (Kineto writes one on each runtime "
                        "call it correlates); they link nothing",
                        ends_without_start);
  }
}

}  // namespace tracelint
