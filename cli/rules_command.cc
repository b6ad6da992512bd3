#include "cli/rules_command.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/cli_docs.h"
#include "cli/exit_codes.h"
#include "cli/rule_docs.h"
#include "analyzer/engine/options.h"
#include "analyzer/engine/registry.h"
#include "rules/all_rules.h"

namespace tracelint {

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
        out << page;
        return kExitOk;
      }
      ids.push_back(std::string(id));
    }
    std::optional<std::string> near = ClosestName(args.id, ids);
    err << "tracelint: unknown rule '" << args.id << "'"
        << (near ? "; did you mean '" + *near + "'?" : "; `tracelint rules` lists them") << "\n";
    return kExitUsage;
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
  f.Positional("id", r.id, "show this rule's documentation page", /*required=*/false);
  return rules;
}

}  // namespace tracelint
