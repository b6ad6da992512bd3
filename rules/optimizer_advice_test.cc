#include "rules/optimizer_advice.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rules/gpu_idle_gaps.h"
#include "tests/support/rule_test_util.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using rule_test::FindCause;
using rule_test::RunRule;
using testing::DeviceSpec;
using testing::Scenario;

constexpr char kTiny[] = "vectorized_elementwise_kernel<4, FillFunctor>";
constexpr char kForeach[] =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<TensorListMetadata<2>, "
    "BinaryOpListAlphaFunctor<float, 2, 2, 0>>";
constexpr char kFused[] =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<FusedOptimizerTensorList"
    "Metadata<float, 4>, FusedAdamMathFunctor<float, 4>>";

// Eager training steps whose host outruns tiny kernels: `model_ops` ops in
// the forward, then zero_grad zeroing `zero_grad_ops` gradients one kernel
// each, then an optimizer step of `step_ops` launches of `step_kernel`.
// Every op spends 80 us on the host for a 2 us kernel: other host work.
Scenario Training(int model_ops, int zero_grad_ops, int step_ops,
                  const char* step_kernel = kTiny) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 3; ++k) {
    s.BeginStep(k);
    s.OpKernels("aten::add", kTiny, model_ops, 2 * kNsPerUs, 80 * kNsPerUs);
    s.BeginBackward("AddBackward0").Kernel(kTiny, 2 * kNsPerUs).End();
    s.BeginAnnotation("Optimizer.zero_grad#SGD.zero_grad");
    s.OpKernels("aten::zero_", kTiny, zero_grad_ops, 2 * kNsPerUs, 80 * kNsPerUs);
    s.End();
    if (step_ops > 0) {
      s.BeginAnnotation("Optimizer.step#AdamW.step");
      s.OpKernels("aten::add_", step_kernel, step_ops, 2 * kNsPerUs, 80 * kNsPerUs);
      s.End();
    }
    s.Sync().EndStep();
  }
  return s;
}

const Finding* HostWork(const RuleOutcome& out) { return FindCause(out, "other_host_work"); }

TEST(OptimizerAdvice, ZeroGradThatHoldsMostOfTheIdleLeadsTheFix) {
  Scenario s = Training(10, 40, 0);
  rules2_test::ExpectTestdataMatches(s, "optimizer_zero_grad_per_parameter.json");
  GpuIdleGapsRule rule;
  RuleOutcome out = RunRule(rule, s);
  const Finding* f = HostWork(out);
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->fix, StartsWith("80% of this idle is in Optimizer.zero_grad, which zeroes every "
                                 "gradient with a kernel of its own (40 per step): call "
                                 "optimizer.zero_grad(set_to_none=True)"));
  EXPECT_THAT(f->fix, HasSubstr("Beyond the optimizer: "));
  // The optimizer's aten ops are not the model's: no eager-model advice.
  EXPECT_THAT(f->fix, Not(HasSubstr("eager mode")));
}

// kOptimizerAdviceMinShare (20%) on each side: 7 of 47 ops (15%) and 14 of
// 54 (26%) in zero_grad.
TEST(OptimizerAdvice, MinShareBothSides) {
  GpuIdleGapsRule rule;
  RuleOutcome below = RunRule(rule, Training(40, 7, 0));
  ASSERT_NE(HostWork(below), nullptr);
  EXPECT_THAT(HostWork(below)->fix, Not(HasSubstr("zero_grad")));
  RuleOutcome above = RunRule(rule, Training(40, 14, 0));
  ASSERT_NE(HostWork(above), nullptr);
  EXPECT_THAT(HostWork(above)->fix, HasSubstr("set_to_none=True"));
  // Below half: the cause's own fix comes first.
  EXPECT_THAT(HostWork(above)->fix, Not(StartsWith("2")));
}

TEST(OptimizerAdvice, AStepOneParameterAtATimeGetsForeachOrFused) {
  GpuIdleGapsRule rule;
  Scenario loop = Training(5, 0, 40);
  rules2_test::ExpectTestdataMatches(loop, "optimizer_step_per_parameter.json");
  RuleOutcome out = RunRule(rule, loop);
  ASSERT_NE(HostWork(out), nullptr);
  EXPECT_THAT(HostWork(out)->fix, HasSubstr("updates the parameters one at a time (40 kernels "
                                            "per step): construct the optimizer with "
                                            "fused=True"));
  bool evidence = false;
  for (const Evidence& e : HostWork(out)->evidence) {
    evidence = evidence || e.text.find("one parameter at a time") != std::string::npos;
  }
  EXPECT_TRUE(evidence);

  // Multi-tensor already: only fused is left to suggest.
  RuleOutcome foreach = RunRule(rule, Training(5, 0, 40, kForeach));
  ASSERT_NE(HostWork(foreach), nullptr);
  EXPECT_THAT(HostWork(foreach)->fix, HasSubstr("already multi-tensor (foreach): fused=True"));
  // Fused: the optimizer advice has nothing to add.
  RuleOutcome fused = RunRule(rule, Training(5, 0, 40, kFused));
  ASSERT_NE(HostWork(fused), nullptr);
  EXPECT_THAT(HostWork(fused)->fix, Not(HasSubstr("Optimizer.step")));
}

TEST(OptimizerAdvice, NothingWithoutOptimizerAnnotations) {
  GpuIdleGapsRule rule;
  RuleOutcome out = RunRule(rule, Training(40, 0, 0));
  ASSERT_NE(HostWork(out), nullptr);
  EXPECT_THAT(HostWork(out)->fix, Not(HasSubstr("Optimizer")));
  for (const Evidence& e : HostWork(out)->evidence) {
    EXPECT_THAT(e.text, Not(HasSubstr("Optimizer")));
  }
}

}  // namespace
}  // namespace tracelint
