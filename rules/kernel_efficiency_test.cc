#include "rules/kernel_efficiency.h"

#include <optional>
#include <string>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/roofline.h"
#include "analyzer/analysis/steps.h"
#include "tests/support/scenario.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/rule_test_util.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using rules2_test::ExpectTestdataMatches;
using rules2_test::Options;
using rules2_test::RunOn;
using testing::DeviceSpec;
using testing::KernelOptions;
using testing::Scenario;
using testing::ScenarioArg;
using testing::ShapeArgs;
using testing::StreamRef;

constexpr char kGemm[] =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
    "execute_segment_k_off_kernel__5x_cublas";
constexpr char kFp32Gemm[] = "sm90_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_simt";
constexpr char kAdd[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>";
constexpr char kFlash[] =
    "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 128, 64, "
    "4, false, false, cutlass::bfloat16_t>>";

// An 8192^3 bf16 GEMM: 1.0995e12 FLOP, 1.111 ms at the H100's 989.4 TFLOP/s.
constexpr double kGemmFlops = 2.0 * 8192 * 8192 * 8192;
constexpr double kGemmRooflineNs = kGemmFlops / 989.4e3;
constexpr char kGemmDims[] = "[[8192, 8192], [8192, 8192]]";
constexpr char kBf16x2[] = R"(["c10::BFloat16", "c10::BFloat16"])";

KernelOptions Grid(int blocks, StreamRef stream = {}) {
  KernelOptions o;
  o.grid[0] = blocks;
  o.stream = stream;
  return o;
}

Timeline Build(const Scenario& s) {
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  EXPECT_TRUE(tl.ok()) << tl.status();
  return tl.ok() ? std::move(*tl) : Timeline();
}

const Finding* Cause(const RuleOutcome& o, const std::string& cause) {
  for (const Finding& f : o.findings) {
    if (f.cause == cause) return &f;
  }
  return nullptr;
}

// Four inference steps of one 8192^3 bf16 GEMM at `efficiency` of the H100's
// bf16 peak, the host idle `idle_ns` after it (so the device bounds the step
// or not), with `blocks` thread blocks.
Scenario Gemms(double efficiency, TimeNs idle_ns = 0, int blocks = 1024,
               DeviceSpec device = DeviceSpec::H100(), std::string_view dims = kGemmDims,
               double roofline_ns = kGemmRooflineNs) {
  Scenario s;
  s.Device(device);
  const TimeNs dur = static_cast<TimeNs>(roofline_ns / efficiency);
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k)
        .BeginOp("aten::mm", ShapeArgs(dims, kBf16x2))
        .Kernel(kGemm, dur, Grid(blocks))
        .End()
        .Sync();
    if (idle_ns > 0) s.Idle(idle_ns);
    s.EndStep();
  }
  return s;
}

double ComputeBusyShare(const Timeline& tl) {
  AnalysisContext ctx(tl);
  const RooflineWork& w = ctx.roofline().work;
  double busy = 0;
  for (double b : w.compute_busy_ns) busy += b;
  return busy / static_cast<double>(ctx.steps().TotalNs());
}

TEST(KernelEfficiencyTest, SlowGemmFiresWithItsSavingAndTheShapeFix) {
  KernelEfficiencyRule rule;
  const Timeline tl = Build(Gemms(0.25));
  RuleOutcome outcome = RunOn(rule, tl, Options(rule));
  ASSERT_EQ(outcome.findings.size(), 1u);
  const Finding& f = outcome.findings.front();
  EXPECT_EQ(f.cause, "gemm_bf16");
  EXPECT_EQ(f.confidence, Confidence::kModelled);
  // At 25% of the roof against a 50% target, half of the GEMM's time.
  rules2_test::ExpectWithin(static_cast<double>(f.recoverable_ns_per_step),
                            0.5 * kGemmRooflineNs / 0.25, 0.001, "saving");
  ASSERT_EQ(f.recoverable_ns_steps.size(), 4u);
  EXPECT_THAT(f.title, HasSubstr("GEMM bf16 runs at 25.0% of its roofline (target 50.0%)"));
  EXPECT_THAT(f.title, HasSubstr("NVIDIA H100 SXM"));
  ASSERT_FALSE(f.location.top_items.empty());
  EXPECT_EQ(f.location.top_items[0].name, "aten::mm");
  EXPECT_EQ(f.location.top_items[0].count, 4);
  EXPECT_THAT(f.location.top_items[0].detail, HasSubstr("M=8192 N=8192 K=8192 bf16"));
  EXPECT_THAT(f.fix, HasSubstr("multiples of 64-128"));
  ExpectTestdataMatches(Gemms(0.25), "efficiency_gemm_slow.json");
}

