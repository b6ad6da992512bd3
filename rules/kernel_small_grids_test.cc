#include "rules/kernel_small_grids.h"

#include <optional>
#include <string>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
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
using testing::StreamRef;

constexpr char kTcGemm[] = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn";
constexpr char kFp32Gemm[] = "ampere_sgemm_128x64_nn";
constexpr char kAdd[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>";

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

std::optional<Finding> Only(const RuleOutcome& outcome) {
  EXPECT_LE(outcome.findings.size(), 1u);
  if (outcome.findings.empty()) return std::nullopt;
  return outcome.findings.front();
}

// Each training step: a 4 ms GEMM that fills the A100, then a backward of
// 200 elementwise kernels of 15 us with `add_blocks` blocks each (108 SMs).
Scenario ShortKernels(int add_blocks) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k).BeginOp("aten::mm").Kernel(kTcGemm, 4 * kNsPerMs, Grid(1024)).End();
    s.BeginBackward("AddBackward0");
    for (int i = 0; i < 200; ++i) {
      s.BeginOp("aten::add").Kernel(kAdd, 15 * kNsPerUs, Grid(add_blocks)).End();
    }
    s.End().Sync().EndStep();
  }
  return s;
}

// Each step: `full_ns` of a GEMM filling the GPU, then 2 ms of a Tensor Core
// GEMM with 54 blocks (half of the 108 SMs): 1 ms of SM time idles.
Scenario HalfFilledGemm(TimeNs full_ns) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k).BeginOp("aten::mm").Kernel(kTcGemm, full_ns, Grid(1024)).End();
    s.BeginOp("aten::mm").Kernel(kTcGemm, 2 * kNsPerMs, Grid(54)).End();
    s.Sync().EndStep();
  }
  return s;
}

const Evidence* Line(const Finding& f, const std::string& prefix) {
  for (const Evidence& e : f.evidence) {
    if (e.text.starts_with(prefix)) return &e;
  }
  return nullptr;
}

TEST(KernelSmallGridsTest, ShortKernelsWithTinyGridsFireWithTheFusionFix) {
  KernelSmallGridsRule rule;
  const Timeline tl = Build(ShortKernels(4));
  std::optional<Finding> f = Only(RunOn(rule, tl, Options(rule)));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->cause, "small_grids");
  EXPECT_EQ(f->confidence, Confidence::kModelled);
  // 200 x 15 us x (1 - 4/108) of SM time per step.
  rules2_test::ExpectWithin(static_cast<double>(f->recoverable_ns_per_step),
                            200 * 15 * kNsPerUs * (1 - 4.0 / 108), 0.001, "SM-idle time");
  ASSERT_EQ(f->recoverable_ns_steps.size(), 4u);
  EXPECT_THAT(f->title, HasSubstr("NVIDIA A100-SXM4-40GB, 108 SMs"));
  ASSERT_FALSE(f->location.top_items.empty());
  EXPECT_EQ(f->location.top_items[0].name, kAdd);
  EXPECT_EQ(f->location.top_items[0].count, 800);
  EXPECT_THAT(f->location.top_items[0].detail, HasSubstr("4 blocks on 108 SMs (3.7% of the SMs)"));
  EXPECT_THAT(f->fix, HasSubstr("torch.compile"));
  EXPECT_THAT(f->fix, HasSubstr("raise the batch size"));
  ExpectTestdataMatches(ShortKernels(4), "small_grids_short_kernels.json");
}

TEST(KernelSmallGridsTest, GridsThatFillTheGpuDoNotFire) {
  KernelSmallGridsRule rule;
  const Timeline tl = Build(ShortKernels(1024));
  RuleOutcome outcome = RunOn(rule, tl, Options(rule));
  EXPECT_TRUE(outcome.applicable);
  EXPECT_TRUE(outcome.findings.empty());
  ExpectTestdataMatches(ShortKernels(1024), "small_grids_full.json");
}

// 1 ms of SM idle in a step of 2 ms + full_ns + launches: 7.8 ms makes it
// 10.2%, 8.2 ms 9.8%.
TEST(KernelSmallGridsTest, SmIdleShareJustAboveThresholdFiresWithTheMatmulFix) {
  KernelSmallGridsRule rule;
  const Timeline tl = Build(HalfFilledGemm(7800 * kNsPerUs));
  std::optional<Finding> f = Only(RunOn(rule, tl, Options(rule)));
  ASSERT_TRUE(f.has_value());
  const Evidence* share = Line(*f, "SM-idle time");
  ASSERT_NE(share, nullptr);
  EXPECT_GE(share->value, 0.10);
  EXPECT_LT(share->value, 0.103);
  EXPECT_EQ(f->recoverable_ns_per_step, 1 * kNsPerMs);
  EXPECT_THAT(f->fix, HasSubstr("matmuls are too small"));
  ExpectTestdataMatches(HalfFilledGemm(7800 * kNsPerUs), "small_grids_just_above.json");
}

TEST(KernelSmallGridsTest, SmIdleShareJustBelowThresholdDoesNotFire) {
  KernelSmallGridsRule rule;
  const Timeline tl = Build(HalfFilledGemm(8200 * kNsPerUs));
  EXPECT_TRUE(RunOn(rule, tl, Options(rule)).findings.empty());
  EXPECT_FALSE(RunOn(rule, tl, Options(rule, {{"MinSmIdleShare", 0.09}})).findings.empty());
  ExpectTestdataMatches(HalfFilledGemm(8200 * kNsPerUs), "small_grids_just_below.json");
}

