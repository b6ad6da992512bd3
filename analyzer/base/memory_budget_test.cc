#include "analyzer/base/memory_budget.h"

#include <sys/resource.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
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

// A fake /sys/fs/cgroup and /proc/self/cgroup in a scratch directory.
class FakeCgroup {
 public:
  FakeCgroup() {
    std::string tmpl = (std::filesystem::path(::testing::TempDir()) / "tl_cgroup_XXXXXX").string();
    root_ = mkdtemp(tmpl.data()) != nullptr ? tmpl : "";
  }
  ~FakeCgroup() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  void Write(const std::string& relative, const std::string& text) {
    std::filesystem::path p = std::filesystem::path(root_) / relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  MemoryLimitSources Sources() const {
    MemoryLimitSources s;
    s.cgroup_root = root_ + "/sys";
    s.self_cgroup = root_ + "/self_cgroup";
    s.meminfo = root_ + "/meminfo";
    s.read_rlimits = false;
    return s;
  }

 private:
  std::string root_;
};

constexpr uint64_t kGiB = uint64_t{1} << 30;

TEST(MemoryLimits, CgroupV2TheSmallestLimitOnThePath) {
  FakeCgroup fake;
  fake.Write("self_cgroup", "0::/user.slice/job\n");
  fake.Write("sys/memory.max", "max\n");  // the namespace root: no limit
  fake.Write("sys/user.slice/memory.max", "4294967296\n");
  fake.Write("sys/user.slice/job/memory.max", "8589934592\n");  // the parent's is smaller
  MemoryLimits limits = ReadMemoryLimits(fake.Sources());
  EXPECT_EQ(limits.cgroup_bytes, 4 * kGiB);
  EXPECT_NE(limits.cgroup_file.find("user.slice/memory.max"), std::string::npos);
  EXPECT_GT(limits.ram_bytes, 0u);
  EXPECT_EQ(limits.LimitBytes(), std::min(limits.ram_bytes, 4 * kGiB));
  EXPECT_EQ(limits.BudgetBytes(), limits.LimitBytes() / 2);
  EXPECT_NE(limits.Describe().find("cgroup limit 4.0 GiB"), std::string::npos)
      << limits.Describe();
}

TEST(MemoryLimits, ContainerNamespaceRootIsTheCgroupItself) {
  FakeCgroup fake;
  fake.Write("self_cgroup", "0::/\n");
  fake.Write("sys/memory.max", "1073741824\n");
  EXPECT_EQ(ReadMemoryLimits(fake.Sources()).cgroup_bytes, kGiB);
}

TEST(MemoryLimits, CgroupV1MemoryController) {
  FakeCgroup fake;
  fake.Write("self_cgroup", "12:cpu,cpuacct:/x\n7:memory:/docker/abc\n");
  fake.Write("sys/memory/docker/abc/memory.limit_in_bytes", "2147483648\n");
  fake.Write("sys/memory/memory.limit_in_bytes", "9223372036854771712\n");  // no limit
  MemoryLimits limits = ReadMemoryLimits(fake.Sources());
  EXPECT_EQ(limits.cgroup_bytes, 2 * kGiB);
}

TEST(MemoryLimits, FallbacksWithoutProcOrSys) {
  FakeCgroup fake;  // nothing written: no /proc/self/cgroup, no /sys/fs/cgroup
  MemoryLimits limits = ReadMemoryLimits(fake.Sources());
  EXPECT_EQ(limits.cgroup_bytes, 0u);
  EXPECT_GT(limits.ram_bytes, 0u);  // sysconf asks the kernel, not /proc
  EXPECT_EQ(limits.LimitBytes(), limits.ram_bytes);
  fake.Write("sys/memory.max", "garbage\n");
  EXPECT_EQ(ReadMemoryLimits(fake.Sources()).cgroup_bytes, 0u);
}

TEST(MemoryLimits, RlimitCounts) {
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_DATA, &old), 0);
  rlimit lowered = old;
  // Far above what this test uses, below any machine's RAM here.
  lowered.rlim_cur = std::min<rlim_t>(old.rlim_cur, rlim_t{64} << 30);
  ASSERT_EQ(setrlimit(RLIMIT_DATA, &lowered), 0);
  MemoryLimitSources s;
  s.cgroup_root = "/nonexistent";
  s.self_cgroup = "/nonexistent";
  MemoryLimits limits = ReadMemoryLimits(s);
  setrlimit(RLIMIT_DATA, &old);
  EXPECT_GT(limits.rlimit_bytes, 0u);
  EXPECT_LE(limits.rlimit_bytes, uint64_t{64} << 30);
}

TEST(MemoryLedger, TheLargestActiveAccountStops) {
  MemoryLedger ledger(1000, "test");  // parse limit: 500
  MemoryLedger::Account small = ledger.Open();
  MemoryLedger::Account big = ledger.Open();
  small.Set(100);
  big.Set(400);
  EXPECT_FALSE(big.OverBudget());
  big.Set(450);  // total 550 > 500
  EXPECT_TRUE(big.OverBudget());
  EXPECT_FALSE(small.OverBudget());  // the runaway stops, not the healthy read
  big.Deactivate();                   // a finished timeline, still held
  EXPECT_TRUE(small.OverBudget());    // now the largest read still going
  big.Close();
  EXPECT_FALSE(small.OverBudget());
  EXPECT_EQ(ledger.total_bytes(), 100u);
  EXPECT_EQ(ledger.peak_bytes(), 550u);
}

TEST(MemoryLedger, ZeroIsUnlimitedAndClosingReleases) {
  MemoryLedger ledger(0, "none");
  {
    MemoryLedger::Account a = ledger.Open();
    a.Set(uint64_t{1} << 50);
    EXPECT_FALSE(a.OverBudget());
    MemoryLedger::Account moved = std::move(a);
    EXPECT_EQ(ledger.total_bytes(), uint64_t{1} << 50);
  }
  EXPECT_EQ(ledger.total_bytes(), 0u);
}

}  // namespace
}  // namespace tracelint
