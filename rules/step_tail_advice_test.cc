#include "rules/step_tail_advice.h"

#include <optional>
#include <string>

#include "analyzer/analysis/analysis_context.h"
#include "tests/support/scenario.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rules/gpu_idle_gaps.h"
#include "tests/support/rule_test_util.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using rules2_test::Options;
using rules2_test::RunOn;
using testing::DeviceSpec;
using testing::Scenario;

constexpr char kGemm[] = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn";

// Six training steps of 2 ms of backward GEMM each; the host records
// nothing for `silent_ns`, at the end of the step (after the GEMM is
// launched, so the GPU runs dry until the next step) or between the step's
// two GEMMs.
Scenario Steps(bool at_end, TimeNs silent_ns, int slow_steps = 6, int step_count = 6) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= step_count; ++k) {
    const TimeNs silent = k <= slow_steps ? silent_ns : 100 * kNsPerUs;
    s.BeginStep(k);
    s.BeginBackward("MmBackward0").BeginOp("aten::mm").Kernel(kGemm, 1 * kNsPerMs).End().End();
    if (!at_end) s.Idle(silent);
    s.BeginBackward("MmBackward0").BeginOp("aten::mm").Kernel(kGemm, 1 * kNsPerMs).End().End();
    if (at_end) s.Idle(silent);
    s.EndStep();
  }
  return s;
}

std::optional<Finding> HostSilent(const Scenario& s) {
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  EXPECT_TRUE(tl.ok()) << tl.status();
  if (!tl.ok()) return std::nullopt;
  GpuIdleGapsRule rule;
  for (Finding& f : RunOn(rule, *tl, Options(rule)).findings) {
    if (f.cause == "host_silent") return f;
  }
  return std::nullopt;
}

const Evidence* TailLine(const Finding& f) {
  for (const Evidence& e : f.evidence) {
    if (e.text.find("after the step's last") != std::string::npos) return &e;
  }
  return nullptr;
}

TEST(StepTailAdviceTest, IdleAtTheEndOfEveryStepLeadsTheFix) {
  std::optional<Finding> f = HostSilent(Steps(/*at_end=*/true, 4 * kNsPerMs));
  ASSERT_TRUE(f.has_value());
  const Evidence* tail = TailLine(*f);
  ASSERT_NE(tail, nullptr);
  EXPECT_GT(tail->value, 0.95);
  EXPECT_THAT(tail->text, HasSubstr("(mostly so in 6 of 6 steps)"));
  EXPECT_THAT(f->fix, ::testing::StartsWith("Most of this idle is at the end of each step"));
  EXPECT_THAT(f->fix, HasSubstr("logging, metric reads, callbacks"));
  // The cause's own fix follows.
  EXPECT_THAT(f->fix, HasSubstr("with_stack=True"));
  rules2_test::ExpectTestdataMatches(Steps(true, 4 * kNsPerMs), "idle_step_tail.json");
}

TEST(StepTailAdviceTest, IdleInsideTheStepGetsNoTailAdvice) {
  std::optional<Finding> f = HostSilent(Steps(/*at_end=*/false, 4 * kNsPerMs));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(TailLine(*f), nullptr);
  EXPECT_THAT(f->fix, Not(HasSubstr("end of each step")));
  rules2_test::ExpectTestdataMatches(Steps(false, 4 * kNsPerMs), "idle_step_middle.json");
}

TEST(StepTailAdviceTest, OneStallAtOneStepEndKeepsTheStallAdvice) {
  // Only step 1 of 4 ends with 20 ms of silence: the one-step stall leads
  // the fix and the tail is evidence. (From 5 steady steps it would be an
  // outlier step, left out of the saving.)
  std::optional<Finding> f = HostSilent(
      Steps(/*at_end=*/true, 20 * kNsPerMs, /*slow_steps=*/1, /*step_count=*/4));
  ASSERT_TRUE(f.has_value());
  const Evidence* tail = TailLine(*f);
  ASSERT_NE(tail, nullptr);
  EXPECT_THAT(f->fix, ::testing::StartsWith("Most of this idle is in one step"));
  EXPECT_THAT(f->fix, Not(HasSubstr("end of each step")));
}

TEST(StepTailAdviceTest, InferenceNamesOutputPostProcessing) {
  Finding f;
  f.fix = "generic.";
  JobProfile job;
  job.kind = JobKind::kInference;
  rules_internal::StepTail tail{0.9, 4, 4};
  rules_internal::AddStepTailAdvice(tail, "GPU", job, /*fix_taken=*/false, f);
  EXPECT_THAT(f.fix, HasSubstr("post-process"));
  EXPECT_THAT(f.fix, ::testing::EndsWith("generic."));
}

TEST(StepTailAdviceTest, ThresholdAndWindowsWithoutMarkers) {
  Finding f;
  f.fix = "generic.";
  rules_internal::StepTail below{0.49, 4, 4};
  rules_internal::AddStepTailAdvice(below, "GPU", JobProfile{}, false, f);
  EXPECT_TRUE(f.evidence.empty());
  EXPECT_EQ(f.fix, "generic.");
  rules_internal::StepTail at{0.5, 4, 2};
  rules_internal::AddStepTailAdvice(at, "GPU", JobProfile{}, false, f);
  EXPECT_EQ(f.evidence.size(), 1u);
  EXPECT_THAT(f.fix, HasSubstr("end of each step"));
  // One window, no step markers: no "end of the step".
  StepSet window;
  window.from_markers = false;
  window.steps.push_back(Step{});
  EXPECT_EQ(rules_internal::StepTailOf(window, {}, IdleAttribution{}, IdleCause::kHostSilent).share,
            0);
}

}  // namespace
}  // namespace tracelint
