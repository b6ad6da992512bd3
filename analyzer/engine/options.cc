#include "analyzer/engine/options.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "analyzer/base/strings.h"
#include "fmt/format.h"
#include "simdjson.h"
#include "toml++/toml.h"

namespace tracelint {
namespace {

absl::StatusOr<double> ParseNumber(std::string_view text, std::string_view what) {
  std::string digits;
  for (char c : StripAsciiWhitespace(text)) {
    if (c != '_') digits.push_back(c);
  }
  double value = 0;
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (digits.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) {
    return absl::InvalidArgumentError(
        fmt::format("{}: '{}' is not a number", what, std::string(text)));
  }
  return value;
}

// The selection key of a config file, beside the rule tables.
constexpr std::string_view kRulesKey = "rules";

absl::StatusOr<ConfigFile> ParseJsonConfig(std::string_view text, std::string_view source) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::padded_string padded(text);
  if (auto error = parser.parse(padded).get(doc); error) {
    return absl::InvalidArgumentError(
        fmt::format("{}: not valid JSON ({})", source, simdjson::error_message(error)));
  }
  simdjson::dom::object root;
  if (doc.get_object().get(root)) {
    return absl::InvalidArgumentError(
        fmt::format("{}: expected an object of rule ids", source));
  }
  ConfigFile out;
  for (auto [rule_key, rule_value] : root) {
    if (rule_key == kRulesKey) {
      std::string_view glob;
      if (rule_value.get_string().get(glob)) {
        return absl::InvalidArgumentError(
            fmt::format("{}: \"rules\" must be a string of globs (\"-*,gpu-*\")", source));
      }
      out.rules_glob = std::string(glob);
      continue;
    }
    simdjson::dom::object table;
    if (rule_value.get_object().get(table)) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: '{}' must map to an object of options", source, std::string_view(rule_key)));
    }
    for (auto [option_key, option_value] : table) {
      double value = 0;
      if (option_value.get_double().get(value)) {
        int64_t as_int = 0;
        if (option_value.get_int64().get(as_int)) {
          return absl::InvalidArgumentError(
              fmt::format("{}: {}.{} must be a number", source, std::string_view(rule_key),
                          std::string_view(option_key)));
        }
        value = static_cast<double>(as_int);
      }
      out.overrides.push_back(
          {std::string(rule_key), std::string(option_key), value, std::string(source)});
    }
  }
  return out;
}

// `rules = "a,b"` or `rules = ["a", "b"]`, as one --rules string.
absl::StatusOr<std::string> TomlRules(const toml::node& node, std::string_view source) {
  if (std::optional<std::string> glob = node.value<std::string>()) return *glob;
  std::string out;
  if (const toml::array* list = node.as_array()) {
    for (const toml::node& item : *list) {
      std::optional<std::string> glob = item.value<std::string>();
      if (!glob.has_value()) break;
      out += out.empty() ? *glob : "," + *glob;
    }
    if (out.size() > 0 || list->empty()) return out;
  }
  return absl::InvalidArgumentError(fmt::format(
      "{}: rules must be a string or a list of globs (rules = [\"-*\", \"gpu-*\"])", source));
}

bool IsPyproject(std::string_view source) {
  return std::filesystem::path(source).filename() == "pyproject.toml";
}

absl::StatusOr<ConfigFile> ParseTomlConfig(std::string_view text, std::string_view source) {
  // toml++ reports parse errors by exception in its default build; the
  // Debian library is built that way, so the try is confined to this call.
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    return absl::InvalidArgumentError(fmt::format(
        "{}:{}: not valid TOML ({})", source, e.source().begin.line, e.description()));
  }
  ConfigFile out;
  const toml::table* tables = &root;
  if (IsPyproject(source)) {
    tables = root["tool"]["tracelint"].as_table();
    if (tables == nullptr) return out;  // a pyproject.toml without our table
  }
  for (const auto& [rule_key, rule_node] : *tables) {
    if (rule_key.str() == kRulesKey) {
      absl::StatusOr<std::string> glob = TomlRules(rule_node, source);
      if (!glob.ok()) return glob.status();
      out.rules_glob = *glob;
      continue;
    }
    const toml::table* table = rule_node.as_table();
    if (table == nullptr) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: '{}' must be a table of options ([\"{}\"])", source, rule_key.str(),
          rule_key.str()));
    }
    for (const auto& [option_key, option_node] : *table) {
      std::optional<double> value = option_node.value<double>();
      if (!option_node.is_number() || !value.has_value()) {
        return absl::InvalidArgumentError(fmt::format("{}: {}.{} must be a number", source,
                                                      rule_key.str(), option_key.str()));
      }
      out.overrides.push_back({std::string(rule_key.str()), std::string(option_key.str()),
                               *value, std::string(source)});
    }
  }
  return out;
}

std::string OptionRange(const RuleOptionSpec& spec) {
  return fmt::format("[{}, {}]", FormatOptionValue(spec.min_value),
                     FormatOptionValue(spec.max_value));
}

}  // namespace

std::string FormatOptionValue(double value) { return fmt::format("{}", value); }

