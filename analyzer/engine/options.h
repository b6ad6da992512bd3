#ifndef TRACELINT_ANALYZER_ENGINE_OPTIONS_H_
#define TRACELINT_ANALYZER_ENGINE_OPTIONS_H_

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/engine/registry.h"
#include "analyzer/engine/rule.h"

namespace tracelint {

// One option value set by the user, with where it came from for messages.
struct OptionOverride {
  std::string rule_id;
  std::string option;
  double value = 0;
  std::string source;  // "--set", "config.toml"
};

// "gpu-idle-gaps.MinIdleShare=0.2" (the value is a plain number; `_` digit
// separators are allowed: 100_000).
absl::StatusOr<OptionOverride> ParseSetOverride(std::string_view text);

enum class ConfigFormat { kJson, kToml };

// A config file maps rule ids to option tables:
//   TOML: ["gpu-idle-gaps"]          JSON: {"gpu-idle-gaps": {"MinIdleShare": 0.2}}
//         MinIdleShare = 0.2
// The format follows the extension (.json, else TOML). Only numbers are
// accepted as values.
absl::StatusOr<std::vector<OptionOverride>> ParseConfigText(std::string_view text,
                                                            ConfigFormat format,
                                                            std::string_view source_name);
absl::StatusOr<std::vector<OptionOverride>> LoadConfigFile(const std::string& path);

// A whole config file: the rule selection (`rules = "-*,gpu-*"` or a list of
// globs, the --rules syntax) and the option tables above. In a
// pyproject.toml the same keys sit under [tool.tracelint] (and
// [tool.tracelint."<rule-id>"]).
struct ConfigFile {
  std::string path;
  std::string rules_glob;  // empty: the file selects nothing (all rules)
  std::vector<OptionOverride> overrides;
};
absl::StatusOr<ConfigFile> LoadConfig(const std::string& path);

// Effective options of every registered rule: declared defaults, then the
// overrides in order (config file first, then --set, so the command line
// wins). Unknown rule, unknown option or a value outside the declared range
// is InvalidArgument naming the source.
absl::StatusOr<std::map<std::string, RuleOptions>> ResolveOptions(
    const RuleRegistry& registry, const std::vector<OptionOverride>& overrides);

// `tracelint rules`: one line per rule, "<id>  <summary>".
std::string ListRules(const RuleRegistry& registry);
// `tracelint rules --dump-config`: every option with its default, unit,
// range and description, as a TOML file that --config reads back.
std::string DumpConfig(const RuleRegistry& registry);

// Shortest text that reads back as the same double ("0.1", "100000").
std::string FormatOptionValue(double value);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ENGINE_OPTIONS_H_
