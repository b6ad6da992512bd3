#include "cli/rules_command.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/cli_docs.h"
#include "cli/exit_codes.h"
#include "cli/rule_docs.h"
#include "analyzer/report/json_writer.h"
#include "analyzer/engine/options.h"
#include "analyzer/engine/registry.h"
#include "fmt/format.h"
#include "rules/all_rules.h"

namespace tracelint {
namespace {

// {"rules": [{"id", "summary", "options": [{"name", "default", "unit",
// "min", "max", "description"}]}]}
std::string RulesJson(const RuleRegistry& registry) {
  JsonWriter w;
  w.BeginObject();
  w.Key("rules").BeginArray();
  for (const RegisteredRule& r : registry.rules()) {
    w.BeginObject();
    w.Key("id").String(r.id);
    w.Key("summary").String(r.rule->summary());
    w.Key("options").BeginArray();
    for (const RuleOptionSpec& spec : r.rule->options()) {
      w.BeginObject();
      w.Key("name").String(spec.name);
      w.Key("default").Double(spec.default_value);
      w.Key("unit").String(spec.unit);
      w.Key("min").Double(spec.min_value);
      w.Key("max").Double(spec.max_value);
      w.Key("description").String(spec.description);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Finish();
}

std::string PageJson(std::string_view id, std::string_view page) {
  JsonWriter w;
  w.BeginObject();
  w.Key("id").String(id);
  w.Key("markdown").String(page);
  w.EndObject();
  return w.Finish();
}

// A part of a parenthetical that only a contributor needs: a source or test
// file (`rules/x.h`, `analyzer/y.cc`), a test name (`FooTest.Bar`), a design
// doc citation (docs/design/domain.md "Section").
bool IsInternalReference(std::string_view part) {
  while (!part.empty() && (part.front() == ' ' || part.front() == '\n')) part.remove_prefix(1);
  // A design doc anywhere in the part ("see `x.md` and docs/design/domain.md").
  if (part.find("docs/design/") != std::string_view::npos) return true;
  if (part.starts_with("testdata/") || part.starts_with("`testdata/")) return true;
  if (!part.starts_with("`")) return false;
  size_t end = part.find('`', 1);
  if (end == std::string_view::npos) return false;
  std::string_view code = part.substr(1, end - 1);
  for (std::string_view ext : {".h", ".cc", ".py", ".sh", ".json"}) {
    if (code.ends_with(ext) && code.find('/') != std::string_view::npos) return true;
  }
  size_t dot = code.find('.');
  return dot != std::string_view::npos && code.substr(0, dot).ends_with("Test");
}

// Splits at ", " outside backticks and quotes.
std::vector<std::string> SplitParts(std::string_view inner) {
  std::vector<std::string> parts;
  std::string cur;
  bool code = false, quote = false;
  for (size_t i = 0; i < inner.size(); ++i) {
    char c = inner[i];
    if (c == '`') code = !code;
    if (c == '"') quote = !quote;
    if (!code && !quote && c == ',' && i + 1 < inner.size() &&
        (inner[i + 1] == ' ' || inner[i + 1] == '\n')) {
      parts.push_back(cur);
      cur.clear();
      ++i;
      continue;
    }
    cur += c;
  }
  parts.push_back(cur);
  return parts;
}

}  // namespace

std::string UserFacingRuleDoc(std::string_view page) {
  std::string out;
  size_t i = 0;
  bool in_fence = false;
  while (i < page.size()) {
    if (page.compare(i, 3, "```") == 0 && (i == 0 || page[i - 1] == '\n')) in_fence = !in_fence;
    if (in_fence || page[i] != '(') {
      out += page[i++];
      continue;
    }
    // The matching ')', nesting and line breaks allowed.
    size_t depth = 0, j = i;
    for (; j < page.size(); ++j) {
      if (page[j] == '(') ++depth;
      if (page[j] == ')' && --depth == 0) break;
    }
    if (j >= page.size()) {
      out += page[i++];
      continue;
    }
    std::string_view inner = page.substr(i + 1, j - i - 1);
    std::vector<std::string> kept;
    bool dropped = false;
    if (inner.starts_with("Tests:") || inner.starts_with("tests:") ||
        inner.starts_with("Test:") || inner.starts_with("test:")) {
      dropped = true;
    } else {
      for (const std::string& part : SplitParts(inner)) {
        if (IsInternalReference(part)) {
          dropped = true;
        } else {
          kept.push_back(part);
        }
      }
    }
    if (!dropped) {
      out += page.substr(i, j - i + 1);
    } else if (!kept.empty()) {
      out += "(" + fmt::format("{}", fmt::join(kept, ", ")) + ")";
    } else {
      while (!out.empty() && out.back() == ' ') out.pop_back();
    }
    i = j + 1;
  }
  return out;
}

int RunRulesCommand(const RulesArgs& args, std::ostream& out, std::ostream& err) {
  RuleRegistry registry;
  RegisterAllRules(registry);
  if (!registry.status().ok()) {
    err << "tracelint: " << registry.status().message() << "\n";
    return kExitUsage;
  }
  if (!args.id.empty()) {
    std::vector<std::string> ids;
    for (const auto& [id, page] : RuleDocPages()) {
      if (id == args.id) {
        out << (args.json ? PageJson(id, UserFacingRuleDoc(page)) : UserFacingRuleDoc(page));
        return kExitOk;
      }
      ids.push_back(std::string(id));
    }
    std::optional<std::string> near = ClosestName(args.id, ids);
    err << "tracelint: unknown rule '" << args.id << "'"
        << (near ? "; did you mean '" + *near + "'?" : "; `tracelint rules` lists them") << "\n";
    return kExitUsage;
  }
  if (args.json) {
    out << RulesJson(registry);
    return kExitOk;
  }
  out << (args.dump_config ? DumpConfig(registry) : ListRules(registry));
  return kExitOk;
}

}  // namespace tracelint

namespace tracelint {

CLI::App* DeclareRulesCommand(CLI::App& app, OptionTable& table, RulesArgs& r) {
  static constexpr char kHelp[] = "list the rules and their options";
  CLI::App* rules = app.add_subcommand("rules", kHelp);
  CommandFlags f(*rules, table.AddCommand("rules", kHelp));
  f.Flag("--dump-config", r.dump_config, "print every option with its default");
  f.Flag("--json", r.json, "the list (id, summary, options) or the page as JSON");
  f.Positional("id", r.id, "show this rule's documentation page", /*required=*/false);
  return rules;
}

}  // namespace tracelint
