#include "analyzer/model/timeline_builder.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "analyzer/base/huge_pages.h"
#include "analyzer/model/classify.h"

namespace tracelint {

TrackId TimelineBuilder::GetTrack(TrackKind kind, int64_t pid, int64_t tid) {
  auto key = std::make_tuple(static_cast<uint8_t>(kind), pid, tid);
  auto it = track_index_.find(key);
  if (it != track_index_.end()) return it->second;
  TrackId id = static_cast<TrackId>(tracks_.size());
  Track t;
  t.kind = kind;
  t.pid = pid;
  t.tid = tid;
  t.device = kind == TrackKind::kDeviceStream ? static_cast<int32_t>(pid) : -1;
  tracks_.push_back(t);
  track_index_.emplace(key, id);
  return id;
}

void TimelineBuilder::SetTrackName(TrackId track, StringId name) {
  tracks_[track].name = name;
}

uint32_t TimelineBuilder::AddSlice(const SliceSpec& spec) {
  PendingSlice p;
  p.ts_ns = spec.ts_ns;
  p.dur_ns = spec.dur_ns;
  if (p.dur_ns < 0) {
    diagnostics_.Add("negative_duration", Severity::kWarning,
                     "slices with a negative duration, clamped to 0");
    p.dur_ns = 0;
  }
  p.track = spec.track;
  p.name = spec.name;
  p.kind = spec.kind;
  p.flags = spec.extra_flags;
  p.correlation = spec.correlation;
  p.external_id = spec.external_id;
  p.args_begin = static_cast<uint32_t>(args_.size());
  p.args_count = 0;
  p.details = kNoIndex;
  pending_.push_back(p);
  return static_cast<uint32_t>(pending_.size() - 1);
}

void TimelineBuilder::AddArg(StringId key, const ArgValue& value) {
  args_.push_back(Arg{key, value});
  pending_.back().args_count++;
}

DeviceDetails& TimelineBuilder::AddDetails() {
  PendingSlice& p = pending_.back();
  if (p.details == kNoIndex) {
    p.details = static_cast<uint32_t>(details_.size());
    details_.emplace_back();
  }
  return details_[p.details];
}

void TimelineBuilder::Append(TimelineBuilder&& part) {
  std::vector<StringId> smap(part.strings_.size());
  for (size_t i = 0; i < smap.size(); ++i) {
    smap[i] = strings_.Intern(part.strings_.Get(static_cast<StringId>(i)));
  }
  std::vector<TrackId> tmap(part.tracks_.size());
  for (size_t i = 0; i < part.tracks_.size(); ++i) {
    const Track& t = part.tracks_[i];
    tmap[i] = GetTrack(t.kind, t.pid, t.tid);
    if (t.name != kEmptyStringId && tracks_[tmap[i]].name == kEmptyStringId) {
      tracks_[tmap[i]].name = smap[t.name];
    }
  }
  uint32_t args_base = static_cast<uint32_t>(args_.size());
  uint32_t details_base = static_cast<uint32_t>(details_.size());
  // Bulk copy, then remap in place: cheaper than a push_back per element.
  args_.insert(args_.end(), part.args_.begin(), part.args_.end());
  for (size_t i = args_base; i < args_.size(); ++i) {
    Arg& a = args_[i];
    a.key = smap[a.key];
    if (a.value.type == ArgValue::Type::kString) a.value.s = smap[a.value.s];
  }
  details_.insert(details_.end(), part.details_.begin(), part.details_.end());
  // Grow geometrically: an exact reserve per part would copy everything
  // merged so far once per part (quadratic in the number of parts).
  size_t pending_base = pending_.size();
  size_t needed = pending_base + part.pending_.size();
  if (needed > pending_.capacity()) pending_.reserve(std::max(needed, 2 * pending_.capacity()));
  pending_.insert(pending_.end(), part.pending_.begin(), part.pending_.end());
  for (size_t i = pending_base; i < needed; ++i) {
    PendingSlice& p = pending_[i];
    p.track = tmap[p.track];
    p.name = smap[p.name];
    p.args_begin += args_base;
    if (p.details != kNoIndex) p.details += details_base;
  }
  for (FlowPoint f : part.flow_points_) {
    f.track = tmap[f.track];
    f.category = smap[f.category];
    flow_points_.push_back(f);
  }
  for (CounterSample c : part.counters_) {
    c.name = smap[c.name];
    counters_.push_back(c);
  }
  diagnostics_.Merge(part.diagnostics_);
  RunMetadata& m = metadata_;
  const RunMetadata& o = part.metadata_;
  if (m.devices.empty()) m.devices = o.devices;
  if (m.rank < 0) m.rank = o.rank;
  if (m.world_size < 0) m.world_size = o.world_size;
  if (m.backend.empty()) m.backend = o.backend;
  if (m.framework.empty()) m.framework = o.framework;
  if (m.framework_version.empty()) m.framework_version = o.framework_version;
  if (m.trace_name.empty()) m.trace_name = o.trace_name;
  if (m.host_name.empty()) m.host_name = o.host_name;
  m.events_read += o.events_read;
  part = TimelineBuilder();
}

// A slice's position within its track: (ts, -dur, input order). Sorting
// these small keys instead of indices whose comparator reads PendingSlice
// keeps the sort in cache.
struct TimelineBuilder::TrackSortKey {
  TimeNs ts_ns;
  TimeNs dur_ns;
  uint32_t index;

