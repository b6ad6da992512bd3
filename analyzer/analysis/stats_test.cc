#include "analyzer/analysis/stats.h"

#include <algorithm>
#include <random>

#include "gtest/gtest.h"

// Reference values: the exact p-values come from enumerating every split of
// the pooled sample (itertools.combinations in plain Python, no scipy); the
// normal ones from the textbook formula with tie correction, by hand.

namespace tracelint {
namespace {

TEST(Quantile, InterpolatesBetweenOrderStatistics) {
  std::vector<double> v = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(Quantile(v, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(Quantile(v, 0.1), 1.3);
  EXPECT_DOUBLE_EQ(Quantile(v, 0.9), 3.7);
  EXPECT_DOUBLE_EQ(Quantile(v, 0), 1);
  EXPECT_DOUBLE_EQ(Quantile(v, 1), 4);
  EXPECT_DOUBLE_EQ(Quantile({7}, 0.9), 7);
  EXPECT_DOUBLE_EQ(Quantile({}, 0.5), 0);
}

TEST(MannWhitneyU, SeparatedSamplesExact) {
  // U = 25 of 25: only 1 of C(10,5) = 252 orderings is as extreme per side.
  MannWhitney r = MannWhitneyU({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 25);
  EXPECT_NEAR(r.p_value, 2.0 / 252, 1e-12);
  // Symmetric.
  EXPECT_NEAR(MannWhitneyU({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}).p_value, 2.0 / 252, 1e-12);
}

TEST(MannWhitneyU, InterleavedSamplesAreNotSignificant) {
  MannWhitney r = MannWhitneyU({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 15);
  EXPECT_NEAR(r.p_value, 0.6904761904761905, 1e-12);
}

TEST(MannWhitneyU, UnequalSizesExact) {
  MannWhitney r = MannWhitneyU({1, 2, 3, 4, 5, 6}, {3.5, 7, 8, 9, 10, 11, 12});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 39);
  EXPECT_NEAR(r.p_value, 0.008158508158508158, 1e-12);
}

TEST(MannWhitneyU, TiesUseTheCorrectedNormalApproximation) {
  MannWhitney r = MannWhitneyU({1, 2, 2, 3, 3, 3, 4}, {3, 4, 4, 5, 5, 6, 7});
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 45.5);
  // var = 49/12 * (15 - 90/182) = 59.096...; z = (45.5 - 24.5 - 0.5) / sqrt(var).
  EXPECT_NEAR(r.p_value, 0.007659988586736329, 1e-9);
}

TEST(MannWhitneyU, AllEqualIsNoEvidence) {
  MannWhitney r = MannWhitneyU({5, 5, 5, 5, 5}, {5, 5, 5, 5, 5});
  EXPECT_DOUBLE_EQ(r.p_value, 1);
}

TEST(MannWhitneyU, LargeSamplesUseTheNormalApproximation) {
  std::vector<double> x, y;
  for (int i = 0; i < 60; ++i) {
    x.push_back(i);
    y.push_back(i + 0.5);
  }
  MannWhitney r = MannWhitneyU(x, y);
  EXPECT_FALSE(r.exact);
  EXPECT_GT(r.p_value, 0.5);
}

TEST(HodgesLehmann, ExactIntervalFromOrderStatistics) {
  // Differences y - x take 1..9 with counts 1,2,3,4,5,4,3,2,1: median 5.
  // P(U <= 2) = 4/252 < 0.025 <= P(U <= 3) = 7/252, so k = 3: the 3rd
  // smallest (2) and 3rd largest (8) differences.
  ShiftEstimate s = HodgesLehmann({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, 0.95);
  EXPECT_DOUBLE_EQ(s.estimate, 5);
  EXPECT_DOUBLE_EQ(s.low, 2);
  EXPECT_DOUBLE_EQ(s.high, 8);
}

TEST(HodgesLehmann, NormalIntervalWithTies) {
  // k = ceil(49/2 - 0.5 - 1.96 * sqrt(59.096)) = 9: the 9th smallest (1) and
  // 9th largest (4) of the 49 differences; the median (25th) is 2.
  ShiftEstimate s = HodgesLehmann({1, 2, 2, 3, 3, 3, 4}, {3, 4, 4, 5, 5, 6, 7}, 0.95);
  EXPECT_DOUBLE_EQ(s.estimate, 2);
  EXPECT_DOUBLE_EQ(s.low, 1);
  EXPECT_DOUBLE_EQ(s.high, 4);
}

TEST(HodgesLehmann, TinySamplesGetTheFullRange) {
  ShiftEstimate s = HodgesLehmann({1, 2}, {10, 20}, 0.95);
  EXPECT_DOUBLE_EQ(s.low, 8);
  EXPECT_DOUBLE_EQ(s.high, 19);
}

TEST(KthDifference, MatchesTheListedDifferences) {
  // Seeded pseudo-random samples with ties and fractional values.
  std::mt19937_64 rng(42);
  for (int round = 0; round < 4; ++round) {
    std::vector<double> x, y;
    for (int i = 0; i < 37 + round; ++i) x.push_back(static_cast<double>(rng() % 50) / 4);
    for (int i = 0; i < 23 + 3 * round; ++i) y.push_back(static_cast<double>(rng() % 60) / 8);
    std::vector<double> diffs;
    for (double b : x) {
      for (double a : y) diffs.push_back(a - b);
    }
    std::sort(diffs.begin(), diffs.end());
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    for (size_t k = 1; k <= diffs.size(); k += 7) {
      EXPECT_EQ(KthDifference(x, y, static_cast<int64_t>(k)), diffs[k - 1]) << k;
    }
    EXPECT_EQ(KthDifference(x, y, static_cast<int64_t>(diffs.size())), diffs.back());
  }
}

TEST(HodgesLehmann, LargeSamplesWithoutListingTheDifferences) {
  // 2100 x 2100 pairs is above the listing limit: the selection path. A
  // pure shift of 10 is recovered exactly, with a tight interval around it.
  std::vector<double> x, y;
  for (int i = 0; i < 2100; ++i) {
    x.push_back(1000 + (i * 37) % 101);
    y.push_back(1010 + (i * 53) % 101);
  }
  ShiftEstimate s = HodgesLehmann(x, y, 0.95);
  EXPECT_DOUBLE_EQ(s.estimate, 10);
  EXPECT_LE(s.low, 10);
  EXPECT_GE(s.high, 10);
  EXPECT_GT(s.low, 7);
  EXPECT_LT(s.high, 13);
}

TEST(CompareSamples, TooFewStepsAreNotJudged) {
  SampleComparison c = CompareSamples({1, 2, 3, 4}, {10, 11, 12, 13, 14});
  EXPECT_FALSE(c.judged);
  EXPECT_FALSE(c.beyond_noise);
  EXPECT_DOUBLE_EQ(c.median_base, 2.5);
  EXPECT_DOUBLE_EQ(c.median_new, 12);
}

TEST(CompareSamples, SeparatedSamplesAreBeyondNoise) {
  SampleComparison c = CompareSamples({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_TRUE(c.judged);
  EXPECT_TRUE(c.beyond_noise);
  EXPECT_DOUBLE_EQ(c.shift.estimate, 5);
  c = CompareSamples({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10});
  EXPECT_TRUE(c.judged);
  EXPECT_FALSE(c.beyond_noise);
  EXPECT_LE(c.shift.low, 0);
  EXPECT_GE(c.shift.high, 0);
}

}  // namespace
}  // namespace tracelint
