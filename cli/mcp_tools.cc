#include "cli/mcp_tools.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <system_error>

#include "absl/status/status.h"
#include "cli/mcp_schemas.h"
#include "fmt/format.h"

namespace tracelint::mcp {
namespace {

namespace fs = std::filesystem;

struct Classified {
  std::string_view command;  // "*": every command
  std::string_view option;
  OptionUse use;
};

// String options, and every option whose use is not "pass it on". Flags,
// numbers and choices cannot name a file, so they are values unless listed.
// docs/design/contract.md, "MCP server": paths confined, --follow-links,
// --config outside the roots and options that write files refused.
constexpr Classified kClassified[] = {
    {"analyze", "path", OptionUse::kPath},
    {"analyze", "more-paths", OptionUse::kPath},
    {"analyze", "--baseline", OptionUse::kPath},
    {"batch", "paths", OptionUse::kPath},
    {"batch", "--prices", OptionUse::kPath},
    {"diff", "base", OptionUse::kPath},
    {"diff", "new", OptionUse::kPath},
    {"*", "--config", OptionUse::kPath},
    // Directory scans that follow links out of the scanned tree would leave
    // the roots.
    {"*", "--follow-links", OptionUse::kLeftOut},
    // Not a report: the runs found (analyze), shard records and their merge
    // (analyze, batch: cluster jobs, not a tool call); SARIF-only settings.
    {"analyze", "--list", OptionUse::kLeftOut},
    {"analyze", "--shard", OptionUse::kLeftOut},
    {"analyze", "--shards", OptionUse::kLeftOut},
    {"analyze", "--merge", OptionUse::kLeftOut},
    {"analyze", "--source-root", OptionUse::kLeftOut},
    {"analyze", "--docs-url", OptionUse::kLeftOut},
    {"analyze", "--docs-ref", OptionUse::kLeftOut},
    {"analyze", "--sarif-anchor", OptionUse::kLeftOut},
    {"batch", "--shard", OptionUse::kLeftOut},
    {"batch", "--shards", OptionUse::kLeftOut},
    {"batch", "--merge", OptionUse::kLeftOut},
    // Strings that name no file.
    {"*", "--rules", OptionUse::kValue},
    {"*", "--set", OptionUse::kValue},
    {"analyze", "--span", OptionUse::kValue},
    {"analyze", "--run", OptionUse::kValue},
    {"analyze", "--fail-on-recoverable", OptionUse::kValue},
    {"batch", "--sort", OptionUse::kValue},
    {"batch", "--group-by", OptionUse::kValue},
    {"batch", "--batch-size-from", OptionUse::kValue},
    {"*", "--max-decompressed-bytes", OptionUse::kValue},
    {"*", "--max-events", OptionUse::kValue},
    {"*", "--max-string-bytes", OptionUse::kValue},
    {"*", "--max-nesting-depth", OptionUse::kValue},
};

bool CanNameFile(const OptionSpec& o) {
  return o.type == "string" || o.type == "strings";
}

Json Schema(std::string_view type) {
  Json s = Json::Object();
  s.Set("type", type);
  return s;
}

// One option's JSON Schema, from its type in the table.
Json ArgumentSchema(const OptionSpec& o) {
  Json s = Json::Object();
  if (o.type == "flag") {
    s = Schema("boolean");
  } else if (o.type == "int") {
    s = Schema("integer");
  } else if (o.type == "number") {
    s = Schema("number");
  } else if (o.type == "choice") {
    s = Schema("string");
    Json values = Json::Array();
    for (const std::string& c : o.choices) values.Push(c);
    s.Set("enum", std::move(values));
  } else if (o.type == "strings") {
    s = Schema("array");
    s.Set("items", Schema("string"));
  } else if (o.type == "size") {
    // A count of bytes, or with a unit: "512M", "2G".
    Json types = Json::Array();
    types.Push("integer");
    types.Push("string");
    s.Set("type", std::move(types));
  } else {
    s = Schema("string");
  }
  std::string help = o.help;
  if (!o.default_value.empty()) help += fmt::format(" (default {})", o.default_value);
  s.Set("description", help);
  return s;
}

Json ParseSchema(std::string_view text) {
  absl::StatusOr<Json> s = Json::Parse(text, 256);
  // The schemas are compiled in from the repository's own files; a broken
  // one fails mcp_tools_test, never a user.
  return s.ok() ? *std::move(s) : Json::Object();
}

Json RulesOutputSchema() {
  return ParseSchema(R"({"type":"object","required":["rules"],"additionalProperties":false,
    "properties":{"rules":{"type":"array","items":{"type":"object",
      "required":["id","summary","options"],"additionalProperties":false,
      "properties":{"id":{"type":"string"},"summary":{"type":"string"},
        "options":{"type":"array","items":{"type":"object",
          "required":["name","default","unit","min","max","description"],
          "additionalProperties":false,
          "properties":{"name":{"type":"string"},"default":{"type":"number"},
            "unit":{"type":"string"},"min":{"type":"number"},"max":{"type":"number"},
            "description":{"type":"string"}}}}}}}}})");
}

Json ExplainOutputSchema() {
  return ParseSchema(R"({"type":"object","required":["id","markdown"],
    "additionalProperties":false,
    "properties":{"id":{"type":"string"},"markdown":{"type":"string"}}})");
}

