#ifndef TRACELINT_ANALYZER_CLI_BATCH_COMMAND_H_
#define TRACELINT_ANALYZER_CLI_BATCH_COMMAND_H_

#include <iosfwd>
#include <string>
#include <vector>

#include "analyzer/engine/engine.h"

namespace tracelint {

struct BatchArgs {
  // Run archives: each path is a run (file, run directory, TensorBoard log
  // directory) or is searched for runs (FindRunPaths).
  std::vector<std::string> paths;
  std::string format = "text";  // text | markdown | csv | json
  std::string output;           // empty: stdout
  int jobs = 0;                 // runs analysed at once; 0 = cores
  int threads = 0;              // cores for the whole batch; 0 = the machine's
  int max_depth = 6;            // directory levels searched for runs
  // "path": runs in the order found; "recoverable": largest recoverable
  // share of the step first (runs that could not be read last), ties in
  // the order found.
  std::string sort = "path";
  EngineOptions engine;  // --rules, --set, --config
};

// The whole `tracelint batch` job: every run analysed, `jobs` at a time,
// each on its share of the cores, all under one memory budget; one row per
// run in the order found. Exit code: kExitUnreadable when a run could not be
// read (its row says why), else kExitDamaged when a run was damaged, else
// kExitOk; kExitUsage for bad options.
int RunBatch(const BatchArgs& args, std::ostream& out, std::ostream& err);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_CLI_BATCH_COMMAND_H_
