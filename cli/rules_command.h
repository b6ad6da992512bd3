#ifndef TRACELINT_CLI_RULES_COMMAND_H_
#define TRACELINT_CLI_RULES_COMMAND_H_

#include <iosfwd>
#include <string>
#include <string_view>
#include "cli/option_table.h"

namespace tracelint {

struct RulesArgs {
  bool dump_config = false;
  std::string id;  // show this rule's documentation page
  bool json = false;  // the list or the page as JSON (the MCP server's rules and explain)
};

// `tracelint rules`: the registered rules with their one-line summaries, or
// with --dump-config every option and its default, or with an id that
// rule's page from rules/docs/ (built into the binary).
int RunRulesCommand(const RulesArgs& args, std::ostream& out, std::ostream& err);

// A rule page as a user reads it (`tracelint rules ID`): the page without
// what is there for contributors: "(Tests: ...)" notes and parentheticals
// citing source files or design docs ("(by job, `analyzer/x.h`)" becomes
// "(by job)"). The repository keeps the full page.
std::string UserFacingRuleDoc(std::string_view page);

// The `rules` command and its flags, on `app` and in `table`.
CLI::App* DeclareRulesCommand(CLI::App& app, OptionTable& table, RulesArgs& args);

}  // namespace tracelint

#endif  // TRACELINT_CLI_RULES_COMMAND_H_
