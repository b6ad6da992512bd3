// Kernel families of 2024-2026 hardware (docs/devices-and-advice.md, "Kernel
// families" and "Est. SM efficiency coverage"), end to end: each family in a
// generated trace through every rule and the ranking, beside the same trace
// with a contrasting kernel. The classification tables have unit tests of
// their own; these catch a family that is classified right there and still
// gets lost on the way to what the user reads (a metric, a rule, the rank).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "tests/support/scenario.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rules/all_rules.h"
#include "tests/support/rule_test_util.h"

namespace tracelint {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using rules2_test::Describe;
using rules2_test::RankingOf;
using testing::DeviceSpec;
using testing::KernelOptions;
using testing::Scenario;
using testing::ScenarioEvent;

// What the user reads for one rank: the ranked findings, the rules that
// could not judge it, and the summary metrics of device 0.
struct Analyzed {
  std::vector<Finding> findings;
  std::vector<RuleOutcome> not_judged;
  DeviceMetrics summary;
};

Analyzed Analyze(const Scenario& s) {
  Analyzed out;
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  EXPECT_TRUE(tl.ok()) << tl.status();
  if (!tl.ok()) return out;
  RuleRegistry registry;
  RegisterAllRules(registry);
  AnalysisContext ctx(*tl);
  std::vector<AnalysisContext*> ranks = {&ctx};
  absl::StatusOr<EngineResult> result = RunRules(registry, EngineOptions{}, ranks);
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return out;
  for (const std::string& w : result->warnings) ADD_FAILURE() << "engine warning: " << w;
  out.findings = result->findings;
  out.not_judged = result->not_judged;
  const StepMetrics& m = ctx.step_metrics();
  EXPECT_EQ(m.summary.size(), 1u);
  if (!m.summary.empty()) out.summary = m.summary.front();
  return out;
}

const Finding* FindingOf(const Analyzed& a, std::string_view rule) {
  for (const Finding& f : a.findings) {
    if (f.rule_id == rule) return &f;
  }
  return nullptr;
}

TimeNs CommunicationNs(const DeviceMetrics& d) {
  return d.breakdown_ns[static_cast<int>(StepCategory::kCommunication)];
}

// A Blackwell B200 (compute capability 10.0).
DeviceSpec B200() { return {0, "NVIDIA B200", 10, 0, 148, 191'514'968'064, 2048}; }

constexpr char kElementwise[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>";

// ---- Tensor Core work: Blackwell/Hopper low-precision GEMMs

// Four steps of eight 2 ms GEMMs and a 200 us pointwise kernel, back to
// back on the GPU. The op states no dtype, so only the kernel name decides
// whether the GEMMs ran on Tensor Cores.
Scenario GemmSteps(std::string_view gemm, const DeviceSpec& device = B200()) {
  Scenario s;
  s.Device(device);
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k);
    for (int i = 0; i < 8; ++i) s.BeginOp("aten::mm").Kernel(gemm, 2 * kNsPerMs).End();
    s.BeginOp("aten::add").Kernel(kElementwise, 200 * kNsPerUs).End();
    s.Sync().EndStep();
  }
  return s;
}

constexpr double kGemmShareOfKernelTime = 16.0 / 16.2;

struct TensorCoreFamily {
  std::string_view label;
  std::string_view kernel;
  bool hopper = false;  // else the trace's device is a B200
};

const TensorCoreFamily kTensorCoreFamilies[] = {
    {"MX block-scaled (trtllm-gen)",
     "bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x8x512u2_s3_et64x8_m64x8x64_cga1x1x1_16dp256b_TN_"
     "transOut_schedS_sm100a"},
    {"NVFP4 (trtllm-gen)",
     "bmm_E2m1_E2m1E2m1_Fp32_t128x16x256u2_s4_et128x16_m128x16x64_cga1x1x1_16dp256b_TN_"
     "schedS_sm100f"},
    {"FP8 (trtllm-gen)",
     "bmm_E4m3_E4m3E4m3_Fp32_t128x8x128_s6_et64x8_m64x8x32_cga1x1x1_16dp256b_TN_transOut_"
     "schedS_sm100a"},
    {"NVFP4 block-scaled (CUTLASS)",
     "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::"
     "collective::CollectiveMma<cutlass::gemm::MainloopSm100TmaUmmaWarpSpecializedBlockScaled"
     "<cutlass::nv_float4_t<cutlass::float_e2m1_t>, cutlass::float_ue4m3_t>>>>(x)"},
    {"FP8 tcgen05 (cuBLAS sm100)", "sm100_gemm_e4m3_e4m3_f32_tn_umma_tcgen05"},
    {"bf16 (cuBLAS sm100)", "sm100_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x64_cublas"},
    {"f16 (CUTLASS 3 sm100)", "cutlass3x_sm100_tensorop_gemm_f16_f16_f32_void_f16"},
    {"FP8 (cuBLAS sm90)",
     "sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n_tilesize128x128x128_warpgroupsize1x1x1_"
     "execute_segment_k_off_kernel__5x_cublas",
     /*hopper=*/true},
};

// Every family keeps the GPU on Tensor Cores: nothing to find, and the
// Tensor Core share is the GEMMs' share of kernel time.
TEST(KernelFamiliesRanking, BlackwellAndHopperLowPrecisionGemmsAreTensorCoreWork) {
  for (const TensorCoreFamily& family : kTensorCoreFamilies) {
    SCOPED_TRACE(family.label);
    Analyzed a = Analyze(
        GemmSteps(family.kernel, family.hopper ? DeviceSpec::H100() : B200()));
    EXPECT_THAT(RankingOf(a.findings), IsEmpty()) << Describe(a.findings);
    ASSERT_TRUE(a.summary.tensor_core_kernel_share.has_value());
    EXPECT_NEAR(*a.summary.tensor_core_kernel_share, kGemmShareOfKernelTime, 1e-9);
    EXPECT_EQ(a.summary.tensor_core_kernel_ns, 4 * 16 * kNsPerMs);
  }
}

// The same trace with cuBLAS's FP32 GEMM on the same B200: the sm100_ prefix
// alone does not make Tensor Core work, and the rule fires on 99% of the
// kernel time (saving: half of it at the assumed 2x). The op states no
// dtype, so the cause is the name-only one.
TEST(KernelFamiliesRanking, Fp32GemmOnBlackwellIsTensorCoresIdle) {
  Analyzed a = Analyze(GemmSteps("sm100_xmma_gemm_f32f32_f32f32_f32_nn_n"));
  EXPECT_THAT(RankingOf(a.findings), ElementsAre("tensor-cores-idle/no_tensor_cores"))
      << Describe(a.findings);
  ASSERT_TRUE(a.summary.tensor_core_kernel_share.has_value());
  EXPECT_EQ(*a.summary.tensor_core_kernel_share, 0);
  const Finding* f = FindingOf(a, "tensor-cores-idle");
  ASSERT_NE(f, nullptr);
  rules2_test::ExpectWithin(f->recoverable_ns_per_step, 8 * kNsPerMs, 0.05, "fp32 gemm saving");
}

// Quantize kernels carry the same format words (e4m3, e2m1) but are
// pointwise: not Tensor Core work, and not a GEMM the rule could move there.
TEST(KernelFamiliesRanking, Fp8QuantizeKernelIsNeitherTensorCoreNorIdleGemm) {
  Analyzed a = Analyze(GemmSteps("void scaled_fp8_quant_kernel<c10::Float8_e4m3fn>(x)"));
  EXPECT_THAT(RankingOf(a.findings), IsEmpty()) << Describe(a.findings);
  ASSERT_TRUE(a.summary.tensor_core_kernel_share.has_value());
  EXPECT_EQ(*a.summary.tensor_core_kernel_share, 0);
}

// ---- Communication that is not NCCL-named

KernelOptions OnComm() {
  KernelOptions k;
  k.stream = {0, testing::kCommStream};
  return k;
}

// Tensor-parallel inference: a 4 ms bf16 GEMM, then a 2 ms all-reduce the
// host waits for, launched by the same op whatever kernel implements it.
Scenario AllReduceSteps(std::string_view kernel) {
  Scenario s;
  s.Device(DeviceSpec::H100());
  for (int k = 1; k <= 3; ++k) {
    s.BeginStep(k).BeginOp("aten::mm");
    s.Kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 4 * kNsPerMs);
    s.End().Sync();
    s.BeginOp("_C_custom_ar::all_reduce").Kernel(kernel, 2 * kNsPerMs, OnComm()).End();
    s.Sync({0, testing::kCommStream}).EndStep();
  }
  return s;
}

// Symmetric-memory (PyTorch), vLLM custom and TensorRT-LLM one-/two-shot
// all-reduce kernels rank, count and advise exactly as NCCL's own kernel.
TEST(KernelFamiliesRanking, CustomAllReduceKernelsAreCommunicationLikeNccl) {
  Analyzed nccl = Analyze(AllReduceSteps("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(x)"));
  ASSERT_THAT(RankingOf(nccl.findings),
              ElementsAre("comm-clustered-allreduce/exposed_communication"))
      << Describe(nccl.findings);
  EXPECT_EQ(CommunicationNs(nccl.summary), 3 * 2 * kNsPerMs);
  const Finding* nccl_comm = FindingOf(nccl, "comm-clustered-allreduce");
  ASSERT_NE(nccl_comm, nullptr);
  for (std::string_view kernel : {
           "void c10d::symmetric_memory::multimem_all_reduce_kernel<c10::BFloat16, 16>(x)",
           "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(x)",
           "void vllm::cross_device_reduce_2stage<__nv_bfloat16, 8>(x)",
           "void c10d::symmetric_memory::one_shot_all_reduce_kernel<c10::BFloat16>(x)",
           "void c10d::symmetric_memory::two_shot_all_reduce_kernel<c10::BFloat16>(x)",
           "void tensorrt_llm::kernels::oneShotAllReduceKernel<__nv_bfloat16, 8>(x)",
           "void tensorrt_llm::kernels::twoShotAllReduceKernel<__nv_bfloat16, 8>(x)",
       }) {
    SCOPED_TRACE(kernel);
    Analyzed custom = Analyze(AllReduceSteps(kernel));
    EXPECT_EQ(RankingOf(custom.findings), RankingOf(nccl.findings)) << Describe(custom.findings);
    EXPECT_EQ(CommunicationNs(custom.summary), CommunicationNs(nccl.summary));
    EXPECT_EQ(custom.summary.kernel_busy_ns, nccl.summary.kernel_busy_ns);
    const Finding* f = FindingOf(custom, "comm-clustered-allreduce");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->recoverable_ns_per_step, nccl_comm->recoverable_ns_per_step);
    EXPECT_EQ(f->fix, nccl_comm->fix);
  }
}

