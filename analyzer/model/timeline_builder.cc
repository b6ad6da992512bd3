#include "analyzer/model/timeline_builder.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <type_traits>

#include "analyzer/base/huge_pages.h"
#include "analyzer/base/time_limits.h"
#include "analyzer/model/builder_helpers.h"
#include "analyzer/model/classify.h"
#include "analyzer/model/event_kinds.h"
#include "analyzer/model/read_coverage.h"

namespace tracelint {

namespace {

// `aten::item` on a CPU tensor (an optimizer's step counter) waits for
// nothing: an implicit sync op is one only when a runtime or driver call
// (the copy and its sync) runs inside it. In a trace without any runtime
// call that cannot be told, and the name decides.
void ClearHostOnlyImplicitSyncs(SliceColumns& c) {
  const SliceId n = static_cast<SliceId>(c.size());
  std::vector<bool> reaches_device;
  for (SliceId s = 0; s < n; ++s) {
    if (c.kind[s] != EventKind::kRuntime && c.kind[s] != EventKind::kDriver) continue;
    if (reaches_device.empty()) reaches_device.assign(n, false);
    for (SliceId p = c.parent[s]; p != kNoIndex && !reaches_device[p]; p = c.parent[p]) {
      reaches_device[p] = true;
    }
  }
  if (reaches_device.empty()) return;
  for (SliceId s = 0; s < n; ++s) {
    if ((c.flags[s] & kFlagImplicitSync) != 0 && !reaches_device[s]) {
      c.flags[s] &= static_cast<uint16_t>(~kFlagImplicitSync);
    }
  }
}

}  // namespace


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

bool TimelineBuilder::RekeyTrack(TrackId track, TrackKind kind, int64_t pid, int64_t tid) {
  Track& t = tracks_[track];
  auto key = std::make_tuple(static_cast<uint8_t>(kind), pid, tid);
  auto it = track_index_.find(key);
  if (it != track_index_.end()) return it->second == track;
  track_index_.erase(std::make_tuple(static_cast<uint8_t>(t.kind), t.pid, t.tid));
  track_index_.emplace(key, track);
  t.kind = kind;
  t.pid = pid;
  t.tid = tid;
  t.device = kind == TrackKind::kDeviceStream ? static_cast<int32_t>(pid) : -1;
  return true;
}

DeviceDetails& TimelineBuilder::SliceEditor::details() {
  uint32_t& d = b_.merged_.details[i_];
  if (d == kNoIndex) {
    d = static_cast<uint32_t>(b_.details_.size());
    b_.details_.emplace_back();
  }
  return b_.details_[d];
}

StringId TimelineBuilder::SliceEditor::StringArg(StringId key) const {
  const uint32_t begin = b_.merged_.args_begin[i_];
  const uint32_t end = begin + b_.merged_.args_count[i_];
  for (uint32_t a = begin; a < end; ++a) {
    const Arg& arg = b_.args_[a];
    if (arg.key == key && arg.value.type == ArgValue::Type::kString) return arg.value.s;
  }
  return kNoIndex;
}

void TimelineBuilder::EditSlices(absl::FunctionRef<void(SliceEditor&)> edit) {
  FlushPending();
  for (uint32_t i = 0; i < merged_.size(); ++i) {
    SliceEditor e(*this, i);
    edit(e);
  }
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
  // The model's time range (kMaxTraceTimeNs): clamped here, at the one
  // boundary every parser passes, so no later sum or difference overflows.
  if (p.ts_ns > kMaxTraceTimeNs || p.ts_ns < -kMaxTraceTimeNs) {
    diagnostics_.Add("time_out_of_range", Severity::kWarning,
                     "slices starting beyond +-146 years of the epoch, clamped to that range");
    p.ts_ns = std::clamp(p.ts_ns, -kMaxTraceTimeNs, kMaxTraceTimeNs);
  }
  if (p.dur_ns > kMaxTraceTimeNs - p.ts_ns) {
    diagnostics_.Add("duration_out_of_range", Severity::kWarning,
                     "slices ending beyond +146 years of the epoch, cut at that time");
    p.dur_ns = kMaxTraceTimeNs - p.ts_ns;
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
  return static_cast<uint32_t>(slice_count() - 1);
}

void TimelineBuilder::AddArg(StringId key, const ArgValue& value) {
  args_.push_back(Arg{key, value});
  if (pending_.empty()) {
    merged_.args_count.back()++;  // the last slice came with a part
  } else {
    pending_.back().args_count++;
  }
}

DeviceDetails& TimelineBuilder::AddDetails() {
  uint32_t& d = pending_.empty() ? merged_.details.back() : pending_.back().details;
  if (d == kNoIndex) {
    d = static_cast<uint32_t>(details_.size());
    details_.emplace_back();
  }
  return details_[d];
}

using builder_internal::ForEachInputColumn;
using builder_internal::GrowFor;

void TimelineBuilder::AppendSlices(const SliceColumns& from_cols,
                                   std::span<const PendingSlice> from,
                                   const std::vector<TrackId>& tmap,
                                   const std::vector<StringId>& smap, uint32_t args_base,
                                   uint32_t details_base) {
  SliceColumns& c = merged_;
  const size_t base = c.size();
  const size_t added = from_cols.size() + from.size();
  // Sized once, then written by index: 11 push_backs per slice would check
  // capacity 11 times. The zeros written by resize() stay in cache.
  ForEachInputColumn(c, c, [&](auto& column, auto&) {
    GrowFor(column, base + added);
    column.resize(base + added);
  });
  auto remap_details = [details_base](uint32_t d) {
    return d == kNoIndex ? kNoIndex : d + details_base;
  };
  size_t i = base;
  for (size_t j = 0; j < from_cols.size(); ++j, ++i) {
    c.ts_ns[i] = from_cols.ts_ns[j];
    c.dur_ns[i] = from_cols.dur_ns[j];
    c.correlation[i] = from_cols.correlation[j];
    c.external_id[i] = from_cols.external_id[j];
    c.track[i] = tmap[from_cols.track[j]];
    c.name[i] = smap[from_cols.name[j]];
    c.args_begin[i] = from_cols.args_begin[j] + args_base;
    c.args_count[i] = from_cols.args_count[j];
    c.details[i] = remap_details(from_cols.details[j]);
    c.flags[i] = from_cols.flags[j];
    c.kind[i] = from_cols.kind[j];
  }
  for (const PendingSlice& p : from) {
    c.ts_ns[i] = p.ts_ns;
    c.dur_ns[i] = p.dur_ns;
    c.correlation[i] = p.correlation;
    c.external_id[i] = p.external_id;
    c.track[i] = tmap[p.track];
    c.name[i] = smap[p.name];
    c.args_begin[i] = p.args_begin + args_base;
    c.args_count[i] = p.args_count;
    c.details[i] = remap_details(p.details);
    c.flags[i] = p.flags;
    c.kind[i] = p.kind;
    ++i;
  }
}

void TimelineBuilder::FlushPending() {
  if (pending_.empty()) return;
  // Front to back in blocks, returning each consumed block's pages: a
  // builder filled slice by slice (no parts) never holds its slices twice.
  std::vector<TrackId> tmap(tracks_.size());
  std::iota(tmap.begin(), tmap.end(), TrackId{0});
  std::vector<StringId> smap(strings_.size());
  std::iota(smap.begin(), smap.end(), StringId{0});
  if (merged_.size() == 0) {
    ForEachInputColumn(merged_, merged_,
                       [&](auto& column, auto&) { ReserveHuge(column, pending_.size()); });
  }
  constexpr size_t kBlockSlices = size_t{1} << 15;
  const SliceColumns none;
  const void* released = pending_.data();
  for (size_t begin = 0; begin < pending_.size(); begin += kBlockSlices) {
    const size_t end = std::min(pending_.size(), begin + kBlockSlices);
    AppendSlices(none, std::span<const PendingSlice>(pending_).subspan(begin, end - begin), tmap,
                 smap, 0, 0);
    released = ReleasePages(released, pending_.data() + end);
  }
  std::vector<PendingSlice>().swap(pending_);
}

size_t TimelineBuilder::MemoryBytes() const {
  size_t bytes = strings_.MemoryBytes() + tracks_.capacity() * sizeof(Track) +
                 track_index_.capacity() *
                     (sizeof(std::pair<std::tuple<uint8_t, int64_t, int64_t>, TrackId>) + 1) +
                 pending_.capacity() * sizeof(PendingSlice) + args_.capacity() * sizeof(Arg) +
                 details_.capacity() * sizeof(DeviceDetails) +
                 flow_points_.capacity() * sizeof(FlowPoint) +
                 counters_.capacity() * sizeof(CounterSample);
  SliceColumns& columns = const_cast<SliceColumns&>(merged_);
  ForEachInputColumn(columns, columns, [&bytes](auto& column, auto&) {
    bytes += column.capacity() * sizeof(column[0]);
  });
  return bytes;
}

void TimelineBuilder::ReserveScaled(double factor) {
  auto scaled = [factor](size_t n) { return static_cast<size_t>(static_cast<double>(n) * factor); };
  FlushPending();
  const size_t slices = scaled(merged_.size());
  ForEachInputColumn(merged_, merged_, [&](auto& column, auto&) { ReserveHuge(column, slices); });
  ReserveHuge(args_, scaled(args_.size()));
  ReserveHuge(details_, scaled(details_.size()));
  ReserveHuge(flow_points_, scaled(flow_points_.size()));
}

void TimelineBuilder::Clear() {
  strings_.Clear();
  tracks_.clear();
  track_index_.clear();
  merged_ = SliceColumns();
  pending_.clear();
  args_.clear();
  details_.clear();
  flow_points_.clear();
  counters_.clear();
  metadata_ = RunMetadata();
  diagnostics_ = ImportDiagnostics();
}

void TimelineBuilder::Append(TimelineBuilder& part) {
  // Slices added here before this part come first.
  FlushPending();
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
  // Parts are appended as they are parsed, so the final sizes are unknown.
  auto grow = [](auto& v, size_t needed) { GrowFor(v, needed); };
  grow(args_, args_.size() + part.args_.size());
  args_.insert(args_.end(), part.args_.begin(), part.args_.end());
  for (size_t i = args_base; i < args_.size(); ++i) {
    Arg& a = args_[i];
    a.key = smap[a.key];
    if (a.value.type == ArgValue::Type::kString) a.value.s = smap[a.value.s];
  }
  grow(details_, details_.size() + part.details_.size());
  details_.insert(details_.end(), part.details_.begin(), part.details_.end());
  // The part's slices: those it merged from parts of its own, then its own.
  AppendSlices(part.merged_, part.pending_, tmap, smap, args_base, details_base);
  grow(flow_points_, flow_points_.size() + part.flow_points_.size());
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
  if (m.devices.empty()) {
    m.devices = o.devices;
    m.unlisted_devices = o.unlisted_devices;
  }
  if (m.rank < 0) m.rank = o.rank;
  if (m.world_size < 0) m.world_size = o.world_size;
  if (m.backend.empty()) m.backend = o.backend;
  if (m.framework.empty()) m.framework = o.framework;
  if (m.framework_version.empty()) m.framework_version = o.framework_version;
  if (m.trace_name.empty()) m.trace_name = o.trace_name;
  m.tracelint_capture = m.tracelint_capture || o.tracelint_capture;
  if (m.host_name.empty()) m.host_name = o.host_name;
  m.events_read += o.events_read;
  part.Clear();
}

struct TimelineBuilder::TrackScratch {
  std::vector<size_t> runs;
  std::vector<uint32_t> stack;
};

void TimelineBuilder::SortTrackSlices(std::vector<uint32_t>& slices,
                                      std::vector<size_t>& runs) const {
  const TimeNs* ts = merged_.ts_ns.data();
  const TimeNs* dur = merged_.dur_ns.data();
  auto less = [ts, dur](uint32_t x, uint32_t y) {
    if (ts[x] != ts[y]) return ts[x] < ts[y];
    if (dur[x] != dur[y]) return dur[x] > dur[y];
    return x < y;
  };
  // Profilers write each thread's events in time order, but Kineto writes a
  // thread's ops, runtime calls and Python frames as separate sorted runs:
  // those are merged (n log runs) instead of sorted from scratch.
  runs.clear();
  runs.push_back(0);
  for (size_t i = 1; i < slices.size(); ++i) {
    if (less(slices[i], slices[i - 1])) runs.push_back(i);
  }
  if (runs.size() == 1) return;
  if (runs.size() > slices.size() / 16 + 1) {
    std::sort(slices.begin(), slices.end(), less);
    return;
  }
  runs.push_back(slices.size());
  while (runs.size() > 2) {
    size_t out = 0;
    size_t k = 0;
    for (; k + 2 < runs.size(); k += 2) {
      std::inplace_merge(slices.begin() + static_cast<ptrdiff_t>(runs[k]),
                         slices.begin() + static_cast<ptrdiff_t>(runs[k + 1]),
                         slices.begin() + static_cast<ptrdiff_t>(runs[k + 2]), less);
      runs[out++] = runs[k];
    }
    // An odd run out is carried to the next round as it is.
    if (k + 1 < runs.size()) runs[out++] = runs[k];
    runs[out++] = slices.size();
    runs.resize(out);
  }
}

using builder_internal::NoScratch;
using builder_internal::ParallelFor;

// The longest tail of a Python frame past the start of a non-Python range
// begun inside it that is cut rather than moving the range (see WalkTrack).
constexpr TimeNs kPythonFrameYieldNs = 100 * kNsPerUs;

void TimelineBuilder::WalkTrack(const std::vector<uint32_t>& list, TimeNs clamp_ns,
                                std::vector<uint32_t>& stack, std::vector<uint32_t>& moved_out,
                                int64_t& clamped) {
  // `list` is in (ts, -dur, input order). A slice ending after its parent is
  // clamped when the overshoot is at most clamp_ns, else moved out (it stays
  // in `list`; the caller drops it from the track at the next pass).
  std::vector<TimeNs>& ts = merged_.ts_ns;
  std::vector<TimeNs>& dur = merged_.dur_ns;
  const std::vector<EventKind>& kind = merged_.kind;
  stack.clear();
  for (uint32_t idx : list) {
    while (!stack.empty()) {
      const uint32_t top = stack.back();
      if (ts[top] + dur[top] > ts[idx]) break;
      stack.pop_back();
    }
    // record_function (ProfilerStep#N, enumerate(DataLoader)#..., a user's
    // own annotations) opens its range from inside a Python call
    // (_record_function_enter_new, torch/_ops.py __call__) that returns a few
    // microseconds later. With with_stack=True those frames would hold the
    // range's start and push the range onto an overflow track, away from the
    // ops and launches it encloses. The frames give way instead: they end
    // where the range begins.
    while (!stack.empty() && kind[idx] != EventKind::kPythonFunction) {
      const uint32_t top = stack.back();
      const TimeNs top_end = ts[top] + dur[top];
      if (kind[top] != EventKind::kPythonFunction || top_end >= ts[idx] + dur[idx] ||
          top_end - ts[idx] > kPythonFrameYieldNs) {
        break;
      }
      dur[top] = ts[idx] - ts[top];
      ++clamped;
      stack.pop_back();
    }
    if (!stack.empty()) {
      const uint32_t parent = stack.back();
      TimeNs parent_end = ts[parent] + dur[parent];
      TimeNs end = ts[idx] + dur[idx];
      if (end > parent_end) {
        if (end - parent_end <= clamp_ns) {
          dur[idx] = parent_end - ts[idx];
          ++clamped;
        } else {
          moved_out.push_back(idx);
          continue;
        }
      }
    }
    stack.push_back(idx);
  }
}

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
    const std::vector<TrackId>& track = merged_.track;
    for (TrackId t : track) ++counts[t];
    for (size_t t = 0; t < tracks_.size(); ++t) by_track[t].reserve(counts[t]);
    for (uint32_t i = 0; i < track.size(); ++i) by_track[track[i]].push_back(i);
  }
  // Threads pay off only for large timelines.
  const int threads = merged_.size() >= (size_t{1} << 16) ? options.threads : 1;
  std::vector<std::vector<uint32_t>> incoming(tracks_.size());
  std::vector<TrackId> overflow_track(tracks_.size(), kNoIndex);
  std::vector<uint8_t> dirty(tracks_.size(), 1);
  int64_t clamped = 0;
  int64_t moved = 0;
  for (bool first_pass = true;; first_pass = false) {
    const size_t track_count = tracks_.size();
    // Tracks are independent within a pass: each is sorted and walked on
    // its own (in parallel), touching only its own slices. Moving slices
    // out creates tracks, so that is done afterwards, track by track in
    // order, which numbers the overflow tracks as a serial walk would.
    std::vector<TrackId> work;
    for (TrackId t = 0; t < track_count; ++t) {
      if (dirty[t]) work.push_back(t);
    }
    std::vector<TrackId> largest_first = work;
    std::stable_sort(largest_first.begin(), largest_first.end(), [&](TrackId x, TrackId y) {
      return by_track[x].size() + incoming[x].size() > by_track[y].size() + incoming[y].size();
    });
    std::vector<std::vector<uint32_t>> moved_out(track_count);
    std::vector<int64_t> clamped_in(track_count, 0);
    ParallelFor<TrackScratch>(threads, work.size(), [&](size_t w, TrackScratch& scratch) {
      const TrackId t = largest_first[w];
      std::vector<uint32_t>& list = by_track[t];
      if (!first_pass) {
        std::erase_if(list, [&](uint32_t i) { return merged_.track[i] != t; });
        list.insert(list.end(), incoming[t].begin(), incoming[t].end());
        std::vector<uint32_t>().swap(incoming[t]);
      }
      SortTrackSlices(list, scratch.runs);
      WalkTrack(list, options.nesting_clamp_ns, scratch.stack, moved_out[t], clamped_in[t]);
    });
    std::vector<uint8_t> next_dirty(track_count, 0);
    bool any_moved = false;
    for (TrackId t : work) {
      clamped += clamped_in[t];
      if (clamped_in[t] > 0) next_dirty[t] = 1;
      if (moved_out[t].empty()) continue;
      next_dirty[t] = 1;
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
      for (uint32_t idx : moved_out[t]) merged_.track[idx] = to;
      incoming[to].insert(incoming[to].end(), moved_out[t].begin(), moved_out[t].end());
      next_dirty[to] = 1;
      moved += static_cast<int64_t>(moved_out[t].size());
      any_moved = true;
    }
    if (!any_moved) break;
    dirty = std::move(next_dirty);
  }
  order.clear();
  ReserveHuge(order, merged_.size());
  for (size_t t = 0; t < tracks_.size(); ++t) {
    order.insert(order.end(), by_track[t].begin(), by_track[t].end());
    std::vector<uint32_t>().swap(by_track[t]);
  }
  if (clamped > 0) {
    tl.diagnostics_.Add("nesting_clamped", Severity::kInfo,
                        "slices clamped to nest: ending at most 1 us after their parent, or Python frames cut "
                        "where a record_function range they opened begins",
                        clamped);
  }
  if (moved > 0) {
    tl.diagnostics_.Add("nesting_overflow_track", Severity::kInfo,
                        "partially overlapping slices moved to an overflow track of the same thread",
                        moved);
  }
}

