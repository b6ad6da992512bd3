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

}  // namespace

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
        out << (args.json ? PageJson(id, page) : std::string(page));
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
