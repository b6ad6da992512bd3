#ifndef TRACELINT_CLI_DIFF_COMMAND_H_
#define TRACELINT_CLI_DIFF_COMMAND_H_

#include <iosfwd>
#include <string>

#include "absl/status/statusor.h"
#include "analyzer/engine/engine.h"
#include "cli/config_discovery.h"
#include "analyzer/diff/diff_input.h"
#include "parsers/parse_options.h"
#include "cli/option_table.h"

namespace tracelint {

struct DiffArgs {
  std::string base;  // a trace, a run directory or a saved JSON report
  std::string next;
  std::string format = "text";  // text | markdown | json | html
  std::string output;           // empty: stdout
  int rank = -1;                // -1: the worst rank of each run
  int top_n = 10;               // kernels and ops listed
  int width = -1;               // text: columns; 0: no limit; -1: the terminal's
  double fail_on_regression_pct = -1;  // < 0: no gate
  CommandRuleOptions engine;    // for trace inputs
  int threads = 0;
  ParseLimits limits;           // for trace inputs
};

// One side of a diff: a JSON report is read back, anything else analysed as
// `analyze` would. On failure `error_exit_code` receives the exit code to
// use; on success `exit_code` is kExitDamaged for a run analysed from
// damaged input, else kExitOk.
struct LoadedDiffRun {
  DiffRun run;
  int exit_code = 0;
};
absl::StatusOr<LoadedDiffRun> LoadDiffRun(const std::string& path, const CommandRuleOptions& engine,
                                          int threads, const ParseLimits& limits,
                                          std::ostream& err, int& error_exit_code);

// The whole `tracelint diff` job: returns the exit code (exit_codes.h):
// 1 when --fail-on-regression tripped, 5 when it was asked for but there were
// too few steady steps to judge it (or a run had none).
int RunDiffCommand(const DiffArgs& args, std::ostream& out, std::ostream& err);

// The `diff` command and its flags, on `app` and in `table`.
CLI::App* DeclareDiffCommand(CLI::App& app, OptionTable& table, DiffArgs& args);

}  // namespace tracelint

#endif  // TRACELINT_CLI_DIFF_COMMAND_H_