absl::StatusOr<Timeline> TimelineBuilder::Finalize(const FinalizeOptions& options) && {
  Timeline tl;
  tl.diagnostics_ = std::move(diagnostics_);
  FlushPending();
  SliceColumns& in = merged_;
  {
    // Flags depend only on (kind, name), and names repeat: classify each
    // name once per kind seen with it (almost always one).
    struct Cached {
      EventKind kind;
      uint16_t flags;
      bool valid = false;
    };
    std::vector<Cached> by_name(strings_.size());
    for (size_t i = 0; i < in.size(); ++i) {
      const EventKind kind = in.kind[i];
      Cached& c = by_name[in.name[i]];
      if (!c.valid || c.kind != kind) {
        c = Cached{kind, ClassifyFlags(kind, strings_.Get(in.name[i])), true};
      }
      in.flags[i] |= c.flags;
    }
  }
  if (metadata_.truncated) {
    // File order is lost once tracks are sorted; a cut trace needs it to
    // tell which of its steps it read whole. Runtime and driver calls are
    // written with the device work (in the same activity buffers), so they
    // show how far back the blocks read reach, start-up calls included.
    ReadCoverageBuilder coverage;
    for (size_t i = 0; i < in.size(); ++i) {
      const EventKind kind = in.kind[i];
      if ((tracks_[in.track[i]].kind == TrackKind::kDeviceStream && IsDeviceActivity(kind)) ||
          kind == EventKind::kRuntime || kind == EventKind::kDriver) {
        coverage.Add(in.track[i], in.ts_ns[i]);
      }
    }
    metadata_.read_coverage = std::move(coverage).Finish();
  }
  std::vector<uint32_t> order;
  RepairNesting(options, tl, order);
  // Columns are put in final order through one scratch array per element
  // type (GatherThrough), the 8-byte ones on one thread and the narrower
  // ones on another, so the slices are never held twice.
  const size_t n = in.size();
  SliceColumns& c = tl.slices_;
  {
    using builder_internal::GatherThrough;
    std::function<void()> wide = [&] {
      std::vector<int64_t> scratch;
      GatherThrough(in.ts_ns, order, scratch);
      GatherThrough(in.dur_ns, order, scratch);
      GatherThrough(in.correlation, order, scratch);
      GatherThrough(in.external_id, order, scratch);
    };
    std::function<void()> narrow = [&] {
      std::vector<uint32_t> scratch;
      GatherThrough(in.track, order, scratch);
      GatherThrough(in.name, order, scratch);
      GatherThrough(in.args_begin, order, scratch);
      GatherThrough(in.args_count, order, scratch);
      GatherThrough(in.details, order, scratch);
      std::vector<uint16_t> scratch16;
      GatherThrough(in.flags, order, scratch16);
      std::vector<EventKind> scratch8;
      GatherThrough(in.kind, order, scratch8);
    };
    std::function<void()> halves[] = {wide, narrow};
    ParallelFor<NoScratch>(n >= (size_t{1} << 16) ? options.threads : 1, 2,
                           [&](size_t i, NoScratch&) { halves[i](); });
    ForEachInputColumn(in, c, [](auto& from, auto& to) { to = std::move(from); });
  }
  std::vector<uint32_t>().swap(order);
  ReserveHuge(c.depth, n);
  c.depth.resize(n);
  ReserveHuge(c.parent, n);
  c.parent.assign(n, kNoIndex);
  ReserveHuge(c.launch, n);
  c.launch.assign(n, kNoIndex);

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
  ClearHostOnlyImplicitSyncs(c);
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
