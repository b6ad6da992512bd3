// warmup-one-time-cost, and the steady view every other rule judges: each
// test runs the whole engine on a generated trace and asserts the whole
// ranking (docs/design/contract.md, "One-time costs" and "Steps shown and steps judged").

#include "rules/warmup_one_time_cost.h"

#include <algorithm>

#include <string>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "tests/support/metrics_test_trace.h"
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/analysis/step_phase.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "tests/support/scenario.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rules/all_rules.h"

namespace tracelint {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::DeviceSpec;
using testing::KernelOptions;
using testing::Scenario;

constexpr TimeNs kMs = kNsPerMs;

struct Ranked {
  std::vector<std::string> ranking;  // "rule/cause", best first
  std::vector<std::string> not_judged;
  EngineResult result;
  StepPhaseSet phase;
  int64_t steady_steps = 0;
  int64_t all_steps = 0;
  TimeNs mean_steady_step_ns = 0;
};

Ranked Rank(const Timeline& tl) {
  AnalysisContext ctx(tl);
  RuleRegistry registry;
  RegisterAllRules(registry);
  std::vector<AnalysisContext*> ranks = {&ctx};
  absl::StatusOr<EngineResult> result = RunRules(registry, EngineOptions(), ranks);
  EXPECT_TRUE(result.ok()) << result.status();
  Ranked r;
  if (!result.ok()) return r;
  r.result = std::move(*result);
  for (const Finding& f : r.result.findings) r.ranking.push_back(f.rule_id + "/" + f.cause);
  for (const RuleOutcome& o : r.result.not_judged) r.not_judged.push_back(o.rule_id);
  r.phase = ctx.step_phase();
  r.steady_steps = static_cast<int64_t>(ctx.steps().steps.size());
  r.all_steps = static_cast<int64_t>(ctx.all_steps().steps.size());
  r.mean_steady_step_ns = ctx.step_metrics().mean_step_ns;
  return r;
}

Ranked Rank(const Scenario& s) {
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  EXPECT_TRUE(tl.ok()) << tl.status();
  return tl.ok() ? Rank(*tl) : Ranked();
}

const Finding& OneTime(const Ranked& r) {
  static const Finding kNone;
  for (const Finding& f : r.result.findings) {
    if (f.rule_id == "warmup-one-time-cost") return f;
  }
  ADD_FAILURE() << "no one-time finding";
  return kNone;
}

// A steady step: 8 ms of DataLoader, then 10 x 1 ms of queued kernels.
void LoaderStep(Scenario& s, int64_t n, const KernelOptions& first_launch = {}) {
  s.BeginStep(n).DataLoaderNext(8 * kMs);
  s.BeginOp("aten::mm").Kernel("ampere_bf16_s16816gemm_bf16_128x128", kMs, first_launch).End();
  s.OpKernels("aten::mm", "ampere_bf16_s16816gemm_bf16_128x128", 9, kMs, 10 * kNsPerUs);
  s.Sync().EndStep();
}

// Steps that keep the GPU busy: nothing per step to win back.
void BusyStep(Scenario& s, int64_t n) {
  s.BeginStep(n).OpKernels("aten::mm", "ampere_bf16_s16816gemm_bf16_128x128", 20, kMs,
                           10 * kNsPerUs);
  s.Sync().EndStep();
}

KernelOptions SlowFirstLaunch() {
  KernelOptions o;
  o.launch_ns = 40 * kMs;  // module loading: the device idles under it
  return o;
}

TEST(WarmupOneTimeCostTest, WarmupOnlyWindowMakesNoPerStepClaim) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginOp("aten::mm").Kernel("ampere_bf16_s16816gemm_bf16_128x128", kMs, SlowFirstLaunch()).End();
  s.OpKernels("aten::mm", "ampere_bf16_s16816gemm_bf16_128x128", 5, kMs, 10 * kNsPerUs);
  s.Sync();
  Ranked r = Rank(s);
  EXPECT_THAT(r.ranking, ElementsAre("warmup-one-time-cost/module_loading"));
  // Every rule that makes per-step claims says it could not judge; the
  // one-time rule speaks (the list follows the registry, so a new rule needs
  // no edit here).
  RuleRegistry registry;
  RegisterAllRules(registry);
  std::vector<std::string> per_step_rules;
  for (const RegisteredRule& rule : registry.rules()) {
    if (rule.rule->needs_steady_steps()) per_step_rules.push_back(rule.id);
  }
  std::sort(per_step_rules.begin(), per_step_rules.end());
  ASSERT_GE(per_step_rules.size(), 6u);
  EXPECT_EQ(r.not_judged, per_step_rules);
  EXPECT_THAT(r.result.not_judged[0].not_judged_reason, HasSubstr("no steady step"));
  EXPECT_TRUE(r.phase.NoSteadyStep());
  EXPECT_EQ(r.steady_steps, 0);
  const Finding& f = OneTime(r);
  EXPECT_EQ(f.one_time_ns, 40 * kMs);
  EXPECT_EQ(f.recoverable_ns_per_step, 0);
  EXPECT_EQ(f.recoverable_share, 0);
  EXPECT_EQ(f.severity, FindingSeverity::kMedium) << "no steady step: at most medium";
  EXPECT_THAT(f.fix, HasSubstr("torch.profiler.schedule(wait=1, warmup=2, active=3)"));
  EXPECT_THAT(f.message, HasSubstr("the window left out of per-step statistics"));
}

