#ifndef TRACELINT_CLI_STDIN_SPOOL_H_
#define TRACELINT_CLI_STDIN_SPOOL_H_

// A trace that is not a file yet: stdin (`-`), or a pipe named on the
// command line (`<(zcat run.json.gz)`, a FIFO). The parsers read files (in
// parallel parts, sniffed, read again by --annotate), so the stream is
// copied into a temporary file first (docs/design/contract.md, "Memory
// budget"; docs/robustness.md, "Input that is not a file"):
//   - its first bytes are sniffed before anything is written: input of no
//     known format ends at once (exit 3), so `cat /dev/zero | tracelint
//     analyze -` never fills TMPDIR;
//   - the copy stops at the smallest of the memory budget, the
//     decompressed-size limit (when set) and the free space of TMPDIR
//     (less a margin); the trace is then analysed from what was copied
//     (a warning names the limit);
//   - the copy is removed when the spool goes away, and on
//     SIGINT/SIGTERM/SIGHUP (temp_files.h); a failure to write it names
//     the errno.
// Messages name the input as the user did ("-", or the pipe's path), never
// the temporary file.

#include <cstdint>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "parsers/parse_options.h"

namespace tracelint {

struct SpoolLimits {
  // The copy stops after this many bytes (0: no cap besides free space).
  uint64_t max_bytes = 0;
  std::string max_bytes_why;  // "the memory budget of 11.7 GiB", ...
  // TMPDIR's free space is kept above this.
  uint64_t reserve_free_bytes = uint64_t{64} << 20;
};

// The cap for input read with `limits`: the memory budget (the ledger's
// limit) and --max-decompressed-bytes when given.
SpoolLimits SpoolLimitsFor(const ParseLimits& limits, uint64_t memory_budget_bytes);

class SpooledTrace {
 public:
  // Copies `in` (stdin in tests) or the descriptor `fd` into a new
  // temporary file in TMPDIR. `label` names the input in messages.
  // Errors: InvalidArgument when the head is no known format (exit 3),
  // Unavailable when the copy cannot be written (the errno named).
  static absl::StatusOr<std::unique_ptr<SpooledTrace>> FromStream(std::istream& in,
                                                                  const std::string& label,
                                                                  const SpoolLimits& limits);
  static absl::StatusOr<std::unique_ptr<SpooledTrace>> FromFd(int fd, const std::string& label,
                                                              const SpoolLimits& limits);
  ~SpooledTrace();
  SpooledTrace(const SpooledTrace&) = delete;
  SpooledTrace& operator=(const SpooledTrace&) = delete;

  const std::string& path() const { return path_; }
  const std::string& label() const { return label_; }
  uint64_t bytes() const { return bytes_; }
  // Set when the copy stopped at a limit: the warning to print.
  const std::optional<std::string>& cut_warning() const { return cut_warning_; }

 private:
  SpooledTrace() = default;
  std::string path_;
  std::string label_;
  uint64_t bytes_ = 0;
  std::optional<std::string> cut_warning_;
  struct Guard;
  std::unique_ptr<Guard> guard_;
};

// Whether `path` names something to spool rather than scan: a FIFO (a pipe
// named on the command line, `<(...)`) or a character device.
bool IsStreamPath(const std::string& path);

}  // namespace tracelint

#endif  // TRACELINT_CLI_STDIN_SPOOL_H_
