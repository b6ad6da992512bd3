#ifndef TRACELINT_CLI_CONFIG_DISCOVERY_H_
#define TRACELINT_CLI_CONFIG_DISCOVERY_H_

// Where a command's rule configuration comes from. The engine takes a
// config path; finding one is the command line's business (the MCP server
// stops the search at its root).

#include <filesystem>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "cli/option_table.h"

namespace tracelint {

// The engine's options as a command takes them: without --config, look for
// tracelint.toml or pyproject.toml's [tool.tracelint] from the current
// directory upward (--no-config clears `discover_config`).
struct CommandRuleOptions : EngineOptions {
  bool discover_config = false;
  // Discovery stops after this directory (the MCP server's root); empty: at
  // the filesystem root.
  std::string discovery_root;
};

// From `start` up to `stop_at` (inclusive; empty: the filesystem root), the
// first directory holding `tracelint.toml`, or a `pyproject.toml` with a
// [tool.tracelint] table, gives the config (docs/configuration.md); a
// tracelint.toml wins over a pyproject.toml beside it. nullopt when none is
// found.
std::optional<std::string> DiscoverConfig(const std::filesystem::path& start,
                                          const std::filesystem::path& stop_at = {});

// PrepareRules with the config file found by discovery when none was given.
// A selection that leaves no rule is InvalidArgument (a usage error: with
// nothing checked, "no findings" would be a false green;
// docs/design/contract.md, "Exit codes, added").
absl::StatusOr<PreparedRules> PrepareCommandRules(const RuleRegistry& registry,
                                                  const CommandRuleOptions& options);

// A config file found by discovery (not named with --config) that disables
// rules or changes options is said at the top of the text report and on
// stderr, so a file in a parent directory never changes results unseen:
// "/repo/tracelint.toml (found from the current directory) disables
// gpu-idle-gaps, host-side-ops; sets kernel-small-grids.MinShare=0.2".
// Empty when none was discovered or it changes nothing.
std::string DiscoveredConfigNote(const RuleRegistry& registry, const CommandRuleOptions& options,
                                 const PreparedRules& rules);

// --rules, --set, --config and --no-config, shared by every command that
// runs rules (analyze, batch, diff, capture).
void DeclareRuleFlags(CommandFlags& flags, CommandRuleOptions& engine);

}  // namespace tracelint

#endif  // TRACELINT_CLI_CONFIG_DISCOVERY_H_
