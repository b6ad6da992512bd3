#ifndef TRACELINT_CLI_REPORT_OUTPUT_H_
#define TRACELINT_CLI_REPORT_OUTPUT_H_

#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace tracelint {

// Refuses (InvalidArgument) an `output` that would touch the trace(s) at
// `input_path`: the tool never writes into what it reads (a report there
// would be picked up as input by the next run, and the directory may be a
// shared archive). Both paths are resolved (symlinks, `..`) before they are
// compared, and an existing output that is the same file (device and inode:
// a hard link) as the input, or as any file under an input directory, is
// refused too. Empty output (stdout) is fine.
absl::Status CheckOutputOutsideTraces(const std::string& output, const std::string& input_path);

// Every output of a command (flag, path; empty: none, "-": stdout) checked
// against the traces it reads (CheckOutputOutsideTraces), against its other
// inputs (`others`: the baseline, the config; the same file is refused) and
// against each other: two outputs naming one file (after resolving
// symlinks and `..`, or the same inode) are refused, naming both flags.
// InvalidArgument (a usage error, exit 2).
absl::Status CheckOutputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                          const std::vector<std::string>& traces,
                          const std::vector<std::string>& others = {});

// "-o -" and no -o at all both mean stdout, for every command and format.
inline bool IsStdoutPath(const std::string& output_path) {
  return output_path.empty() || output_path == "-";
}

// Writes a finished report to `output_path`, or to `out` when IsStdoutPath.
// A file is written whole or not at all: into a temporary file beside the
// (symlink-resolved) target, synced, then renamed over it, so a kill or a
// full disk never leaves a truncated report. Devices and pipes are written
// in place. Any failure (including a stream that fails on flush: closed
// stdout, /dev/full) is an error naming the target; callers exit with
// kExitWriteFailed.
absl::Status WriteReport(const std::string& report, const std::string& output_path,
                         std::ostream& out);

// Writes `text` to `out` (stdout); the error names the reason (the errno
// kept by an FdStreamBuf, as main installs on std::cout).
absl::Status WriteToStream(std::string_view text, std::ostream& out, std::string_view what);

// "tracelint: cannot write ...", unless the reader went away (a closed pipe
// ends quietly; docs/design/contract.md, "Exit codes, added").
void PrintWriteError(std::ostream& err, const absl::Status& status);

}  // namespace tracelint

#endif  // TRACELINT_CLI_REPORT_OUTPUT_H_