Tool FromCommand(const OptionTable& table, std::string name, std::string title,
                 std::string description, std::string_view output_schema) {
  Tool tool;
  tool.name = name;
  tool.title = std::move(title);
  tool.description = std::move(description);
  tool.command = name;
  tool.output_schema = ParseSchema(output_schema);
  Json properties = Json::Object();
  Json required = Json::Array();
  if (const CommandSpec* spec = table.Find(name)) {
    for (const OptionSpec& o : spec->options) {
      if (o.output_only || o.hidden) continue;
      std::optional<OptionUse> use = UseOf(name, o);
      if (!use || *use == OptionUse::kLeftOut) continue;
      std::string arg = ArgumentName(o.name);
      Json schema = ArgumentSchema(o);
      if (*use == OptionUse::kPath) {
        schema.Set("description", o.help + " (inside the server's roots; relative to the first)");
      }
      properties.Set(arg, std::move(schema));
      if (o.required) required.Push(arg);
      tool.arguments.emplace_back(arg, o);
    }
  }
  tool.input_schema = Schema("object");
  tool.input_schema.Set("properties", std::move(properties));
  if (!required.items().empty()) tool.input_schema.Set("required", std::move(required));
  tool.input_schema.Set("additionalProperties", false);
  return tool;
}

std::string Pointer(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& p : path) {
    out += '/';
    for (char c : p) {
      if (c == '~') {
        out += "~0";
      } else if (c == '/') {
        out += "~1";
      } else {
        out += c;
      }
    }
  }
  return out;
}

// The largest array in `node` that still has more than one element, with
// its serialised size and path.
struct Largest {
  Json* array = nullptr;
  size_t bytes = 0;
  std::vector<std::string> path;
};
void FindLargest(Json& node, std::vector<std::string>& path, Largest& best) {
  if (node.is_array()) {
    if (node.items().size() > 1) {
      size_t bytes = node.Dump().size();
      if (bytes > best.bytes) best = {&node, bytes, path};
    }
    for (size_t i = 0; i < node.items().size(); ++i) {
      path.push_back(std::to_string(i));
      FindLargest(node.items()[i], path, best);
      path.pop_back();
    }
  } else if (node.is_object()) {
    for (Json::Member& m : node.members()) {
      path.push_back(m.first);
      FindLargest(m.second, path, best);
      path.pop_back();
    }
  }
}

}  // namespace

std::optional<OptionUse> UseOf(std::string_view command, const OptionSpec& option) {
  for (const Classified& c : kClassified) {
    if ((c.command == command || c.command == "*") && c.option == option.name) return c.use;
  }
  if (CanNameFile(option)) return std::nullopt;
  return OptionUse::kValue;
}

