#include "cli/mcp_command.h"

#include <unistd.h>

#include <filesystem>
#include <ostream>
#include <system_error>

#include "analyzer/base/escape.h"
#include "cli/cli_docs.h"
#include "cli/exit_codes.h"
#include "cli/mcp_server.h"

namespace tracelint {

int RunMcp(const McpArgs& args, const OptionTable& table, std::ostream& err) {
  namespace fs = std::filesystem;
  mcp::ServerOptions options;
  std::vector<std::string> roots = args.roots;
  if (roots.empty()) roots.push_back(".");
  for (const std::string& root : roots) {
    std::error_code ec;
    fs::path canonical = fs::canonical(root, ec);
    if (ec || !fs::is_directory(canonical, ec)) {
      err << "tracelint: mcp --root " << EscapeTerminal(root) << ": not a directory\n";
      return kExitUsage;
    }
    options.roots.push_back(canonical.string());
  }
  std::error_code ec;
  options.self_exe = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec) {
    err << "tracelint: mcp: cannot find its own executable (/proc/self/exe: " << ec.message()
        << "); the tool calls run it\n";
    return kExitUnreadable;
  }
  options.max_result_bytes = static_cast<size_t>(args.max_result_bytes);
  options.max_message_bytes = static_cast<size_t>(args.max_message_bytes);
  options.tool_timeout_s = args.tool_timeout_s;
  return mcp::Serve(table, options, STDIN_FILENO, STDOUT_FILENO, err);
}

CLI::App* DeclareMcpCommand(CLI::App& app, OptionTable& table, McpArgs& m) {
  static constexpr char kHelp[] =
      "serve the Model Context Protocol on stdin/stdout, for coding agents (docs/mcp.md)";
  CLI::App* mcp = app.add_subcommand("mcp", kHelp);
  CommandFlags f(*mcp, table.AddCommand("mcp", kHelp));
  f.Value("--root", m.roots,
          "directory the tools may read below (repeatable; default: the working directory); "
          "paths outside every root are refused");
  f.Value("--max-result-bytes", m.max_result_bytes,
          "largest structured result; longer ones lose the tails of their largest arrays",
          Checked(AtLeast(1024)));
  f.Value("--max-message-bytes", m.max_message_bytes,
          "largest JSON-RPC message read; longer ones are refused", Checked(AtLeast(1024)));
  f.Value("--tool-timeout", m.tool_timeout_s, "seconds one tool call may take",
          Checked(AtLeast(1)));
  return mcp;
}

}  // namespace tracelint
