#ifndef TRACELINT_ANALYZER_MODEL_TIMELINE_BUILDER_H_
#define TRACELINT_ANALYZER_MODEL_TIMELINE_BUILDER_H_

#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "analyzer/base/huge_pages.h"
#include "analyzer/model/timeline.h"

namespace tracelint {

struct SliceSpec {
  TimeNs ts_ns = 0;
  TimeNs dur_ns = 0;
  TrackId track = 0;
  StringId name = kEmptyStringId;
  EventKind kind = EventKind::kUnknown;
  uint16_t extra_flags = 0;  // flags only the format knows (added to classify.cc's)
  int64_t correlation = 0;
  int64_t external_id = 0;
};

// One end of a flow arrow as the trace states it; resolved to slices at
// Finalize by time containment on the track.
struct FlowPoint {
  int64_t id = 0;
  StringId category = kEmptyStringId;
  bool is_start = true;
  bool bind_enclosing = true;  // Chrome "bp":"e"; else the next slice
  TrackId track = 0;
  TimeNs ts_ns = 0;
};

struct FinalizeOptions {
  // A child that ends after its parent by at most this much is clamped into
  // it; a larger overshoot moves the child to an overflow track.
  TimeNs nesting_clamp_ns = 1000;
  // Threads for the per-track and per-column work; the result does not
  // depend on it.
  int threads = 1;
};

// Parsers write only through this. Several builders can parse parts of one
// input independently; Append() merges them in input order, and Finalize()
// sorts with input order as the last tie-break, so the result does not
// depend on how the input was split.
class TimelineBuilder {
 public:
  TimelineBuilder() = default;
  TimelineBuilder(TimelineBuilder&&) = default;
  TimelineBuilder& operator=(TimelineBuilder&&) = default;

  StringPool& strings() { return strings_; }
  StringId Intern(std::string_view s) { return strings_.Intern(s); }

  // Tracks are keyed by (kind, pid, tid). For device streams pid is the
  // device index and tid the stream id.
  TrackId GetTrack(TrackKind kind, int64_t pid, int64_t tid);
  void SetTrackName(TrackId track, StringId name);
  const std::vector<Track>& tracks() const { return tracks_; }
  bool HasTrack(TrackKind kind, int64_t pid, int64_t tid) const {
    return track_index_.contains(std::make_tuple(static_cast<uint8_t>(kind), pid, tid));
  }
  // Gives `track` the key (kind, pid, tid); its slices and flow points
  // stay on it. For formats that learn what a track is only after its
  // events were read (Chrome JSON names device tracks in metadata that may
  // come last). False, and nothing changed, when another track has the key.
  bool RekeyTrack(TrackId track, TrackKind kind, int64_t pid, int64_t tid);

  // Returns the slice's position among this builder's slices.
  uint32_t AddSlice(const SliceSpec& spec);
  // Attach to the most recently added slice.
  void AddArg(StringId key, const ArgValue& value);
  DeviceDetails& AddDetails();

  // One slice as EditSlices visits it.
  class SliceEditor {
   public:
    TrackId track() const { return b_.merged_.track[i_]; }
    StringId name() const { return b_.merged_.name[i_]; }
    TimeNs ts_ns() const { return b_.merged_.ts_ns[i_]; }
    TimeNs dur_ns() const { return b_.merged_.dur_ns[i_]; }
    EventKind kind() const { return b_.merged_.kind[i_]; }
    void set_kind(EventKind kind) { b_.merged_.kind[i_] = kind; }
    int64_t correlation() const { return b_.merged_.correlation[i_]; }
    void set_correlation(int64_t id) { b_.merged_.correlation[i_] = id; }
    void add_flags(uint16_t flags) { b_.merged_.flags[i_] |= flags; }
    // The value of the slice's string arg `key`; kNoIndex when it has none.
    StringId StringArg(StringId key) const;
    // Position among the builder's slices, in input order.
    uint32_t index() const { return i_; }
    // The slice's device details, created on first use.
    DeviceDetails& details();

   private:
    friend class TimelineBuilder;
    SliceEditor(TimelineBuilder& b, uint32_t i) : b_(b), i_(i) {}
    TimelineBuilder& b_;
    uint32_t i_;
  };
  // Visits every slice added so far, in input order, for a parser that
  // learns what its slices are only after reading them all (see RekeyTrack).
  void EditSlices(absl::FunctionRef<void(SliceEditor&)> edit);

