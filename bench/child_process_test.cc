#include "bench/child_process.h"

#include <memory>

#include "gtest/gtest.h"

namespace tracelint::bench {
namespace {

TEST(ChildProcessTest, PayloadAndPeakRssOfTheChildOnly) {
  constexpr size_t kBytes = size_t{96} << 20;
  int64_t before = CurrentRssBytes();
  absl::StatusOr<ChildRun> run = RunInChild([&] {
    std::unique_ptr<char[]> block(new char[kBytes]);
    // Volatile stores: the allocation must not be optimized away.
    volatile char* bytes = block.get();
    for (size_t i = 0; i < kBytes; i += 4096) bytes[i] = 1;
    return std::string("done ") + std::to_string(bytes[kBytes - 4096]);
  });
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->exit_code, 0);
  EXPECT_EQ(run->payload, "done 1");
  EXPECT_GE(run->max_rss_bytes, static_cast<int64_t>(kBytes));
  // The parent never touched the block.
  EXPECT_LT(CurrentRssBytes(), before + static_cast<int64_t>(kBytes / 2));
}

TEST(ChildProcessTest, ErrorPayloadSetsExitCode) {
  absl::StatusOr<ChildRun> run = RunInChild([] { return std::string("error: nope"); });
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->exit_code, 1);
}

TEST(ChildProcessTest, RunCommandReportsExitCodes) {
  std::string err = ::testing::TempDir() + "/child_process_test.stderr";
  absl::StatusOr<ChildRun> ok = RunCommand({"/bin/sh", "-c", "exit 0"}, err);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->exit_code, 0);
  absl::StatusOr<ChildRun> three = RunCommand({"/bin/sh", "-c", "exit 3"}, err);
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(three->exit_code, 3);
  absl::StatusOr<ChildRun> missing = RunCommand({"/nonexistent/binary"}, err);
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->exit_code, 127);
}

}  // namespace
}  // namespace tracelint::bench
