#include "analyzer/analysis/outlier_steps.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr TimeNs kMs = kNsPerMs;

TEST(OutlierSteps, FewerThanFiveStepsAreNeverOutliers) {
  OutlierSteps o = FindOutlierSteps({10 * kMs, 10 * kMs, 10 * kMs, 90 * kMs});
  EXPECT_FALSE(o.judged());
  EXPECT_THAT(o.indices, IsEmpty());
  EXPECT_EQ(o.limit_ns, 0);
}

TEST(OutlierSteps, OnlyTheSlowSideCounts) {
  // Median 10 ms, MAD 0: the limit is 10% of the median (1 ms).
  OutlierSteps o = FindOutlierSteps({10 * kMs, 10 * kMs, 2 * kMs, 10 * kMs, 10 * kMs, 25 * kMs});
  EXPECT_EQ(o.median_ns, 10 * kMs);
  EXPECT_EQ(o.limit_ns, 1 * kMs);
  EXPECT_THAT(o.indices, ElementsAre(5));  // the 2-ms step is fast, not an outlier
  EXPECT_TRUE(o.Contains(5));
  EXPECT_FALSE(o.Contains(2));
}

TEST(OutlierSteps, TenPercentOfTheMedianIsTheLeastExcess) {
  // 11.0 ms is exactly 10% over a 10-ms median: not more than the limit.
  EXPECT_THAT(FindOutlierSteps({10 * kMs, 10 * kMs, 10 * kMs, 10 * kMs, 11 * kMs}).indices,
              IsEmpty());
  EXPECT_THAT(
      FindOutlierSteps({10 * kMs, 10 * kMs, 10 * kMs, 10 * kMs, 11 * kMs + 1}).indices,
      ElementsAre(4));
}

TEST(OutlierSteps, ASpreadRunWidensTheLimitByItsMad) {
  // Median 105, deviations {25, 15, 5, 5, 15, 195}: MAD 15, limit
  // 3 x 1.4826 x 15 = 66.7 ms (more than 10% of the median).
  std::vector<TimeNs> steps = {80 * kMs,  90 * kMs,  100 * kMs,
                               110 * kMs, 120 * kMs, 300 * kMs};
  OutlierSteps o = FindOutlierSteps(steps);
  EXPECT_NEAR(static_cast<double>(o.limit_ns), 3 * 1.4826 * 15 * kMs, 1);
  EXPECT_THAT(o.indices, ElementsAre(5));
  steps[5] = 160 * kMs;  // 55 ms over a 105-ms median: within the spread
  EXPECT_THAT(FindOutlierSteps(steps).indices, IsEmpty());
}

TEST(OutlierSteps, AtMostAThirdOfTheStepsTheSlowest) {
  // Seven steps, three slow ones: only two (7 / 3) may be outliers, the
  // two slowest, reported in step order.
  OutlierSteps o = FindOutlierSteps(
      {10 * kMs, 30 * kMs, 10 * kMs, 40 * kMs, 10 * kMs, 35 * kMs, 10 * kMs});
  EXPECT_THAT(o.indices, ElementsAre(3, 5));
}

}  // namespace
}  // namespace tracelint
