#ifndef TRACELINT_CLI_MCP_TOOLS_H_
#define TRACELINT_CLI_MCP_TOOLS_H_

// The MCP server's tools (docs/mcp.md): analyze, diff, batch, rules and
// explain. Each is a `tracelint` command line run in a child process; its
// input schema comes from the option table (the options that shape what is
// analysed, without those that write files or leave the roots), its output
// schema from the command's JSON schema (compiled in at build time,
// mcp_schemas.cc). Every path argument is confined to the roots.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/mcp_json.h"
#include "cli/option_table.h"

namespace tracelint::mcp {

// How the MCP server treats one option of analyze, diff or batch.
enum class OptionUse {
  kValue,    // passed on as given (type-checked against the schema)
  kPath,     // a path: confined to the roots, passed on resolved
  kLeftOut,  // not offered: writes files, leaves the roots, or prints no JSON
};

// The use of `option` (its table name: "--config", "path") in `command`;
// nullopt for a string option nobody classified (left out, and
// mcp_tools_test fails: a new option must be classified, since a string
// may be a path).
std::optional<OptionUse> UseOf(std::string_view command, const OptionSpec& option);

struct Tool {
  std::string name;     // "analyze"
  std::string title;
  std::string description;
  std::string command;  // the tracelint command it runs ("rules" for explain)
  Json input_schema;
  Json output_schema;
  // Option table entries offered as arguments, by argument name.
  std::vector<std::pair<std::string, OptionSpec>> arguments;
};

// The five tools, from the option table of this binary.
std::vector<Tool> BuildTools(const OptionTable& table);

// "--batch-size" -> "batch_size", "more-paths" -> "more_paths".
std::string ArgumentName(std::string_view option_name);

// `path` resolved against the first root (when relative), `..` and
// symlinks followed as far as the path exists; an error unless it lies in
// one of `roots` (absolute, canonical).
absl::StatusOr<std::string> ConfinePath(const std::vector<std::string>& roots,
                                        std::string_view path);

// A tool call's arguments as the child's command line (without the
// executable). `protocol_error` is set for arguments that do not fit the
// input schema (unknown name, wrong type, missing): a JSON-RPC error;
// `tool_error` for a path outside the roots: a tool result with isError.
struct ToolArgv {
  std::vector<std::string> args;
  std::string protocol_error;
  std::string tool_error;
};
ToolArgv BuildArgv(const Tool& tool, const Json& arguments, const std::vector<std::string>& roots);

// Drops trailing elements of the largest arrays (never an array's first
// element, so schemas' minItems of 1 still hold) until `doc` serialises to
// at most `max_bytes`. Returns the JSON pointers of the arrays cut, each
// with how many elements it lost ("/ranks/0/kernels: 180 of 200 dropped");
// empty when nothing had to go.
std::vector<std::string> TrimToFit(Json& doc, size_t max_bytes);

}  // namespace tracelint::mcp

#endif  // TRACELINT_CLI_MCP_TOOLS_H_
