#include "analyzer/base/worker_pool.h"

#include <algorithm>

namespace tracelint {

int WorkerPool::ResolveThreads(int requested) {
  if (requested > 0) return requested;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

WorkerPool::WorkerPool(int threads, int max_pending)
    : max_pending_(std::max(1, max_pending)) {
  if (threads <= 1) return;
  for (int i = 0; i < threads; ++i) {
    std::thread t;
    if (!TryStartThread(t, [this] { Run(); })) break;
    threads_.push_back(std::move(t));
  }
  // One thread is no pool: the tasks run inline, in order, as with one
  // requested.
  if (threads_.size() == 1) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    work_cv_.notify_all();
    threads_[0].join();
    threads_.clear();
    stopping_ = false;
  }
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void WorkerPool::Submit(std::function<void()> task) {
  if (threads_.empty()) {
    task();
    return;
  }
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [this] { return pending_ < max_pending_; });
  ++pending_;
  queue_.push_back(std::move(task));
  lock.unlock();
  work_cv_.notify_one();
}

void WorkerPool::Wait() {
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [this] { return pending_ == 0; });
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void WorkerPool::Run() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    std::exception_ptr error;
    try {
      task();
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (error && !error_) error_ = error;
      --pending_;
    }
    done_cv_.notify_all();
  }
}

}  // namespace tracelint
