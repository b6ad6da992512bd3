#ifndef TRACELINT_TESTS_SUPPORT_CLI_RUN_H_
#define TRACELINT_TESTS_SUPPORT_CLI_RUN_H_

// A command run as main() runs it, without a process: the exit code and
// what it wrote to stdout and stderr.

#include <sstream>
#include <string>

#include "cli/analyze_command.h"
#include "cli/batch_command.h"
#include "cli/diff_command.h"

namespace tracelint::testing {

struct CommandResult {
  int code;
  std::string out;
  std::string err;
};

inline CommandResult Analyze(const AnalyzeArgs& args) {
  std::ostringstream out, err;
  int code = RunAnalyze(args, out, err);
  return {code, out.str(), err.str()};
}

inline CommandResult Batch(const BatchArgs& args) {
  std::ostringstream out, err;
  int code = RunBatch(args, out, err);
  return {code, out.str(), err.str()};
}

inline CommandResult Diff(const DiffArgs& args) {
  std::ostringstream out, err;
  int code = RunDiffCommand(args, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace tracelint::testing

#endif  // TRACELINT_TESTS_SUPPORT_CLI_RUN_H_
