#ifndef TRACELINT_ANALYZER_CLI_RULES_COMMAND_H_
#define TRACELINT_ANALYZER_CLI_RULES_COMMAND_H_

#include <iosfwd>

namespace tracelint {

struct RulesArgs {
  bool dump_config = false;
};

// `tracelint rules`: the registered rules with their one-line summaries, or
// with --dump-config every option and its default.
int RunRulesCommand(const RulesArgs& args, std::ostream& out, std::ostream& err);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_CLI_RULES_COMMAND_H_
