#include "analyzer/analysis/iterations.h"

#include <string>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/step_phase.h"
#include "analyzer/analysis/steps.h"
#include "gtest/gtest.h"
#include "tests/support/scenario.h"

namespace tracelint {
namespace {

using testing::DeviceSpec;
using testing::Scenario;

constexpr TimeNs Ms(TimeNs ms) { return ms * kNsPerMs; }

// A training loop without ProfilerStep markers: forward and backward
// kernels, then Optimizer.step; `host_ms[i]` of host work before
// iteration i's kernels.
Scenario Loop(const std::vector<TimeNs>& host_ms) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (TimeNs ms : host_ms) {
    s.BeginOp("aten::linear").Spend(Ms(ms)).Kernel("ampere_sgemm_128x64_nn", Ms(5)).End();
    s.BeginAnnotation("Optimizer.step#SGD.step").Kernel("multi_tensor_apply_kernel", Ms(1)).End();
    s.Sync();
  }
  return s;
}

TEST(Iterations, OptimizerStepsSplitAWindowIntoIterations) {
  Scenario s = Loop({2, 2, 2, 2, 2});
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  ASSERT_TRUE(tl.ok()) << tl.status();
  std::optional<IterationAnchors> anchors = FindIterationAnchors(*tl);
  ASSERT_TRUE(anchors.has_value());
  EXPECT_EQ(anchors->name, "Optimizer.step#SGD.step");
  EXPECT_TRUE(anchors->ends_iteration);
  EXPECT_EQ(anchors->slices.size(), 5u);
  StepSet steps = ComputeSteps(*tl);
  EXPECT_EQ(steps.source, StepSource::kInferred);
  EXPECT_FALSE(steps.from_markers);
  ASSERT_EQ(steps.steps.size(), 5u);
  EXPECT_EQ(steps.steps[0].number, 1);
  EXPECT_EQ(steps.steps[4].number, 5);
  EXPECT_EQ(StepName(steps, 3), "iteration 3");
  // Consecutive and disjoint.
  for (size_t i = 1; i < steps.steps.size(); ++i) {
    EXPECT_GE(steps.steps[i].start_ns, steps.steps[i - 1].end_ns);
  }
  EXPECT_NE(steps.notes.front().find("5 iterations inferred from the repeats of "
                                     "Optimizer.step#SGD.step"),
            std::string::npos)
      << steps.notes.front();
}

TEST(Iterations, TwoRepeatsAreNoIterations) {
  Scenario s = Loop({2, 2});
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  ASSERT_TRUE(tl.ok());
  EXPECT_FALSE(FindIterationAnchors(*tl).has_value());
  StepSet steps = ComputeSteps(*tl);
  EXPECT_EQ(steps.source, StepSource::kWindow);
  EXPECT_EQ(steps.steps.size(), 1u);
}

// Spacing that varies by half the mean or more is no rhythm: one window.
TEST(Iterations, IrregularSpacingIsNoIterations) {
  Scenario s = Loop({2, 2, 60, 2, 2, 90, 2});
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  ASSERT_TRUE(tl.ok());
  EXPECT_FALSE(FindIterationAnchors(*tl).has_value());
}

TEST(Iterations, SpacingCoefficientOfVariation) {
  EXPECT_LT(SpacingCv({0, 10, 20, 30}), 1e-9);
  EXPECT_LT(SpacingCv({0, 100, 110, 120, 130}), 1e-9);  // the first spacing left out
  EXPECT_GT(SpacingCv({0, 10, 20, 60}), 0.5);
  EXPECT_EQ(SpacingCv({5}), -1);
}

// Without optimizer steps, the top-level module forward on the main thread
// anchors the iterations (an inference benchmark).
TEST(Iterations, TopLevelModuleForwardAnchorsInference) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int i = 0; i < 4; ++i) {
    s.BeginPython("nn.Module: Net_0");
    s.BeginPython("nn.Module: Linear_0").BeginOp("aten::linear");
    s.Kernel("ampere_sgemm_128x64_nn", Ms(3)).End().End();
    s.End();
    s.Sync().Idle(Ms(1));
  }
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  ASSERT_TRUE(tl.ok()) << tl.status();
  std::optional<IterationAnchors> anchors = FindIterationAnchors(*tl);
  ASSERT_TRUE(anchors.has_value());
  EXPECT_EQ(anchors->name, "nn.Module: Net_0");
  EXPECT_FALSE(anchors->ends_iteration);
  EXPECT_EQ(ComputeSteps(*tl).steps.size(), 4u);
}

// The slow first iterations (first calls) are warm-up even where no
// one-time event is named; the rest are steady, and per-step findings on
// them lose one confidence level (trace_integrity).
TEST(Iterations, SlowFirstIterationIsWarmup) {
  Scenario s = Loop({40, 2, 2, 2, 2});
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  ASSERT_TRUE(tl.ok());
  AnalysisContext ctx(*tl);
  const StepPhaseSet& phase = ctx.step_phase();
  ASSERT_EQ(phase.phases.size(), 5u);
  EXPECT_EQ(phase.phases[0], StepPhase::kWarmup);
  for (size_t i = 1; i < 5; ++i) EXPECT_EQ(phase.phases[i], StepPhase::kSteady) << i;
  EXPECT_EQ(ctx.steps().steps.size(), 4u);
}

TEST(Iterations, EvenFirstIterationIsSteady) {
  Scenario s = Loop({3, 2, 2, 2, 2});
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  ASSERT_TRUE(tl.ok());
  AnalysisContext ctx(*tl);
  EXPECT_EQ(ctx.step_phase().steady_count, 5);
}

}  // namespace
}  // namespace tracelint
