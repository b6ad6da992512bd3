#ifndef TRACELINT_ANALYZER_BASE_WORKER_POOL_H_
#define TRACELINT_ANALYZER_BASE_WORKER_POOL_H_

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace tracelint {

// The most threads (`--threads`) a command accepts: more than the largest
// machine tracelint runs on has cores; a larger value is a usage error.
inline constexpr int kMaxThreads = 1024;

// Starts `thread` running `fn`; false, and nothing started, when the system
// refuses a thread (std::system_error: EAGAIN at the process's thread limit,
// or no address space left for its stack). Callers then do the work with
// fewer threads.
template <typename Fn>
bool TryStartThread(std::thread& thread, Fn&& fn) {
  try {
    thread = std::thread(std::forward<Fn>(fn));
    return true;
  } catch (const std::system_error&) {
    return false;
  }
}

// A fixed set of threads running submitted tasks. Submit() blocks while
// `max_pending` tasks are queued or running, which bounds the memory held
// by work not yet done (parts of a file, whole files). With one thread the
// tasks run inline in Submit(), in order. Threads the system refuses are
// done without (at worst the tasks run inline). An exception a task throws
// (std::bad_alloc) is kept and rethrown by Wait(), never left to end the
// process from a worker thread.
class WorkerPool {
 public:
  WorkerPool(int threads, int max_pending);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Submit(std::function<void()> task);
  // Returns when every submitted task has finished; rethrows the first
  // exception a task threw.
  void Wait();
  // Threads running the tasks (0: inline).
  int threads() const { return static_cast<int>(threads_.size()); }

  // `requested` threads, 0 meaning the machine's, at least 1.
  static int ResolveThreads(int requested);

 private:
  void Run();

  int max_pending_;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::deque<std::function<void()>> queue_;
  int pending_ = 0;  // queued + running
  bool stopping_ = false;
  std::exception_ptr error_;  // the first task's exception
};

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_BASE_WORKER_POOL_H_
