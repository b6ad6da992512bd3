#ifndef TRACELINT_CLI_PROGRESS_H_
#define TRACELINT_CLI_PROGRESS_H_

// A one-line progress indicator on stderr, only when stderr is a terminal:
// a piped or redirected stderr (CI logs, scripts) never sees it, so the
// output stays byte-identical there.

#include <chrono>
#include <condition_variable>
#include <iosfwd>
#include <mutex>
#include <string>
#include <thread>

namespace tracelint {

// Whether `err` is std::cerr and fd 2 is a terminal.
bool IsTerminal(const std::ostream& err);

class ProgressLine {
 public:
  // Draws nothing when !enabled. Lines appear only once `delay` has passed
  // since construction (short jobs stay silent).
  ProgressLine(std::ostream& err, bool enabled,
               std::chrono::milliseconds delay = std::chrono::milliseconds(0));
  ~ProgressLine();  // erases the line

  // Replaces the line ("\r<text>", erasing what was longer). Thread-safe.
  void Update(const std::string& text);
  // Shows `text` once the delay has passed, unless Finish() comes first.
  void ShowAfterDelay(const std::string& text);
  // Erases the line; later updates draw nothing.
  void Finish();
  // Whether a line was drawn (for tests).
  bool drawn();

 private:
  void DrawLocked(const std::string& text);

  std::ostream& err_;
  bool enabled_;
  std::chrono::steady_clock::time_point visible_from_;
  std::mutex mu_;
  std::condition_variable finished_cv_;
  bool finished_ = false;
  bool drawn_ = false;
  std::thread delayed_;
};

}  // namespace tracelint

#endif  // TRACELINT_CLI_PROGRESS_H_
