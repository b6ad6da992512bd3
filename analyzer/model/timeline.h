#ifndef TRACELINT_ANALYZER_MODEL_TIMELINE_H_
#define TRACELINT_ANALYZER_MODEL_TIMELINE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "analyzer/base/memory_budget.h"
#include "analyzer/base/time.h"
#include "analyzer/model/diagnostics.h"
#include "analyzer/model/event_kinds.h"
#include "analyzer/model/metadata.h"
#include "analyzer/model/string_pool.h"

namespace tracelint {

using TrackId = uint32_t;
using SliceId = uint32_t;  // index into the slice columns
inline constexpr uint32_t kNoIndex = 0xffffffffu;

struct Track {
  TrackKind kind = TrackKind::kOther;
  int64_t pid = 0;        // OS pid, or device index for device streams
  int64_t tid = 0;        // OS tid, or stream id for device streams
  int32_t device = -1;    // device index for device streams
  StringId name = kEmptyStringId;
  // Tracks made by the nesting repair point at the track they came from.
  TrackId overflow_of = kNoIndex;
};

// A typed argument value. Strings are interned. Packed to 4-byte alignment
// (12 bytes, an Arg 16 instead of 24): a timeline holds one per kept arg.
#pragma pack(push, 4)
struct ArgValue {
  enum class Type : uint8_t { kNone = 0, kInt, kUInt, kDouble, kString, kBool };
  Type type = Type::kNone;
  union {
    int64_t i;
    uint64_t u;
    double d;
    StringId s;
    bool b;
  };
  ArgValue() : i(0) {}
  static ArgValue Int(int64_t v) { ArgValue a; a.type = Type::kInt; a.i = v; return a; }
  static ArgValue UInt(uint64_t v) { ArgValue a; a.type = Type::kUInt; a.u = v; return a; }
  static ArgValue Double(double v) { ArgValue a; a.type = Type::kDouble; a.d = v; return a; }
  static ArgValue String(StringId v) { ArgValue a; a.type = Type::kString; a.s = v; return a; }
  static ArgValue Bool(bool v) { ArgValue a; a.type = Type::kBool; a.b = v; return a; }
  std::optional<int64_t> AsInt() const;
  std::optional<double> AsDouble() const;
};
#pragma pack(pop)
static_assert(sizeof(ArgValue) == 12);

struct Arg {
  StringId key = kEmptyStringId;
  ArgValue value;
};
static_assert(sizeof(Arg) == 16);

// Launch configuration and copy facts of device activities. Unknown values
// are -1 (or 0 for the grid/block products).
struct DeviceDetails {
  int32_t grid[3] = {0, 0, 0};
  int32_t block[3] = {0, 0, 0};
  int32_t registers_per_thread = -1;
  int32_t shared_memory_bytes = -1;
  float blocks_per_sm = -1;          // as the trace states it
  float est_achieved_occupancy_pct = -1;
  int64_t bytes = -1;                // memcpy / memset size
  CopyDirection direction = CopyDirection::kUnknown;
  MemorySpace src = MemorySpace::kUnknown;
  MemorySpace dst = MemorySpace::kUnknown;
  bool synchronous = false;          // copy issued by a blocking API

  int64_t BlockCount() const {
    if (grid[0] <= 0) return 0;
    return int64_t{grid[0]} * std::max(1, grid[1]) * std::max(1, grid[2]);
  }
};

// Slices as columns (struct of arrays), sorted by (track, ts_ns, -dur_ns,
// input order) so each track's slices are contiguous and nested in order.
struct SliceColumns {
  std::vector<TimeNs> ts_ns;
  std::vector<TimeNs> dur_ns;
  std::vector<TrackId> track;
  std::vector<StringId> name;
  std::vector<EventKind> kind;
  std::vector<uint16_t> flags;
  std::vector<uint16_t> depth;
  std::vector<SliceId> parent;       // kNoIndex at depth 0
  std::vector<int64_t> correlation;  // 0 = none
  std::vector<int64_t> external_id;  // 0 = none
  std::vector<uint32_t> args_begin;
  std::vector<uint32_t> args_count;
  std::vector<uint32_t> details;     // index into device_details or kNoIndex
  // Device activity -> the runtime/driver call that launched it (by
  // correlation); kNoIndex when the trace has no partner.
  std::vector<SliceId> launch;