std::string ArgumentName(std::string_view option_name) {
  size_t start = option_name.find_first_not_of('-');
  std::string out(start == std::string_view::npos ? "" : option_name.substr(start));
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

std::vector<Tool> BuildTools(const OptionTable& table) {
  std::vector<Tool> tools;
  tools.push_back(FromCommand(
      table, "analyze", "Analyse one run",
      "Analyses one profiler run (a PyTorch/Kineto JSON trace, a Chrome trace, an XSpace "
      ".xplane.pb, a run directory, or the rank files of one run) and returns the JSON report: "
      "the verdict (what bounds the step), findings ranked by the step time they would win "
      "back, each with its cause, evidence and fix, per-rank step metrics and trace integrity.",
      ReportSchemaText()));
  tools.push_back(FromCommand(
      table, "diff", "Compare two runs",
      "Compares two runs (traces, run directories or saved JSON reports) step by step: what "
      "changed beyond run-to-run noise (Mann-Whitney U), findings added, removed and changed, "
      "kernels and ops.",
      DiffSchemaText()));
  tools.push_back(FromCommand(
      table, "batch", "Analyse many runs into one table",
      "Finds every run under the given directories and analyses each: one row per run (step "
      "time, GPU utilization, top finding, recoverable share), optionally grouped or as a "
      "trend. A run that cannot be read is a row with its error.",
      BatchSchemaText()));
  Tool rules;
  rules.name = "rules";
  rules.title = "List the rules";
  rules.description =
      "Every rule tracelint runs: its id, what it finds, and its options with defaults and "
      "ranges (set them with analyze's `set`: [\"<rule-id>.<Option>=value\"]).";
  rules.command = "rules";
  rules.input_schema = Schema("object");
  rules.input_schema.Set("properties", Json::Object());
  rules.input_schema.Set("additionalProperties", false);
  rules.output_schema = RulesOutputSchema();
  tools.push_back(std::move(rules));
  Tool explain;
  explain.name = "explain";
  explain.title = "Explain a rule";
  explain.description =
      "A rule's documentation page (Markdown): what it detects, how the recoverable time is "
      "estimated, its thresholds and options, and how to fix what it finds.";
  explain.command = "rules";
  explain.input_schema = Schema("object");
  Json id = Schema("string");
  id.Set("description", "the rule id, as in a finding's rule_id (\"gpu-idle-gaps\")");
  Json props = Json::Object();
  props.Set("rule_id", std::move(id));
  explain.input_schema.Set("properties", std::move(props));
  Json required = Json::Array();
  required.Push("rule_id");
  explain.input_schema.Set("required", std::move(required));
  explain.input_schema.Set("additionalProperties", false);
  explain.output_schema = ExplainOutputSchema();
  OptionSpec rule_id;
  rule_id.name = "rule_id";
  rule_id.type = "string";
  rule_id.positional = true;
  rule_id.required = true;
  explain.arguments.emplace_back("rule_id", rule_id);
  tools.push_back(std::move(explain));
  return tools;
}

absl::StatusOr<std::string> ConfinePath(const std::vector<std::string>& roots,
                                        std::string_view path) {
  if (roots.empty()) return absl::PermissionDeniedError("the server has no root");
  if (path.empty()) return absl::InvalidArgumentError("an empty path");
  if (path == "-") return absl::InvalidArgumentError("'-' (stdin) is not a file in the roots");
  if (path.find('\0') != std::string_view::npos) {
    return absl::InvalidArgumentError("a path with a NUL byte");
  }
  std::error_code ec;
  fs::path p(path);
  if (p.is_relative()) p = fs::path(roots.front()) / p;
  // weakly_canonical resolves symlinks and `..` as far as the path exists,
  // so a link inside a root that leads out is judged by its target.
  fs::path resolved = fs::weakly_canonical(p, ec);
  if (ec) return absl::InvalidArgumentError(fmt::format("{}: {}", path, ec.message()));
  for (const std::string& root : roots) {
    fs::path r(root);
    auto [r_end, p_end] = std::mismatch(r.begin(), r.end(), resolved.begin(), resolved.end());
    if (r_end == r.end()) return resolved.string();
  }
  return absl::PermissionDeniedError(fmt::format(
      "{} is outside the server's roots ({}); tracelint mcp reads only below its --root "
      "directories",
      path, fmt::join(roots, ", ")));
}

ToolArgv BuildArgv(const Tool& tool, const Json& arguments,
                   const std::vector<std::string>& roots) {
  ToolArgv out;
  if (!arguments.is_object() && !arguments.is_null()) {
    out.protocol_error = "arguments must be an object";
    return out;
  }
  out.args.push_back(tool.command);
  if (tool.name == "rules" || tool.name == "explain") out.args.push_back("--json");
  std::vector<std::string> positionals;
  std::vector<std::string> flags;
  for (const Json::Member& m : arguments.members()) {
    auto it = std::find_if(tool.arguments.begin(), tool.arguments.end(),
                           [&](const auto& a) { return a.first == m.first; });
    if (it == tool.arguments.end()) {
      out.protocol_error = fmt::format("{}: unknown argument '{}'", tool.name, m.first);
      return out;
    }
    const OptionSpec& o = it->second;
    const Json& v = m.second;
    bool path = o.positional || UseOf(tool.command, o) == OptionUse::kPath;
    if (tool.name == "explain") path = false;
    std::vector<std::string> values;
    auto type_error = [&](std::string_view want) {
      out.protocol_error = fmt::format("{}: argument '{}' must be {}", tool.name, m.first, want);
    };
    if (o.type == "flag") {
      if (!v.is_bool()) return type_error("true or false"), out;
      if (v.as_bool()) flags.push_back(o.name);
      continue;
    } else if (o.type == "int") {
      if (!v.is_number() || v.as_double() != static_cast<double>(v.as_int())) {
        return type_error("an integer"), out;
      }
      values.push_back(fmt::format("{}", v.as_int()));
    } else if (o.type == "number") {
      if (!v.is_number()) return type_error("a number"), out;
      values.push_back(v.is_int() ? fmt::format("{}", v.as_int()) : fmt::format("{}", v.as_double()));
    } else if (o.type == "size") {
      if (v.is_int() && v.as_int() >= 0) {
        values.push_back(fmt::format("{}", v.as_int()));
      } else if (v.is_string()) {
        values.push_back(v.as_string());
      } else {
        return type_error("a non-negative integer or a size such as \"512M\""), out;
      }
    } else if (o.type == "strings") {
      if (!v.is_array()) return type_error("an array of strings"), out;
      for (const Json& item : v.items()) {
        if (!item.is_string()) return type_error("an array of strings"), out;
        values.push_back(item.as_string());
      }
    } else {
      if (!v.is_string()) return type_error("a string"), out;
      if (o.type == "choice" &&
          std::find(o.choices.begin(), o.choices.end(), v.as_string()) == o.choices.end()) {
        return type_error(fmt::format("one of {}", fmt::join(o.choices, ", "))), out;
      }
      values.push_back(v.as_string());
    }
    if (path) {
      for (std::string& value : values) {
        absl::StatusOr<std::string> confined = ConfinePath(roots, value);
        if (!confined.ok()) {
          out.tool_error = std::string(confined.status().message());
          return out;
        }
        value = *confined;
      }
    }
    for (const std::string& value : values) {
      if (o.positional) {
        // Resolved paths are absolute, so none can pass for an option; the
        // rule id of explain is checked here for the same reason.
        if (!value.empty() && value[0] == '-') return type_error("a rule id"), out;
        positionals.push_back(value);
      } else {
        // --name=value: a value that starts with '-' stays a value.
        flags.push_back(o.name + "=" + value);
      }
    }
  }
  for (const auto& [name, o] : tool.arguments) {
    if (o.required && arguments.Find(name) == nullptr) {
      out.protocol_error = fmt::format("{}: missing argument '{}'", tool.name, name);
      return out;
    }
  }
  if (tool.name == "analyze" || tool.name == "diff" || tool.name == "batch") {
    out.args.insert(out.args.end(), {"--format", "json", "-o", "-"});
  }
  out.args.insert(out.args.end(), flags.begin(), flags.end());
  out.args.insert(out.args.end(), positionals.begin(), positionals.end());
  return out;
}

std::vector<std::string> TrimToFit(Json& doc, size_t max_bytes) {
  struct Cut {
    std::string pointer;
    size_t original = 0;
    size_t kept = 0;
  };
  std::vector<Cut> cuts;
  size_t size = doc.Dump().size();
  while (size > max_bytes) {
    Largest best;
    std::vector<std::string> path;
    FindLargest(doc, path, best);
    if (best.array == nullptr) break;  // nothing left to drop
    std::vector<Json>& items = best.array->items();
    size_t before = items.size();
    // Drop from the tail until it fits or half the array is gone, then look
    // again: another array may be the largest by then.
    size_t keep_at_least = std::max<size_t>(1, before / 2);
    while (items.size() > keep_at_least && size > max_bytes) {
      size -= items.back().Dump().size() + 1;  // the element and its comma
      items.pop_back();
    }
    size = doc.Dump().size();
    std::string pointer = Pointer(best.path);
    auto same = std::find_if(cuts.begin(), cuts.end(),
                             [&](const Cut& c) { return c.pointer == pointer; });
    if (same == cuts.end()) {
      cuts.push_back({pointer, before, items.size()});
    } else {
      same->kept = items.size();
    }
  }
  std::vector<std::string> out;
  for (const Cut& c : cuts) {
    out.push_back(fmt::format("{}: {} of {} dropped", c.pointer.empty() ? "/" : c.pointer,
                              c.original - c.kept, c.original));
  }
  return out;
}

}  // namespace tracelint::mcp
