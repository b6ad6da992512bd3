#include "cli/progress.h"

#include <unistd.h>

#include <iostream>

#include "analyzer/base/worker_pool.h"

namespace tracelint {

bool IsTerminal(const std::ostream& err) { return &err == &std::cerr && ::isatty(2) == 1; }

ProgressLine::ProgressLine(std::ostream& err, bool enabled, std::chrono::milliseconds delay)
    : err_(err), enabled_(enabled), visible_from_(std::chrono::steady_clock::now() + delay) {}

ProgressLine::~ProgressLine() {
  Finish();
  if (delayed_.joinable()) delayed_.join();
}

void ProgressLine::DrawLocked(const std::string& text) {
  if (!enabled_ || finished_ || std::chrono::steady_clock::now() < visible_from_) return;
  // \033[K erases the rest of a longer previous line.
  err_ << "\r" << text << "\033[K" << std::flush;
  drawn_ = true;
}

void ProgressLine::Update(const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  DrawLocked(text);
}

void ProgressLine::ShowAfterDelay(const std::string& text) {
  if (!enabled_) return;
  // No thread to spare: no delayed line, nothing else lost.
  TryStartThread(delayed_, [this, text] {
    std::unique_lock<std::mutex> lock(mu_);
    if (finished_cv_.wait_until(lock, visible_from_, [this] { return finished_; })) return;
    DrawLocked(text);
  });
}

bool ProgressLine::drawn() {
  std::lock_guard<std::mutex> lock(mu_);
  return drawn_;
}

void ProgressLine::Finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return;
  if (drawn_) err_ << "\r\033[K" << std::flush;
  finished_ = true;
  finished_cv_.notify_all();
}

}  // namespace tracelint