// The contrast: a kernel of the same length that is not a collective is
// compute, so nothing is exposed communication.
TEST(KernelFamiliesRanking, SameKernelNotCollectiveIsCompute) {
  Analyzed a = Analyze(AllReduceSteps("void vllm::rms_norm_kernel<c10::BFloat16>(x)"));
  EXPECT_THAT(RankingOf(a.findings), IsEmpty()) << Describe(a.findings);
  EXPECT_EQ(CommunicationNs(a.summary), 0);
}

// ---- Est. SM efficiency only where launch dimensions cover the kernel time

// Steps of a 3 ms and a 1 ms kernel; the named one loses its launch
// dimensions (grid, block, blocks per SM), as kernels do in traces from older profilers or
// other vendors' plugins.
Scenario DimsMissingFrom(std::string_view kernel_without_dims) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  KernelOptions half_wave;
  half_wave.grid[0] = 54;  // 54 blocks on 108 SMs: an SM efficiency of 50%
  for (int k = 1; k <= 3; ++k) {
    s.BeginStep(k);
    s.BeginOp("aten::add").Kernel("long_kernel", 3 * kNsPerMs, half_wave).End();
    s.BeginOp("aten::mul").Kernel("short_kernel", 1 * kNsPerMs, half_wave).End();
    s.Sync().EndStep();
  }
  s.Edit([&](ScenarioEvent& e) {
    if (e.cat == "kernel" && e.name == kernel_without_dims) {
      std::erase_if(e.args, [](const testing::ScenarioArg& a) {
        return a.key == "grid" || a.key == "block" || a.key == "blocks per SM";
      });
    }
    return true;
  });
  return s;
}

