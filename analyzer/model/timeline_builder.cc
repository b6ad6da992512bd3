#include "analyzer/model/timeline_builder.h"

#include <algorithm>
#include <numeric>

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
  for (Arg a : part.args_) {
    a.key = smap[a.key];
    if (a.value.type == ArgValue::Type::kString) a.value.s = smap[a.value.s];
    args_.push_back(a);
  }
  details_.insert(details_.end(), part.details_.begin(), part.details_.end());
  pending_.reserve(pending_.size() + part.pending_.size());
  for (PendingSlice p : part.pending_) {
    p.track = tmap[p.track];
    p.name = smap[p.name];
    p.args_begin += args_base;
    if (p.details != kNoIndex) p.details += details_base;
    pending_.push_back(p);
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

void TimelineBuilder::RepairNesting(const FinalizeOptions& options, Timeline& tl,
                                    std::vector<uint32_t>& order) {
  // `order` holds pending indices sorted by (track, ts, -dur, input order).
  // Walk each track with a stack of open slices. A slice that ends after
  // its parent is clamped when the overshoot is tiny (clock rounding) and
  // otherwise moved to an overflow track of the same thread, which is then
  // repaired the same way.
  auto less = [this](uint32_t a, uint32_t b) {
    const PendingSlice& x = pending_[a];
    const PendingSlice& y = pending_[b];
    if (x.track != y.track) return x.track < y.track;
    if (x.ts_ns != y.ts_ns) return x.ts_ns < y.ts_ns;
    if (x.dur_ns != y.dur_ns) return x.dur_ns > y.dur_ns;
    return a < b;
  };
  std::sort(order.begin(), order.end(), less);
  int64_t clamped = 0;
  int64_t moved = 0;
  absl::flat_hash_map<TrackId, TrackId> overflow_of_track;
  bool any_moved = true;
  while (any_moved) {
    any_moved = false;
    std::vector<uint32_t> stack;
    TrackId current = kNoIndex;
    for (uint32_t idx : order) {
      PendingSlice& s = pending_[idx];
      if (s.track != current) {
        stack.clear();
        current = s.track;
      }
      while (!stack.empty()) {
        const PendingSlice& top = pending_[stack.back()];
        TimeNs top_end = top.ts_ns + top.dur_ns;
        if (top_end > s.ts_ns) break;
        stack.pop_back();
      }
      if (!stack.empty()) {
        const PendingSlice& parent = pending_[stack.back()];
        TimeNs parent_end = parent.ts_ns + parent.dur_ns;
        TimeNs end = s.ts_ns + s.dur_ns;
        if (end > parent_end) {
          if (end - parent_end <= options.nesting_clamp_ns) {
            s.dur_ns = parent_end - s.ts_ns;
            ++clamped;
          } else {
            TrackId from = s.track;
            auto it = overflow_of_track.find(from);
            TrackId to;
            if (it == overflow_of_track.end()) {
              to = static_cast<TrackId>(tracks_.size());
              Track t = tracks_[from];
              t.overflow_of = tracks_[from].overflow_of == kNoIndex
                                  ? from
                                  : tracks_[from].overflow_of;
              tracks_.push_back(t);
              overflow_of_track.emplace(from, to);
            } else {
              to = it->second;
            }
            s.track = to;
            ++moved;
            any_moved = true;
            continue;
          }
        }
      }
      stack.push_back(idx);
    }
    if (any_moved) std::sort(order.begin(), order.end(), less);
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
  absl::flat_hash_map<int64_t, SliceId> launches;
  int64_t duplicate = 0;
  for (SliceId s = 0; s < c.size(); ++s) {
    EventKind k = c.kind[s];
    if ((k == EventKind::kRuntime || k == EventKind::kDriver) && c.correlation[s] != 0) {
      if (!launches.emplace(c.correlation[s], s).second) ++duplicate;
    }
  }
  int64_t orphans = 0;
  int64_t with_id = 0;
  for (SliceId s = 0; s < c.size(); ++s) {
    EventKind k = c.kind[s];
    if (!IsDeviceKind(k) || k == EventKind::kGpuUserAnnotation) continue;
    if (c.correlation[s] == 0) continue;
    ++with_id;
    auto it = launches.find(c.correlation[s]);
    if (it == launches.end()) {
      if (IsDeviceActivity(k)) ++orphans;
      continue;
    }
    c.launch[s] = it->second;
    if (IsDeviceActivity(k)) c.flags[it->second] |= kFlagLaunch;
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
  // The deepest slice on `track` that contains ts (or, for a non-enclosing
  // binding, the first slice starting at or after ts).
  auto bind = [&](const FlowPoint& p) -> SliceId {
    if (p.track + 1 >= tl.track_begin_.size()) return kNoIndex;
    SliceId lo = tl.track_begin_[p.track];
    SliceId hi = tl.track_begin_[p.track + 1];
    auto first = c.ts_ns.begin() + lo;
    auto last = c.ts_ns.begin() + hi;
    if (!p.bind_enclosing) {
      auto it = std::lower_bound(first, last, p.ts_ns);
      return it == last ? kNoIndex : static_cast<SliceId>(it - c.ts_ns.begin());
    }
    auto it = std::upper_bound(first, last, p.ts_ns);
    if (it == first) return kNoIndex;
    SliceId s = static_cast<SliceId>(it - c.ts_ns.begin()) - 1;
    while (s != kNoIndex && c.end_ns(s) < p.ts_ns) s = c.parent[s];
    return s;
  };
  absl::flat_hash_map<std::pair<StringId, int64_t>, size_t> open;
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
  for (PendingSlice& p : pending_) {
    p.flags |= ClassifyFlags(p.kind, strings_.Get(p.name));
  }
  std::vector<uint32_t> order(pending_.size());
  std::iota(order.begin(), order.end(), 0u);
  RepairNesting(options, tl, order);

  SliceColumns& c = tl.slices_;
  size_t n = order.size();
  c.ts_ns.resize(n);
  c.dur_ns.resize(n);
  c.track.resize(n);
  c.name.resize(n);
  c.kind.resize(n);
  c.flags.resize(n);
  c.depth.resize(n);
  c.parent.assign(n, kNoIndex);
  c.correlation.resize(n);
  c.external_id.resize(n);
  c.args_begin.resize(n);
  c.args_count.resize(n);
  c.details.resize(n);
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
