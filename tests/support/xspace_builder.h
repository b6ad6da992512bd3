#ifndef TRACELINT_TESTS_SUPPORT_XSPACE_BUILDER_H_
#define TRACELINT_TESTS_SUPPORT_XSPACE_BUILDER_H_

// Builds small XSpace protos in code for parser tests, interning event and
// stat metadata per plane the way profilers do:
//
//   XSpaceBuilder space;
//   XPlaneBuilder gpu = space.AddPlane("/device:GPU:0");
//   gpu.Stat("core_count", int64_t{80});
//   gpu.AddLine(7, "Stream #7(Kernel)", /*timestamp_ns=*/1000)
//      .AddEvent("volta_sgemm", /*offset_ps=*/0, /*duration_ps=*/5000)
//      .Stat("correlation_id", uint64_t{42})
//      .RefStat("kernel_details", "regs:32 grid:1,1,1 block:128,1,1");
//   std::string bytes = space.Serialize();

#include <cstdint>
#include <string>
#include <string_view>

#include "parsers/xplane/xplane.pb.h"

namespace tracelint::testing {

// Adds stats to one repeated XStat field (of a plane, event or event
// metadata), interning stat names in the owning plane.
class XStatsBuilder {
 public:
  XStatsBuilder(tensorflow::profiler::XPlane* plane,
                google::protobuf::RepeatedPtrField<tensorflow::profiler::XStat>* stats)
      : plane_(plane), stats_(stats) {}

  XStatsBuilder& Stat(std::string_view name, int64_t value);
  XStatsBuilder& Stat(std::string_view name, uint64_t value);
  XStatsBuilder& Stat(std::string_view name, double value);
  XStatsBuilder& Stat(std::string_view name, std::string_view value);
  XStatsBuilder& Stat(std::string_view name, const char* value) {
    return Stat(name, std::string_view(value));
  }
  // The value is stored as ref_value: the id of a stat metadata whose name
  // is `value` (how kernel_details and tf_op are usually written).
  XStatsBuilder& RefStat(std::string_view name, std::string_view value);
  // The value is gzipped into compressed_str_value.
  XStatsBuilder& CompressedStat(std::string_view name, std::string_view value);
  XStatsBuilder& BytesStat(std::string_view name, std::string_view value);
  // A stat naming a metadata id that the plane does not define.
  XStatsBuilder& DanglingStat(int64_t metadata_id, int64_t value);

 private:
  tensorflow::profiler::XStat* Add(std::string_view name);

  tensorflow::profiler::XPlane* plane_;
  google::protobuf::RepeatedPtrField<tensorflow::profiler::XStat>* stats_;
};

class XLineBuilder {
 public:
  XLineBuilder(tensorflow::profiler::XPlane* plane, tensorflow::profiler::XLine* line)
      : plane_(plane), line_(line) {}

  // An event named `name` (its metadata is created on first use).
  XStatsBuilder AddEvent(std::string_view name, int64_t offset_ps, int64_t duration_ps);
  // An aggregated event (num_occurrences, no start time).
  XStatsBuilder AddAggregatedEvent(std::string_view name, int64_t num_occurrences,
                                   int64_t duration_ps);
  XLineBuilder& SetDisplayName(std::string_view display_name);
  tensorflow::profiler::XLine* proto() { return line_; }

 private:
  tensorflow::profiler::XPlane* plane_;
  tensorflow::profiler::XLine* line_;
};

class XPlaneBuilder {
 public:
  explicit XPlaneBuilder(tensorflow::profiler::XPlane* plane) : plane_(plane) {}

  XLineBuilder AddLine(int64_t id, std::string_view name, int64_t timestamp_ns);
  // Plane stats (device capabilities, profile_start_time).
  XStatsBuilder Stats() { return XStatsBuilder(plane_, plane_->mutable_stats()); }
  template <typename T>
  XPlaneBuilder& Stat(std::string_view name, T value) {
    Stats().Stat(name, value);
    return *this;
  }
  // Stats on an event's metadata: they apply to every event of that name.
  XStatsBuilder MetadataStats(std::string_view event_name);
  XPlaneBuilder& SetEventDisplayName(std::string_view event_name, std::string_view display_name);

  int64_t EventMetadataId(std::string_view name);
  int64_t StatMetadataId(std::string_view name);
  tensorflow::profiler::XPlane* proto() { return plane_; }

 private:
  tensorflow::profiler::XPlane* plane_;
};

class XSpaceBuilder {
 public:
  XPlaneBuilder AddPlane(std::string_view name);
  XSpaceBuilder& AddHostname(std::string_view host);
  std::string Serialize() const;
  tensorflow::profiler::XSpace& proto() { return space_; }

 private:
  tensorflow::profiler::XSpace space_;
};

// Metadata interning shared by the builders (exposed for XStatsBuilder).
int64_t GetOrCreateStatMetadata(tensorflow::profiler::XPlane* plane, std::string_view name);
int64_t GetOrCreateEventMetadata(tensorflow::profiler::XPlane* plane, std::string_view name);

}  // namespace tracelint::testing

#endif  // TRACELINT_TESTS_SUPPORT_XSPACE_BUILDER_H_
