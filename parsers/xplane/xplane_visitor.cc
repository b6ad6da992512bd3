#include "parsers/xplane/xplane_visitor.h"

#include <zlib.h>

#include <array>
#include <limits>
#include <utility>

#include "analyzer/base/time.h"

namespace tracelint::xplane {
namespace {

using tensorflow::profiler::XStat;

constexpr std::array<std::pair<std::string_view, StatType>, 27> kStatNames = {{
    {"hlo_category", StatType::kHloCategory},
    {"correlation_id", StatType::kCorrelationId},
    {"context_id", StatType::kContextId},
    {"kernel_details", StatType::kKernelDetails},
    {"memcpy_details", StatType::kMemcpyDetails},
    {"Memset_details", StatType::kMemsetDetails},
    {"tf_op", StatType::kTfOp},
    {"hlo_op", StatType::kHloOp},
    {"hlo_module", StatType::kHloModule},
    {"program_id", StatType::kProgramId},
    {"step_num", StatType::kStepNum},
    {"iter_num", StatType::kIterNum},
    {"step_name", StatType::kStepName},
    {"group_id", StatType::kGroupId},
    {"device_id", StatType::kDeviceId},
    {"device_ordinal", StatType::kDeviceOrdinal},
    {"clock_rate", StatType::kClockRateKhz},
    {"core_count", StatType::kCoreCount},
    {"memory_bandwidth", StatType::kMemoryBandwidth},
    {"memory_size", StatType::kMemorySize},
    {"compute_cap_major", StatType::kComputeCapMajor},
    {"compute_cap_minor", StatType::kComputeCapMinor},
    {"device_vendor", StatType::kDeviceVendor},
    {"gpu_device_name", StatType::kGpuDeviceName},
    {"device_type_string", StatType::kDeviceTypeString},
    {"profile_start_time", StatType::kProfileStartTime},
    {"profile_stop_time", StatType::kProfileStopTime},
}};

// A compressed stat is a summary string (source stacks, HLO text); anything
// inflating past this is treated as corrupt rather than exhausting memory.
constexpr size_t kMaxInflatedBytes = size_t{256} << 20;

}  // namespace

StatType StatTypeFromName(std::string_view name) {
  for (const auto& [n, t] : kStatNames) {
    if (n == name) return t;
  }
  return StatType::kUnknown;
}

std::optional<std::string> InflateGzip(std::string_view compressed) {
  z_stream zs{};
  // 15 + 32: accept both gzip and zlib headers.
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return std::nullopt;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  zs.avail_in = static_cast<uInt>(compressed.size());
  std::string out;
  std::array<char, 16384> buf;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf.data());
    zs.avail_out = static_cast<uInt>(buf.size());
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    out.append(buf.data(), buf.size() - zs.avail_out);
    if (out.size() > kMaxInflatedBytes) break;
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) break;  // truncated
  }
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) return std::nullopt;
  return out;
}

// ---------------------------------------------------------------- StatVisitor

StatVisitor::StatVisitor(const XStat* stat, const PlaneVisitor* plane)
    : stat_(stat), plane_(plane), info_(&plane->CountedStatMetadata(stat->metadata_id())) {}

StatVisitor::ValueKind StatVisitor::kind() const {
  switch (stat_->value_case()) {
    case XStat::kDoubleValue: return ValueKind::kDouble;
    case XStat::kUint64Value: return ValueKind::kUInt;
    case XStat::kInt64Value: return ValueKind::kInt;
    case XStat::kStrValue: return ValueKind::kString;
    case XStat::kBytesValue: return ValueKind::kBytes;
    case XStat::kRefValue: return ValueKind::kRef;
    case XStat::kCompressedStrValue: return ValueKind::kCompressed;
    case XStat::VALUE_NOT_SET: break;
  }
  return ValueKind::kNone;
}