TEST(KernelSmallGridsTest, InferenceGetsTheBatchingFix) {
  KernelSmallGridsRule rule;
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 4; ++k) {
    // Decode: small matmuls, no backward, no optimizer.
    s.BeginStep(k);
    for (int i = 0; i < 20; ++i) s.BeginOp("aten::mm").Kernel(kTcGemm, 200 * kNsPerUs, Grid(16)).End();
    s.Sync().EndStep();
  }
  std::optional<Finding> f = Only(RunOn(rule, Build(s), Options(rule)));
  ASSERT_TRUE(f.has_value());
  EXPECT_THAT(f->fix, HasSubstr("batch more requests"));
}

TEST(KernelSmallGridsTest, CollectivesAndGemmsOffTensorCoresAreNotCounted) {
  KernelSmallGridsRule rule;
  Scenario s;
  s.Device(DeviceSpec::A100()).Distributed(0, 2);
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k);
    // FP32 SGEMM with a small grid: tensor-cores-idle's time.
    s.BeginOp("aten::mm", testing::ShapeArgs("[[64, 64], [64, 64]]", R"(["float", "float"])"))
        .Kernel(kFp32Gemm, 3 * kNsPerMs, Grid(8))
        .End();
    // NCCL runs few blocks by design.
    s.AllReduce(8 << 20, 3 * kNsPerMs, {0, testing::kComputeStream});
    s.Sync().EndStep();
  }
  RuleOutcome outcome = RunOn(rule, Build(s), Options(rule));
  EXPECT_TRUE(outcome.applicable);
  EXPECT_TRUE(outcome.findings.empty());
}

TEST(KernelSmallGridsTest, AConcurrentMatmulOffTensorCoresIsNotClaimedTwice) {
  // A small-grid FP32 SGEMM (tensor-cores-idle's time) beside a small-grid
  // elementwise kernel for the whole step: the two rules together would
  // claim more than the step if this rule counted the SGEMM's free SMs.
  KernelSmallGridsRule rule;
  Scenario s;
  s.Device(DeviceSpec::A100());
  const StreamRef side{0, 20};
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k);
    s.BeginOp("aten::add").Kernel(kAdd, 5 * kNsPerMs, Grid(4, side)).End();
    s.BeginOp("aten::mm", testing::ShapeArgs("[[64, 64], [64, 64]]", R"(["float", "float"])"))
        .Kernel(kFp32Gemm, 5 * kNsPerMs, Grid(8))
        .End();
    s.Sync().DeviceSync().EndStep();
  }
  RuleOutcome all = RunOn(rule, Build(s), Options(rule, {{"MinSmIdleShare", 0}}));
  ASSERT_EQ(all.findings.size(), 1u);
  EXPECT_LT(all.findings[0].recoverable_ns_per_step, 20 * kNsPerUs);
}

TEST(KernelSmallGridsTest, AConcurrentFullKernelFillsTheFreeSms) {
  KernelSmallGridsRule rule;
  Scenario s;
  s.Device(DeviceSpec::A100());
  const StreamRef side{0, 20};
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k);
    s.BeginOp("aten::add").Kernel(kAdd, 5 * kNsPerMs, Grid(4, side)).End();
    s.BeginOp("aten::mm").Kernel(kTcGemm, 5 * kNsPerMs, Grid(1024)).End();
    s.Sync().DeviceSync().EndStep();
  }
  // The small grid runs beside a full GEMM almost all the time: only the
  // launch offset between them (5 us) is SM-idle, far below the threshold.
  RuleOutcome outcome = RunOn(rule, Build(s), Options(rule));
  EXPECT_TRUE(outcome.findings.empty());
  RuleOutcome all = RunOn(rule, Build(s), Options(rule, {{"MinSmIdleShare", 0}}));
  ASSERT_EQ(all.findings.size(), 1u);
  EXPECT_LT(all.findings[0].recoverable_ns_per_step, 20 * kNsPerUs);
}

TEST(KernelSmallGridsTest, HugeOverlappingKernelsDoNotOverflow) {
  // Eight streams each run a kernel of 2^61 ns at once: every time is in
  // range, the sum of their durations is not.
  KernelSmallGridsRule rule;
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginStep(1);
  for (int stream = 0; stream < 8; ++stream) {
    s.BeginOp("aten::add").Kernel(kAdd, TimeNs{1} << 61, Grid(4, {0, 30 + stream})).End();
  }
  s.DeviceSync().EndStep();
  RuleOutcome outcome = RunOn(rule, Build(s), Options(rule));  // ExpectSane checks the numbers
  EXPECT_TRUE(outcome.applicable);
}

TEST(KernelSmallGridsTest, AmdAndMissingDimensionsAreNotJudged) {
  KernelSmallGridsRule rule;
  DeviceSpec mi300{0, "AMD Instinct MI300X", 9, 4, 304, 205'571'227'648, 2048};
  mi300.vendor = "AMD";
  Scenario amd;
  amd.Device(mi300);
  for (int k = 1; k <= 2; ++k) {
    amd.BeginStep(k).BeginOp("aten::add").Kernel(kAdd, kNsPerMs, Grid(4)).End().Sync().EndStep();
  }
  RuleOutcome outcome = RunOn(rule, Build(amd), Options(rule));
  EXPECT_FALSE(outcome.applicable);
  EXPECT_THAT(outcome.not_judged_reason, HasSubstr("not an NVIDIA GPU"));

  Scenario cpu;
  cpu.BeginStep(1).HostOp("aten::add", kNsPerMs).EndStep();
  outcome = RunOn(rule, Build(cpu), Options(rule));
  EXPECT_FALSE(outcome.applicable);
}

}  // namespace
}  // namespace tracelint
