#ifndef TRACELINT_PARSERS_FORMAT_REGISTRY_H_
#define TRACELINT_PARSERS_FORMAT_REGISTRY_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/model/timeline.h"
#include "parsers/parse_options.h"

namespace tracelint {

enum class InputFormat { kUnknown, kKinetoJson, kXSpace };
std::string_view InputFormatName(InputFormat format);

// One input format: a sniffer over the first decompressed bytes, a parser,
// and what discovery needs to find its files. Registered in exactly one
// place, all_formats.cc; discovery, error messages and --help ask this table.
struct FormatEntry {
  std::string_view name;
  InputFormat format;
  bool (*sniff)(std::string_view head);
  absl::StatusOr<Timeline> (*parse)(const std::string& path, const ParseOptions& options);
  std::string_view description;  // "Kineto/Chrome trace JSON"
  // The file name endings a directory scan considers, longest first
  // (".json.gz" before ".json").
  std::vector<std::string_view> extensions;
  // Endings the profiler itself writes for one worker's file of a run
  // ("<worker>.<span>.pt.trace.json"); a file so named is kept whatever it
  // holds, so that a damaged one is reported rather than skipped.
  std::vector<std::string_view> run_file_suffixes;
  // A file with one of `extensions` is this format even when its head does
  // not sniff (a protobuf has no magic bytes).
  bool known_by_extension = false;
};

// Every format this binary reads, in sniffing order (all_formats.cc).
const std::vector<FormatEntry>& AllFormats();

// The format whose extension `file_name` ends with (the longest match), or
// nullptr.
const FormatEntry* FormatByExtension(std::string_view file_name);
// `file_name` without the extension of its format ("host.xplane.pb" ->
// "host"); unchanged when it has none.
std::string StripTraceExtension(std::string_view file_name);
// The file name, without `suffix` of a profiler-written run file
// (FormatEntry::run_file_suffixes), when it ends with one; nullopt otherwise.
std::optional<std::string_view> StripRunFileSuffix(std::string_view file_name);
// Every extension, for --help: ".json, .json.gz, .xplane.pb".
std::string InputExtensionsText();
// What an input must be, for errors: "expected Kineto/Chrome trace JSON
// (.json/.json.gz) or XSpace (.xplane.pb)".
std::string ExpectedInputText();

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

// The format of input whose first bytes are `raw_head` (gzip looked
// through), as far as a head can tell, for input that is not a file yet
// (stdin, a pipe): a JSON object or array whose known keys lie beyond the
// head counts as kKinetoJson (SniffTraceFile looks further once the file is
// there). kUnknown: not a trace, and `why` (when given) says what it is
// ("empty input", a named non-trace, "not a trace: expected ...").
InputFormat SniffTraceHead(std::string_view raw_head, std::string* why = nullptr);

// Sniffs, then parses with the matching format. Unknown content:
// UnknownFormatError.
absl::StatusOr<Timeline> ParseTraceFile(const std::string& path, const ParseOptions& options);

}  // namespace tracelint

#endif  // TRACELINT_PARSERS_FORMAT_REGISTRY_H_
