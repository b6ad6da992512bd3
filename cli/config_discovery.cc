#include "cli/config_discovery.h"

#include <algorithm>
#include <cstdlib>

#include <fstream>
#include <sstream>
#include <system_error>

#include "analyzer/engine/options.h"
#include "fmt/format.h"

namespace tracelint {

std::optional<std::string> DiscoverConfig(const std::filesystem::path& start,
                                          const std::filesystem::path& stop_at) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec);
  if (ec) return std::nullopt;
  fs::path stop = stop_at.empty() ? fs::path() : fs::absolute(stop_at, ec).lexically_normal();
  for (;;) {
    fs::path own = dir / "tracelint.toml";
    if (fs::is_regular_file(own, ec)) return own.string();
    fs::path pyproject = dir / "pyproject.toml";
    if (fs::is_regular_file(pyproject, ec)) {
      // Most pyproject.toml files are other tools' business: only one with
      // our table is a config (read cheaply first, parsed when loaded).
      std::ifstream file(pyproject, std::ios::binary);
      std::stringstream buffer;
      buffer << file.rdbuf();
      std::string text = buffer.str();
      if (text.find("tool.tracelint") != std::string::npos) return pyproject.string();
    }
    if (!stop.empty() && dir.lexically_normal() == stop) return std::nullopt;
    if (!dir.has_parent_path() || dir.parent_path() == dir) return std::nullopt;
    dir = dir.parent_path();
  }
}

absl::StatusOr<PreparedRules> PrepareCommandRules(const RuleRegistry& registry,
                                                  const CommandRuleOptions& options) {
  EngineOptions engine = options;
  if (engine.config_path.empty() && options.discover_config) {
    std::error_code ec;
    std::filesystem::path cwd = std::filesystem::current_path(ec);
    // `tracelint mcp` runs each tool call with its root here, so discovery
    // never reads a config from outside the roots (docs/mcp.md).
    std::string stop_at = options.discovery_root;
    if (const char* root = std::getenv("TRACELINT_CONFIG_DISCOVERY_ROOT");
        stop_at.empty() && root != nullptr) {
      stop_at = root;
    }
    if (!ec) engine.config_path = DiscoverConfig(cwd, stop_at).value_or("");
  }
  absl::StatusOr<PreparedRules> prepared = PrepareRules(registry, engine);
  if (prepared.ok() && prepared->selected.empty()) {
    const bool from_config = !options.rules_given && !prepared->config_path.empty() &&
                             prepared->rules_glob != options.rules_glob;
    return absl::InvalidArgumentError(fmt::format(
        "the rule selection '{}'{} selects no rule: nothing would be checked (`tracelint "
        "rules` lists them; e.g. --rules '-*,gpu-*')",
        prepared->rules_glob,
        from_config ? fmt::format(" (from {})", prepared->config_path) : std::string()));
  }
  return prepared;
}

std::string DiscoveredConfigNote(const RuleRegistry& registry, const CommandRuleOptions& options,
                                 const PreparedRules& rules) {
  // Only a file nobody named: --config is the user's own choice.
  if (rules.config_path.empty() || !options.config_path.empty()) return "";
  absl::StatusOr<ConfigFile> config = LoadConfig(rules.config_path);
  if (!config.ok()) return "";
  std::vector<std::string> changes;
  if (!options.rules_given && !config->rules_glob.empty()) {
    std::vector<std::string> off;
    for (const RegisteredRule& r : registry.rules()) {
      if (std::find(rules.selected.begin(), rules.selected.end(), r.id) == rules.selected.end()) {
        off.push_back(r.id);
      }
    }
    if (!off.empty()) changes.push_back(fmt::format("disables {}", fmt::join(off, ", ")));
  }
  std::vector<std::string> set;
  for (const OptionOverride& o : config->overrides) {
    set.push_back(fmt::format("{}.{}={}", o.rule_id, o.option, o.value));
  }
  if (!set.empty()) changes.push_back(fmt::format("sets {}", fmt::join(set, ", ")));
  if (changes.empty()) return "";
  return fmt::format("{} (found from the current directory; --no-config ignores it) {}",
                     rules.config_path, fmt::join(changes, "; "));
}

}  // namespace tracelint

namespace tracelint {

void DeclareRuleFlags(CommandFlags& f, CommandRuleOptions& engine) {
  f.Value("--rules", engine.rules_glob, "rule selection globs, e.g. '-*,gpu-*'")
      ->each([&engine](const std::string&) { engine.rules_given = true; });
  f.Value("--set", engine.set_overrides, "rule option, <rule-id>.<Option>=value");
  f.Value("--config", engine.config_path,
          "config file (TOML or JSON); default: tracelint.toml or pyproject.toml's "
          "[tool.tracelint], from the current directory upward");
  // Flags win over the file; --no-config ignores any file found.
  engine.discover_config = true;
  f.FlagCallback("--no-config", [&engine] { engine.discover_config = false; },
                 "do not look for tracelint.toml / pyproject.toml");
}

}  // namespace tracelint
