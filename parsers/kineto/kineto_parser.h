#ifndef TRACELINT_PARSERS_KINETO_KINETO_PARSER_H_
#define TRACELINT_PARSERS_KINETO_KINETO_PARSER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "analyzer/model/timeline.h"
#include "parsers/kineto/kineto_raw.h"
#include "parsers/parse_options.h"

namespace tracelint {

// True when decompressed head bytes look like a Kineto / Chrome trace: a
// JSON object with traceEvents (or Kineto's leading keys), or a bare array
// of event objects. TensorFlow/xprof's trace.json ("highres-ticks") is not
// accepted: it renders the xplane.pb beside it, which is read instead (JAX's
// perfetto_trace.json.gz, the same without "metadata", is read:
// chrome_device_tracks.h).
bool SniffKinetoJson(std::string_view head);

// For a JSON object whose head holds none of the keys above (more metadata
// before them than the head holds): scans its top-level keys, at most
// `max_bytes` of it, for the traceEvents array.
bool SniffKinetoJsonBeyondHead(const std::string& path, uint64_t max_bytes);

// Parses a .json or .json.gz (gzip found by magic) Kineto trace. Not a trace
// or unreadable: a Status naming the file. Truncated or damaged input: an OK
// timeline with metadata().truncated and import diagnostics.
absl::StatusOr<Timeline> ParseKinetoJsonFile(const std::string& path,
                                             const ParseOptions& options);

namespace kineto {

// As above with a chosen JSON reader (tests compare the kernels).
absl::StatusOr<Timeline> ParseKinetoJsonFileWith(const std::string& path,
                                                 const ParseOptions& options,
                                                 const JsonReader& reader);

// The PyTorch version the trace's features point to (docs/design/formats.md A.10),
// phrased as a guess.
std::string GuessPytorchVersion(uint32_t features, const RawMeta& meta, bool bare_array);

// "rank-3", "rank_3", "rank3" anywhere in the file name; -1 when absent.
int RankFromFileName(std::string_view path);

}  // namespace kineto
}  // namespace tracelint

#endif  // TRACELINT_PARSERS_KINETO_KINETO_PARSER_H_
