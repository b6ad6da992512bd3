#include "analyzer/analysis/collective_matching.h"

#include <limits>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "tests/support/scenario.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using testing::DeviceSpec;
using testing::Scenario;

constexpr int64_t kMiB = 1 << 20;

// Each step: 10 ms of compute, then `allreduce_ms[k]` of all-reduce, synced.
Timeline Rank(int rank, const std::vector<TimeNs>& allreduce_ns) {
  Scenario s;
  s.Device(DeviceSpec::A100()).Distributed(rank, 2);
  for (size_t k = 0; k < allreduce_ns.size(); ++k) {
    s.BeginStep(static_cast<int64_t>(k))
        .BeginOp("aten::mm")
        .Kernel("ampere_sgemm_128x64_nn", 10 * kNsPerMs)
        .End()
        .Sync();
    if (allreduce_ns[k] > 0) s.AllReduce(16 * kMiB, allreduce_ns[k]).Sync({0, testing::kCommStream});
    s.EndStep();
  }
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  EXPECT_TRUE(tl.ok()) << tl.status();
  return std::move(*tl);
}

CollectiveSplit Split(const Timeline& a, const Timeline& b) {
  AnalysisContext ca(a), cb(b);
  return MatchCollectives({CollectStepCollectives(ca), CollectStepCollectives(cb)}, {0, 1});
}

TEST(CollectiveMatchingTest, LateRankMakesTheOtherWait) {
  // Rank 1 arrives 3 ms late: rank 0's all-reduce lasts 7 ms, rank 1's 4 ms.
  const Timeline r0 = Rank(0, {7 * kNsPerMs, 7 * kNsPerMs, 7 * kNsPerMs});
  const Timeline r1 = Rank(1, {4 * kNsPerMs, 4 * kNsPerMs, 4 * kNsPerMs});
  const CollectiveSplit split = Split(r0, r1);
  EXPECT_EQ(split.steps_matched, 3);
  EXPECT_EQ(split.steps_mismatched, 0);
  EXPECT_EQ(split.collectives_matched, 3);
  EXPECT_EQ(split.transfer_ns, 12 * kNsPerMs);
  EXPECT_EQ(split.waiting_ns[0], 9 * kNsPerMs);
  EXPECT_EQ(split.waiting_ns[1], 0);
  EXPECT_EQ(split.collective_ns[0], 21 * kNsPerMs);
  EXPECT_EQ(split.collective_ns[1], 12 * kNsPerMs);
  EXPECT_EQ(split.arrived_last[1], 3);
  EXPECT_EQ(split.MostOftenLast(), 1);
  EXPECT_EQ(split.held_up_ns[1], 9 * kNsPerMs);
  EXPECT_EQ(split.held_up_ns[0], 0);
  EXPECT_EQ(split.first_step, 0);
  EXPECT_EQ(split.last_step, 2);
}

TEST(CollectiveMatchingTest, HeldUpIsTheGapToTheNextLatestRank) {
  // Three ranks, one collective per step. Step 1: rank 2 arrives last (2 ms)
  // and rank 1 just before it (3 ms), rank 0 first (9 ms): the job waited
  // 1 ms for rank 2 alone. Step 2: rank 1 is last (1 ms), rank 2 next (6 ms).
  RankCollectives r0{{1, 2}, {{9}, {8}}};
  RankCollectives r1{{1, 2}, {{3}, {1}}};
  RankCollectives r2{{1, 2}, {{2}, {6}}};
  const CollectiveSplit split = MatchCollectives({r0, r1, r2}, {0, 1, 2});
  EXPECT_EQ(split.held_up_ns[2], 1);
  EXPECT_EQ(split.held_up_ns[1], 5);
  EXPECT_EQ(split.held_up_ns[0], 0);
  EXPECT_EQ(split.waiting_ns[0], 7 + 7);
  EXPECT_EQ(split.first_step, 1);
  EXPECT_EQ(split.last_step, 2);
}

TEST(CollectiveMatchingTest, EqualRanksWaitNothing) {
  const Timeline r0 = Rank(0, {5 * kNsPerMs, 5 * kNsPerMs});
  const Timeline r1 = Rank(1, {5 * kNsPerMs, 5 * kNsPerMs});
  const CollectiveSplit split = Split(r0, r1);
  EXPECT_EQ(split.steps_matched, 2);
  EXPECT_EQ(split.transfer_ns, 10 * kNsPerMs);
  EXPECT_EQ(split.waiting_ns[0], 0);
  EXPECT_EQ(split.waiting_ns[1], 0);
  EXPECT_EQ(split.MostOftenLast(), -1);
  EXPECT_EQ(split.held_up_ns[0] + split.held_up_ns[1], 0);
}

TEST(CollectiveMatchingTest, DifferentCountsAreNotMatched) {
  // Rank 1 has no all-reduce in step 1: that step cannot be paired. (Not
  // the last step: a last step with fewer device activities is dropped.)
  const Timeline r0 = Rank(0, {6 * kNsPerMs, 6 * kNsPerMs, 6 * kNsPerMs});
  const Timeline r1 = Rank(1, {4 * kNsPerMs, 0, 4 * kNsPerMs});
  const CollectiveSplit split = Split(r0, r1);
  EXPECT_EQ(split.steps_matched, 2);
  EXPECT_EQ(split.steps_mismatched, 1);
  EXPECT_EQ(split.mismatch, "step 1: rank 0 has 1, rank 1 has 0");
  EXPECT_EQ(split.transfer_ns, 8 * kNsPerMs);
  EXPECT_EQ(split.waiting_ns[0], 4 * kNsPerMs);
}

TEST(CollectiveMatchingTest, StepsMatchByNumberAndOneRankIsNoMatch) {
  RankCollectives a{{1, 2}, {{3}, {5}}};
  RankCollectives b{{2, 3}, {{4}, {4}}};
  CollectiveSplit split = MatchCollectives({a, b}, {0, 1});
  EXPECT_EQ(split.steps_matched, 1);  // only step 2 is on both ranks
  EXPECT_EQ(split.transfer_ns, 4);
  EXPECT_EQ(split.waiting_ns[0], 1);
  EXPECT_EQ(MatchCollectives({a}, {0}).steps_matched, 0);
}

TEST(CollectiveMatchingTest, HugeDurationsSaturateInsteadOfOverflowing) {
  // A hostile trace: each time is in range, their sums are not.
  constexpr TimeNs kHuge = (TimeNs{1} << 62) - 1;
  RankCollectives a{{1}, {{kHuge, kHuge, kHuge}}};
  RankCollectives b{{1}, {{0, 0, 0}}};
  const CollectiveSplit split = MatchCollectives({a, b}, {0, 1});
  EXPECT_EQ(split.collective_ns[0], std::numeric_limits<TimeNs>::max());
  EXPECT_EQ(split.waiting_ns[0], std::numeric_limits<TimeNs>::max());
  EXPECT_EQ(split.held_up_ns[1], std::numeric_limits<TimeNs>::max());
}

}  // namespace
}  // namespace tracelint
