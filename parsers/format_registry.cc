#include "parsers/format_registry.h"

#include <zlib.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "analyzer/base/status_macros.h"
#include "fmt/format.h"
#include "parsers/common/input_stream.h"
#include "parsers/kineto/kineto_parser.h"

namespace tracelint {

std::string_view InputFormatName(InputFormat format) {
  switch (format) {
    case InputFormat::kKinetoJson: return "kineto-json";
    case InputFormat::kXSpace: return "xspace";
    case InputFormat::kUnknown: break;
  }
  return "unknown";
}

namespace {

// Metadata before the first key the sniffers know can outgrow the head
// (a valid trace with > 64 KiB of it): a full head that opens a JSON object
// is looked at further.
bool MaybeKinetoBeyondHead(const std::string& path, std::string_view head) {
  if (head.size() < kSniffBytes) return false;
  size_t first = head.find_first_not_of(" \t\r\n");
  if (head.starts_with("\xEF\xBB\xBF")) first = head.find_first_not_of(" \t\r\n", 3);
  if (first == std::string_view::npos || head[first] != '{') return false;
  return SniffKinetoJsonBeyondHead(path, kSniffBeyondHeadBytes);
}

// Files that sit beside traces and get passed by mistake: what they are
// and what to analyze instead, rather than a bare "not a trace".
std::optional<std::string> NamedNonTrace(std::string_view head) {
  size_t first = head.find_first_not_of(" \t\r\n");
  std::string_view body = first == std::string_view::npos ? "" : head.substr(first);
  // TensorFlow/JAX's trace-viewer JSON (xprof's trace_events_to_json) is a
  // Chrome trace, but a rendering of the XSpace beside it, without the
  // categories the rules read.
  if (head.find("\"highres-ticks\"") != std::string_view::npos) {
    return "a TensorFlow/JAX trace-viewer JSON (xprof), which tracelint does not read: analyze "
           "the profile's <host>.xplane.pb beside it, or its plugins/profile directory";
  }
  // torch.profiler.ExecutionTraceObserver (Chakra): the op graph, no times
  // on the device.
  if (body.starts_with("{") && head.find("\"schema\"") != std::string_view::npos &&
      head.find("\"nodes\"") != std::string_view::npos) {
    return "a PyTorch execution trace (ExecutionTraceObserver/Chakra: the op graph, without "
           "device times), not a profiler trace: analyze the torch.profiler trace of the same "
           "run (the .pt.trace.json written beside it)";
  }
  // torch.profiler's export_memory_timeline raw output: [[ts, action,
  // [device type, index], bytes, category], ...].
  if (body.starts_with("[[") || body.starts_with("[ [")) {
    return "a JSON array of arrays (such as torch.profiler's export_memory_timeline output), "
           "not a trace of events: analyze the trace from export_chrome_trace or "
           "tensorboard_trace_handler";
  }
  if (head.starts_with("SQLite format 3")) {
    return "an SQLite database (such as an Nsight Systems export), which tracelint does not "
           "read: record the run with torch.profiler or `tracelint capture`";
  }
  // A Python pickle (protocol 2+), such as torch.cuda.memory._dump_snapshot.
  if (head.size() >= 2 && head[0] == '\x80' && head[1] >= 2 && head[1] <= 5) {
    return "a Python pickle (such as a torch.cuda.memory snapshot), not a trace: analyze the "
           "torch.profiler trace of the run";
  }
  return std::nullopt;
}

// A gzip file cut inside its header (RFC 1952: 10 fixed bytes, then the
// optional extra field, name, comment and header CRC the flags announce)
// inflates to nothing; say so instead of calling it empty.
std::optional<std::string> TruncatedGzipHeader(std::string_view raw) {
  if (raw.empty() || static_cast<unsigned char>(raw[0]) != 0x1f) return std::nullopt;
  if (raw.size() >= 2 && static_cast<unsigned char>(raw[1]) != 0x8b) return std::nullopt;
  auto cut = [&] {
    return fmt::format("truncated gzip header: the input ends after {} byte(s), inside the "
                       "gzip header, before any compressed data",
                       raw.size());
  };
  constexpr size_t kFixed = 10;
  if (raw.size() < kFixed) return cut();
  const auto flags = static_cast<unsigned char>(raw[3]);
  size_t at = kFixed;
  if (flags & 0x04) {  // FEXTRA: a 2-byte length, then that many bytes
    if (raw.size() < at + 2) return cut();
    at += 2 + (static_cast<unsigned char>(raw[at]) | (static_cast<unsigned char>(raw[at + 1]) << 8));
    if (raw.size() < at) return cut();
  }
  for (unsigned char zero_terminated : {0x08, 0x10}) {  // FNAME, FCOMMENT
    if (!(flags & zero_terminated)) continue;
    size_t end = raw.find('\0', at);
    if (end == std::string_view::npos) return cut();
    at = end + 1;
  }
  if (flags & 0x02) at += 2;  // FHCRC
  if (raw.size() < at) return cut();
  if (raw.size() == at) {
    return fmt::format("truncated gzip stream: the input ends right after its {}-byte gzip "
                       "header, before any compressed data",
                       at);
  }
  return std::nullopt;
}

// The first decompressed bytes of a gzip head (fewer when it is damaged or
// short).
std::string InflateHead(std::string_view gz, size_t max_bytes) {
  std::string out(max_bytes, '\0');
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return {};
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  while (z.avail_out > 0 && z.avail_in > 0) {
    int rc = inflate(&z, Z_NO_FLUSH);
    if (rc == Z_STREAM_END && z.avail_in > 0) {
      inflateReset(&z);  // the next member
      continue;
    }
    if (rc != Z_OK) break;
  }
  out.resize(out.size() - z.avail_out);
  inflateEnd(&z);
  return out;
}

}  // namespace

InputFormat SniffTraceHead(std::string_view raw_head, std::string* why) {
  std::string inflated;
  std::string_view head = raw_head;
  const bool gzip = raw_head.size() >= 2 && static_cast<unsigned char>(raw_head[0]) == 0x1f &&
                    static_cast<unsigned char>(raw_head[1]) == 0x8b;
  if (gzip) {
    inflated = InflateHead(raw_head, kSniffBytes);
    head = inflated;
  }
  for (const FormatEntry& entry : AllFormats()) {
    if (entry.sniff(head)) return entry.format;
  }
  size_t first = head.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  first = head.find_first_not_of(" \t\r\n", first);
  std::optional<std::string> named = NamedNonTrace(head);
  if (!named && first != std::string_view::npos && (head[first] == '{' || head[first] == '[')) {
    return InputFormat::kKinetoJson;
  }
  if (why != nullptr) {
    std::optional<std::string> cut_header =
        inflated.empty() ? TruncatedGzipHeader(raw_head) : std::nullopt;
    *why = named                            ? *named
           : raw_head.empty()               ? "empty input; expected a trace"
           : cut_header                     ? *cut_header
           : gzip && inflated.empty()       ? "gzip data that does not inflate: not a trace"
                                            : "not a trace: " + ExpectedInputText();
  }
  return InputFormat::kUnknown;
}

absl::StatusOr<InputFormat> SniffTraceFile(const std::string& path) {
  absl::StatusOr<std::string> head = ReadHead(path, kSniffBytes);
  if (!head.ok()) {
    // A gzip file too damaged to yield a byte is not a trace we can read.
    if (absl::IsInvalidArgument(head.status())) return InputFormat::kUnknown;
    return head.status();
  }
  for (const FormatEntry& entry : AllFormats()) {
    if (entry.sniff(*head)) return entry.format;
  }
  if (MaybeKinetoBeyondHead(path, *head)) return InputFormat::kKinetoJson;
  return InputFormat::kUnknown;
}

absl::Status UnknownFormatError(const std::string& path) {
  absl::StatusOr<std::string> head = ReadHead(path, kSniffBytes);
  if (!head.ok() && !absl::IsInvalidArgument(head.status())) return head.status();
  if (head.ok()) {
    if (std::optional<std::string> what = NamedNonTrace(*head)) {
      return absl::InvalidArgumentError(fmt::format("{}: {}", path, *what));
    }
  }
  std::error_code ec;
  const uint64_t file_size = std::filesystem::file_size(path, ec);
  if (!ec && file_size > 0 && (!head.ok() || head->size() <= 1)) {
    // Nothing inflated: a gzip file cut inside its header says so.
    absl::StatusOr<std::string> raw = ReadRawHead(path, kSniffBytes);
    if (raw.ok()) {
      if (std::optional<std::string> cut = TruncatedGzipHeader(*raw)) {
        return absl::InvalidArgumentError(fmt::format("{}: {}", path, *cut));
      }
    }
  }
  if (head.ok() && head->size() >= kSniffBytes) {
    size_t first = head->find_first_not_of(" \t\r\n", head->starts_with("\xEF\xBB\xBF") ? 3 : 0);
    if (first != std::string::npos && (*head)[first] == '{') {
      // A JSON object whose trace keys were not found where they were looked for.
      return absl::InvalidArgumentError(fmt::format(
          "{}: not a trace: a JSON object with no \"traceEvents\" (or other trace key) in its "
          "first {} MiB, the metadata scan limit; {}",
          path, kSniffBeyondHeadBytes >> 20, ExpectedInputText()));
    }
  }
  bool empty = (head.ok() && head->empty()) || file_size == 0;
  std::string_view what = empty && !ec ? "empty file" : "not a trace";
  return absl::InvalidArgumentError(fmt::format("{}: {}: {}", path, what, ExpectedInputText()));
}

const FormatEntry* FormatByExtension(std::string_view file_name) {
  const FormatEntry* best = nullptr;
  size_t best_size = 0;
  for (const FormatEntry& entry : AllFormats()) {
    for (std::string_view ext : entry.extensions) {
      if (file_name.ends_with(ext) && ext.size() > best_size) {
        best = &entry;
        best_size = ext.size();
      }
    }
  }
  return best;
}

std::string StripTraceExtension(std::string_view file_name) {
  for (const FormatEntry& entry : AllFormats()) {
    for (std::string_view ext : entry.extensions) {
      if (file_name.ends_with(ext)) return std::string(file_name.substr(0, file_name.size() - ext.size()));
    }
  }
  return std::string(file_name);
}

std::optional<std::string_view> StripRunFileSuffix(std::string_view file_name) {
  for (const FormatEntry& entry : AllFormats()) {
    for (std::string_view suffix : entry.run_file_suffixes) {
      if (file_name.ends_with(suffix)) return file_name.substr(0, file_name.size() - suffix.size());
    }
  }
  return std::nullopt;
}

std::string InputExtensionsText() {
  std::vector<std::string_view> all;
  for (const FormatEntry& entry : AllFormats()) {
    // Shortest first reads naturally: .json, .json.gz.
    for (auto it = entry.extensions.rbegin(); it != entry.extensions.rend(); ++it) all.push_back(*it);
  }
  return fmt::format("{}", fmt::join(all, ", "));
}

std::string ExpectedInputText() {
  std::vector<std::string> each;
  for (const FormatEntry& entry : AllFormats()) {
    std::vector<std::string_view> exts(entry.extensions.rbegin(), entry.extensions.rend());
    each.push_back(fmt::format("{} ({})", entry.description, fmt::join(exts, "/")));
  }
  return fmt::format("expected {}", fmt::join(each, " or "));
}

absl::StatusOr<Timeline> ParseTraceFile(const std::string& path, const ParseOptions& options) {
  absl::StatusOr<std::string> head = ReadHead(path, kSniffBytes);
  if (!head.ok()) return head.status();
  for (const FormatEntry& entry : AllFormats()) {
    if (entry.sniff(*head)) return entry.parse(path, options);
  }
  if (MaybeKinetoBeyondHead(path, *head)) return ParseKinetoJsonFile(path, options);
  return UnknownFormatError(path);
}

}  // namespace tracelint
