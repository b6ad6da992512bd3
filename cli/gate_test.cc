#include "cli/gate.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;

Finding MakeFinding(FindingSeverity severity, double share) {
  Finding f;
  f.severity = severity;
  f.recoverable_share = share;
  return f;
}

TEST(ParseGateOptions, AcceptsSeveritiesSharesAndPercentages) {
  absl::StatusOr<GateOptions> g = ParseGateOptions("", "");
  ASSERT_TRUE(g.ok());
  EXPECT_FALSE(g->fail_on.has_value());
  EXPECT_FALSE(g->fail_on_recoverable_share.has_value());
  g = ParseGateOptions("medium", "0.25");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(*g->fail_on, FindingSeverity::kMedium);
  EXPECT_DOUBLE_EQ(*g->fail_on_recoverable_share, 0.25);
  g = ParseGateOptions("low", "20%");
  ASSERT_TRUE(g.ok());
  EXPECT_DOUBLE_EQ(*g->fail_on_recoverable_share, 0.2);
}

TEST(ParseGateOptions, RejectsAnythingElse) {
  for (auto [fail_on, share] : std::vector<std::pair<std::string, std::string>>{
           {"critical", ""}, {"HIGH", ""}, {"", "0"}, {"", "1.5"}, {"", "abc"}, {"", "%"},
           {"", "20 %"}, {"", "nan"}, {"", "-0.1"}, {"", "120%"}}) {
    EXPECT_FALSE(ParseGateOptions(fail_on, share).ok()) << fail_on << " / " << share;
  }
}

// Every severity threshold against every severity present, and absent.
TEST(EvaluateGate, FailOnTripsAtOrAboveTheSeverity) {
  const FindingSeverity all[] = {FindingSeverity::kLow, FindingSeverity::kMedium,
                                 FindingSeverity::kHigh};
  for (FindingSeverity threshold : all) {
    GateOptions options;
    options.fail_on = threshold;
    EXPECT_FALSE(EvaluateGate(options, {}).tripped);
    for (FindingSeverity present : all) {
      GateResult r = EvaluateGate(options, {MakeFinding(present, 0.01)});
      EXPECT_EQ(r.tripped, present >= threshold)
          << FindingSeverityName(present) << " vs --fail-on " << FindingSeverityName(threshold);
    }
  }
}

TEST(EvaluateGate, RecoverableShareTripsWhenTheTotalReachesIt) {
  GateOptions options;
  options.fail_on_recoverable_share = 0.2;
  EXPECT_FALSE(EvaluateGate(options, {}).tripped);
  EXPECT_FALSE(EvaluateGate(options, {MakeFinding(FindingSeverity::kHigh, 0.19)}).tripped);
  // Two findings below the threshold add up past it.
  GateResult r = EvaluateGate(options, {MakeFinding(FindingSeverity::kLow, 0.1),
                                        MakeFinding(FindingSeverity::kLow, 0.1)});
  EXPECT_TRUE(r.tripped);
  EXPECT_THAT(r.reasons.at(0), HasSubstr("20.0%"));
  // A one-time finding carries no per-step share and never counts.
  Finding once = MakeFinding(FindingSeverity::kMedium, 0);
  once.one_time_ns = 5'000'000'000;
  EXPECT_FALSE(EvaluateGate(options, {once, MakeFinding(FindingSeverity::kLow, 0.1)}).tripped);
}

}  // namespace
}  // namespace tracelint
