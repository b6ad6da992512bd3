#ifndef TRACELINT_CLI_OUTPUT_FILE_H_
#define TRACELINT_CLI_OUTPUT_FILE_H_

// One output of a command (the report, the annotated trace), written whole or
// not at all: into a temporary file beside the (symlink-resolved) target,
// synced, then renamed over it, so a kill, a signal or a full disk never
// leaves a truncated file under the target's name (docs/robustness.md,
// "Outputs"). The temporary file is removed on every error and, while it
// exists, on SIGINT/SIGTERM/SIGHUP (temp_files.h). Devices and pipes
// (`-o /dev/stdout`) are written in place.

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tracelint {

// A stream buffer over a file descriptor that keeps the errno of the first
// failed write (std::ostream alone forgets why), optionally gzip-compressing
// what passes through. Never closes the descriptor.
class FdStreamBuf : public std::streambuf {
 public:
  explicit FdStreamBuf(int fd, bool gzip = false);
  ~FdStreamBuf() override;
  FdStreamBuf(const FdStreamBuf&) = delete;
  FdStreamBuf& operator=(const FdStreamBuf&) = delete;

  // Writes what is buffered and, with gzip, ends the gzip member. False on
  // error (error() says why).
  bool Finish();
  // The errno of the first failure; 0 when none.
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool Drain(bool finish);
  bool WriteFd(std::string_view bytes);

  int fd_;
  int error_ = 0;
  std::string buffer_;
  struct Deflater;
  std::unique_ptr<Deflater> deflater_;
};

// The name a temporary file beside `file_name` gets: ".NAME.tmp-XXXXXX"
// (for mkstemp), NAME cut at a character boundary so that the whole stays
// within `name_max` bytes (a 250-byte output name still works).
std::string TempNameFor(std::string_view file_name, size_t name_max);

class OutputFile {
 public:
  // `what` names the output in errors ("the report", "the annotated
  // trace"); `gzip` compresses what is written (as a .gz name asks).
  // Errors: the temporary file cannot be created (the reason named).
  static absl::StatusOr<std::unique_ptr<OutputFile>> Open(const std::string& path,
                                                          std::string_view what, bool gzip);
  ~OutputFile();

  std::ostream& stream() { return stream_; }
  // Ends the stream, syncs and renames the temporary file over the target.
  // Errors name the target and the reason (errno); the temporary file is
  // gone either way.
  absl::Status Commit();

 private:
  OutputFile(std::string target, std::string temp, std::string name, std::string what, int fd,
             bool gzip);
  absl::Status Failed(int err);

  std::string target_;  // resolved; renamed onto
  std::string temp_;    // empty when written in place
  std::string name_;    // as given, for messages
  std::string what_;
  int fd_;
  FdStreamBuf buf_;
  std::ostream stream_;
  bool done_ = false;
  struct Guard;
  std::unique_ptr<Guard> guard_;
};

// The error for a failed write of `what` to `target`: "cannot write WHAT to
// TARGET: REASON". A broken pipe (the reader went away: `| head -c1`) or a
// closed descriptor (`>&-`) is absl::Cancelled, on which callers end quietly
// (IsQuietWriteError).
absl::Status WriteFailedStatus(std::string_view what, std::string_view target, int err);
inline bool IsQuietWriteError(const absl::Status& s) { return absl::IsCancelled(s); }

}  // namespace tracelint

#endif  // TRACELINT_CLI_OUTPUT_FILE_H_
