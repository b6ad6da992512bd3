#include "parsers/kineto/kineto_stamp.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <set>
#include <string_view>
#include <vector>

#include "analyzer/base/strings.h"
#include "fmt/format.h"
#include "parsers/common/input_stream.h"
#include "parsers/common/json_event_splitter.h"
#include "parsers/kineto/kineto_metadata.h"
#include "parsers/kineto/kineto_parser.h"
#include "parsers/kineto/kineto_raw.h"

namespace tracelint {
namespace {

using kineto::JsonScalar;
using kineto::RawEvent;
using kineto::RawMeta;

constexpr size_t kChunkBytes = size_t{1} << 20;
constexpr size_t kPartBytes = size_t{1} << 20;
// As the parser's default: one event larger than this is damage.
constexpr size_t kMaxEventBytes = size_t{1} << 30;

// Earliest ts of the complete events ("ph": "X") of one part: what the
// timeline's bounds start from, without building the timeline.
class FirstTimeSink : public kineto::RawEventSink {
 public:
  void OnEvent(const RawEvent& ev) override {
    if (ev.ph != "X" || ev.ts.type != JsonScalar::Type::kNumber) return;
    std::string_view text = StripAsciiWhitespace(ev.ts.text);
    double us = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), us);
    if (ec != std::errc()) return;
    TimeNs ns = static_cast<TimeNs>(us * 1000.0);
    if (min_ns_ < 0 || ns < min_ns_) min_ns_ = ns;
  }
  TimeNs min_ns() const { return min_ns_; }

 private:
  TimeNs min_ns_ = -1;
};

std::optional<int64_t> IntText(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  std::string_view s = StripAsciiWhitespace(*text);
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

void ReadMetaText(std::string_view json, RawMeta& meta) {
  if (json.empty()) return;
  PaddedJson padded;
  padded.bytes.assign(json);
  padded.json_size = padded.bytes.size();
  padded.bytes.append(kJsonPadding, '\0');
  // A key the reader cannot read is left unknown, as the parser does.
  (void)kineto::ActiveJsonReader().read_meta(padded.json(), meta);
}

// The member `"key": value` of the last occurrence of `key` in `text`, with
// its value's brackets balanced (strings respected); "" when absent or cut.
std::string_view LastMember(std::string_view text, std::string_view key) {
  std::string quoted = fmt::format("\"{}\"", key);
  size_t at = text.rfind(quoted);
  if (at == std::string_view::npos) return {};
  size_t i = at + quoted.size();
  while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' ||
                             text[i] == '\t' || text[i] == ':')) {
    ++i;
  }
  int depth = 0;
  bool in_string = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0) return text.substr(at, i - at);  // the enclosing object ends
      if (--depth == 0) return text.substr(at, i + 1 - at);
    } else if (c == ',' && depth == 0) {
      return text.substr(at, i - at);
    }
  }
  return {};
}

// Kineto's keys after the event array, from the last bytes of a file too
// large to scan: only the ones grouping reads, each taken whole or not at
// all, then read by the same JSON reader as the parser's.
void ReadTailKeys(std::string_view tail, RawMeta& meta) {
  std::string object;
  for (std::string_view key : {"deviceProperties", "distributedInfo", "baseTimeNanoseconds"}) {
    std::string_view member = LastMember(tail, key);
    if (member.empty()) continue;
    object += object.empty() ? "{" : ",";
    object += member;
  }
  if (object.empty()) return;
  object += "}";
  ReadMetaText(object, meta);
}

absl::StatusOr<std::string> ReadFileTail(const std::string& path, uint64_t bytes) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return absl::NotFoundError(fmt::format("{}: cannot open", path));
  std::string out;
  if (std::fseek(f, 0, SEEK_END) == 0) {
    long size = std::ftell(f);
    long from = size > static_cast<long>(bytes) ? size - static_cast<long>(bytes) : 0;
    if (size >= 0 && std::fseek(f, from, SEEK_SET) == 0) {
      out.resize(static_cast<size_t>(size - from));
      out.resize(std::fread(out.data(), 1, out.size(), f));
    }
  }
  std::fclose(f);
  return out;
}

}  // namespace

