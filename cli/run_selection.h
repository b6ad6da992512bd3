#ifndef TRACELINT_CLI_RUN_SELECTION_H_
#define TRACELINT_CLI_RUN_SELECTION_H_

// Which run `analyze` looks at: a trace on stdin, the list of runs found
// (`--list`), and the refusal of inputs holding several runs.

#include <iosfwd>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/run_pipeline.h"

namespace tracelint {

// A trace read from stdin ("-"), kept in a temporary file for the parsers
// (which read files, in parallel parts) and removed when this goes away.
class StdinTrace {
 public:
  // Copies `in` into a new temporary file; the name ends in .json or
  // .xplane.pb from the first bytes, as the parsers expect.
  static absl::StatusOr<StdinTrace> Read(std::istream& in);
  StdinTrace(StdinTrace&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  StdinTrace& operator=(StdinTrace&&) = delete;
  ~StdinTrace();
  const std::string& path() const { return path_; }

 private:
  explicit StdinTrace(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// `analyze --list`: the spans and TensorBoard runs seen, the choice made,
// then each run with its start time and files.
std::string ListRunsText(const AnalyzedRun& analyzed);

// The refusal when the input holds several runs (exit 2): the list and how
// to pick one.
std::string SeveralRunsMessage(const std::string& input, const AnalyzedRun& analyzed);

}  // namespace tracelint

#endif  // TRACELINT_CLI_RUN_SELECTION_H_
