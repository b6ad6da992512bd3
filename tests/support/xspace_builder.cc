#include "tests/support/xspace_builder.h"

#include "parsers/common/gzip_bytes.h"

namespace tracelint::testing {

using tensorflow::profiler::XEvent;
using tensorflow::profiler::XLine;
using tensorflow::profiler::XPlane;
using tensorflow::profiler::XSpace;
using tensorflow::profiler::XStat;

namespace {

// Metadata ids start at 1, as profilers write them (0 means "unset").
template <typename Map>
int64_t FindByName(const Map& map, std::string_view name) {
  for (const auto& [id, m] : map) {
    if (m.name() == name) return id;
  }
  return 0;
}

std::string Gzip(std::string_view text) { return GzipBytes(text); }

}  // namespace

int64_t GetOrCreateStatMetadata(XPlane* plane, std::string_view name) {
  int64_t id = FindByName(plane->stat_metadata(), name);
  if (id != 0) return id;
  id = static_cast<int64_t>(plane->stat_metadata_size()) + 1;
  auto& m = (*plane->mutable_stat_metadata())[id];
  m.set_id(id);
  m.set_name(std::string(name));
  return id;
}

int64_t GetOrCreateEventMetadata(XPlane* plane, std::string_view name) {
  int64_t id = FindByName(plane->event_metadata(), name);
  if (id != 0) return id;
  id = static_cast<int64_t>(plane->event_metadata_size()) + 1;
  auto& m = (*plane->mutable_event_metadata())[id];
  m.set_id(id);
  m.set_name(std::string(name));
  return id;
}

// ------------------------------------------------------------- XStatsBuilder

XStat* XStatsBuilder::Add(std::string_view name) {
  XStat* s = stats_->Add();
  s->set_metadata_id(GetOrCreateStatMetadata(plane_, name));
  return s;
}

XStatsBuilder& XStatsBuilder::Stat(std::string_view name, int64_t value) {
  Add(name)->set_int64_value(value);
  return *this;
}
XStatsBuilder& XStatsBuilder::Stat(std::string_view name, uint64_t value) {
  Add(name)->set_uint64_value(value);
  return *this;
}
XStatsBuilder& XStatsBuilder::Stat(std::string_view name, double value) {
  Add(name)->set_double_value(value);
  return *this;
}
XStatsBuilder& XStatsBuilder::Stat(std::string_view name, std::string_view value) {
  Add(name)->set_str_value(std::string(value));
  return *this;
}
XStatsBuilder& XStatsBuilder::RefStat(std::string_view name, std::string_view value) {
  XStat* s = Add(name);
  s->set_ref_value(static_cast<uint64_t>(GetOrCreateStatMetadata(plane_, value)));
  return *this;
}
XStatsBuilder& XStatsBuilder::CompressedStat(std::string_view name, std::string_view value) {
  Add(name)->set_compressed_str_value(Gzip(value));
  return *this;
}
XStatsBuilder& XStatsBuilder::BytesStat(std::string_view name, std::string_view value) {
  Add(name)->set_bytes_value(std::string(value));
  return *this;
}
XStatsBuilder& XStatsBuilder::DanglingStat(int64_t metadata_id, int64_t value) {
  XStat* s = stats_->Add();
  s->set_metadata_id(metadata_id);
  s->set_int64_value(value);
  return *this;
}

// -------------------------------------------------------------- XLineBuilder

XStatsBuilder XLineBuilder::AddEvent(std::string_view name, int64_t offset_ps,
                                     int64_t duration_ps) {
  XEvent* e = line_->add_events();
  e->set_metadata_id(GetOrCreateEventMetadata(plane_, name));
  e->set_offset_ps(offset_ps);
  e->set_duration_ps(duration_ps);
  return XStatsBuilder(plane_, e->mutable_stats());
}

XStatsBuilder XLineBuilder::AddAggregatedEvent(std::string_view name, int64_t num_occurrences,
                                               int64_t duration_ps) {
  XEvent* e = line_->add_events();
  e->set_metadata_id(GetOrCreateEventMetadata(plane_, name));
  e->set_num_occurrences(num_occurrences);
  e->set_duration_ps(duration_ps);
  return XStatsBuilder(plane_, e->mutable_stats());
}

XLineBuilder& XLineBuilder::SetDisplayName(std::string_view display_name) {
  line_->set_display_name(std::string(display_name));
  return *this;
}

// ------------------------------------------------------------- XPlaneBuilder

XLineBuilder XPlaneBuilder::AddLine(int64_t id, std::string_view name, int64_t timestamp_ns) {
  XLine* line = plane_->add_lines();
  line->set_id(id);
  line->set_name(std::string(name));
  line->set_timestamp_ns(timestamp_ns);
  return XLineBuilder(plane_, line);
}

XStatsBuilder XPlaneBuilder::MetadataStats(std::string_view event_name) {
  int64_t id = GetOrCreateEventMetadata(plane_, event_name);
  return XStatsBuilder(plane_, (*plane_->mutable_event_metadata())[id].mutable_stats());
}

XPlaneBuilder& XPlaneBuilder::SetEventDisplayName(std::string_view event_name,
                                                  std::string_view display_name) {
  int64_t id = GetOrCreateEventMetadata(plane_, event_name);
  (*plane_->mutable_event_metadata())[id].set_display_name(std::string(display_name));
  return *this;
}

int64_t XPlaneBuilder::EventMetadataId(std::string_view name) {
  return GetOrCreateEventMetadata(plane_, name);
}

int64_t XPlaneBuilder::StatMetadataId(std::string_view name) {
  return GetOrCreateStatMetadata(plane_, name);
}

// ------------------------------------------------------------- XSpaceBuilder

XPlaneBuilder XSpaceBuilder::AddPlane(std::string_view name) {
  XPlane* plane = space_.add_planes();
  plane->set_id(space_.planes_size() - 1);
  plane->set_name(std::string(name));
  return XPlaneBuilder(plane);
}

XSpaceBuilder& XSpaceBuilder::AddHostname(std::string_view host) {
  space_.add_hostnames(std::string(host));
  return *this;
}

std::string XSpaceBuilder::Serialize() const {
  std::string out;
  space_.SerializeToString(&out);
  return out;
}

}  // namespace tracelint::testing
