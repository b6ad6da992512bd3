#include "cli/limit_options.h"

#include <functional>
#include <string>

#include "analyzer/base/byte_size.h"
#include "analyzer/base/strings.h"

namespace tracelint {
namespace {

// A limit option: `set` receives the parsed value (0: no cap).
void AddLimit(CommandFlags& flags, const std::string& name, const std::string& type,
              const std::string& help, std::function<void(uint64_t)> set) {
  flags
      .Callback(
          name, [set](const std::string& text) { set(*ParseLimitValue(text)); }, help,
          type == "SIZE" ? "size" : "int", "")
      ->type_name(type)
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            absl::StatusOr<uint64_t> v = ParseLimitValue(text);
            return v.ok() ? std::string() : std::string(v.status().message());
          },
          ""));  // the type name says it all
}

}  // namespace

absl::StatusOr<uint64_t> ParseLimitValue(std::string_view text) {
  if (EqualsIgnoreCase(text, "unlimited")) return 0;
  absl::StatusOr<int64_t> v = ParseByteSize(text);
  if (!v.ok()) {
    return absl::InvalidArgumentError(
        "want a number with an optional K, M or G (4G, 500M), or 0 or 'unlimited' for "
        "no limit, not '" + std::string(text) + "'");
  }
  return static_cast<uint64_t>(*v);
}

void DeclareLimitFlags(CommandFlags& command, ParseLimits& limits) {
  AddLimit(command, "--max-decompressed-bytes", "SIZE",
           "stop reading a trace after this many (decompressed) bytes and analyse what came "
           "before (default for gzip: 100x the file, at least 1G; plain files: none; 0: none)",
           [&limits](uint64_t v) { limits.max_decompressed_bytes = v; });
  AddLimit(command, "--max-events", "N",
           "stop reading a trace after this many events (default: none; the memory budget "
           "bounds them)",
           [&limits](uint64_t v) { limits.max_events = static_cast<int64_t>(v); });
  AddLimit(command, "--max-memory", "SIZE",
           "memory the traces being read may hold; reading stops there and what came before "
           "is analysed (default: half the smallest of RAM, ulimit -v and the container's "
           "limit; 0: none)",
           [&limits](uint64_t v) { limits.max_memory_bytes = v; });
  AddLimit(command, "--max-string-bytes", "SIZE",
           "drop events holding a longer JSON string (default 16M; 0: none)",
           [&limits](uint64_t v) { limits.max_string_bytes = v; });
  AddLimit(command, "--max-nesting-depth", "N",
           "drop events nesting objects and arrays deeper (default 64; 0: none)",
           [&limits](uint64_t v) { limits.max_nesting_depth = static_cast<int64_t>(v); });
}

void DeclareFollowLinksFlag(CommandFlags& command, bool& follow_links) {
  command.Flag("--follow-links", follow_links,
                   "in directory scans, also follow symlinks that lead out of the scanned "
                   "directory (default: skipped with a warning; links inside it are followed, "
                   "each directory once)");
}

}  // namespace tracelint