  void AddFlowPoint(const FlowPoint& point) { flow_points_.push_back(point); }
  void AddCounter(const CounterSample& sample) { counters_.push_back(sample); }
  // Counters of device `from` belong to device `to` (a device the metadata
  // and the events number differently).
  void RenumberCounterDevice(int32_t from, int32_t to) {
    for (CounterSample& c : counters_) {
      if (c.device == from) c.device = to;
    }
  }

  RunMetadata& metadata() { return metadata_; }
  ImportDiagnostics& diagnostics() { return diagnostics_; }
  size_t slice_count() const { return merged_.size() + pending_.size(); }
  size_t arg_count() const { return args_.size(); }
  // Slices the merged columns hold without growing (parts appended).
  size_t slice_capacity() const { return merged_.ts_ns.capacity(); }
  // The heap bytes this builder holds (the capacity of every array, the
  // interned strings, tracks and their index), as charged to the memory
  // ledger (analyzer/base/memory_budget.h). O(number of columns).
  size_t MemoryBytes() const;
  // Makes room for this many slices added by AddSlice and args, so that
  // filling a builder whose size is known does not regrow (and copy) them.
  void Reserve(size_t slices, size_t args) {
    ReserveHuge(pending_, slices);
    ReserveHuge(args_, args);
  }
  // Makes room for `factor` times the current slices, args, device details
  // and flow points: for a caller appending parts as they are parsed, which
  // can project the final size from the share of the input read so far.
  // Only capacity is reserved; pages are touched as they are filled.
  void ReserveScaled(double factor);

  // Moves `part`'s contents after this builder's, remapping ids. Metadata
  // fields unset here are taken from the part. `part` is left empty (as
  // after Clear()), its capacity kept for reuse.
  void Append(TimelineBuilder& part);
  void Append(TimelineBuilder&& part) { Append(part); }
  // Empties the builder, keeping the capacity of its arrays and one chunk
  // of its string pool, so a parser can refill it without allocating.
  void Clear();

  absl::StatusOr<Timeline> Finalize(const FinalizeOptions& options = {}) &&;

 private:
  // A slice added by AddSlice. Field order packs this into 56 bytes (no
  // padding holes): parts of a large input hold many.
  struct PendingSlice {
    TimeNs ts_ns;
    TimeNs dur_ns;
    int64_t correlation;
    int64_t external_id;
    TrackId track;
    StringId name;
    uint32_t args_begin;
    uint32_t args_count;
    uint32_t details;
    uint16_t flags;
    EventKind kind;
  };
  static_assert(sizeof(PendingSlice) == 56);

  // Fills `order` with input-order slice indices in final slice order.
  void RepairNesting(const FinalizeOptions& options, Timeline& tl,
                     std::vector<uint32_t>& order);
  // Appends slices (from_cols, then from) to merged_, remapping their
  // tracks, names, args and details.
  void AppendSlices(const SliceColumns& from_cols, std::span<const PendingSlice> from,
                    const std::vector<TrackId>& tmap, const std::vector<StringId>& smap,
                    uint32_t args_base, uint32_t details_base);
  // Moves pending_ to the end of merged_ and frees it.
  void FlushPending();
  struct TrackScratch;
  // Sorts one track's slice indices by (ts, -dur, input order); `runs` is
  // scratch space reused across tracks.
  void SortTrackSlices(std::vector<uint32_t>& slices, std::vector<size_t>& runs) const;
  // One nesting-repair walk over a sorted track; see the .cc.
  void WalkTrack(const std::vector<uint32_t>& list, TimeNs clamp_ns,
                 std::vector<uint32_t>& stack, std::vector<uint32_t>& moved_out,
                 int64_t& clamped);
  void LinkCorrelations(Timeline& tl);
  void ResolveFlows(Timeline& tl);

  StringPool strings_;
  std::vector<Track> tracks_;
  absl::flat_hash_map<std::tuple<uint8_t, int64_t, int64_t>, TrackId> track_index_;
  // Slices in input order: merged_ (columns; appended parts and flushed
  // slices), then pending_ (added one by one since). Parts fill pending_,
  // which is cheap per slice; a merged builder holds columns, which
  // Finalize reorders one at a time.
  SliceColumns merged_;
  std::vector<PendingSlice> pending_;
  std::vector<Arg> args_;
  std::vector<DeviceDetails> details_;
  std::vector<FlowPoint> flow_points_;
  std::vector<CounterSample> counters_;
  RunMetadata metadata_;
  ImportDiagnostics diagnostics_;
};

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_MODEL_TIMELINE_BUILDER_H_
