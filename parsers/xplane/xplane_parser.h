#ifndef TRACELINT_PARSERS_XPLANE_XPLANE_PARSER_H_
#define TRACELINT_PARSERS_XPLANE_XPLANE_PARSER_H_

// XSpace (`<host>.xplane.pb`, TensorFlow / JAX / XLA profiler) input.
//
// One file is one host: it becomes one Timeline (one "rank" of a Run). A
// multi-host TensorBoard run directory holds one file per host; discovery
// (parsers/tensorboard) lists them and each is parsed on its own.

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "analyzer/model/timeline.h"
#include "analyzer/model/timeline_builder.h"
#include "parsers/parse_options.h"

namespace tracelint {

// Protobuf has no magic number: true when `head_bytes` (the first bytes of
// a file, 64+ recommended) start with a length-delimited field 1 (an XPlane)
// whose own fields are consistent as far as the head reaches, and do not
// look like text.
bool SniffXSpace(std::string_view head_bytes);

// Parses a whole file (memory-mapped). Errors name the file and say what
// failed: unreadable, not an XSpace, truncated (byte offset), malformed
// (plane, field path, byte offset), or a plane over protobuf's 2 GiB limit.
absl::StatusOr<Timeline> ParseXSpaceFile(const std::string& path);
// The format registry's signature. XSpace planes are parsed one after the
// other; of the limits, max_events applies (the first events in processing
// order are kept, with a limit_reached warning naming --max-events).
absl::StatusOr<Timeline> ParseXSpaceFile(const std::string& path, const ParseOptions& options);

// Same, from bytes already in memory; `path_for_messages` names the input
// in errors and gives the host name ("<host>.xplane.pb").
// `max_events`: ParseLimits::max_events resolved (0: no cap).
// `account` (may be null): the memory ledger's account the builder is
// charged to; reading stops (limit_reached) once the ledger says so.
absl::StatusOr<Timeline> ParseXSpaceBytes(std::string_view bytes,
                                          const std::string& path_for_messages,
                                          int64_t max_events = 0,
                                          MemoryLedger::Account* account = nullptr);

// The building step alone, for callers that combine inputs before
// finalizing. Sets metadata (format "xspace", framework guess, devices,
// host name) on `builder`.
absl::Status ParseXSpaceInto(std::string_view bytes, const std::string& path_for_messages,
                             TimelineBuilder& builder, int64_t max_events = 0,
                             MemoryLedger::Account* account = nullptr);

// "<dir>/10.0.0.1_6009.xplane.pb" -> "10.0.0.1_6009".
std::string XSpaceHostNameFromPath(std::string_view path);

}  // namespace tracelint

#endif  // TRACELINT_PARSERS_XPLANE_XPLANE_PARSER_H_
