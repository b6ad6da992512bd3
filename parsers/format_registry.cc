#include "parsers/format_registry.h"

#include "analyzer/base/status_macros.h"
#include "fmt/format.h"
#include "parsers/common/input_stream.h"

namespace tracelint {

std::string_view InputFormatName(InputFormat format) {
  switch (format) {
    case InputFormat::kKinetoJson: return "kineto-json";
    case InputFormat::kXSpace: return "xspace";
    case InputFormat::kUnknown: break;
  }
  return "unknown";
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
  return InputFormat::kUnknown;
}

absl::StatusOr<Timeline> ParseTraceFile(const std::string& path, const ParseOptions& options) {
  absl::StatusOr<std::string> head = ReadHead(path, kSniffBytes);
  if (!head.ok()) return head.status();
  for (const FormatEntry& entry : AllFormats()) {
    if (entry.sniff(*head)) return entry.parse(path, options);
  }
  std::string_view what = head->empty() ? "empty file" : "not a trace";
  return absl::InvalidArgumentError(fmt::format(
      "{}: {}: expected Kineto/Chrome trace JSON (.json/.json.gz) or XSpace (.xplane.pb)",
      path, what));
}

}  // namespace tracelint
