#ifndef TRACELINT_PARSERS_RUN_GROUPS_H_
#define TRACELINT_PARSERS_RUN_GROUPS_H_

// What is a run: trace files are the ranks of one run only when they belong
// to one job. Files found together (one directory, or several files named on
// the command line) are split into runs here, after parsing, from what each
// file says about itself: format, framework, distributedInfo, devices and
// the time it was captured.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/base/time.h"
#include "absl/status/statusor.h"
#include "analyzer/model/timeline.h"
#include "parsers/parse_options.h"

namespace tracelint {

// What one parsed file says about the job it came from.
struct RunFileFacts {
  std::string path;
  std::string format;     // RunMetadata::format
  std::string framework;  // "" when unknown
  int rank = -1;          // -1: no distributedInfo
  int world_size = -1;
  std::string host_name;
  std::vector<std::string> device_names;  // sorted, distinct
  TimeNs start_ns = 0;  // first event (base time already added)
  TimeNs end_ns = 0;
  // What could not be read cheaply (ReadRunFileFacts), shown by --list.
  std::string note;
  // The TensorBoard run folder (TraceFileRef::run_folder): files of
  // different run folders are different runs, whatever else they share.
  std::string run_folder;
};

RunFileFacts FactsOf(const Timeline& timeline);
// The same from a rank's metadata and its Timeline::Bounds(), for a rank
// whose timeline is gone (a shard's record read back by the merge).
RunFileFacts FactsOf(const RunMetadata& metadata, std::pair<TimeNs, TimeNs> bounds);

// Whether `ns` reads as wall-clock time (after 2001) rather than a trace
// relative to its own start: only wall-clock times can tell two captures apart.
bool IsWallClock(TimeNs ns);

// Ranks of one job start profiling at the same step: their first events lie
// within clock skew and staggered starts of each other. Files whose first
// events are further apart than this are two runs. Only the start is
// compared, so that `--list` (which reads no file to its end) and `analyze`
// group alike.
inline constexpr TimeNs kSameRunSlackNs = 60 * kNsPerS;

// Why a and b cannot be ranks of one run, or nullopt when they can.
std::optional<std::string> WhyNotOneRun(const RunFileFacts& a, const RunFileFacts& b);

struct RunGroup {
  std::vector<size_t> files;  // indices into the facts, by rank then path
  TimeNs start_ns = 0;        // earliest start among the files
};

struct RunGrouping {
  std::vector<RunGroup> runs;  // by start time, then first path
  // One line per file that could not join an earlier run, saying why.
  std::vector<std::string> reasons;
};

// The facts of one file for `analyze --list`, without parsing its events:
// a Kineto JSON file from its head and tail (ReadKinetoStamp; its end is not
// known, so end_ns == start_ns), any other format from a full parse.
// Errors: the file cannot be read or is not a trace.
absl::StatusOr<RunFileFacts> ReadRunFileFacts(const std::string& path,
                                              const ParseOptions& options);

// Splits files into runs: each file joins the first run (by start time) all
// of whose files it is compatible with (WhyNotOneRun), else starts its own.
// Deterministic: depends only on the facts, not on their order.
RunGrouping GroupIntoRuns(const std::vector<RunFileFacts>& files);

// "2024-04-03 18:51:38 UTC", or "relative (+1.000000 s)" for a trace whose
// times do not read as wall-clock.
std::string FormatStartTime(TimeNs ns);

// The list of runs for `--list` and for the refusal of a directory holding
// several runs: one block per run with its start time, ranks and files.
std::string DescribeRuns(const std::vector<RunFileFacts>& files, const RunGrouping& grouping);

}  // namespace tracelint

#endif  // TRACELINT_PARSERS_RUN_GROUPS_H_
