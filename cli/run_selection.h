#ifndef TRACELINT_CLI_RUN_SELECTION_H_
#define TRACELINT_CLI_RUN_SELECTION_H_

// Which run `analyze` looks at: the list of runs found (`--list`), and the
// refusal of inputs holding several runs. (A trace on stdin: stdin_spool.h.)

#include <iosfwd>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/run_pipeline.h"

namespace tracelint {

// `analyze --list`: the spans and TensorBoard runs seen, the choice made,
// then each run with its start time and files.
std::string ListRunsText(const AnalyzedRun& analyzed);

// The refusal when the input holds several runs (exit 2): the list and how
// to pick one.
std::string SeveralRunsMessage(const std::string& input, const AnalyzedRun& analyzed);

}  // namespace tracelint

#endif  // TRACELINT_CLI_RUN_SELECTION_H_
