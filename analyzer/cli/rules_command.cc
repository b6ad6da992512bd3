#include "analyzer/cli/rules_command.h"

#include <ostream>

#include "analyzer/cli/exit_codes.h"
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
  out << (args.dump_config ? DumpConfig(registry) : ListRules(registry));
  return kExitOk;
}

}  // namespace tracelint