TEST(KernelEfficiencyTest, WellTunedLargeGemmIsQuiet) {
  KernelEfficiencyRule rule;
  // 62% of the datasheet peak, what cuBLAS reaches on an H100 at large shapes.
  const Timeline tl = Build(Gemms(0.62));
  RuleOutcome outcome = RunOn(rule, tl, Options(rule));
  EXPECT_TRUE(outcome.applicable);
  EXPECT_TRUE(outcome.findings.empty());
  ExpectTestdataMatches(Gemms(0.62), "efficiency_gemm_tuned.json");
}

TEST(KernelEfficiencyTest, EachSideOfTheTarget) {
  KernelEfficiencyRule rule;
  const RuleOptions any_saving = Options(rule, {{"MinSavingShare", 0}});
  EXPECT_EQ(RunOn(rule, Build(Gemms(0.49)), any_saving).findings.size(), 1u);
  EXPECT_TRUE(RunOn(rule, Build(Gemms(0.51)), any_saving).findings.empty());
  // The target is an option.
  EXPECT_EQ(RunOn(rule, Build(Gemms(0.51)), Options(rule, {{"MinSavingShare", 0},
                                                           {"GemmTarget", 0.55}}))
                .findings.size(),
            1u);
}

TEST(KernelEfficiencyTest, EachSideOfTheMinimumSaving) {
  KernelEfficiencyRule rule;
  const Timeline tl = Build(Gemms(0.25));
  RuleOutcome all = RunOn(rule, tl, Options(rule, {{"MinSavingShare", 0}}));
  ASSERT_EQ(all.findings.size(), 1u);
  const double share = all.findings.front().recoverable_share;
  EXPECT_EQ(RunOn(rule, tl, Options(rule, {{"MinSavingShare", share - 0.001}})).findings.size(),
            1u);
  EXPECT_TRUE(RunOn(rule, tl, Options(rule, {{"MinSavingShare", share + 0.001}})).findings.empty());
}

TEST(KernelEfficiencyTest, SmallOpsHaveLowerTargetsAndLaunchSizedOpsAreNotJudged) {
  EXPECT_DOUBLE_EQ(SizeClassTarget(0.5, 30 * kNsPerUs), 0.5);
  EXPECT_DOUBLE_EQ(SizeClassTarget(0.5, 20 * kNsPerUs), 0.5);
  EXPECT_DOUBLE_EQ(SizeClassTarget(0.5, 19 * kNsPerUs), 0.35);
  EXPECT_DOUBLE_EQ(SizeClassTarget(0.5, 5 * kNsPerUs), 0.35);
  EXPECT_DOUBLE_EQ(SizeClassTarget(0.5, 4 * kNsPerUs), 0.2);
  EXPECT_DOUBLE_EQ(SizeClassTarget(0.5, 1 * kNsPerUs), 0.2);
  EXPECT_DOUBLE_EQ(SizeClassTarget(0.5, 999), 0);
  // A 1024^3 GEMM (2.2 us at the roof) at 30% of the roof meets its
  // small-op target (0.5 x 0.4 = 20%): quiet.
  KernelEfficiencyRule rule;
  // 200 of them back to back per step, so the device bounds the steps.
  const double small_ns = 2.0 * 1024 * 1024 * 1024 / 989.4e3;
  auto small_gemms = [&](double efficiency) {
    Scenario s;
    s.Device(DeviceSpec::H100());
    for (int k = 1; k <= 4; ++k) {
      s.BeginStep(k);
      for (int i = 0; i < 200; ++i) {
        s.BeginOp("aten::mm", ShapeArgs("[[1024, 1024], [1024, 1024]]", kBf16x2))
            .Kernel(kGemm, static_cast<TimeNs>(small_ns / efficiency), Grid(1024))
            .End();
      }
      s.Sync().EndStep();
    }
    return Build(s);
  };
  const RuleOptions any_saving = Options(rule, {{"MinSavingShare", 0}});
  EXPECT_TRUE(RunOn(rule, small_gemms(0.3), any_saving).findings.empty());
  // At 15% it is below that target.
  EXPECT_EQ(RunOn(rule, small_gemms(0.15), any_saving).findings.size(), 1u);
}