std::optional<int64_t> StatVisitor::IntValue() const {
  switch (stat_->value_case()) {
    case XStat::kInt64Value:
      return stat_->int64_value();
    case XStat::kUint64Value:
      if (stat_->uint64_value() >
          static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return std::nullopt;
      }
      return static_cast<int64_t>(stat_->uint64_value());
    case XStat::kDoubleValue: {
      double d = stat_->double_value();
      // Only values a double holds exactly as an integer.
      if (d >= -9.0e15 && d <= 9.0e15 && d == static_cast<double>(static_cast<int64_t>(d))) {
        return static_cast<int64_t>(d);
      }
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

std::optional<double> StatVisitor::DoubleValue() const {
  switch (stat_->value_case()) {
    case XStat::kDoubleValue: return stat_->double_value();
    case XStat::kInt64Value: return static_cast<double>(stat_->int64_value());
    case XStat::kUint64Value: return static_cast<double>(stat_->uint64_value());
    default: return std::nullopt;
  }
}

std::string_view StatVisitor::StrOrRefValue() const {
  switch (stat_->value_case()) {
    case XStat::kStrValue: return stat_->str_value();
    case XStat::kRefValue: return plane_->RefName(stat_->ref_value());
    case XStat::kCompressedStrValue: return plane_->Inflate(stat_->compressed_str_value());
    default: return {};
  }
}

std::string_view StatVisitor::BytesValue() const {
  return stat_->value_case() == XStat::kBytesValue ? std::string_view(stat_->bytes_value())
                                                   : std::string_view();
}

// --------------------------------------------------------------- EventVisitor

EventVisitor::EventVisitor(const tensorflow::profiler::XEvent* event,
                           const tensorflow::profiler::XLine* line,
                           const PlaneVisitor* plane)
    : event_(event),
      line_(line),
      plane_(plane),
      metadata_(&plane->EventMetadata(event->metadata_id())) {}

namespace {

// Damaged files can hold any 64-bit value; saturate instead of overflowing.
int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t out = 0;
  if (!__builtin_add_overflow(a, b, &out)) return out;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

// PsToNs adds 500 before dividing, which overflows within 500 of the
// int64 limits.
int64_t SaturatingPsToNs(int64_t ps) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  if (ps > kMax - 1000) return kMax / 1000;
  if (ps < kMin + 1000) return kMin / 1000;
  return PsToNs(ps);
}

}  // namespace

int64_t EventVisitor::start_ns() const {
  return SaturatingAdd(line_->timestamp_ns(), SaturatingPsToNs(event_->offset_ps()));
}

int64_t EventVisitor::end_ns() const {
  int64_t end_ps = SaturatingAdd(event_->offset_ps(), event_->duration_ps());
  return SaturatingAdd(line_->timestamp_ns(), SaturatingPsToNs(end_ps));
}

std::optional<StatVisitor> EventVisitor::GetStat(StatType type) const {
  for (const auto& s : event_->stats()) {
    if (plane_->StatMetadata(s.metadata_id()).type == type) return StatVisitor(&s, plane_);
  }
  if (metadata_->proto != nullptr) {
    for (const auto& s : metadata_->proto->stats()) {
      if (plane_->StatMetadata(s.metadata_id()).type == type) return StatVisitor(&s, plane_);
    }
  }
  return std::nullopt;
}

// --------------------------------------------------------------- PlaneVisitor

PlaneVisitor::PlaneVisitor(const tensorflow::profiler::XPlane& plane) : plane_(plane) {
  stat_metadata_.reserve(plane.stat_metadata_size());
  for (const auto& [id, m] : plane.stat_metadata()) {
    std::string_view name = m.name();
    stat_metadata_.emplace(id, StatMetadataInfo{name, StatTypeFromName(name)});
  }
  event_metadata_.reserve(plane.event_metadata_size());
  for (const auto& [id, m] : plane.event_metadata()) {
    event_metadata_.emplace(id, EventMetadataInfo{m.name(), m.display_name(), &m});
  }
}

const StatMetadataInfo& PlaneVisitor::StatMetadata(int64_t id) const {
  auto it = stat_metadata_.find(id);
  return it != stat_metadata_.end() ? it->second : missing_stat_;
}

const StatMetadataInfo& PlaneVisitor::CountedStatMetadata(int64_t id) const {
  auto it = stat_metadata_.find(id);
  if (it != stat_metadata_.end()) return it->second;
  ++unknown_refs_;
  return missing_stat_;
}

const EventMetadataInfo& PlaneVisitor::EventMetadata(int64_t id) const {
  auto it = event_metadata_.find(id);
  if (it != event_metadata_.end()) return it->second;
  ++unknown_refs_;
  return missing_event_;
}

std::string_view PlaneVisitor::RefName(uint64_t id) const {
  if (id > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    ++unknown_refs_;
    return {};
  }
  return CountedStatMetadata(static_cast<int64_t>(id)).name;
}

std::optional<StatVisitor> PlaneVisitor::GetStat(StatType type) const {
  for (const auto& s : plane_.stats()) {
    if (StatMetadata(s.metadata_id()).type == type) return StatVisitor(&s, this);
  }
  return std::nullopt;
}

std::string_view PlaneVisitor::Inflate(const std::string& gzip_bytes) const {
  auto it = inflated_.find(&gzip_bytes);
  if (it != inflated_.end()) return it->second;
  std::optional<std::string> text = InflateGzip(gzip_bytes);
  std::string_view view;
  if (text.has_value()) {
    inflated_storage_.push_back(std::move(*text));
    view = inflated_storage_.back();
  } else {
    ++bad_compressed_;
  }
  inflated_.emplace(&gzip_bytes, view);
  return view;
}

}  // namespace tracelint::xplane
