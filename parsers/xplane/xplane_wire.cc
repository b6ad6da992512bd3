#include "parsers/xplane/xplane_wire.h"

#include <algorithm>

#include <fmt/format.h>

#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"

namespace tracelint::xplane {
namespace {

enum WireType : uint8_t {
  kVarint = 0, kFixed64 = 1, kLen = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5,
};

// A forward reader over raw bytes; positions are relative to `data`.
class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}

  bool done() const { return pos_ >= data_.size(); }
  size_t pos() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }

  bool ReadVarint(uint64_t& out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (pos_ >= data_.size()) return false;
      uint8_t b = static_cast<uint8_t>(data_[pos_++]);
      if (shift == 63 && b > 1) return false;
      v |= uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) {
        out = v;
        return true;
      }
    }
    return false;
  }
  bool Skip(size_t n) {
    if (n > remaining()) return false;
    pos_ += n;
    return true;
  }
  std::string_view Take(size_t n) {
    std::string_view s = data_.substr(pos_, n);
    pos_ += n;
    return s;
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

enum class Msg : uint8_t {
  kNone, kXPlane, kXLine, kXEvent, kXStat, kXEventMetadata, kXStatMetadata,
  kEventMetadataEntry, kStatMetadataEntry,
};

struct FieldRule {
  Msg msg;
  uint32_t number;
  uint8_t wire_type;
  Msg child;  // kNone: a scalar or string
  const char* name;
};

// The schema of xplane.proto, enough to walk it (docs/design/formats.md C.1).
constexpr FieldRule kRules[] = {
    {Msg::kXPlane, 1, kVarint, Msg::kNone, "id"},
    {Msg::kXPlane, 2, kLen, Msg::kNone, "name"},
    {Msg::kXPlane, 3, kLen, Msg::kXLine, "lines"},
    {Msg::kXPlane, 4, kLen, Msg::kEventMetadataEntry, "event_metadata"},
    {Msg::kXPlane, 5, kLen, Msg::kStatMetadataEntry, "stat_metadata"},
    {Msg::kXPlane, 6, kLen, Msg::kXStat, "stats"},
    {Msg::kXLine, 1, kVarint, Msg::kNone, "id"},
    {Msg::kXLine, 10, kVarint, Msg::kNone, "display_id"},
    {Msg::kXLine, 2, kLen, Msg::kNone, "name"},
    {Msg::kXLine, 11, kLen, Msg::kNone, "display_name"},
    {Msg::kXLine, 3, kVarint, Msg::kNone, "timestamp_ns"},
    {Msg::kXLine, 9, kVarint, Msg::kNone, "duration_ps"},
    {Msg::kXLine, 4, kLen, Msg::kXEvent, "events"},
    {Msg::kXEvent, 1, kVarint, Msg::kNone, "metadata_id"},
    {Msg::kXEvent, 2, kVarint, Msg::kNone, "offset_ps"},
    {Msg::kXEvent, 5, kVarint, Msg::kNone, "num_occurrences"},
    {Msg::kXEvent, 3, kVarint, Msg::kNone, "duration_ps"},
    {Msg::kXEvent, 4, kLen, Msg::kXStat, "stats"},
    {Msg::kXStat, 1, kVarint, Msg::kNone, "metadata_id"},
    {Msg::kXStat, 2, kFixed64, Msg::kNone, "double_value"},
    {Msg::kXStat, 3, kVarint, Msg::kNone, "uint64_value"},
    {Msg::kXStat, 4, kVarint, Msg::kNone, "int64_value"},
    {Msg::kXStat, 5, kLen, Msg::kNone, "str_value"},
    {Msg::kXStat, 6, kLen, Msg::kNone, "bytes_value"},
    {Msg::kXStat, 7, kVarint, Msg::kNone, "ref_value"},
    {Msg::kXStat, 8, kLen, Msg::kNone, "compressed_str_value"},
    {Msg::kXEventMetadata, 1, kVarint, Msg::kNone, "id"},
    {Msg::kXEventMetadata, 2, kLen, Msg::kNone, "name"},
    {Msg::kXEventMetadata, 4, kLen, Msg::kNone, "display_name"},
    {Msg::kXEventMetadata, 3, kLen, Msg::kNone, "metadata"},
    {Msg::kXEventMetadata, 5, kLen, Msg::kXStat, "stats"},
    {Msg::kXEventMetadata, 6, kVarint, Msg::kNone, "child_id"},
    {Msg::kXEventMetadata, 6, kLen, Msg::kNone, "child_id"},  // packed
    {Msg::kXStatMetadata, 1, kVarint, Msg::kNone, "id"},
    {Msg::kXStatMetadata, 2, kLen, Msg::kNone, "name"},
    {Msg::kXStatMetadata, 3, kLen, Msg::kNone, "description"},
    {Msg::kEventMetadataEntry, 1, kVarint, Msg::kNone, "key"},
    {Msg::kEventMetadataEntry, 2, kLen, Msg::kXEventMetadata, "value"},
    {Msg::kStatMetadataEntry, 1, kVarint, Msg::kNone, "key"},
    {Msg::kStatMetadataEntry, 2, kLen, Msg::kXStatMetadata, "value"},
};

const FieldRule* FindRule(Msg msg, uint32_t number, uint8_t wire_type) {
  for (const FieldRule& r : kRules) {
    if (r.msg == msg && r.number == number && r.wire_type == wire_type) return &r;
  }
  return nullptr;
}

std::string JoinPath(const std::string& path, const char* name, int index) {
  std::string p = path.empty() ? std::string(name) : fmt::format("{}.{}", path, name);
  if (index >= 0) p += fmt::format("[{}]", index);
  return p;
}

// Skips one field's payload (unknown fields too). Returns an error text.
std::optional<std::string> SkipPayload(WireReader& r, uint8_t wire_type, uint32_t number,
                                       int64_t base) {
  uint64_t v = 0;
  switch (wire_type) {
    case kVarint:
      if (!r.ReadVarint(v)) return fmt::format("bad varint in field {} at byte {}", number, base + r.pos());
      return std::nullopt;
    case kFixed64:
      if (!r.Skip(8)) return fmt::format("input ends inside 8-byte field {} at byte {}", number, base + r.pos());
      return std::nullopt;
    case kFixed32:
      if (!r.Skip(4)) return fmt::format("input ends inside 4-byte field {} at byte {}", number, base + r.pos());
      return std::nullopt;
    case kLen: {
      size_t at = r.pos();
      if (!r.ReadVarint(v)) return fmt::format("bad length varint of field {} at byte {}", number, base + at);
      if (v > r.remaining()) {
        return fmt::format("field {} at byte {} declares {} bytes but only {} remain (truncated?)",
                           number, base + at, v, r.remaining());
      }
      r.Skip(static_cast<size_t>(v));
      return std::nullopt;
    }
    default:
      return fmt::format("unsupported wire type {} (field {}) at byte {}", wire_type, number,
                         base + r.pos());
  }
}

// Walks `data` as message `msg`; returns the first problem found.
std::optional<std::string> CheckMessage(std::string_view data, int64_t base, Msg msg,
                                        const std::string& path) {
  WireReader r(data);
  absl::flat_hash_map<uint32_t, int> index_of_field;
  while (!r.done()) {
    size_t tag_at = r.pos();
    uint64_t tag = 0;
    std::string where = path.empty() ? "" : path + ": ";
    if (!r.ReadVarint(tag)) return fmt::format("{}bad tag varint at byte {}", where, base + tag_at);
    uint32_t number = static_cast<uint32_t>(tag >> 3);
    uint8_t wire_type = static_cast<uint8_t>(tag & 7);
    if (number == 0 || tag > 0xffffffffu) {
      return fmt::format("{}invalid field number {} at byte {}", where, tag >> 3, base + tag_at);
    }
    if (wire_type > kFixed32 || wire_type == kStartGroup || wire_type == kEndGroup) {
      return fmt::format("{}invalid wire type {} at byte {}", where, wire_type, base + tag_at);
    }
    const FieldRule* rule = FindRule(msg, number, wire_type);
    if (rule == nullptr || rule->child == Msg::kNone) {
      if (auto err = SkipPayload(r, wire_type, number, base)) return where + *err;
      continue;
    }
    size_t len_at = r.pos();
    uint64_t len = 0;
    if (!r.ReadVarint(len)) {
      return fmt::format("{}bad length varint of {} at byte {}", where, rule->name, base + len_at);
    }
    std::string child_path = JoinPath(path, rule->name, index_of_field[number]++);
    if (len > r.remaining()) {
      return fmt::format("{}: declares {} bytes at byte {} but only {} remain (truncated?)",
                         child_path, len, base + len_at, r.remaining());
    }
    int64_t child_base = base + static_cast<int64_t>(r.pos());
    if (auto err = CheckMessage(r.Take(static_cast<size_t>(len)), child_base, rule->child,
                                child_path)) {
      return err;
    }
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<XSpaceTopLevel> SplitXSpace(std::string_view bytes) {
  XSpaceTopLevel out;
  WireReader r(bytes);
  while (!r.done()) {
    size_t tag_at = r.pos();
    uint64_t tag = 0;
    // Fewer than a varint's 10 bytes left, each with its continuation bit:
    // the input was cut inside the tag (or the length below).
    auto cut_inside_varint = [&](size_t at) {
      std::string_view rest = bytes.substr(at);
      return rest.size() < 10 &&
             std::all_of(rest.begin(), rest.end(), [](char c) { return (c & 0x80) != 0; });
    };
    auto truncated = [&](std::string what) {
      out.truncated_at = static_cast<int64_t>(tag_at);
      out.truncation = std::move(what);
      return out;
    };
    if (!r.ReadVarint(tag)) {
      if (cut_inside_varint(tag_at)) {
        return truncated(
            fmt::format("the file is truncated inside a field tag at byte {}", tag_at));
      }
      return absl::DataLossError(fmt::format("bad tag varint at byte {}", tag_at));
    }
    uint32_t number = static_cast<uint32_t>(tag >> 3);
    uint8_t wire_type = static_cast<uint8_t>(tag & 7);
    if (number == 0 || wire_type > kFixed32 || wire_type == kStartGroup ||
        wire_type == kEndGroup) {
      return absl::DataLossError(fmt::format(
          "invalid XSpace field (number {}, wire type {}) at byte {}", tag >> 3, wire_type, tag_at));
    }
    if (wire_type != kLen || number > 4) {
      if (auto err = SkipPayload(r, wire_type, number, 0)) return absl::DataLossError(*err);
      continue;
    }
    size_t len_at = r.pos();
    uint64_t len = 0;
    if (!r.ReadVarint(len)) {
      if (cut_inside_varint(len_at)) {
        return truncated(
            fmt::format("the file is truncated inside the length at byte {}", len_at));
      }
      return absl::DataLossError(fmt::format("bad length varint at byte {}", len_at));
    }
    if (len > r.remaining()) {
      std::string what = number == 1 ? fmt::format("plane #{}", out.planes.size())
                                     : fmt::format("field {}", number);
      // No real plane reaches a TiB: such a length is garbage, not a cut-off file.
      if (len > (uint64_t{1} << 40)) {
        return absl::DataLossError(fmt::format(
            "{} at byte {} declares {} bytes, more than the whole input ({} bytes): corrupt "
            "data, or not an XSpace",
            what, tag_at, len, bytes.size()));
      }
      return truncated(fmt::format(
          "{} at byte {} declares {} bytes but the input ends {} bytes later: the file is "
          "truncated",
          what, tag_at, len, r.remaining()));
    }
    int64_t at = static_cast<int64_t>(r.pos());
    std::string_view payload = r.Take(static_cast<size_t>(len));
    switch (number) {
      case 1: out.planes.push_back({payload, at}); break;
      case 2: out.errors.emplace_back(payload); break;
      case 3: out.warnings.emplace_back(payload); break;
      case 4: out.hostnames.emplace_back(payload); break;
    }
  }
  return out;
}

std::string_view PeekPlaneName(std::string_view plane_bytes) {
  WireReader r(plane_bytes);
  while (!r.done()) {
    uint64_t tag = 0;
    if (!r.ReadVarint(tag)) return {};
    uint32_t number = static_cast<uint32_t>(tag >> 3);
    uint8_t wire_type = static_cast<uint8_t>(tag & 7);
    if (number == 2 && wire_type == kLen) {
      uint64_t len = 0;
      if (!r.ReadVarint(len) || len > r.remaining()) return {};
      return r.Take(static_cast<size_t>(len));
    }
    if (SkipPayload(r, wire_type, number, 0).has_value()) return {};
  }
  return {};
}

std::string DescribeXPlaneWireError(std::string_view plane_bytes, int64_t base_offset) {
  return CheckMessage(plane_bytes, base_offset, Msg::kXPlane, "").value_or("");
}

bool LooksLikeXSpace(std::string_view head) {
  if (head.size() < 2 || static_cast<uint8_t>(head[0]) != 0x0A) return false;
  // Text (JSON starting with a newline, CSV, ...) is never an XSpace: every
  // real XPlane puts control bytes (tags 0x08/0x12, varint lengths) early.
  bool has_binary = false;
  for (size_t i = 0; i < head.size() && i < 64; ++i) {
    unsigned char c = static_cast<unsigned char>(head[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) has_binary = true;
  }
  if (!has_binary) return false;
  WireReader r(head.substr(1));
  uint64_t plane_len = 0;
  if (!r.ReadVarint(plane_len) || plane_len == 0) return false;
  size_t plane_end = r.pos() + (plane_len < r.remaining() ? plane_len : r.remaining());
  int fields_checked = 0;
  while (r.pos() < plane_end) {
    uint64_t tag = 0;
    if (!r.ReadVarint(tag)) return fields_checked > 0 && r.done();
    uint32_t number = static_cast<uint32_t>(tag >> 3);
    uint8_t wire_type = static_cast<uint8_t>(tag & 7);
    if (FindRule(Msg::kXPlane, number, wire_type) == nullptr) return false;
    ++fields_checked;
    if (wire_type == kVarint) {
      uint64_t v = 0;
      if (!r.ReadVarint(v)) return r.done();
      continue;
    }
    uint64_t len = 0;
    if (!r.ReadVarint(len)) return r.done();
    if (len > plane_len) return false;
    if (len > r.remaining()) return true;  // runs past the head: consistent so far
    r.Skip(static_cast<size_t>(len));
  }
  return fields_checked > 0;
}

}  // namespace tracelint::xplane
