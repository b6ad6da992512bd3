// tracelint: reads GPU profiler traces and ranks what wastes GPU time.
// main stays tiny: each command declares its flags next to its code (into the
// option table, option_table.h) and runs from a testable function.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "analyzer/base/version.h"
#include "cli/analyze_command.h"
#include "cli/batch_command.h"
#include "cli/capture_command.h"
#include "cli/cli_docs.h"
#include "cli/diff_command.h"
#include "cli/exit_codes.h"
#include "cli/help_command.h"
#include "cli/mcp_command.h"
#include "cli/option_table.h"
#include "cli/output_file.h"
#include "cli/report_output.h"
#include "cli/rules_command.h"

namespace {

int RunCommand(int argc, char** argv);

}  // namespace

int main(int argc, char** argv) {
  using namespace tracelint;
  // With stdout closed (`>&-`) the next file opened would become fd 1 and
  // the report would go into it: hold fd 1 with a read-only /dev/null so
  // writing the report fails and exits kExitWriteFailed instead.
  if (::fcntl(STDOUT_FILENO, F_GETFD) < 0 && errno == EBADF) {
    ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  }
  // A reader that goes away (`| head -c1`) makes writes fail with EPIPE
  // instead of killing the process mid-write; the exit is then 6, quietly
  // (docs/design/contract.md, "Exit codes, added").
  ::signal(SIGPIPE, SIG_IGN);
  // std::cout through a buffer that keeps why a write failed, for every
  // command (rules, --help, completions, ...): checked once at the end.
  FdStreamBuf stdout_buf(STDOUT_FILENO);
  std::streambuf* previous = std::cout.rdbuf(&stdout_buf);
  int code;
  try {
    code = RunCommand(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "tracelint: out of memory: the allocator refused memory (a limit tracelint "
                 "could not see, or other processes' memory); lower the budget with "
                 "--max-memory SIZE\n";
    code = kExitUnreadable;
  }
  std::cout.flush();
  bool written = stdout_buf.Finish() && std::cout.good();
  std::cout.rdbuf(previous);
  if (!written) {
    absl::Status s = WriteFailedStatus("the output", "standard output",
                                       stdout_buf.error() != 0 ? stdout_buf.error() : EIO);
    // A command that reported its own write error has said it already.
    if (code != kExitWriteFailed) PrintWriteError(std::cerr, s);
    code = CombineExitCodes(code, kExitWriteFailed);
  }
  return code;
}

namespace {

int RunCommand(int argc, char** argv) {
  using namespace tracelint;
  CLI::App app{"tracelint: finds what wastes GPU time in profiler traces, ranked by the step "
               "time you would win back",
               "tracelint"};
  app.require_subcommand(1);
  const std::string version =
      "tracelint " + std::string(kToolVersion) +
      (kBuildCommit.empty() ? "" : " (commit " + std::string(kBuildCommit.substr(0, 12)) + ")");
  app.set_version_flag("--version", version);
  bool help_man = false;
  app.add_flag("--help-man", help_man, "print the man page")->group("");  // hidden

  OptionTable table;
  AnalyzeArgs a;
  BatchArgs b;
  DiffArgs d;
  CaptureArgs c;
  RulesArgs r;
  McpArgs m;
  HelpArgs h;
  CLI::App* analyze = DeclareAnalyzeCommand(app, table, a);
  CLI::App* batch = DeclareBatchCommand(app, table, b);
  CLI::App* diff = DeclareDiffCommand(app, table, d);
  CLI::App* capture = DeclareCaptureCommand(app, table, c);
  CLI::App* rules = DeclareRulesCommand(app, table, r);
  CLI::App* mcp = DeclareMcpCommand(app, table, m);
  HelpCommands help = DeclareHelpCommands(app, table, h);

  std::vector<std::string> words(argv + 1, argv + argc);
  if (words.empty()) {
    std::cerr << ShortHelp(app);
    return kExitUsage;
  }
  if (std::optional<std::string> unknown = CheckUnknownWords(app, words)) {
    std::cerr << "tracelint: " << *unknown << "\n";
    return kExitUsage;
  }
  if (words.size() == 1 && words[0] == "--help-man") {
    std::cout << ManPage(app, table, version);
    return kExitOk;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 reports through exceptions; --help and --version exit 0, the
    // rest is a usage error in tracelint's words.
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "tracelint: " << UsageErrorText(e, app) << "\n";
    return kExitUsage;
  }
  if (*analyze) return RunAnalyze(a, std::cout, std::cerr);
  if (*batch) return RunBatch(b, std::cout, std::cerr);
  if (*diff) return RunDiffCommand(d, std::cout, std::cerr);
  if (*capture) return RunCapture(c, std::cout, std::cerr);
  if (*rules) return RunRulesCommand(r, std::cout, std::cerr);
  if (*mcp) return RunMcp(m, table, std::cerr);
  int code = RunHelpCommands(app, table, help, h, version, std::cout, std::cerr);
  return code >= 0 ? code : kExitUsage;
}

}  // namespace
