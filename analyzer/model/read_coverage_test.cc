#include "analyzer/model/read_coverage.h"

#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace tracelint {
namespace {

constexpr TimeNs kMs = kNsPerMs;

// Activities of one track every millisecond over [from_ms, to_ms).
void Block(std::vector<ActivityInFileOrder>& out, uint32_t track, int from_ms, int to_ms) {
  for (int ms = from_ms; ms < to_ms; ++ms) out.push_back({track, ms * kMs});
}

TEST(ReadCoverageTest, OnePassInTimeOrderCoversUpToTheEarliestTrackFront) {
  std::vector<ActivityInFileOrder> a;
  for (int ms = 100; ms < 400; ++ms) {
    a.push_back({0, ms * kMs});
    if (ms < 300) a.push_back({1, ms * kMs});  // the cut hit stream 1 first
  }
  ReadCoverage c = ComputeReadCoverage(a);
  EXPECT_EQ(c.blocks, 1);
  EXPECT_FALSE(c.interleaved);
  EXPECT_TRUE(c.Covers(150 * kMs, 250 * kMs));
  EXPECT_FALSE(c.Covers(250 * kMs, 320 * kMs));  // stream 1 stops at 299 ms
  EXPECT_FALSE(c.Covers(50 * kMs, 150 * kMs));   // before anything was read
}

TEST(ReadCoverageTest, JitterPullsTheHorizonBackWithoutStartingABlock) {
  std::vector<ActivityInFileOrder> a;
  Block(a, 0, 100, 300);
  a.push_back({0, 297 * kMs});  // 2 ms back from 299 ms: jitter, not a block
  ReadCoverage c = ComputeReadCoverage(a);
  EXPECT_EQ(c.blocks, 1);
  EXPECT_EQ(c.horizon_ns, 297 * kMs);
}

TEST(ReadCoverageTest, NewestBlockFirstCoversOnlyBlocksReadToTheirEnd) {
  // PyTorch 2.x order: [800, 1000) ms, then [400, 800), then [0, 400) cut.
  std::vector<ActivityInFileOrder> a;
  Block(a, 0, 800, 1000);
  Block(a, 1, 820, 990);
  Block(a, 0, 400, 800);
  Block(a, 1, 420, 790);
  Block(a, 0, 0, 200);  // the cut: [200, 400) not read
  ReadCoverage c = ComputeReadCoverage(a);
  EXPECT_EQ(c.blocks, 3);
  EXPECT_FALSE(c.interleaved);
  EXPECT_TRUE(c.Covers(450 * kMs, 780 * kMs));
  EXPECT_TRUE(c.Covers(700 * kMs, 900 * kMs));  // across two complete blocks
  EXPECT_TRUE(c.Covers(900 * kMs, 1200 * kMs));  // nothing after the newest
  EXPECT_FALSE(c.Covers(100 * kMs, 150 * kMs));  // the block being read
  EXPECT_FALSE(c.Covers(350 * kMs, 450 * kMs));
}

TEST(ReadCoverageTest, ACutInTheFirstBlockCoversNothingBeforeIt) {
  std::vector<ActivityInFileOrder> a;
  Block(a, 0, 800, 900);  // newest first, cut inside
  ReadCoverage c = ComputeReadCoverage(a);
  EXPECT_FALSE(c.Covers(500 * kMs, 700 * kMs));
  EXPECT_FALSE(c.Covers(790 * kMs, 850 * kMs));
  EXPECT_TRUE(c.Covers(810 * kMs, 850 * kMs));
}

TEST(ReadCoverageTest, BlocksThatGoBackOverWrittenTimeProveNothing) {
  std::vector<ActivityInFileOrder> a;
  Block(a, 0, 400, 1000);
  Block(a, 0, 40, 800);   // a second pass over [400, 800)
  Block(a, 0, 140, 250);
  ReadCoverage c = ComputeReadCoverage(a);
  EXPECT_TRUE(c.interleaved);
  EXPECT_FALSE(c.Covers(900 * kMs, 950 * kMs));
  EXPECT_NE(c.Describe().find("go back over time"), std::string::npos);
}

TEST(ReadCoverageTest, AGapIsNotBridgedWhileTheBlockBeingReadLiesInIt) {
  // Blocks out of order: [0, 300), [600, 1000), then [300, 600) being read.
  std::vector<ActivityInFileOrder> a;
  Block(a, 0, 600, 1000);
  Block(a, 0, 0, 300);
  Block(a, 0, 300, 400);
  Block(a, 1, 310, 320);  // another stream in the block being read
  ReadCoverage c = ComputeReadCoverage(a);
  ASSERT_FALSE(c.interleaved);
  EXPECT_FALSE(c.Covers(250 * kMs, 650 * kMs));
  EXPECT_TRUE(c.Covers(650 * kMs, 900 * kMs));
}

// Hostile times: starts at both int64 edges on one track, and a file that
// jumps back on every activity. No overflow (UBSan runs this), and the jumps
// prove nothing.
TEST(ReadCoverageTest, TimesAtTheInt64EdgesAndEndlessJumps) {
  constexpr TimeNs kMax = std::numeric_limits<TimeNs>::max();
  constexpr TimeNs kMin = std::numeric_limits<TimeNs>::min();
  // kMax then kMin: a block back by the whole int64 range, no overlap.
  ReadCoverage edges = ComputeReadCoverage({{0, kMax}, {0, kMin}, {0, kMax - 1}, {1, kMin}});
  EXPECT_EQ(edges.blocks, 2);
  EXPECT_FALSE(edges.interleaved);
  EXPECT_FALSE(edges.Covers(kMin, kMax));
  ReadCoverage one = ComputeReadCoverage({{0, kMin}, {0, kMin + 1}});
  EXPECT_EQ(one.blocks, 1);
  EXPECT_TRUE(one.Covers(kMin, kMin));
  EXPECT_FALSE(one.Covers(kMin, kMin + 1));
  // Every track goes back over its own last 50 ms, again and again: each
  // jump closes every open run once (linear work), and nothing is proven.
  ReadCoverageBuilder jumps;
  for (int i = 0; i < 25000; ++i) {
    uint32_t track = static_cast<uint32_t>(i % 64);
    jumps.Add(track, 1000 * kMs);
    jumps.Add(track, 1100 * kMs);
    jumps.Add(track, 0);
    jumps.Add(track, 1050 * kMs);
  }
  ReadCoverage c = std::move(jumps).Finish();
  EXPECT_GT(c.blocks, 25000);
  EXPECT_TRUE(c.interleaved);
  EXPECT_FALSE(c.Covers(0, 2000 * kMs));
}

TEST(ReadCoverageTest, NoDeviceWorkReadCoversNothing) {
  ReadCoverage c = ComputeReadCoverage({});
  EXPECT_TRUE(c.computed);
  EXPECT_FALSE(c.Covers(0, kMs));
  EXPECT_TRUE(ReadCoverage().Covers(0, kMs));  // not a cut trace
}

}  // namespace
}  // namespace tracelint
