#include "rules/tensor_cores_idle.h"

#include <optional>
#include <string>
#include <vector>

#include "analyzer/model/timeline_builder.h"
#include "tests/support/scenario.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/rule_test_util.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using rules2_test::ExpectWithin;
using rules2_test::Options;
using rules2_test::RunOn;
using testing::DeviceSpec;
using testing::Scenario;
using testing::ShapeArgs;

constexpr char kTcGemm[] = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn";
constexpr char kFp32Gemm[] = "ampere_sgemm_128x64_tn";
constexpr char kElementwise[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>";

testing::ScenarioArgs Fp32Addmm() {
  return ShapeArgs("[[4096], [256, 4096], [4096, 4096]]", R"(["float", "float", "float"])");
}
testing::ScenarioArgs Bf16Mm() {
  return ShapeArgs("[[256, 4096], [4096, 4096]]", R"(["c10::BFloat16", "c10::BFloat16"])");
}

void Gemms(Scenario& s, int count, std::string_view kernel, const testing::ScenarioArgs& args,
           TimeNs dur_ns, std::string_view op = "aten::addmm") {
  for (int i = 0; i < count; ++i) s.BeginOp(op, args).Kernel(kernel, dur_ns).End();
}

Timeline Build(const Scenario& s) {
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  EXPECT_TRUE(tl.ok()) << tl.status();
  return tl.ok() ? std::move(*tl) : Timeline();
}

// The one finding of an outcome (a copy: outcomes are temporaries).
std::optional<Finding> Only(const RuleOutcome& outcome) {
  EXPECT_TRUE(outcome.applicable) << outcome.not_judged_reason;
  EXPECT_EQ(outcome.findings.size(), 1u);
  if (outcome.findings.empty()) return std::nullopt;
  return outcome.findings.front();
}

// Case study: an FP32 GEMM-heavy model on an A100 without TF32 or AMP.
// 20 ms of float32 GEMMs on CUDA cores per step; with AssumedSpeedup 2 the
// trace was built to lose 10 ms per step. Second, smaller problem: a 2 ms
// pageable input copy at the start of each step (h2d-copy-dominance).
Scenario Fp32GemmHeavy() {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 0; k < 4; ++k) {
    s.BeginStep(k)
        .BeginOp("aten::copy_", ShapeArgs("[[256, 3, 224, 224], [256, 3, 224, 224], []]",
                                          R"(["float", "float", "Scalar"])"))
        .CopyH2D(256LL * 3 * 224 * 224 * 4, 2 * kNsPerMs, MemorySpace::kPageable)
        .End();
    Gemms(s, 10, kFp32Gemm, Fp32Addmm(), 2 * kNsPerMs);
    s.OpKernels("aten::relu", kElementwise, 10, 500 * kNsPerUs, 10 * kNsPerUs);
    s.Sync().EndStep();
  }
  return s;
}

// One step with `non_tc_ns` of float32 GEMMs and `tc_ns` of bf16 GEMMs.
Scenario Mixed(TimeNs non_tc_ns, TimeNs tc_ns) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 0; k < 2; ++k) {
    s.BeginStep(k);
    Gemms(s, 1, kFp32Gemm, Fp32Addmm(), non_tc_ns);
    Gemms(s, 4, kTcGemm, Bf16Mm(), tc_ns / 4, "aten::mm");
    s.Sync().EndStep();
  }
  return s;
}

TEST(TensorCoresIdleTest, Fp32GemmHeavyModelOnAmpereFires) {
  Scenario s = Fp32GemmHeavy();
  Timeline tl = Build(s);
  TensorCoresIdleRule rule;
  std::optional<Finding> f = Only(RunOn(rule, tl, Options(rule)));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->cause, "fp32_no_tensor_cores");
  ExpectWithin(f->recoverable_ns_per_step, 10 * kNsPerMs, 0.05, "modelled saving");
  EXPECT_EQ(f->confidence, Confidence::kModelled);
  EXPECT_EQ(SeverityForShare(f->recoverable_share), FindingSeverity::kHigh);
  EXPECT_NEAR(f->evidence[0].value, 0.8, 0.01);  // 20 of 25 ms of kernel time
  EXPECT_THAT(f->title, HasSubstr("Ampere sm_80"));
  EXPECT_THAT(f->fix, HasSubstr("torch.bfloat16"));
  EXPECT_THAT(f->fix, HasSubstr("allow_tf32"));
  ASSERT_EQ(f->location.top_items.size(), 1u);
  EXPECT_EQ(f->location.top_items[0].name, "aten::addmm");
  EXPECT_EQ(f->location.top_items[0].count, 40);
  EXPECT_THAT(f->location.top_items[0].detail,
              HasSubstr("float32 [[4096], [256, 4096], [4096, 4096]]; kernel ampere_sgemm"));
  rules2_test::ExpectTestdataMatches(s, "tc_fp32_gemm_ampere.json");
}

