#include "analyzer/base/memory_budget.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "gtest/gtest.h"

namespace tracelint {
namespace {

TEST(MemoryBudget, WorkLargerThanTheBudgetStillRunsAlone) {
  MemoryBudget budget(10);
  budget.Acquire(100);  // must not block: nothing else holds the budget
  budget.Release(100);
  SUCCEED();
}

TEST(MemoryBudget, SecondAcquireWaitsUntilTheFirstReleases) {
  MemoryBudget budget(100);
  budget.Acquire(80);
  std::atomic<bool> second_started{false};
  std::thread t([&] {
    budget.Acquire(50);
    second_started = true;
    budget.Release(50);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(second_started.load());
  budget.Release(80);
  t.join();
  EXPECT_TRUE(second_started.load());
}

TEST(MemoryBudget, ZeroIsUnlimited) {
  MemoryBudget budget(0);
  budget.Acquire(size_t{1} << 40);
  budget.Acquire(size_t{1} << 40);
  budget.Release(size_t{1} << 40);
  budget.Release(size_t{1} << 40);
  SUCCEED();
}

TEST(MemoryBudget, DefaultIsHalfOfSomeMemory) { EXPECT_GT(MemoryBudget::DefaultBytes(), 0u); }

}  // namespace
}  // namespace tracelint
