#ifndef TRACELINT_CLI_LIMIT_OPTIONS_H_
#define TRACELINT_CLI_LIMIT_OPTIONS_H_

#include <cstdint>
#include <string_view>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "cli/option_table.h"
#include "parsers/parse_options.h"

namespace tracelint {

// A limit's value on the command line: a count or size with an optional
// K, M or G (binary multiples: 4G, 500M), or "0" / "unlimited" for no
// cap (0).
absl::StatusOr<uint64_t> ParseLimitValue(std::string_view text);

// --max-decompressed-bytes, --max-events, --max-string-bytes and
// --max-nesting-depth (ParseLimits), shared by every command that reads
// traces (analyze, capture, batch, diff).
void DeclareLimitFlags(CommandFlags& command, ParseLimits& limits);

// --follow-links (DiscoveryOptions::follow_links), shared by the commands
// that scan directories (analyze, batch): directory scans follow symlinks
// that stay inside the scanned tree, and skip, with a warning, those that
// lead out of it unless this is given.
void DeclareFollowLinksFlag(CommandFlags& command, bool& follow_links);

}  // namespace tracelint

#endif  // TRACELINT_CLI_LIMIT_OPTIONS_H_
