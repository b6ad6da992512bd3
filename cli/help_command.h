#ifndef TRACELINT_CLI_HELP_COMMAND_H_
#define TRACELINT_CLI_HELP_COMMAND_H_

// `help [COMMAND] [--json]`, `version` and `completions SHELL`: what the
// tool says about itself, all of it from the option table.

#include <iosfwd>
#include <string>

#include "CLI/CLI.hpp"
#include "cli/option_table.h"

namespace tracelint {

struct HelpArgs {
  std::string topic;  // help COMMAND
  bool json = false;  // help --json: the option table, for the Python API and MCP
  std::string shell;  // completions SHELL
};

struct HelpCommands {
  CLI::App* help = nullptr;
  CLI::App* version = nullptr;
  CLI::App* completions = nullptr;
};
HelpCommands DeclareHelpCommands(CLI::App& app, OptionTable& table, HelpArgs& args);

// Runs whichever of the three was parsed; -1 when none was.
int RunHelpCommands(const CLI::App& app, const OptionTable& table, const HelpCommands& commands,
                    const HelpArgs& args, const std::string& version, std::ostream& out,
                    std::ostream& err);

}  // namespace tracelint

#endif  // TRACELINT_CLI_HELP_COMMAND_H_
