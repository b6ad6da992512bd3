#include "capture/convert/raw_reader.h"

#include <cstring>
#include <fstream>
#include <sstream>
#include <type_traits>

#include "capture/convert/raw_format.h"
#include "fmt/format.h"

namespace tracelint::capture {
namespace {

// Reads the fields of one payload; a field past its end keeps its default
// (a dump from an older writer), bytes after the known fields are skipped.
struct Decoder {
  std::string_view in;
  size_t pos = 0;
  bool bad = false;

  template <class... T>
  void All(T&... v) {
    (Field(v), ...);
  }
  void Field(std::string& s) {
    uint32_t size = 0;
    Field(size);
    if (size > in.size() - pos) {
      bad = true;
      return;
    }
    s.assign(in.substr(pos, size));
    pos += size;
  }
  template <class T>
  void Field(T& v) {
    static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>);
    if (pos + sizeof(T) > in.size()) {
      pos = in.size();
      return;
    }
    std::memcpy(&v, in.data() + pos, sizeof(T));
    pos += sizeof(T);
  }
};

template <class R>
bool DecodeInto(std::string_view payload, R& r) {
  Decoder d{payload};
  VisitRecordFields(d, r);
  return !d.bad;
}

template <class R>
bool Append(std::string_view payload, std::vector<R>& to) {
  R r;
  if (!DecodeInto(payload, r)) return false;
  to.push_back(std::move(r));
  return true;
}

}  // namespace

absl::StatusOr<CaptureRecords> DecodeRawCapture(std::string_view bytes, std::string_view label) {
  if (bytes.size() < kRawMagic.size() + 4 || bytes.substr(0, kRawMagic.size()) != kRawMagic) {
    return absl::InvalidArgumentError(
        fmt::format("{}: not a tracelint capture dump (no TLCAPRAW header)", label));
  }
  uint32_t version = 0;
  std::memcpy(&version, bytes.data() + kRawMagic.size(), 4);
  if (version == 0 || version > kRawVersion) {
    return absl::InvalidArgumentError(
        fmt::format("{}: capture dump version {} (this tracelint reads up to {})", label,
                    version, kRawVersion));
  }
  CaptureRecords r;
  size_t pos = kRawMagic.size() + 4;
  while (pos < bytes.size()) {
    if (bytes.size() - pos < 5) {
      r.truncated = true;
      break;
    }
    auto tag = static_cast<RawTag>(static_cast<uint8_t>(bytes[pos]));
    uint32_t size = 0;
    std::memcpy(&size, bytes.data() + pos + 1, 4);
    if (size > bytes.size() - pos - 5) {
      r.truncated = true;
      break;
    }
    std::string_view payload = bytes.substr(pos + 5, size);
    pos += 5 + size;
    bool ok = true;
    switch (tag) {
      case RawTag::kProcess: ok = DecodeInto(payload, r.process); break;
      case RawTag::kString: {
        Decoder d{payload};
        uint32_t id = 0;
        std::string text;
        d.All(id, text);
        ok = !d.bad && id < (1u << 24);
        if (ok) {
          if (id >= r.strings.size()) r.strings.resize(id + 1);
          r.strings[id] = std::move(text);
        }
        break;
      }
      case RawTag::kDevice: ok = Append(payload, r.devices); break;
      case RawTag::kContext: ok = Append(payload, r.contexts); break;
      case RawTag::kKernel: ok = Append(payload, r.kernels); break;
      case RawTag::kMemcpy: ok = Append(payload, r.memcpys); break;
      case RawTag::kMemset: ok = Append(payload, r.memsets); break;
      case RawTag::kApi: ok = Append(payload, r.apis); break;
      case RawTag::kSync: ok = Append(payload, r.syncs); break;
      case RawTag::kMarker: ok = Append(payload, r.markers); break;
      case RawTag::kGraph: ok = Append(payload, r.graphs); break;
      case RawTag::kOverhead: ok = Append(payload, r.overheads); break;
      case RawTag::kDropped: ok = Append(payload, r.dropped); break;
      case RawTag::kEnd:
        ok = DecodeInto(payload, r.end);
        r.has_end = ok;
        break;
      default: break;  // a newer writer's record
    }
    if (!ok) {
      return absl::DataLossError(fmt::format("{}: damaged capture record (tag {}) at byte {}",
                                             label, static_cast<int>(tag), pos - size - 5));
    }
  }
  return r;
}

absl::StatusOr<CaptureRecords> ReadRawCaptureFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(fmt::format("{}: cannot open", path));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return DecodeRawCapture(bytes.str(), path);
}

}  // namespace tracelint::capture