// Two devices, FP32 GEMMs on device 0 only, one tiny kernel on device 1:
// the saving is the mean over the rank's devices, like the idle findings,
// so device 0's GEMMs and device 1's idle time cannot add up past the step.
TEST(TensorCoresIdleTest, SavingIsTheMeanOverTheRanksDevices) {
  Scenario s;
  s.Device(DeviceSpec::A100()).Device(DeviceSpec::A100(1));
  testing::KernelOptions on_second;
  on_second.stream = {1, testing::kComputeStream};
  for (int k = 0; k < 4; ++k) {
    s.BeginStep(k);
    Gemms(s, 10, kFp32Gemm, Fp32Addmm(), 2 * kNsPerMs);
    s.BeginOp("aten::fill_").Kernel(kElementwise, 10 * kNsPerUs, on_second).End();
    s.Sync().EndStep();
  }
  Timeline tl = Build(s);
  TensorCoresIdleRule rule;
  std::optional<Finding> f = Only(RunOn(rule, tl, Options(rule)));
  ASSERT_TRUE(f.has_value());
  // Device 0 alone would save 10 ms per step (20 ms at 2x); over 2 devices, 5.
  ExpectWithin(f->recoverable_ns_per_step, 5 * kNsPerMs, 0.05, "mean saving");
  EXPECT_LE(f->recoverable_share, 0.5);
  EXPECT_THAT(f->message, HasSubstr("the mean over the rank's 2 devices"));
}

TEST(TensorCoresIdleTest, Fp32CaseStudyRanksTensorCoresFirst) {
  Timeline tl = Build(Fp32GemmHeavy());
  std::vector<Finding> findings = rules2_test::RankedFindings(tl);
  ASSERT_EQ(findings.size(), 2u) << rules2_test::Describe(findings);
  EXPECT_EQ(findings[0].rule_id, "tensor-cores-idle");
  ExpectWithin(findings[0].recoverable_ns_per_step, 10 * kNsPerMs, 0.05, "fp32 GEMMs");
  EXPECT_EQ(findings[1].rule_id, "h2d-copy-dominance");
  ExpectWithin(findings[1].recoverable_ns_per_step, 2 * kNsPerMs, 0.05, "pageable copy");
}

TEST(TensorCoresIdleTest, Bf16ModelOnTensorCoresDoesNotFire) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 0; k < 3; ++k) {
    s.BeginStep(k);
    Gemms(s, 10, kTcGemm, Bf16Mm(), 2 * kNsPerMs, "aten::mm");
    s.OpKernels("aten::relu", kElementwise, 10, 500 * kNsPerUs, 10 * kNsPerUs);
    s.Sync().EndStep();
  }
  Timeline tl = Build(s);
  TensorCoresIdleRule rule;
  RuleOutcome outcome = RunOn(rule, tl, Options(rule));
  EXPECT_TRUE(outcome.applicable) << outcome.not_judged_reason;
  EXPECT_TRUE(outcome.findings.empty());
  rules2_test::ExpectTestdataMatches(s, "tc_bf16_tensor_cores.json");
}

// MinNonTcShare = 10%: 1.2 of 10 ms is above, 0.8 of 10 ms below.
TEST(TensorCoresIdleTest, NonTcShareJustAboveThresholdFires) {
  Scenario s = Mixed(1200 * kNsPerUs, 8800 * kNsPerUs);
  rules2_test::ExpectTestdataMatches(s, "tc_non_tc_above.json");
  Timeline tl = Build(s);
  TensorCoresIdleRule rule;
  std::optional<Finding> f = Only(RunOn(rule, tl, Options(rule)));
  ASSERT_TRUE(f.has_value());
  EXPECT_NEAR(f->evidence[0].value, 0.12, 0.002);
  ExpectWithin(f->recoverable_ns_per_step, 600 * kNsPerUs, 0.01, "1.2 ms x (1 - 1/2)");
}