// The saving is claimed only in steps the device bounds: compute kernels
// busy at least 80% of the step.
TEST(KernelEfficiencyTest, OnlyStepsTheDeviceBoundsCountOnEachSideOfTheBoundShare) {
  KernelEfficiencyRule rule;
  const TimeNs gemm_ns = static_cast<TimeNs>(kGemmRooflineNs / 0.25);
  const Timeline bound = Build(Gemms(0.25, gemm_ns / 5));       // about 83% busy
  const Timeline host_bound = Build(Gemms(0.25, gemm_ns / 3));  // about 75% busy
  EXPECT_GT(ComputeBusyShare(bound), kDeviceBoundShare);
  EXPECT_LT(ComputeBusyShare(host_bound), kDeviceBoundShare);
  EXPECT_EQ(RunOn(rule, bound, Options(rule)).findings.size(), 1u);
  RuleOutcome quiet = RunOn(rule, host_bound, Options(rule));
  EXPECT_TRUE(quiet.applicable);
  EXPECT_TRUE(quiet.findings.empty());
  // The numbers stay information in the report.
  AnalysisContext ctx(host_bound);
  ASSERT_FALSE(ctx.roofline().summary.families.empty());
  EXPECT_NEAR(ctx.roofline().summary.families.front().efficiency, 0.25, 0.001);
}

// Busy-time stacking: kernel-small-grids owns the SM-idle share of a grid
// smaller than the GPU, so this rule judges only the rest.
TEST(KernelEfficiencyTest, StacksAfterKernelSmallGrids) {
  KernelEfficiencyRule rule;
  RuleOutcome full = RunOn(rule, Build(Gemms(0.25)), Options(rule));
  RuleOutcome half = RunOn(rule, Build(Gemms(0.25, 0, 66)), Options(rule));  // 66 of 132 SMs
  ASSERT_EQ(full.findings.size(), 1u);
  ASSERT_EQ(half.findings.size(), 1u);
  rules2_test::ExpectWithin(static_cast<double>(half.findings[0].recoverable_ns_per_step),
                            0.5 * static_cast<double>(full.findings[0].recoverable_ns_per_step),
                            0.001, "saving on the half the small grid leaves");
  // Through the engine: both rules fire and never sum past the kernel time.
  const Timeline tl = Build(Gemms(0.25, 0, 66));
  std::vector<Finding> ranked = rules2_test::RankedFindings(tl);
  TimeNs busy_claims = 0;
  bool small_grids = false, efficiency = false;
  for (const Finding& f : ranked) {
    if (f.rule_id == "kernel-small-grids") small_grids = true;
    if (f.rule_id == "kernel-efficiency") efficiency = true;
    if (f.rule_id == "kernel-small-grids" || f.rule_id == "kernel-efficiency") {
      busy_claims += f.recoverable_ns_per_step;
    }
  }
  EXPECT_TRUE(small_grids);
  EXPECT_TRUE(efficiency);
  EXPECT_LE(static_cast<double>(busy_claims), kGemmRooflineNs / 0.25);
  ExpectTestdataMatches(Gemms(0.25, 0, 66), "efficiency_gemm_small_grid.json");
}

// tensor-cores-idle owns fp32 GEMMs on CUDA cores: this rule leaves them.
TEST(KernelEfficiencyTest, LeavesMatmulsOffTensorCoresToTensorCoresIdle) {
  KernelEfficiencyRule rule;
  Scenario s;
  s.Device(DeviceSpec::H100());
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k)
        .BeginOp("aten::mm", ShapeArgs(kGemmDims, R"(["float", "float"])"))
        .Kernel(kFp32Gemm, 40 * kNsPerMs)
        .End()
        .Sync()
        .EndStep();
  }
  RuleOutcome outcome = RunOn(rule, Build(s), Options(rule, {{"MinSavingShare", 0}}));
  EXPECT_TRUE(outcome.findings.empty());
  std::vector<Finding> ranked = rules2_test::RankedFindings(Build(s));
  ASSERT_FALSE(ranked.empty());
  EXPECT_EQ(ranked.front().rule_id, "tensor-cores-idle");
}

