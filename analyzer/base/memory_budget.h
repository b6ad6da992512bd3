#ifndef TRACELINT_ANALYZER_BASE_MEMORY_BUDGET_H_
#define TRACELINT_ANALYZER_BASE_MEMORY_BUDGET_H_

#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace tracelint {

// Bytes of parse work in flight against a budget, shared by every file that
// is being parsed (one run's ranks, or a whole batch). Acquire blocks until
// the bytes fit, except that work always starts when nothing else holds the
// budget, so a single file larger than the budget still runs.
class MemoryBudget {
 public:
  // 0 = unlimited.
  explicit MemoryBudget(size_t budget_bytes) : budget_bytes_(budget_bytes) {}
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  void Acquire(size_t bytes) {
    if (budget_bytes_ == 0) return;
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return in_use_ == 0 || in_use_ + bytes <= budget_bytes_; });
    in_use_ += bytes;
  }
  void Release(size_t bytes) {
    if (budget_bytes_ == 0) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      in_use_ -= bytes;
    }
    cv_.notify_all();
  }

  // Half the machine's physical memory (0 when unknown).
  static size_t DefaultBytes();

 private:
  size_t budget_bytes_;
  size_t in_use_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_BASE_MEMORY_BUDGET_H_