// 75% of kernel time has dims: SM efficiency is reported, with its
// coverage; the kernels without dims count as 0, so it is the dims' half
// wave over 3 of 4 ms of kernel.
TEST(KernelFamiliesRanking, SmEfficiencyReportedWhenDimsCoverMostKernelTime) {
  Analyzed a = Analyze(DimsMissingFrom("short_kernel"));
  // Half-wave grids leave half the SMs idle for 3 of the 4 ms: that is
  // kernel-small-grids' finding (the kernel without dims claims nothing).
  EXPECT_THAT(RankingOf(a.findings), ElementsAre("kernel-small-grids/small_grids"))
      << Describe(a.findings);
  ASSERT_TRUE(a.summary.sm_efficiency_coverage.has_value());
  EXPECT_DOUBLE_EQ(*a.summary.sm_efficiency_coverage, 0.75);
  ASSERT_TRUE(a.summary.est_sm_efficiency.has_value());
  EXPECT_NEAR(*a.summary.est_sm_efficiency,
              0.5 * 3 * kNsPerMs / static_cast<double>(a.summary.step_ns / 3), 1e-6);
}

// 25% of kernel time has dims: "n/a" (no value), its coverage still shown.
TEST(KernelFamiliesRanking, SmEfficiencyNaWhenDimsCoverLittleKernelTime) {
  Analyzed a = Analyze(DimsMissingFrom("long_kernel"));
  EXPECT_THAT(RankingOf(a.findings), IsEmpty()) << Describe(a.findings);
  ASSERT_TRUE(a.summary.sm_efficiency_coverage.has_value());
  EXPECT_DOUBLE_EQ(*a.summary.sm_efficiency_coverage, 0.25);
  EXPECT_FALSE(a.summary.est_sm_efficiency.has_value());
}

}  // namespace
}  // namespace tracelint