absl::StatusOr<OptionOverride> ParseSetOverride(std::string_view text) {
  size_t eq = text.find('=');
  size_t dot = text.substr(0, eq).rfind('.');
  if (eq == std::string_view::npos || dot == std::string_view::npos || dot == 0 ||
      dot + 1 == eq) {
    return absl::InvalidArgumentError(fmt::format(
        "--set '{}': expected <rule-id>.<Option>=<value>", std::string(text)));
  }
  OptionOverride out;
  out.rule_id = std::string(StripAsciiWhitespace(text.substr(0, dot)));
  out.option = std::string(StripAsciiWhitespace(text.substr(dot + 1, eq - dot - 1)));
  out.source = "--set";
  absl::StatusOr<double> value =
      ParseNumber(text.substr(eq + 1), fmt::format("--set {}.{}", out.rule_id, out.option));
  if (!value.ok()) return value.status();
  out.value = *value;
  return out;
}

absl::StatusOr<std::vector<OptionOverride>> ParseConfigText(std::string_view text,
                                                            ConfigFormat format,
                                                            std::string_view source_name) {
  absl::StatusOr<ConfigFile> config = format == ConfigFormat::kJson
                                          ? ParseJsonConfig(text, source_name)
                                          : ParseTomlConfig(text, source_name);
  if (!config.ok()) return config.status();
  return std::move(config->overrides);
}

absl::StatusOr<std::vector<OptionOverride>> LoadConfigFile(const std::string& path) {
  absl::StatusOr<ConfigFile> config = LoadConfig(path);
  if (!config.ok()) return config.status();
  return std::move(config->overrides);
}

absl::StatusOr<ConfigFile> LoadConfig(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(fmt::format("cannot read config file {}", path));
  std::stringstream buffer;
  buffer << file.rdbuf();
  std::string text = buffer.str();
  std::string_view p = path;
  bool json = p.size() >= 5 && EqualsIgnoreCase(p.substr(p.size() - 5), ".json");
  absl::StatusOr<ConfigFile> config =
      json ? ParseJsonConfig(text, path) : ParseTomlConfig(text, path);
  if (config.ok()) config->path = path;
  return config;
}

absl::StatusOr<std::map<std::string, RuleOptions>> ResolveOptions(
    const RuleRegistry& registry, const std::vector<OptionOverride>& overrides) {
  if (!registry.status().ok()) return registry.status();
  std::map<std::string, std::map<std::string, double>> values;
  for (const RegisteredRule& r : registry.rules()) {
    std::map<std::string, double>& v = values[r.id];
    for (const RuleOptionSpec& spec : r.rule->options()) v[spec.name] = spec.default_value;
  }
  for (const OptionOverride& o : overrides) {
    const Rule* rule = registry.Find(o.rule_id);
    if (rule == nullptr) {
      return absl::InvalidArgumentError(
          fmt::format("{}: unknown rule '{}' (see `tracelint rules`)", o.source, o.rule_id));
    }
    const RuleOptionSpec* found = nullptr;
    std::vector<RuleOptionSpec> specs = rule->options();
    std::string known;
    for (const RuleOptionSpec& spec : specs) {
      if (spec.name == o.option) found = &spec;
      known += known.empty() ? spec.name : ", " + spec.name;
    }
    if (found == nullptr) {
      return absl::InvalidArgumentError(
          fmt::format("{}: rule '{}' has no option '{}' (options: {})", o.source, o.rule_id,
                      o.option, known.empty() ? "none" : known));
    }
    if (!(o.value >= found->min_value && o.value <= found->max_value)) {
      return absl::InvalidArgumentError(
          fmt::format("{}: {}.{}={} is outside {} ({})", o.source, o.rule_id, o.option,
                      FormatOptionValue(o.value), OptionRange(*found), found->unit));
    }
    values[o.rule_id][o.option] = o.value;
  }
  std::map<std::string, RuleOptions> out;
  for (auto& [id, v] : values) out.emplace(id, RuleOptions(std::move(v)));
  return out;
}

std::string ListRules(const RuleRegistry& registry) {
  size_t width = 0;
  for (const RegisteredRule& r : registry.rules()) width = std::max(width, r.id.size());
  std::string out;
  for (const RegisteredRule& r : registry.rules()) {
    out += fmt::format("{:<{}}  {}\n", r.id, width, r.rule->summary());
  }
  return out;
}

std::string DumpConfig(const RuleRegistry& registry) {
  std::string out =
      "# tracelint rule options and their defaults.\n"
      "# Edit and pass with --config FILE.toml, or set one with --set <rule-id>.<Option>=V.\n";
  for (const RegisteredRule& r : registry.rules()) {
    out += fmt::format("\n# {}\n[\"{}\"]\n", r.rule->summary(), r.id);
    for (const RuleOptionSpec& spec : r.rule->options()) {
      out += fmt::format("# {} ({}, range {})\n{} = {}\n", spec.description, spec.unit,
                         OptionRange(spec), spec.name, FormatOptionValue(spec.default_value));
    }
  }
  return out;
}

}  // namespace tracelint
