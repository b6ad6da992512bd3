#ifndef TRACELINT_CLI_MCP_SERVER_H_
#define TRACELINT_CLI_MCP_SERVER_H_

// `tracelint mcp`: a Model Context Protocol server over stdio (JSON-RPC 2.0,
// one message per line), protocol revision 2025-06-18 and newer as the
// client negotiates (docs/mcp.md; docs/design/contract.md, "MCP server").
// Each tool call runs `tracelint <command> ... --format json -o -` in a
// child process confined to the roots; the server itself never writes a
// file. Malformed messages, unknown methods, wrong arguments and oversized
// messages get JSON-RPC errors; nothing a client sends ends the server
// except closing its input.

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "cli/option_table.h"

namespace tracelint::mcp {

struct ServerOptions {
  std::vector<std::string> roots;  // absolute and canonical
  std::string self_exe;            // the tracelint binary the tool calls run
  size_t max_message_bytes = 4u << 20;
  size_t max_result_bytes = 512u << 10;  // structured content, serialised
  int tool_timeout_s = 600;
};

// The protocol revisions this server speaks, oldest first.
const std::vector<std::string>& SupportedProtocolVersions();

// Serves until `in_fd` ends; returns the exit code (0).
int Serve(const OptionTable& table, const ServerOptions& options, int in_fd, int out_fd,
          std::ostream& log);

}  // namespace tracelint::mcp

#endif  // TRACELINT_CLI_MCP_SERVER_H_