// Two streams running modelled GEMMs at once: the shared time is counted once.
TEST(KernelEfficiencyTest, OverlappingStreamsAreCountedOnce) {
  KernelEfficiencyRule rule;
  Scenario s;
  s.Device(DeviceSpec::H100());
  const TimeNs dur = static_cast<TimeNs>(kGemmRooflineNs / 0.25);
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k);
    s.BeginOp("aten::mm", ShapeArgs(kGemmDims, kBf16x2)).Kernel(kGemm, dur, Grid(1024)).End();
    s.BeginOp("aten::mm", ShapeArgs(kGemmDims, kBf16x2))
        .Kernel(kGemm, dur, Grid(1024, {0, 9}))
        .End();
    s.Sync({0, 9}).Sync().EndStep();
  }
  const Timeline tl = Build(s);
  RuleOutcome outcome = RunOn(rule, tl, Options(rule));
  ASSERT_EQ(outcome.findings.size(), 1u);
  // Two GEMMs of `dur` side by side: each owns half of the union, so the
  // saving is half of the union, not of the two durations.
  AnalysisContext ctx(tl);
  const double union_ns = ctx.roofline().summary.busy_ns_per_step;
  EXPECT_LE(static_cast<double>(outcome.findings[0].recoverable_ns_per_step), 0.5 * union_ns + 1);
  EXPECT_LT(union_ns, 1.5 * static_cast<double>(dur));
}

TEST(KernelEfficiencyTest, OneFindingPerFamilyAndDtype) {
  KernelEfficiencyRule rule;
  Scenario s;
  s.Device(DeviceSpec::H100());
  // 4096x4096 bf16 add: 100.7 MB, 30 us at 3.35 TB/s; 100 us is 30%.
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k);
    s.BeginOp("aten::mm", ShapeArgs(kGemmDims, kBf16x2))
        .Kernel(kGemm, static_cast<TimeNs>(kGemmRooflineNs / 0.25))
        .End();
    for (int i = 0; i < 20; ++i) {
      s.BeginOp("aten::add", ShapeArgs("[[4096, 4096], [4096, 4096], []]",
                                       R"(["c10::BFloat16", "c10::BFloat16", "Scalar"])"))
          .Kernel(kAdd, 100 * kNsPerUs)
          .End();
    }
    s.Sync().EndStep();
  }
  RuleOutcome outcome = RunOn(rule, Build(s), Options(rule));
  ASSERT_EQ(outcome.findings.size(), 2u);
  EXPECT_EQ(outcome.findings[0].cause, "gemm_bf16");
  const Finding* add = Cause(outcome, "elementwise_bf16");
  ASSERT_NE(add, nullptr);
  EXPECT_THAT(add->fix, HasSubstr("torch.compile"));
  // 30% of the roof against a 60% target: half of 20 x 100 us.
  rules2_test::ExpectWithin(static_cast<double>(add->recoverable_ns_per_step),
                            0.5 * 20 * 100 * kNsPerUs, 0.01, "elementwise saving");
  ExpectTestdataMatches(s, "efficiency_two_families.json");
}

TEST(KernelEfficiencyTest, AttentionIsJudgedFromItsShapes) {
  KernelEfficiencyRule rule;
  Scenario s;
  s.Device(DeviceSpec::H100());
  // B=8 H=32 N=4096 d=128 causal: 2.2e12 FLOP, 2.22 ms at the roof.
  const double flops = 4.0 * 8 * 32 * 4096 * 4096 * 128 / 2;
  for (int k = 1; k <= 4; ++k) {
    testing::ScenarioArgs args = ShapeArgs(
        "[[8, 32, 4096, 128], [8, 32, 4096, 128], [8, 32, 4096, 128], [], [], [], []]",
        R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar", "Scalar", "Scalar"])");
    args.push_back(ScenarioArg::RawJson("Concrete Inputs",
                                        R"(["", "", "", "0.", "True", "False", "0.088"])"));
    s.BeginStep(k)
        .BeginOp("aten::_scaled_dot_product_flash_attention", args)
        .Kernel(kFlash, static_cast<TimeNs>(flops / 989.4e3 / 0.1))
        .End()
        .Sync()
        .EndStep();
  }
  RuleOutcome outcome = RunOn(rule, Build(s), Options(rule));
  ASSERT_EQ(outcome.findings.size(), 1u);
  EXPECT_EQ(outcome.findings[0].cause, "attention_bf16");
  EXPECT_THAT(outcome.findings[0].fix, HasSubstr("cuDNN"));
  // 10% of the roof against 30%: two thirds of the time.
  rules2_test::ExpectWithin(static_cast<double>(outcome.findings[0].recoverable_ns_per_step),
                            (2.0 / 3) * flops / 989.4e3 / 0.1, 0.01, "attention saving");
}