TEST(TensorCoresIdleTest, NonTcShareJustBelowThresholdDoesNotFire) {
  Scenario s = Mixed(800 * kNsPerUs, 9200 * kNsPerUs);
  rules2_test::ExpectTestdataMatches(s, "tc_non_tc_below.json");
  Timeline tl = Build(s);
  TensorCoresIdleRule rule;
  RuleOutcome outcome = RunOn(rule, tl, Options(rule));
  EXPECT_TRUE(outcome.applicable);
  EXPECT_TRUE(outcome.findings.empty());
  RuleOutcome lowered = RunOn(rule, tl, Options(rule, {{"MinNonTcShare", 0.07}}));
  EXPECT_EQ(lowered.findings.size(), 1u);
}

TEST(TensorCoresIdleTest, AssumedSpeedupScalesTheSaving) {
  Timeline tl = Build(Mixed(4 * kNsPerMs, 6 * kNsPerMs));
  TensorCoresIdleRule rule;
  std::optional<Finding> f = Only(RunOn(rule, tl, Options(rule, {{"AssumedSpeedup", 4}})));
  ASSERT_TRUE(f.has_value());
  ExpectWithin(f->recoverable_ns_per_step, 3 * kNsPerMs, 0.01, "4 ms x (1 - 1/4)");
}

// MinStepShare: the same trace fires while the saving (0.6 ms) is at least
// the option's share of the step, and stays silent just above it.
TEST(TensorCoresIdleTest, NegligibleSavingAgainstTheStepIsNotReported) {
  Timeline tl = Build(Mixed(1200 * kNsPerUs, 8800 * kNsPerUs));
  TensorCoresIdleRule rule;
  std::optional<Finding> f = Only(RunOn(rule, tl, Options(rule)));
  ASSERT_TRUE(f.has_value());
  const double saving_share = f->recoverable_share;
  ASSERT_GT(saving_share, 0.01);
  EXPECT_EQ(RunOn(rule, tl, Options(rule, {{"MinStepShare", saving_share * 0.99}})).findings.size(),
            1u);
  EXPECT_TRUE(
      RunOn(rule, tl, Options(rule, {{"MinStepShare", saving_share * 1.01}})).findings.empty());
}

struct GenerationCase {
  const char* label;
  DeviceSpec device;
  const char* kernel;
  const char* input_type;  // JSON list
  bool fires;
};

class GenerationTest : public ::testing::TestWithParam<GenerationCase> {};

// Kernel-name generations from Volta to Blackwell; the dtype decides where
// the name does not.
TEST_P(GenerationTest, JudgesTensorCoreUse) {
  const GenerationCase& c = GetParam();
  Scenario s;
  s.Device(c.device);
  s.BeginStep(0);
  Gemms(s, 1, c.kernel, ShapeArgs("[[256, 4096], [4096, 4096]]", c.input_type), 8 * kNsPerMs,
        "aten::mm");
  s.OpKernels("aten::relu", kElementwise, 4, 500 * kNsPerUs, 10 * kNsPerUs);
  s.Sync().EndStep();
  Timeline tl = Build(s);
  TensorCoresIdleRule rule;
  RuleOutcome outcome = RunOn(rule, tl, Options(rule));
  EXPECT_TRUE(outcome.applicable) << outcome.not_judged_reason;
  EXPECT_EQ(outcome.findings.size(), c.fires ? 1u : 0u);
}

