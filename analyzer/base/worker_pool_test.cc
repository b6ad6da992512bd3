#include "analyzer/base/worker_pool.h"

#include <atomic>
#include <chrono>
#include <vector>

#include "gtest/gtest.h"

namespace tracelint {
namespace {

TEST(WorkerPool, RunsEveryTaskAndBoundsPending) {
  for (int threads : {1, 3}) {
    std::atomic<int> running{0};
    std::atomic<int> max_running{0};
    std::vector<int> done(50, 0);
    {
      WorkerPool pool(threads, 2);
      for (int i = 0; i < 50; ++i) {
        pool.Submit([&, i] {
          int now = ++running;
          int seen = max_running.load();
          while (now > seen && !max_running.compare_exchange_weak(seen, now)) {
          }
          std::this_thread::sleep_for(std::chrono::microseconds(200));
          done[i] = 1;
          --running;
        });
      }
      pool.Wait();
      for (int i = 0; i < 50; ++i) EXPECT_EQ(done[i], 1) << i;
    }
    EXPECT_LE(max_running.load(), threads == 1 ? 1 : 2);
  }
}

TEST(WorkerPool, ResolveThreads) {
  EXPECT_EQ(WorkerPool::ResolveThreads(5), 5);
  EXPECT_GE(WorkerPool::ResolveThreads(0), 1);
}

}  // namespace
}  // namespace tracelint
