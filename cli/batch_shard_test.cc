#include "cli/batch_shard.h"

#include <algorithm>
#include <map>

#include "cli/batch_output.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using Env = std::map<std::string, std::string>;

absl::StatusOr<ShardSpec> Resolve(const std::string& flag, int shards, const Env& env) {
  return ResolveShard(flag, shards, [&](const char* name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
}

TEST(BatchShard, FlagThenSlurmThenIndexedJob) {
  absl::StatusOr<ShardSpec> s = Resolve("2/4", 0, {{"SLURM_ARRAY_TASK_ID", "0"}});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 2);
  EXPECT_EQ(s->count, 4);
  EXPECT_EQ(s->source, "--shard");

  s = Resolve("", 0, {{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_COUNT", "4"}});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 3);
  EXPECT_EQ(s->count, 4);
  // --array=1-4: MIN/MAX, counted from MIN.
  s = Resolve(
      "", 0,
      {{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "4"}});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 0);
  EXPECT_EQ(s->count, 4);

  s = Resolve("", 3, {{"JOB_COMPLETION_INDEX", "2"}});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 2);
  EXPECT_EQ(s->count, 3);
  EXPECT_EQ(s->source, "JOB_COMPLETION_INDEX");

  s = Resolve("", 0, {});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->count, 1);
  EXPECT_EQ(s->source, "");
}

TEST(BatchShard, BadSpecsAreErrors) {
  for (const char* bad : {"4/4", "1", "a/2", "1/0", "-1/2", "1/2/3"}) {
    EXPECT_FALSE(Resolve(bad, 0, {}).ok()) << bad;
  }
  EXPECT_FALSE(Resolve("1/4", 3, {}).ok());
  EXPECT_FALSE(Resolve("", 0, {{"JOB_COMPLETION_INDEX", "1"}}).ok());  // needs --shards
  EXPECT_FALSE(Resolve("", 2, {{"JOB_COMPLETION_INDEX", "2"}}).ok());
  EXPECT_FALSE(Resolve("", 0, {{"SLURM_ARRAY_TASK_ID", "5"}}).ok());  // count unknown
  EXPECT_FALSE(
      Resolve("", 0, {{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}).ok());
  EXPECT_FALSE(Resolve("", 4, {}).ok());  // --shards without an index
}

TEST(BatchShard, PartitionIsBalancedAndIndependentOfListingOrder) {
  std::vector<std::string> paths;
  std::vector<int64_t> sizes;
  for (int i = 0; i < 40; ++i) {
    paths.push_back("run" + std::to_string(i));
    sizes.push_back((i * 7919) % 1000 + 1);
  }
  std::vector<int> shard = PartitionRuns(paths, sizes, 4);
  std::vector<int64_t> load(4, 0);
  for (size_t i = 0; i < paths.size(); ++i) load[shard[i]] += sizes[i];
  auto [lo, hi] = std::minmax_element(load.begin(), load.end());
  EXPECT_LE(*hi - *lo, 1000) << "largest run size bounds the imbalance";
  // Listed in reverse: every run keeps its shard.
  std::vector<std::string> rpaths(paths.rbegin(), paths.rend());
  std::vector<int64_t> rsizes(sizes.rbegin(), sizes.rend());
  std::vector<int> rshard = PartitionRuns(rpaths, rsizes, 4);
  for (size_t i = 0; i < paths.size(); ++i) EXPECT_EQ(shard[i], rshard[paths.size() - 1 - i]);
  // Equal sizes still spread by count.
  std::vector<int> even = PartitionRuns({"a", "b", "c", "d"}, {0, 0, 0, 0}, 4);
  std::sort(even.begin(), even.end());
  EXPECT_EQ(even, (std::vector<int>{0, 1, 2, 3}));
}

TEST(BatchShard, HashChangesWithAnyPart) {
  EXPECT_EQ(HashParts({"a", "b"}), HashParts({"a", "b"}));
  EXPECT_NE(HashParts({"a", "b"}), HashParts({"ab"}));
  EXPECT_EQ(HashParts({"x"}).size(), 16u);
}

TEST(BatchProgress, RunsDoneRateAndEta) {
  EXPECT_EQ(BatchProgressText(0, 10, 0), "tracelint: 0/10 runs analysed, 0.00 runs/s, ETA ?");
  EXPECT_EQ(BatchProgressText(3, 10, 2), "tracelint: 3/10 runs analysed, 1.50 runs/s, ETA 5s");
  EXPECT_EQ(BatchProgressText(10, 400, 8),
            "tracelint: 10/400 runs analysed, 1.25 runs/s, ETA 5m12s");
  EXPECT_EQ(BatchProgressText(1, 10000, 3),
            "tracelint: 1/10000 runs analysed, 0.33 runs/s, ETA 8h19m");
}

}  // namespace
}  // namespace tracelint