const DeviceSpec kB200{0, "NVIDIA B200", 10, 0, 148, 191'000'000'000, 2048};

INSTANTIATE_TEST_SUITE_P(
    Generations, GenerationTest,
    ::testing::Values(
        GenerationCase{"VoltaFp32", DeviceSpec::V100(), "volta_sgemm_128x64_nn",
                       R"(["float", "float"])", true},
        GenerationCase{"VoltaFp32Generic", DeviceSpec::V100(), "gemm_kernel_generic",
                       R"(["float", "float"])", true},
        GenerationCase{"VoltaH884", DeviceSpec::V100(), "volta_h884gemm_64x64_ldg8_nn",
                       R"(["c10::Half", "c10::Half"])", false},
        GenerationCase{"TuringS1688", DeviceSpec::T4(),
                       "turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_tn",
                       R"(["c10::Half", "c10::Half"])", false},
        GenerationCase{"AmpereS16816", DeviceSpec::A100(), kTcGemm,
                       R"(["c10::BFloat16", "c10::BFloat16"])", false},
        GenerationCase{"AmpereSgemm", DeviceSpec::A100(), kFp32Gemm, R"(["float", "float"])",
                       true},
        GenerationCase{"HopperXmmaBf16", DeviceSpec::H100(),
                       "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_"
                       "warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
                       R"(["c10::BFloat16", "c10::BFloat16"])", false},
        GenerationCase{"HopperNvjet", DeviceSpec::H100(), "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTN",
                       R"(["c10::BFloat16", "c10::BFloat16"])", false},
        GenerationCase{"HopperXmmaFp32", DeviceSpec::H100(),
                       "sm90_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x32_"
                       "warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
                       R"(["float", "float"])", true},
        GenerationCase{"BlackwellBf16", kB200,
                       "sm100_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x64_"
                       "cluster2x1x1_execute_segment_k_off_kernel__5x_cublas",
                       R"(["c10::BFloat16", "c10::BFloat16"])", false},
        GenerationCase{"FlashAttentionHalf", DeviceSpec::A100(),
                       "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, false, "
                       "false, cutlass::half_t>>",
                       R"(["c10::Half", "c10::Half", "c10::Half"])", false},
        GenerationCase{"FmhaFloat", DeviceSpec::A100(), "fmha_cutlassF_f32_aligned_64x64_rf_sm80",
                       R"(["float", "float", "float"])", true},
        GenerationCase{"DgemmIsNotACandidate", DeviceSpec::A100(), "ampere_dgemm_64x64_nn",
                       R"(["double", "double"])", false}),
    [](const ::testing::TestParamInfo<GenerationCase>& info) { return info.param.label; });

TEST(TensorCoresIdleTest, Fp32GenericGemmOnAmpereIsNotGuessed) {
  // The name says nothing and float32 may run as TF32 on Ampere.
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginStep(0);
  Gemms(s, 2, "gemm_kernel_generic", Fp32Addmm(), 4 * kNsPerMs);
  s.Sync().EndStep();
  Timeline tl = Build(s);
  TensorCoresIdleRule rule;
  RuleOutcome outcome = RunOn(rule, tl, Options(rule));
  EXPECT_FALSE(outcome.applicable);
  EXPECT_THAT(outcome.not_judged_reason, HasSubstr("neither the kernel name nor the op dtype"));
  EXPECT_THAT(outcome.not_judged_reason, HasSubstr("(float32 that may run as TF32)"));
}

TEST(TensorCoresIdleTest, GemmLaunchedOutsideAnyOpSaysSo) {
  // A custom kernel launched from an extension: no op, so no dtype, and the
  // reason says that rather than blaming missing shapes or TF32.
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginStep(0);
  for (int i = 0; i < 2; ++i) s.Kernel("matmul_k", 4 * kNsPerMs);
  s.Sync().EndStep();
  Timeline tl = Build(s);
  TensorCoresIdleRule rule;
  RuleOutcome outcome = RunOn(rule, tl, Options(rule));
  EXPECT_FALSE(outcome.applicable);
  EXPECT_THAT(outcome.not_judged_reason, HasSubstr("launched outside any framework op"));
}

TEST(TensorCoresIdleTest, WithoutShapesNamesAloneGiveInferredConfidence) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 0; k < 2; ++k) {
    s.BeginStep(k).OpKernels("aten::addmm", kFp32Gemm, 5, 2 * kNsPerMs, 10 * kNsPerUs);
    s.Sync().EndStep();
  }
  Timeline tl = Build(s);
  TensorCoresIdleRule rule;
  std::optional<Finding> f = Only(RunOn(rule, tl, Options(rule)));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->confidence, Confidence::kInferred);
  EXPECT_THAT(f->message, HasSubstr("judged from kernel names alone"));
}

TEST(TensorCoresIdleTest, CudaGraphReplayIsJudgedFromNamesOnly) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 0; k < 2; ++k) {
    s.BeginStep(k).GraphLaunch({{kFp32Gemm, 3 * kNsPerMs}, {kFp32Gemm, 3 * kNsPerMs},
                                {kElementwise, 1 * kNsPerMs}});
    s.Sync().EndStep();
  }
  Timeline tl = Build(s);
  TensorCoresIdleRule rule;
  std::optional<Finding> f = Only(RunOn(rule, tl, Options(rule)));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->confidence, Confidence::kInferred);
  ExpectWithin(f->recoverable_ns_per_step, 3 * kNsPerMs, 0.01, "6 ms x (1 - 1/2)");
}

