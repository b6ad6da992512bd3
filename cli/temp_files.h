#ifndef TRACELINT_CLI_TEMP_FILES_H_
#define TRACELINT_CLI_TEMP_FILES_H_

// Temporary files that a signal must not leave behind: the file an output
// is written to before it is renamed over its target, and the copy of a
// trace read from stdin. While one is registered, SIGINT, SIGTERM and SIGHUP
// remove it before the signal's default action ends the process (a signal
// the process ignores, as under nohup, stays ignored). SIGKILL cannot be
// caught: what it leaves is a dot-file beside the target (or in TMPDIR),
// never a truncated output under the target's name.

#include <string>

namespace tracelint {

class TempFileGuard {
 public:
  TempFileGuard() = default;
  // Registers `path` for removal on a signal.
  explicit TempFileGuard(const std::string& path);
  TempFileGuard(TempFileGuard&& other) noexcept : slot_(other.slot_) { other.slot_ = -1; }
  TempFileGuard& operator=(TempFileGuard&& other) noexcept;
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;
  // Unregisters; the file itself is the owner's to remove or rename.
  ~TempFileGuard() { Release(); }
  void Release();

 private:
  int slot_ = -1;
};

// The temporary files registered now (tests).
int RegisteredTempFiles();

}  // namespace tracelint

#endif  // TRACELINT_CLI_TEMP_FILES_H_
