#include "rules/host_side_ops.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/rule_test_util.h"
#include "testdata/rules/case_studies.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using rule_test::FindCause;
using rule_test::RunRule;
using testing::DeviceSpec;
using testing::Scenario;

// Per step: a 10 us kernel, a host op of `self_ns` that launches nothing,
// then 2 ms of device work. The GPU idles for about self_ns - 5 us.
Scenario HostOpSteps(TimeNs self_ns) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k).Kernel("k_small", 10 * kNsPerUs);
    s.BeginPython("model.py(88): postprocess").HostOp("aten::unique", self_ns).End();
    s.Kernel("k_big", 2 * kNsPerMs).Sync();
    s.EndStep();
  }
  return s;
}

TEST(HostSideOpsTest, FiresOnItemInLoopWithBothCauses) {
  HostSideOpsRule rule;
  RuleOutcome out = RunRule(rule, case_studies::ItemInLoop());
  ASSERT_TRUE(out.applicable);
  const Finding* sync = FindCause(out, "sync_call");
  ASSERT_NE(sync, nullptr);
  EXPECT_NEAR(sync->recoverable_ns_per_step, case_studies::kLogAfterItemNs,
              case_studies::kLogAfterItemNs * 0.05);
  ASSERT_FALSE(sync->location.top_items.empty());
  EXPECT_EQ(sync->location.top_items[0].name, "aten::item");
  EXPECT_THAT(sync->message, HasSubstr("aten::item x6"));
  // A count is a whole number when it is one: "1 synchronizing call per
  // step", never "1.0".
  EXPECT_THAT(sync->message, ::testing::ContainsRegex("^[0-9]+ synchronizing calls? per step"))
      << sync->message;
  EXPECT_THAT(sync->message, ::testing::Not(HasSubstr(".0 synchronizing")));
  EXPECT_THAT(sync->fix, HasSubstr(".item()"));
  const Finding* host = FindCause(out, "host_side_op");
  ASSERT_NE(host, nullptr);
  EXPECT_NEAR(host->recoverable_ns_per_step, case_studies::kNumpyIdleNs,
              case_studies::kNumpyIdleNs * 0.05);
  EXPECT_EQ(host->location.top_items[0].name, "aten::numpy_T");
  EXPECT_GT(sync->recoverable_ns_per_step, host->recoverable_ns_per_step);
}

TEST(HostSideOpsTest, QuietWhenTheGpuIsBusy) {
  HostSideOpsRule rule;
  RuleOutcome out = RunRule(rule, case_studies::Healthy());
  EXPECT_TRUE(out.applicable);
  EXPECT_TRUE(out.findings.empty());
}

TEST(HostSideOpsTest, MinSelfNsBothSides) {
  HostSideOpsRule rule;
  // Default 100 us: a 120 us op is reported, an 80 us one is not.
  RuleOutcome above = RunRule(rule, HostOpSteps(120 * kNsPerUs));
  const Finding* f = FindCause(above, "host_side_op");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->location.top_items[0].name, "aten::unique");
  EXPECT_THAT(f->location.python_stack, ::testing::ElementsAre("model.py(88): postprocess"));
  EXPECT_EQ(FindCause(RunRule(rule, HostOpSteps(80 * kNsPerUs)), "host_side_op"), nullptr);
  // And the option moves the line.
  Scenario s = HostOpSteps(500 * kNsPerUs);
  EXPECT_NE(FindCause(RunRule(rule, s, {{"MinSelfNs", 499999}}), "host_side_op"), nullptr);
  EXPECT_EQ(FindCause(RunRule(rule, s, {{"MinSelfNs", 500001}}), "host_side_op"), nullptr);
}

TEST(HostSideOpsTest, MinIdleShareBothSides) {
  HostSideOpsRule rule;
  Scenario s = HostOpSteps(500 * kNsPerUs);
  RuleOutcome out = RunRule(rule, s);
  const Finding* f = FindCause(out, "host_side_op");
  ASSERT_NE(f, nullptr);
  double share = f->recoverable_share;
  EXPECT_GT(share, 0.15);  // ~495 us of a ~2.5 ms step
  EXPECT_EQ(SeverityForShare(f->recoverable_share), FindingSeverity::kHigh);
  EXPECT_NE(FindCause(RunRule(rule, s, {{"MinIdleShare", share - 0.005}}), "host_side_op"),
            nullptr);
  EXPECT_EQ(FindCause(RunRule(rule, s, {{"MinIdleShare", share + 0.005}}), "host_side_op"),
            nullptr);
}

TEST(HostSideOpsTest, RoundTripThroughTheHostIsEvidence) {
  HostSideOpsRule rule;
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 3; ++k) {
    s.BeginStep(k).Kernel("producer", kNsPerMs);
    s.CopyD2H(1 << 20, 100 * kNsPerUs, MemorySpace::kPageable);
    s.HostOp("aten::sort", 2 * kNsPerMs);
    s.CopyH2D(1 << 20, 100 * kNsPerUs, MemorySpace::kPinned);
    s.Kernel("consumer", kNsPerMs).Sync().EndStep();
  }
  RuleOutcome out = RunRule(rule, s);
  const Finding* f = FindCause(out, "sync_call");
  ASSERT_NE(f, nullptr);
  bool found = false;
  for (const Evidence& e : f->evidence) {
    if (e.text.find("round trips") != std::string::npos) {
      found = true;
      EXPECT_DOUBLE_EQ(e.value, 1.0);
      EXPECT_THAT(e.text, HasSubstr("Memcpy DtoH (Device -> Pageable) -> aten::sort -> "
                                    "Memcpy HtoD (Pinned -> Device)"));
    }
  }
  EXPECT_TRUE(found);
}

TEST(HostSideOpsTest, SaysWhatItCouldNotJudge) {
  HostSideOpsRule rule;
  RuleOutcome cpu = RunRule(rule, case_studies::CpuOnly());
  EXPECT_FALSE(cpu.applicable);
  // Without correlation, or between the nodes of a graph replay, the idle is
  // unattributed: no finding is guessed, and the rule says why.
  for (const Scenario& s : {case_studies::NoCorrelation(), case_studies::GraphReplayGaps()}) {
    RuleOutcome unlinked = RunRule(rule, s);
    EXPECT_FALSE(unlinked.applicable);
    EXPECT_THAT(unlinked.not_judged_reason, HasSubstr("no linked launch"));
  }
}

}  // namespace
}  // namespace tracelint