absl::StatusOr<KinetoStamp> ReadKinetoStamp(const std::string& path) {
  absl::StatusOr<std::unique_ptr<InputStream>> opened = InputStream::Open(path);
  if (!opened.ok()) return opened.status();
  InputStream& in = **opened;
  const bool scan_all = in.file_bytes() <= kKinetoFullScanBytes;
  JsonEventSplitter splitter(kPartBytes, kMaxEventBytes);
  RawMeta meta;
  std::optional<std::string> base_before_events;
  FirstTimeSink first;
  bool first_part_read = false;
  bool ended = false;
  std::string buf(kChunkBytes, '\0');
  // The head (and, for a small file, everything): top-level keys and the
  // first part of the events; later parts are dropped unread.
  while (scan_all || !first_part_read) {
    absl::StatusOr<size_t> n = in.Read(buf.data(), buf.size());
    if (!n.ok()) return n.status();
    if (*n == 0) {
      splitter.Finish();
      ended = true;
    } else if (absl::Status s = splitter.Feed(std::string_view(buf.data(), *n)); !s.ok()) {
      if (splitter.events_seen() == 0) {
        return absl::InvalidArgumentError(
            fmt::format("{}: not a trace: {}", path, std::string(s.message())));
      }
      ended = true;  // damage: what was read stands, as in the parser
    }
    if (splitter.events_started() && !base_before_events.has_value()) {
      PaddedJson head = splitter.TakeMeta();
      ReadMetaText(head.json(), meta);
      base_before_events = meta.base_time_text.value_or("");
    }
    for (JsonPart& part : splitter.TakeParts()) {
      if (first_part_read) continue;
      (void)kineto::ActiveJsonReader().read_events(part.text.json(), first);
      first_part_read = true;
    }
    if (ended) break;
  }
  if (!splitter.events_started()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: not a trace: no traceEvents array in its top-level keys", path));
  }
  KinetoStamp stamp;
  if (ended) {
    ReadMetaText(splitter.TakeMeta().json(), meta);
    stamp.tail_read = true;
  } else if (!in.compressed()) {
    absl::StatusOr<std::string> tail = ReadFileTail(path, kKinetoTailBytes);
    if (!tail.ok()) return tail.status();
    ReadTailKeys(*tail, meta);
    stamp.tail_read = true;
  }
  RunMetadata& m = stamp.metadata;
  m.source_path = path;
  m.format = "kineto-json";
  // The stamp reads no events: only Kineto's top-level keys make the file
  // PyTorch's here; without them the framework is left unknown (it never
  // keeps two files from being one run).
  if (kineto::HasKinetoEvidence(0, meta)) m.framework = "PyTorch";
  for (const kineto::RawDevice& d : meta.devices) {
    DeviceInfo info;
    info.id = static_cast<int>(d.id);
    info.name = d.name;
    m.devices.push_back(std::move(info));
  }
  m.rank = static_cast<int>(IntText(meta.rank_text).value_or(-1));
  if (m.rank < 0) m.rank = kineto::RankFromFileName(path);
  m.world_size = static_cast<int>(IntText(meta.world_size_text).value_or(-1));
  m.host_name = meta.host_name;
  m.trace_name = meta.trace_name;
  TimeNs base_ns = IntText(meta.base_time_text).value_or(0);
  if (base_before_events && !base_before_events->empty()) {
    m.base_time_ns = base_ns;
  } else {
    m.late_base_time_ns = base_ns;
  }
  if (first.min_ns() >= 0) stamp.first_event_ns = first.min_ns() + m.base_time_ns;
  return stamp;
}

}  // namespace tracelint
