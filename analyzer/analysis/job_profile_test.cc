#include "analyzer/analysis/job_profile.h"

#include "tests/support/scenario.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using testing::DeviceSpec;
using testing::Scenario;

constexpr char kGemm[] = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn";

JobProfile ProfileOf(const Scenario& s) {
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  EXPECT_TRUE(tl.ok()) << tl.status();
  return tl.ok() ? ComputeJobProfile(*tl) : JobProfile{};
}

Scenario Forward() {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginStep(0).BeginOp("aten::linear").Kernel(kGemm, kNsPerMs).End().Sync().EndStep();
  return s;
}

TEST(JobProfile, ForwardOnlyIsInference) {
  JobProfile p = ProfileOf(Forward());
  EXPECT_EQ(p.kind, JobKind::kInference);
  EXPECT_EQ(p.framework, JobFramework::kPyTorch);
  EXPECT_EQ(p.collective_total(), 0);
}

// LLM advice needs a name only generation or serving leaves; a transformer
// encoder's attention and GEMMs are no evidence.
TEST(JobProfile, LlmNeedsKvCacheOrServingNames) {
  EXPECT_FALSE(ProfileOf(Forward()).llm);
  Scenario encoder;
  encoder.Device(DeviceSpec::A100());
  encoder.BeginStep(0).BeginOp("aten::scaled_dot_product_attention")
      .Kernel("pytorch_flash::flash_fwd_kernel", kNsPerMs).End().Sync().EndStep();
  EXPECT_FALSE(ProfileOf(encoder).llm);
  for (const char* name : {"_C_cache_ops::reshape_and_cache_flash", "nn.Module: LlamaDecoderLayer",
                           "vllm::unified_attention"}) {
    Scenario s;
    s.Device(DeviceSpec::A100());
    s.BeginStep(0).BeginOp(name).Kernel(kGemm, kNsPerMs).End().Sync().EndStep();
    EXPECT_TRUE(ProfileOf(s).llm) << name;
  }
}

// PyTorch's profiler without ProfilerActivity.CPU (or any trace whose host
// side is API calls alone): step annotations are no framework ops, so a
// forward-only kernel list says nothing about inference.
TEST(JobProfile, AnnotationsWithoutOpsAreNoEvidenceOfInference) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginStep(0).Kernel(kGemm, kNsPerMs).Sync().EndStep();
  JobProfile p = ProfileOf(s);
  EXPECT_EQ(p.kind, JobKind::kUnknown);
  EXPECT_EQ(p.host_ops, 0);
  EXPECT_TRUE(p.host_api_only);
  EXPECT_FALSE(p.capture);
  EXPECT_TRUE(ProfileOf(Forward()).host_ops > 0);
  EXPECT_FALSE(ProfileOf(Forward()).host_api_only);
}

// Kernels only a backward pass launches are training evidence on their own;
// a forward conv kernel is not.
TEST(JobProfile, BackwardKernelsAloneAreTraining) {
  for (const char* name : {"sm90_xmma_wgrad_indexed_implicit_gemm_f32f32_tf32f32_f32",
                           "void cudnn::bn_bw_1C11_singleread<float, 512, true, 1, 2, 0>",
                           "void (anonymous namespace)::softmax_warp_backward<float, float>"}) {
    Scenario s;
    s.Device(DeviceSpec::A100());
    s.BeginStep(0).Kernel(name, kNsPerMs).Sync().EndStep();
    JobProfile p = ProfileOf(s);
    EXPECT_EQ(p.kind, JobKind::kTraining) << name;
    EXPECT_EQ(p.backward_kernels, 1) << name;
  }
  Scenario fwd;
  fwd.Device(DeviceSpec::A100());
  fwd.BeginStep(0).Kernel("sm90_xmma_fprop_implicit_gemm_f32f32", kNsPerMs).Sync().EndStep();
  EXPECT_EQ(ProfileOf(fwd).backward_kernels, 0);
}

// Only a tracelint capture takes its framework from kernel names
// (kineto_from_capture_test.cc): an unnamed Chrome trace of another tool
// keeps advice in no framework's API.
TEST(JobProfile, AtenKernelsNameNoFrameworkOutsideACapture) {
  constexpr char kAten[] = "void at::native::vectorized_elementwise_kernel<4, at::native::Fill>";
  Scenario s;
  s.Device(DeviceSpec::A100()).Framework("");
  s.BeginStep(0).Kernel(kAten, kNsPerMs).Sync().EndStep();
  JobProfile p = ProfileOf(s);
  EXPECT_EQ(p.framework, JobFramework::kOther);
  EXPECT_FALSE(p.framework_from_kernels);
}

TEST(JobProfile, BackwardOrOptimizerIsTraining) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginStep(0).BeginOp("aten::linear").Kernel(kGemm, kNsPerMs).End();
  s.BeginBackward("AddmmBackward0").Kernel(kGemm, kNsPerMs).End().Sync().EndStep();
  EXPECT_EQ(ProfileOf(s).kind, JobKind::kTraining);

  Scenario opt;
  opt.Device(DeviceSpec::A100());
  opt.BeginStep(0).BeginAnnotation("Optimizer.step#AdamW.step").Kernel(kGemm, kNsPerMs).End();
  opt.Sync().EndStep();
  EXPECT_EQ(ProfileOf(opt).kind, JobKind::kTraining);
}

TEST(JobProfile, CollectiveKindsFromKernelsAndTheirOps) {
  EXPECT_EQ(CollectiveKindOf("ncclDevKernel_AllGather_RING_LL(x)"), CollectiveKind::kAllGather);
  EXPECT_EQ(CollectiveKindOf("ncclKernel_ReduceScatter_RING_LL_Sum_bf16(x)"),
            CollectiveKind::kReduceScatter);
  EXPECT_EQ(CollectiveKindOf("nccl:_reduce_scatter_base"), CollectiveKind::kReduceScatter);
  EXPECT_EQ(CollectiveKindOf("nccl:all_to_all"), CollectiveKind::kAllToAll);
  EXPECT_EQ(CollectiveKindOf("void vllm::cross_device_reduce_1stage<half, 8>(x)"),
            CollectiveKind::kAllReduce);
  EXPECT_EQ(CollectiveKindOf("ncclDevKernel_SendRecv(x)"), CollectiveKind::kSendRecv);

  // all_to_all runs as SendRecv kernels: the launching op names it.
  Scenario s;
  s.Device(DeviceSpec::A100());
  testing::KernelOptions comm;
  comm.stream = {0, testing::kCommStream};
  s.BeginStep(0).BeginOp("nccl:all_to_all").Kernel("ncclDevKernel_SendRecv(x)", 3 * kNsPerMs, comm);
  s.End().AllReduce(1 << 20, kNsPerMs).Sync({0, testing::kCommStream}).EndStep();
  JobProfile p = ProfileOf(s);
  EXPECT_EQ(p.collective_count[static_cast<int>(CollectiveKind::kAllToAll)], 1);
  EXPECT_EQ(p.collective_count[static_cast<int>(CollectiveKind::kAllReduce)], 1);
  EXPECT_EQ(p.dominant_collective, CollectiveKind::kAllToAll);
}

}  // namespace
}  // namespace tracelint