  size_t size() const { return ts_ns.size(); }
  TimeNs end_ns(SliceId s) const { return ts_ns[s] + dur_ns[s]; }
};

struct Flow {
  int64_t id = 0;
  StringId category = kEmptyStringId;
  SliceId from = kNoIndex;
  SliceId to = kNoIndex;
};

struct CounterSample {
  StringId name = kEmptyStringId;  // e.g. "Total Allocated"
  int32_t device = -1;             // -1 = host memory
  TimeNs ts_ns = 0;
  double value = 0;
};

// One rank's immutable, finalized timeline. Build it with TimelineBuilder.
class Timeline {
 public:
  Timeline() = default;
  Timeline(Timeline&&) = default;
  Timeline& operator=(Timeline&&) = default;

  const StringPool& strings() const { return strings_; }
  std::string_view str(StringId id) const { return strings_.Get(id); }
  const std::vector<Track>& tracks() const { return tracks_; }
  const SliceColumns& slices() const { return slices_; }
  size_t slice_count() const { return slices_.size(); }
  // Slices of one track: [first, last) in the columns.
  std::pair<SliceId, SliceId> track_range(TrackId t) const {
    return {track_begin_[t], track_begin_[t + 1]};
  }
  std::span<const Arg> args(SliceId s) const {
    return {args_.data() + slices_.args_begin[s], slices_.args_count[s]};
  }
  const Arg* FindArg(SliceId s, std::string_view key) const;
  const DeviceDetails* details(SliceId s) const {
    uint32_t d = slices_.details[s];
    return d == kNoIndex ? nullptr : &device_details_[d];
  }
  const std::vector<Flow>& flows() const { return flows_; }
  const std::vector<CounterSample>& counters() const { return counters_; }
  const RunMetadata& metadata() const { return metadata_; }
  // For the names a run's files are shown by (a trace from stdin is "-",
  // not its temporary copy).
  RunMetadata& mutable_metadata() { return metadata_; }
  const ImportDiagnostics& diagnostics() const { return diagnostics_; }
  ImportDiagnostics& mutable_diagnostics() { return diagnostics_; }

  bool HasFlag(SliceId s, EventFlag f) const { return (slices_.flags[s] & f) != 0; }
  // Earliest start and latest end over all slices; {0,0} when empty.
  std::pair<TimeNs, TimeNs> Bounds() const;
  // Heap bytes held: every array's capacity and the interned strings.
  size_t MemoryBytes() const;
  // Keeps `account` (the memory ledger's account its parse charged) charged
  // with MemoryBytes() while the events are held: a finished timeline counts
  // against the budget until ReleaseEvents or its end.
  void KeepCharged(MemoryLedger::Account account) {
    memory_account_ = std::move(account);
    memory_account_.Deactivate();
    memory_account_.Set(MemoryBytes());
  }

  // Frees the events (slices, args, device details, flows, counters) once a
  // rank has been analysed, keeping what a multi-rank run's merge and report
  // still read: metadata, diagnostics, tracks, strings and Bounds(). The
  // timeline then reads as one without events, so nothing can reach the
  // freed memory. A run of many ranks holds this much per rank instead of
  // every rank's events at once.
  void ReleaseEvents();
  bool events_released() const { return released_bounds_.has_value(); }

 private:
  friend class TimelineBuilder;

  StringPool strings_;
  std::vector<Track> tracks_;
  std::vector<SliceId> track_begin_;  // size tracks_+1
  SliceColumns slices_;
  std::vector<Arg> args_;
  std::vector<DeviceDetails> device_details_;
  std::vector<Flow> flows_;
  std::vector<CounterSample> counters_;
  RunMetadata metadata_;
  ImportDiagnostics diagnostics_;
  std::optional<std::pair<TimeNs, TimeNs>> released_bounds_;  // set by ReleaseEvents
  MemoryLedger::Account memory_account_;
};

// A run: one timeline per rank, ordered by rank (then by file name).
// Timelines are held by pointer so that analyses started on a timeline while
// others were still parsing keep a valid address.
struct Run {
  std::vector<std::unique_ptr<Timeline>> ranks;
  std::vector<std::string> warnings;
  // The files that could not be read, in file order, and why (the warning
  // without its "skipped: "): a sharded analyze passes them to the merge.
  struct Skipped {
    std::string path;
    std::string reason;
  };
  std::vector<Skipped> skipped;
  // Files of the run that could not be read (each has a warning); the run
  // was analysed without them.
  int files_skipped = 0;
};

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_MODEL_TIMELINE_H_