  friend bool operator<(const TrackSortKey& x, const TrackSortKey& y) {
    if (x.ts_ns != y.ts_ns) return x.ts_ns < y.ts_ns;
    if (x.dur_ns != y.dur_ns) return x.dur_ns > y.dur_ns;
    return x.index < y.index;
  }
};

void TimelineBuilder::SortTrackSlices(std::vector<uint32_t>& slices,
                                      std::vector<TrackSortKey>& keys) const {
  keys.resize(slices.size());
  for (size_t i = 0; i < slices.size(); ++i) {
    const PendingSlice& p = pending_[slices[i]];
    keys[i] = TrackSortKey{p.ts_ns, p.dur_ns, slices[i]};
  }
  // Profilers mostly write each thread's events in time order already.
  if (std::is_sorted(keys.begin(), keys.end())) return;
  std::sort(keys.begin(), keys.end());
  for (size_t i = 0; i < slices.size(); ++i) slices[i] = keys[i].index;
}

namespace {

// std::partition_point over a[lo, hi) (`pred` holds on a prefix), galloping
// outward from `hint`: O(log distance to the answer).
template <typename Pred>
size_t PartitionPointNear(const TimeNs* a, size_t lo, size_t hi, size_t hint, Pred pred) {
  hint = std::clamp(hint, lo, hi);
  size_t left;
  size_t right;  // the answer lies in [left, right]
  size_t step = 1;
  if (hint < hi && pred(a[hint])) {
    left = hint + 1;
    for (;;) {
      size_t probe = hi - left > step ? left + step : hi;
      if (probe == hi || !pred(a[probe])) {
        right = probe;
        break;
      }
      left = probe + 1;
      step *= 2;
    }
  } else {
    right = hint;
    for (;;) {
      size_t probe = right - lo > step ? right - step : lo;
      if (probe == lo) {
        left = lo;
        break;
      }
      if (pred(a[probe])) {
        left = probe + 1;
        break;
      }
      right = probe;
      step *= 2;
    }
  }
  return static_cast<size_t>(std::partition_point(a + left, a + right, pred) - a);
}

}  // namespace

void TimelineBuilder::RepairNesting(const FinalizeOptions& options, Timeline& tl,
                                    std::vector<uint32_t>& order) {
  // Walk each track, in (ts, -dur, input order), with a stack of open
  // slices. A slice that ends after its parent is clamped when the overshoot
  // is tiny (clock rounding) and otherwise moved to an overflow track of the
  // same thread, which is then repaired the same way.
  //
  // Passes repeat while anything moved. A pass sorts and walks only the
  // tracks whose slices changed in the previous one (clamped, moved out or
  // moved in); slices moved during a pass join their new track at the next
  // pass. The result equals sorting everything by (track, ts, -dur, input
  // order) and walking every track at each pass, without the full sorts.
  std::vector<std::vector<uint32_t>> by_track(tracks_.size());
  {
    std::vector<uint32_t> counts(tracks_.size(), 0);
    for (const PendingSlice& p : pending_) ++counts[p.track];
    for (size_t t = 0; t < tracks_.size(); ++t) by_track[t].reserve(counts[t]);
    for (uint32_t i = 0; i < pending_.size(); ++i) by_track[pending_[i].track].push_back(i);
  }
  std::vector<std::vector<uint32_t>> incoming(tracks_.size());
  std::vector<TrackId> overflow_track(tracks_.size(), kNoIndex);
  std::vector<uint8_t> dirty(tracks_.size(), 1);
  std::vector<TrackSortKey> keys;
  std::vector<uint32_t> stack;
  int64_t clamped = 0;
  int64_t moved = 0;
  for (bool first_pass = true;; first_pass = false) {
    const size_t track_count = tracks_.size();
    for (TrackId t = 0; t < track_count; ++t) {
      if (!dirty[t]) continue;
      std::vector<uint32_t>& list = by_track[t];
      if (!first_pass) {
        std::erase_if(list, [&](uint32_t i) { return pending_[i].track != t; });
        list.insert(list.end(), incoming[t].begin(), incoming[t].end());
        std::vector<uint32_t>().swap(incoming[t]);
      }
      SortTrackSlices(list, keys);
    }
    std::vector<uint8_t> next_dirty(track_count, 0);
    bool any_moved = false;
    for (TrackId t = 0; t < track_count; ++t) {
      if (!dirty[t]) continue;
      // Creating an overflow track grows by_track: walk a local list.
      std::vector<uint32_t> list = std::move(by_track[t]);
      stack.clear();
      for (uint32_t idx : list) {
        PendingSlice& s = pending_[idx];
        while (!stack.empty()) {
          const PendingSlice& top = pending_[stack.back()];
          if (top.ts_ns + top.dur_ns > s.ts_ns) break;
          stack.pop_back();
        }
        if (!stack.empty()) {
          const PendingSlice& parent = pending_[stack.back()];
          TimeNs parent_end = parent.ts_ns + parent.dur_ns;
          TimeNs end = s.ts_ns + s.dur_ns;
          if (end > parent_end) {
            next_dirty[t] = 1;
            if (end - parent_end <= options.nesting_clamp_ns) {
              s.dur_ns = parent_end - s.ts_ns;
              ++clamped;
            } else {
              TrackId to = overflow_track[t];
              if (to == kNoIndex) {
                to = static_cast<TrackId>(tracks_.size());
                Track track = tracks_[t];
                track.overflow_of = tracks_[t].overflow_of == kNoIndex ? t : tracks_[t].overflow_of;
                tracks_.push_back(track);
                by_track.emplace_back();
                incoming.emplace_back();
                overflow_track.push_back(kNoIndex);
                next_dirty.push_back(0);
                overflow_track[t] = to;
              }
              s.track = to;
              incoming[to].push_back(idx);
              next_dirty[to] = 1;
              ++moved;
              any_moved = true;
              continue;
            }
          }
        }
        stack.push_back(idx);
      }
      by_track[t] = std::move(list);
    }
    if (!any_moved) break;
    dirty = std::move(next_dirty);
  }
  order.clear();
  ReserveHuge(order, pending_.size());
  for (size_t t = 0; t < tracks_.size(); ++t) {
    order.insert(order.end(), by_track[t].begin(), by_track[t].end());
  }
  if (clamped > 0) {
    tl.diagnostics_.Add("nesting_clamped", Severity::kInfo,
                        "slices ending at most 1 us after their parent, clamped to the parent's end",
                        clamped);
  }
  if (moved > 0) {
    tl.diagnostics_.Add("nesting_overflow_track", Severity::kInfo,
                        "partially overlapping slices moved to an overflow track of the same thread",
                        moved);
  }
}

void TimelineBuilder::LinkCorrelations(Timeline& tl) {
  SliceColumns& c = tl.slices_;
  auto is_launch = [&c](SliceId s) {
    EventKind k = c.kind[s];
    return (k == EventKind::kRuntime || k == EventKind::kDriver) && c.correlation[s] != 0;
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
    if (IsDeviceActivity(k)) c.flags[launch] |= kFlagLaunch;
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
  for (const FlowPoint& p : flow_points_) {
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
        ++unresolved;
        continue;
      }
      tl.flows_[it->second].to = s;
      open.erase(it);
    }
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
}

absl::StatusOr<Timeline> TimelineBuilder::Finalize(const FinalizeOptions& options) && {
  Timeline tl;
  tl.diagnostics_ = std::move(diagnostics_);
  {
    // Flags depend only on (kind, name), and names repeat: classify each
    // name once per kind seen with it (almost always one).
    struct Cached {
      EventKind kind;
      uint16_t flags;
      bool valid = false;
    };
    std::vector<Cached> by_name(strings_.size());
    for (PendingSlice& p : pending_) {
      Cached& c = by_name[p.name];
      if (!c.valid || c.kind != p.kind) {
        c = Cached{p.kind, ClassifyFlags(p.kind, strings_.Get(p.name)), true};
      }
      p.flags |= c.flags;
    }
  }
  std::vector<uint32_t> order;
  RepairNesting(options, tl, order);

  SliceColumns& c = tl.slices_;
  size_t n = order.size();
  auto sized = [n](auto& column) {
    ReserveHuge(column, n);
    column.resize(n);
  };
  sized(c.ts_ns);
  sized(c.dur_ns);
  sized(c.track);
  sized(c.name);
  sized(c.kind);
  sized(c.flags);
  sized(c.depth);
  ReserveHuge(c.parent, n);
  c.parent.assign(n, kNoIndex);
  sized(c.correlation);
  sized(c.external_id);
  sized(c.args_begin);
  sized(c.args_count);
  sized(c.details);
  ReserveHuge(c.launch, n);
  c.launch.assign(n, kNoIndex);
  for (size_t i = 0; i < n; ++i) {
    const PendingSlice& p = pending_[order[i]];
    c.ts_ns[i] = p.ts_ns;
    c.dur_ns[i] = p.dur_ns;
    c.track[i] = p.track;
    c.name[i] = p.name;
    c.kind[i] = p.kind;
    c.flags[i] = p.flags;
    c.correlation[i] = p.correlation;
    c.external_id[i] = p.external_id;
    c.args_begin[i] = p.args_begin;
    c.args_count[i] = p.args_count;
    c.details[i] = p.details;
  }
  std::vector<PendingSlice>().swap(pending_);

  // Parents and depths: after the repair every track nests properly.
  tl.track_begin_.assign(tracks_.size() + 1, static_cast<SliceId>(n));
  std::vector<SliceId> stack;
  TrackId current = kNoIndex;
  for (SliceId s = 0; s < n; ++s) {
    if (c.track[s] != current) {
      current = c.track[s];
      stack.clear();
      tl.track_begin_[current] = s;
    }
    while (!stack.empty() && c.end_ns(stack.back()) <= c.ts_ns[s]) stack.pop_back();
    c.parent[s] = stack.empty() ? kNoIndex : stack.back();
    c.depth[s] = static_cast<uint16_t>(std::min<size_t>(stack.size(), 0xffff));
    stack.push_back(s);
  }
  // Tracks with no slices start where the next non-empty track starts.
  for (size_t t = tracks_.size(); t-- > 0;) {
    bool empty = true;
    if (tl.track_begin_[t] < n && c.track[tl.track_begin_[t]] == t) empty = false;
    if (empty) tl.track_begin_[t] = tl.track_begin_[t + 1];
  }

  tl.strings_ = std::move(strings_);
  tl.tracks_ = std::move(tracks_);
  tl.args_ = std::move(args_);
  tl.device_details_ = std::move(details_);
  tl.counters_ = std::move(counters_);
  std::stable_sort(tl.counters_.begin(), tl.counters_.end(),
                   [](const CounterSample& a, const CounterSample& b) {
                     return a.ts_ns < b.ts_ns;
                   });
  LinkCorrelations(tl);
  ResolveFlows(tl);
  tl.metadata_ = std::move(metadata_);
  return tl;
}

}  // namespace tracelint