TEST(TensorCoresIdleTest, PreVoltaGpuIsNotJudged) {
  Scenario s;
  s.Device({0, "Tesla P100-SXM2-16GB", 6, 0, 56, 17'071'734'784, 2048});
  s.BeginStep(0);
  Gemms(s, 2, kFp32Gemm, Fp32Addmm(), 4 * kNsPerMs);
  s.Sync().EndStep();
  Timeline tl = Build(s);
  TensorCoresIdleRule rule;
  RuleOutcome outcome = RunOn(rule, tl, Options(rule));
  EXPECT_FALSE(outcome.applicable);
  EXPECT_THAT(outcome.not_judged_reason, HasSubstr("has no Tensor Cores"));
}

// Without deviceProperties the kernel names still prove an architecture
// (cuBLAS's ampere_ prefix: compute capability 8.0 or newer): judged on it.
TEST(TensorCoresIdleTest, DeviceWithoutPropertiesIsJudgedByItsKernelNames) {
  Scenario s;  // no deviceProperties
  s.BeginStep(0);
  Gemms(s, 2, kFp32Gemm, Fp32Addmm(), 4 * kNsPerMs);
  s.Sync().EndStep();
  Timeline tl = Build(s);
  TensorCoresIdleRule rule;
  RuleOutcome outcome = RunOn(rule, tl, Options(rule));
  ASSERT_TRUE(outcome.applicable) << outcome.not_judged_reason;
  ASSERT_EQ(outcome.findings.size(), 1u);
  const Finding& f = outcome.findings.front();
  EXPECT_EQ(f.cause, "fp32_no_tensor_cores");
  EXPECT_THAT(f.title, HasSubstr("device 0, Ampere sm_80 or newer, from kernel names"));
  bool evidence = false;
  for (const Evidence& e : f.evidence) {
    evidence |= e.text.find("Compute capability >= 8.0 (Ampere), from the kernel names "
                            "(ampere_)") != std::string::npos;
  }
  EXPECT_TRUE(evidence);
}

// Names with no architecture prefix: the compute capability stays unknown.
TEST(TensorCoresIdleTest, DeviceWithoutPropertiesOrPrefixIsNotJudged) {
  Scenario s;  // no deviceProperties
  s.BeginStep(0);
  Gemms(s, 2, "gemm_kernel_fp32", Fp32Addmm(), 4 * kNsPerMs);
  s.Sync().EndStep();
  Timeline tl = Build(s);
  TensorCoresIdleRule rule;
  RuleOutcome outcome = RunOn(rule, tl, Options(rule));
  EXPECT_FALSE(outcome.applicable);
  EXPECT_THAT(outcome.not_judged_reason, HasSubstr("no device properties"));
}

TEST(TensorCoresIdleTest, AmdIsJudgedForMatrixUnitsNotTensorCores) {
  TimelineBuilder b;
  DeviceInfo mi300;
  mi300.id = 0;
  mi300.name = "AMD Instinct MI300X";
  mi300.vendor = "AMD";
  mi300.compute_major = 9;
  mi300.compute_minor = 4;
  b.metadata().devices.push_back(mi300);
  SliceSpec k;
  k.track = b.GetTrack(TrackKind::kDeviceStream, 0, 0);
  k.ts_ns = 1000;
  k.dur_ns = 5 * kNsPerMs;
  k.name = b.Intern("Cijk_Ailk_Bljk_SB_MT64x64x16_SN");
  k.kind = EventKind::kKernel;
  b.AddSlice(k);
  absl::StatusOr<Timeline> tl = std::move(b).Finalize();
  ASSERT_TRUE(tl.ok()) << tl.status();
  TensorCoresIdleRule rule;
  RuleOutcome outcome = RunOn(rule, *tl, Options(rule));
  // AMD Matrix Cores are judged for mixed precision instead of Tensor
  // Cores (cause fp32_matrix_units); the Tensile name states float32 ("SB").
  EXPECT_TRUE(outcome.applicable) << outcome.not_judged_reason;
  ASSERT_EQ(outcome.findings.size(), 1u);
  EXPECT_EQ(outcome.findings[0].cause, "fp32_matrix_units");
}

TEST(TensorCoresIdleTest, CpuOnlyTraceIsNotJudged) {
  Scenario s;
  s.BeginStep(0).HostOp("aten::mm", 2 * kNsPerMs).EndStep();
  Timeline tl = Build(s);
  TensorCoresIdleRule rule;
  RuleOutcome outcome = RunOn(rule, tl, Options(rule));
  EXPECT_FALSE(outcome.applicable);
  EXPECT_THAT(outcome.not_judged_reason, HasSubstr("no GPU kernels"));
}

}  // namespace
}  // namespace tracelint
