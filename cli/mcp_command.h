#ifndef TRACELINT_CLI_MCP_COMMAND_H_
#define TRACELINT_CLI_MCP_COMMAND_H_

#include <iosfwd>
#include <string>
#include <vector>

#include "cli/option_table.h"

namespace tracelint {

struct McpArgs {
  std::vector<std::string> roots;  // default: the working directory
  int64_t max_result_bytes = 512 * 1024;
  int64_t max_message_bytes = 4 * 1024 * 1024;
  int tool_timeout_s = 600;
};

// `tracelint mcp`: the MCP server on stdin/stdout (cli/mcp_server.h,
// docs/mcp.md) until the client closes stdin. 2 for a root that is not a
// directory.
int RunMcp(const McpArgs& args, const OptionTable& table, std::ostream& err);

CLI::App* DeclareMcpCommand(CLI::App& app, OptionTable& table, McpArgs& args);

}  // namespace tracelint

#endif  // TRACELINT_CLI_MCP_COMMAND_H_
