#ifndef TRACELINT_PARSERS_XPLANE_XPLANE_VISITOR_H_
#define TRACELINT_PARSERS_XPLANE_XPLANE_VISITOR_H_

// Read-only views over one XPlane that resolve its metadata tables once
// (the idea of TSL's xplane_visitor.h): event names and stat names are
// looked up in the plane's maps when the visitor is built, and every time
// accessor names its unit.

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "parsers/xplane/xplane.pb.h"

namespace tracelint::xplane {

class PlaneVisitor;

// The stat names the parser acts on. Everything else is kUnknown and is
// still kept as an arg under its own name.
enum class StatType : uint8_t {
  kUnknown = 0,
  kCorrelationId,
  kContextId,
  kKernelDetails,
  kMemcpyDetails,
  kMemsetDetails,
  kTfOp,
  kHloOp,
  kHloModule,
  kProgramId,
  kHloCategory,
  kStepNum,
  kIterNum,
  kStepName,
  kGroupId,
  kDeviceId,
  kDeviceOrdinal,
  kClockRateKhz,
  kCoreCount,
  kMemoryBandwidth,
  kMemorySize,
  kComputeCapMajor,
  kComputeCapMinor,
  kDeviceVendor,
  kGpuDeviceName,
  kDeviceTypeString,
  kProfileStartTime,
  kProfileStopTime,
};
StatType StatTypeFromName(std::string_view name);

struct StatMetadataInfo {
  std::string_view name;
  StatType type = StatType::kUnknown;
};

// One XStat with its metadata resolved. Cheap to copy.
class StatVisitor {
 public:
  enum class ValueKind : uint8_t {
    kNone = 0, kDouble, kUInt, kInt, kString, kBytes, kRef, kCompressed,
  };

  StatVisitor(const tensorflow::profiler::XStat* stat,
              const PlaneVisitor* plane);

  int64_t metadata_id() const { return stat_->metadata_id(); }
  std::string_view name() const { return info_->name; }
  StatType type() const { return info_->type; }
  ValueKind kind() const;
  // The stat metadata id a ref_value points at; 0 for other kinds.
  uint64_t ref_id() const {
    return stat_->value_case() == tensorflow::profiler::XStat::kRefValue ? stat_->ref_value() : 0;
  }

  // Integer view of an int64, uint64 or integral double value; nullopt for
  // strings and for uint64 values above INT64_MAX.
  std::optional<int64_t> IntValue() const;
  std::optional<double> DoubleValue() const;
  // The text of a str, ref or compressed value (gunzipped, cached by the
  // plane visitor); empty for numbers and bytes. A compressed value that
  // does not inflate yields "".
  std::string_view StrOrRefValue() const;
  // Raw bytes_value payload (e.g. serialized HLO); empty otherwise.
  std::string_view BytesValue() const;

 private:
  const tensorflow::profiler::XStat* stat_;
  const PlaneVisitor* plane_;
  const StatMetadataInfo* info_;
};

struct EventMetadataInfo {
  std::string_view name;
  std::string_view display_name;
  const tensorflow::profiler::XEventMetadata* proto = nullptr;
};

// One XEvent on a line. Times: start = line.timestamp_ns + offset_ps, kept
// in integer ns/ps so nothing passes through a double.
class EventVisitor {
 public:
  EventVisitor(const tensorflow::profiler::XEvent* event,
               const tensorflow::profiler::XLine* line,
               const PlaneVisitor* plane);

  int64_t metadata_id() const { return event_->metadata_id(); }
  std::string_view name() const { return metadata_->name; }
  std::string_view display_name() const { return metadata_->display_name; }
  const EventMetadataInfo& metadata() const { return *metadata_; }

  // Aggregated events (num_occurrences) have no start time.
  bool is_aggregated() const {
    return event_->data_case() == tensorflow::profiler::XEvent::kNumOccurrences;
  }
  int64_t offset_ps() const { return event_->offset_ps(); }
  int64_t duration_ps() const { return event_->duration_ps(); }
  // Rounded to the nearest ns from the exact ps position, so events that
  // touch in ps still touch in ns.
  int64_t start_ns() const;
  int64_t end_ns() const;
  int64_t duration_ns() const { return end_ns() - start_ns(); }