// A `tracelint capture` recording starts with the program: the lever is its
// --delay, for a PyTorch program and any other alike.
TEST(WarmupOneTimeCostTest, ACaptureIsToldToStartLater) {
  for (std::string_view framework : {"PyTorch", ""}) {
    Scenario s;
    s.Device(DeviceSpec::A100()).Framework(framework).TracelintCapture();
    s.BeginOp("aten::mm")
        .Kernel("ampere_bf16_s16816gemm_bf16_128x128", kMs, SlowFirstLaunch())
        .End();
    s.OpKernels("aten::mm", "ampere_bf16_s16816gemm_bf16_128x128", 5, kMs, 10 * kNsPerUs);
    s.Sync();
    Ranked r = Rank(s);
    const Finding& f = OneTime(r);
    EXPECT_THAT(f.fix, HasSubstr("tracelint capture --delay S")) << framework;
    EXPECT_THAT(f.fix, Not(HasSubstr("torch.profiler"))) << framework;
  }
}

TEST(WarmupOneTimeCostTest, WarmupStepIsLeftOutOfStatisticsAndSavings) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  LoaderStep(s, 1, SlowFirstLaunch());
  for (int k = 2; k <= 4; ++k) LoaderStep(s, k);
  Ranked r = Rank(s);
  // Per-step findings first, the one-time finding after them.
  EXPECT_THAT(r.ranking, ElementsAre("gpu-idle-gaps/data_loader",
                                     "warmup-one-time-cost/module_loading"));
  // Only the rule that needs recorded shapes cannot judge.
  EXPECT_THAT(r.not_judged, ElementsAre("kernel-efficiency"));
  EXPECT_EQ(r.all_steps, 4);
  EXPECT_EQ(r.steady_steps, 3);
  // The steady step is ~18 ms; the warm-up step (~58 ms) does not inflate it.
  EXPECT_LT(r.mean_steady_step_ns, 20 * kMs);
  const Finding& loader = r.result.findings[0];
  EXPECT_NEAR(loader.recoverable_ns_per_step, 8 * kMs, 0.5 * kMs);
  EXPECT_EQ(loader.location.first_step, 2) << "judged on steady steps only";
  const Finding& once = r.result.findings[1];
  EXPECT_EQ(once.one_time_ns, 40 * kMs);
  EXPECT_EQ(once.severity, FindingSeverity::kLow) << "steady steps exist: low";
  EXPECT_EQ(once.location.first_step, 1);
  EXPECT_EQ(once.location.last_step, 1);
}

TEST(WarmupOneTimeCostTest, GraphCaptureStepIsCapture) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginStep(1).BeginAnnotation("capture_32_FULL").Spend(30 * kMs);
  s.OpKernels("aten::mm", "ampere_bf16_s16816gemm_bf16_128x128", 5, kMs, 10 * kNsPerUs);
  s.End().Sync().EndStep();
  for (int k = 2; k <= 4; ++k) BusyStep(s, k);
  Ranked r = Rank(s);
  EXPECT_THAT(r.ranking, ElementsAre("warmup-one-time-cost/graph_capture"));
  ASSERT_EQ(r.phase.phases.size(), 4u);
  EXPECT_EQ(r.phase.phases[0], StepPhase::kCapture);
  EXPECT_EQ(r.steady_steps, 3);
  EXPECT_EQ(OneTime(r).severity, FindingSeverity::kLow);
  EXPECT_THAT(OneTime(r).fix, HasSubstr("profile the graph replays"));
}

TEST(WarmupOneTimeCostTest, CompileStepIsCompile) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginStep(1).BeginAnnotation("compile_fx_inner (dynamo_timed)").Spend(500 * kMs).End();
  s.OpKernels("aten::mm", "ampere_bf16_s16816gemm_bf16_128x128", 20, kMs, 10 * kNsPerUs);
  s.Sync().EndStep();
  for (int k = 2; k <= 4; ++k) BusyStep(s, k);
  Ranked r = Rank(s);
  // Without the compile step's 500 ms of host time nothing per step is lost.
  EXPECT_THAT(r.ranking, ElementsAre("warmup-one-time-cost/compilation"));
  EXPECT_EQ(r.phase.phases[0], StepPhase::kCompile);
  EXPECT_EQ(OneTime(r).one_time_ns, 500 * kMs);
  EXPECT_THAT(OneTime(r).fix, HasSubstr("TORCH_LOGS=recompiles"));
}

TEST(WarmupOneTimeCostTest, CompiledRegionsAloneAreSteady) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 3; ++k) {
    s.BeginStep(k).BeginOp("Torch-Compiled Region: 0/0");
    s.OpKernels("triton_poi_fused_add_0", "triton_poi_fused_add_0", 20, kMs, 10 * kNsPerUs);
    s.End().Sync().EndStep();
  }
  Ranked r = Rank(s);
  EXPECT_TRUE(r.ranking.empty());
  EXPECT_EQ(r.steady_steps, 3);
}

}  // namespace
}  // namespace tracelint
