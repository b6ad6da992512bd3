#ifndef TRACELINT_ANALYZER_BASE_WORKER_POOL_H_
#define TRACELINT_ANALYZER_BASE_WORKER_POOL_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tracelint {

// A fixed set of threads running submitted tasks. Submit() blocks while
// `max_pending` tasks are queued or running, which bounds the memory held
// by work not yet done (parts of a file, whole files). With one thread the
// tasks run inline in Submit(), in order.
class WorkerPool {
 public:
  WorkerPool(int threads, int max_pending);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Submit(std::function<void()> task);
  // Returns when every submitted task has finished.
  void Wait();

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
};

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_BASE_WORKER_POOL_H_