TEST(KernelEfficiencyTest, NeverFiresWithoutAPeakOrAModel) {
  KernelEfficiencyRule rule;
  DeviceSpec unknown = DeviceSpec::H100();
  unknown.name = "NVIDIA GeForce RTX 4090";
  RuleOutcome no_peak = RunOn(rule, Build(Gemms(0.1, 0, 1024, unknown)), Options(rule));
  EXPECT_FALSE(no_peak.applicable);
  EXPECT_THAT(no_peak.not_judged_reason, HasSubstr("no peak table entry"));
  // No recorded shapes: nothing is modelled.
  Scenario s;
  s.Device(DeviceSpec::H100());
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k).BeginOp("aten::mm").Kernel(kGemm, 5 * kNsPerMs).End().Sync().EndStep();
  }
  RuleOutcome no_model = RunOn(rule, Build(s), Options(rule));
  EXPECT_FALSE(no_model.applicable);
  EXPECT_THAT(no_model.not_judged_reason, HasSubstr("record_shapes"));
}

const RooflineFamily* FamilyOf(const RankRoofline& r, std::string_view family,
                               std::string_view dtype) {
  for (const RooflineFamily& f : r.families) {
    if (f.family == family && f.dtype == dtype) return &f;
  }
  return nullptr;
}

bool HasNote(const RankRoofline& r, std::string_view text) {
  for (const std::string& n : r.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

// An op's FLOPs go to its kernels by their durations: a short first kernel
// of another dtype gets its share of the work, not all of it (which read as
// many times the device's peak).
TEST(KernelEfficiencyTest, AnOpsWorkIsSharedByItsKernelsDurations) {
  Scenario s;
  s.Device(DeviceSpec::H100());
  const TimeNs gemm_ns = static_cast<TimeNs>(kGemmRooflineNs / 0.5);
  constexpr TimeNs kFirstNs = 20 * kNsPerUs;
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k)
        .BeginOp("aten::mm", ShapeArgs(kGemmDims, kBf16x2))
        .Kernel(kFp32Gemm, kFirstNs, Grid(1024))
        .Kernel(kGemm, gemm_ns, Grid(1024))
        .End()
        .Sync()
        .EndStep();
  }
  const Timeline tl = Build(s);
  AnalysisContext ctx(tl);
  const RankRoofline& r = ctx.roofline().summary;
  const RooflineFamily* bf16 = FamilyOf(r, "gemm", "bf16");
  const RooflineFamily* fp32 = FamilyOf(r, "gemm", "fp32");
  ASSERT_NE(bf16, nullptr);
  ASSERT_NE(fp32, nullptr);
  const double op_tflops = kGemmFlops / static_cast<double>(gemm_ns + kFirstNs) / 1e3;
  rules2_test::ExpectWithin(bf16->achieved_tflops, op_tflops, 0.001, "bf16 rate");
  rules2_test::ExpectWithin(fp32->achieved_tflops, op_tflops, 0.001, "fp32 rate");
  rules2_test::ExpectWithin(bf16->efficiency, op_tflops / 989.4, 0.001, "bf16 efficiency");
  // The op's rate is above the fp32 peak: no efficiency for that family.
  EXPECT_LT(fp32->efficiency, 0);
  EXPECT_TRUE(HasNote(r, "GEMM fp32: ")) << r.notes.size();
}

// Kernels faster than the roof mean the model or the peak does not fit
// them: no efficiency, no modelled FLOP utilization, no finding.
TEST(KernelEfficiencyTest, WorkAboveTheRoofIsNotJudged) {
  KernelEfficiencyRule rule;
  for (double efficiency : {0.99, 1.5}) {
    SCOPED_TRACE(efficiency);
    const Timeline tl = Build(Gemms(efficiency));
    AnalysisContext ctx(tl);
    const RankRoofline& r = ctx.roofline().summary;
    const RooflineFamily* gemm = FamilyOf(r, "gemm", "bf16");
    ASSERT_NE(gemm, nullptr);
    const bool above = efficiency > 1;
    EXPECT_EQ(gemm->efficiency < 0, above);
    EXPECT_EQ(HasNote(r, "above its 989 TFLOP/s peak"), above);
    EXPECT_EQ(r.top_ops.front().efficiency < 0, above);
    EXPECT_EQ(HasNote(r, "1 op with shapes ran above its roof"), above);
    EXPECT_TRUE(RunOn(rule, tl, Options(rule)).findings.empty());
  }
}

}  // namespace
}  // namespace tracelint