  // The event's own stats, then those of its metadata (which apply to every
  // event using it). The event's stat wins in GetStat.
  template <typename Fn>
  void ForEachStat(Fn&& fn) const;
  std::optional<StatVisitor> GetStat(StatType type) const;

 private:
  const tensorflow::profiler::XEvent* event_;
  const tensorflow::profiler::XLine* line_;
  const PlaneVisitor* plane_;
  const EventMetadataInfo* metadata_;
};

class LineVisitor {
 public:
  LineVisitor(const tensorflow::profiler::XLine* line, const PlaneVisitor* plane)
      : line_(line), plane_(plane) {}

  int64_t id() const { return line_->id(); }
  int64_t display_id() const { return line_->display_id(); }
  std::string_view name() const { return line_->name(); }
  std::string_view display_name() const { return line_->display_name(); }
  int64_t timestamp_ns() const { return line_->timestamp_ns(); }
  int64_t duration_ps() const { return line_->duration_ps(); }
  int event_count() const { return line_->events_size(); }

  template <typename Fn>
  void ForEachEvent(Fn&& fn) const {
    for (const auto& e : line_->events()) fn(EventVisitor(&e, line_, plane_));
  }

 private:
  const tensorflow::profiler::XLine* line_;
  const PlaneVisitor* plane_;
};

class PlaneVisitor {
 public:
  // `plane` must outlive the visitor.
  explicit PlaneVisitor(const tensorflow::profiler::XPlane& plane);
  PlaneVisitor(const PlaneVisitor&) = delete;
  PlaneVisitor& operator=(const PlaneVisitor&) = delete;

  int64_t id() const { return plane_.id(); }
  std::string_view name() const { return plane_.name(); }
  int line_count() const { return plane_.lines_size(); }

  // Unknown ids resolve to an entry with an empty name. Visiting a stat or
  // event with an unknown id, or a ref to one, counts it once per visit.
  const StatMetadataInfo& StatMetadata(int64_t id) const;
  const EventMetadataInfo& EventMetadata(int64_t id) const;
  // Name of stat metadata `id`: the target of a ref_value stat.
  std::string_view RefName(uint64_t id) const;
  int64_t unknown_metadata_refs() const { return unknown_refs_; }
  int64_t bad_compressed_values() const { return bad_compressed_; }

  template <typename Fn>
  void ForEachLine(Fn&& fn) const {
    for (const auto& l : plane_.lines()) fn(LineVisitor(&l, this));
  }
  template <typename Fn>
  void ForEachStat(Fn&& fn) const {
    for (const auto& s : plane_.stats()) fn(StatVisitor(&s, this));
  }
  std::optional<StatVisitor> GetStat(StatType type) const;

 private:
  friend class StatVisitor;
  const StatMetadataInfo& CountedStatMetadata(int64_t id) const;
  std::string_view Inflate(const std::string& gzip_bytes) const;

  const tensorflow::profiler::XPlane& plane_;
  absl::flat_hash_map<int64_t, StatMetadataInfo> stat_metadata_;
  absl::flat_hash_map<int64_t, EventMetadataInfo> event_metadata_;
  StatMetadataInfo missing_stat_;
  EventMetadataInfo missing_event_;
  mutable int64_t unknown_refs_ = 0;
  mutable int64_t bad_compressed_ = 0;
  // Inflated compressed_str_value texts by source address; deque keeps the
  // views stable.
  mutable absl::flat_hash_map<const std::string*, std::string_view> inflated_;
  mutable std::deque<std::string> inflated_storage_;
};

template <typename Fn>
void EventVisitor::ForEachStat(Fn&& fn) const {
  for (const auto& s : event_->stats()) fn(StatVisitor(&s, plane_));
  if (metadata_->proto != nullptr) {
    for (const auto& s : metadata_->proto->stats()) fn(StatVisitor(&s, plane_));
  }
}

// Gunzips (or zlib-inflates) `compressed`; nullopt when it is not valid.
std::optional<std::string> InflateGzip(std::string_view compressed);

}  // namespace tracelint::xplane

#endif  // TRACELINT_PARSERS_XPLANE_XPLANE_VISITOR_H_
