#ifndef TRACELINT_PARSERS_FORMAT_REGISTRY_H_
#define TRACELINT_PARSERS_FORMAT_REGISTRY_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/model/timeline.h"
#include "parsers/parse_options.h"

namespace tracelint {

enum class InputFormat { kUnknown, kKinetoJson, kXSpace };
std::string_view InputFormatName(InputFormat format);

// One input format: a sniffer over the first decompressed bytes and a
// parser. Registered in exactly one place, all_formats.cc.
struct FormatEntry {
  std::string_view name;
  InputFormat format;
  bool (*sniff)(std::string_view head);
  absl::StatusOr<Timeline> (*parse)(const std::string& path, const ParseOptions& options);
};

// Every format this binary reads, in sniffing order (all_formats.cc).
const std::vector<FormatEntry>& AllFormats();

// Decompressed bytes read for sniffing.
inline constexpr size_t kSniffBytes = 64 * 1024;
// How far a JSON object with no known key in its head is scanned for one.
inline constexpr uint64_t kSniffBeyondHeadBytes = uint64_t{256} << 20;

// The format of a file from its first bytes (gzip is looked through), or
// kUnknown. Errors only when the file cannot be read.
absl::StatusOr<InputFormat> SniffTraceFile(const std::string& path);

// Why a file whose format is kUnknown cannot be read, as InvalidArgument
// naming it: "empty file", a TensorFlow/JAX trace-viewer JSON (pointing at
// the xplane.pb it renders), or "not a trace: expected ...".
absl::Status UnknownFormatError(const std::string& path);

// Sniffs, then parses with the matching format. Unknown content:
// UnknownFormatError.
absl::StatusOr<Timeline> ParseTraceFile(const std::string& path, const ParseOptions& options);

}  // namespace tracelint

#endif  // TRACELINT_PARSERS_FORMAT_REGISTRY_H_
