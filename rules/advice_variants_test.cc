// Fix texts that fit the job (docs/devices-and-advice.md): each variant on a
// generated trace, through every rule and the ranking, as a user sees it.

#include <string>
#include <vector>

#include "tests/support/scenario.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/rule_test_util.h"

namespace tracelint {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::DeviceSpec;
using testing::KernelOptions;
using rules2_test::RankingOf;
using testing::Scenario;
using testing::ShapeArgs;

constexpr char kFp32Gemm[] = "ampere_sgemm_128x64_tn";
constexpr char kTuringFp32Gemm[] = "turing_sgemm_128x64_tn";
constexpr char kElementwise[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>";

testing::ScenarioArgs Fp32Addmm() {
  return ShapeArgs("[[4096], [256, 4096], [4096, 4096]]", R"(["float", "float", "float"])");
}

KernelOptions OnComm() {
  KernelOptions k;
  k.stream = {0, testing::kCommStream};
  return k;
}

std::vector<Finding> Ranked(const Scenario& s) {
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  EXPECT_TRUE(tl.ok()) << tl.status();
  return tl.ok() ? rules2_test::RankedFindings(*tl) : std::vector<Finding>{};
}


const Finding& Get(const std::vector<Finding>& findings, std::string_view rule) {
  for (const Finding& f : findings) {
    if (f.rule_id == rule) return f;
  }
  static const Finding kNone;
  ADD_FAILURE() << "no " << rule << " finding";
  return kNone;
}

// Training words that never belong in inference advice.
void ExpectNoTrainingAdvice(const std::string& fix) {
  EXPECT_THAT(fix, Not(HasSubstr("Train ")));
  EXPECT_THAT(fix, Not(HasSubstr("GradScaler")));
  EXPECT_THAT(fix, Not(HasSubstr("DistributedDataParallel")));
  EXPECT_THAT(fix, Not(HasSubstr("bucket_cap_mb")));
}

// Forward-only float32 GEMMs: an inference job on an A100.
Scenario InferenceFp32(bool with_optimizer) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 0; k < 4; ++k) {
    s.BeginStep(k);
    for (int i = 0; i < 10; ++i) s.BeginOp("aten::addmm", Fp32Addmm()).Kernel(kFp32Gemm, 2 * kNsPerMs).End();
    if (with_optimizer) {
      s.BeginAnnotation("Optimizer.step#SGD.step").Kernel(kElementwise, 100 * kNsPerUs).End();
    }
    s.Sync().EndStep();
  }
  return s;
}

TEST(AdviceVariants, InferenceTensorCoresAdviceHasNoTraining) {
  std::vector<Finding> findings = Ranked(InferenceFp32(false));
  EXPECT_THAT(RankingOf(findings), ElementsAre("tensor-cores-idle/fp32_no_tensor_cores"))
      << rules2_test::Describe(findings);
  const std::string& fix = Get(findings, "tensor-cores-idle").fix;
  EXPECT_THAT(fix, HasSubstr("Serve the model in bfloat16"));
  EXPECT_THAT(fix, HasSubstr("no loss scaling"));
  ExpectNoTrainingAdvice(fix);
}

TEST(AdviceVariants, TrainingTensorCoresAdviceKeepsTraining) {
  std::vector<Finding> findings = Ranked(InferenceFp32(true));
  EXPECT_THAT(RankingOf(findings), ElementsAre("tensor-cores-idle/fp32_no_tensor_cores"))
      << rules2_test::Describe(findings);
  EXPECT_THAT(Get(findings, "tensor-cores-idle").fix, HasSubstr("Train under torch.autocast"));
}

// A Turing GPU (no TF32, no bf16): float16 with the current GradScaler API.
TEST(AdviceVariants, TuringTrainingUsesTorchAmpGradScaler) {
  Scenario s;
  s.Device(DeviceSpec::T4());
  for (int k = 0; k < 3; ++k) {
    s.BeginStep(k);
    for (int i = 0; i < 5; ++i) s.BeginOp("aten::addmm", Fp32Addmm()).Kernel(kTuringFp32Gemm, 2 * kNsPerMs).End();
    s.BeginBackward("AddmmBackward0").Kernel(kTuringFp32Gemm, 2 * kNsPerMs).End();
    s.Sync().EndStep();
  }
  std::vector<Finding> findings = Ranked(s);
  EXPECT_THAT(RankingOf(findings), ElementsAre("tensor-cores-idle/fp32_no_tensor_cores"))
      << rules2_test::Describe(findings);
  const std::string& fix = Get(findings, "tensor-cores-idle").fix;
  EXPECT_THAT(fix, HasSubstr("torch.amp.GradScaler(\"cuda\")"));
  EXPECT_THAT(fix, Not(HasSubstr("torch.cuda.amp")));
}

// Many tiny kernels behind their launches, forward only; an LLM decode
// step names its KV-cache writes.
Scenario LaunchBound(bool llm) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 3; ++k) {
    s.BeginStep(k).OpKernels(llm ? "_C_cache_ops::reshape_and_cache_flash" : "aten::add",
                             "vectorized_elementwise_kernel", 200, 2 * kNsPerUs, 20 * kNsPerUs);
    s.EndStep();
  }
  return s;
}

TEST(AdviceVariants, LaunchBoundLlmInferenceGetsDecodeGraphsAndContinuousBatching) {
  std::vector<Finding> findings = Ranked(LaunchBound(/*llm=*/true));
  EXPECT_THAT(RankingOf(findings), ElementsAre("gpu-idle-gaps/launch_overhead"))
      << rules2_test::Describe(findings);
  const std::string& fix = Get(findings, "gpu-idle-gaps").fix;
  EXPECT_THAT(fix, HasSubstr("CUDA Graphs"));
  EXPECT_THAT(fix, HasSubstr("continuous batching"));
  ExpectNoTrainingAdvice(fix);
}

// An encoder or vision model served without a KV cache: no LLM words.
TEST(AdviceVariants, LaunchBoundInferenceWithoutLlmEvidenceGetsNoServingAdvice) {
  std::vector<Finding> findings = Ranked(LaunchBound(/*llm=*/false));
  EXPECT_THAT(RankingOf(findings), ElementsAre("gpu-idle-gaps/launch_overhead"))
      << rules2_test::Describe(findings);
  const std::string& fix = Get(findings, "gpu-idle-gaps").fix;
  EXPECT_THAT(fix, HasSubstr("CUDA Graphs"));
  EXPECT_THAT(fix, Not(HasSubstr("LLM")));
  EXPECT_THAT(fix, Not(HasSubstr("prefill")));
  ExpectNoTrainingAdvice(fix);
}

// Host time inside the model's ops, between their launches: eager dispatch
// of a small model (the GPU waits on Python and aten:: on the host).
Scenario EagerDispatch(bool training, bool compiled = false) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 3; ++k) {
    s.BeginStep(k);
    if (compiled) s.BeginAnnotation("Torch-Compiled Region: 0/0");
    s.BeginPython("nn.Module: BertModel_0");
    for (int i = 0; i < 20; ++i) {
      s.BeginOp("aten::linear").Spend(300 * kNsPerUs).Kernel("gemm", 20 * kNsPerUs).End();
    }
    s.End();
    if (compiled) s.End();
    if (training) s.BeginAnnotation("Optimizer.step#SGD.step").Kernel(kElementwise, 10 * kNsPerUs).End();
    s.Sync().EndStep();
  }
  return s;
}

// The same host time outside any op: work between inference steps.
Scenario BetweenSteps() {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 3; ++k) {
    s.BeginStep(k).OpKernels("aten::mm", "gemm", 5, 200 * kNsPerUs, 5 * kNsPerUs);
    s.BeginPython("serve.py(42): postprocess").Spend(3 * kNsPerMs).Kernel("fill", 5 * kNsPerUs).End();
    s.Sync().EndStep();
  }
  return s;
}

TEST(AdviceVariants, EagerDispatchInInferenceGetsGraphsAndCompile) {
  std::vector<Finding> findings = Ranked(EagerDispatch(false));
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(RankingOf(findings).front(), "gpu-idle-gaps/other_host_work")
      << rules2_test::Describe(findings);
  const std::string& fix = findings.front().fix;
  EXPECT_THAT(fix, HasSubstr("operator dispatch"));
  EXPECT_THAT(fix, HasSubstr("CUDA Graphs"));
  EXPECT_THAT(fix, Not(HasSubstr("between inference steps")));
  ExpectNoTrainingAdvice(fix);
}

TEST(AdviceVariants, EagerDispatchInTrainingGetsTorchCompile) {
  std::vector<Finding> findings = Ranked(EagerDispatch(true));
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(RankingOf(findings).front(), "gpu-idle-gaps/other_host_work")
      << rules2_test::Describe(findings);
  EXPECT_THAT(findings.front().fix, HasSubstr("torch.compile the model"));
}

// Python left inside an already compiled model: graph breaks and hooks.
TEST(AdviceVariants, HostWorkInsideCompiledRegionGetsGraphBreakAdvice) {
  std::vector<Finding> findings = Ranked(EagerDispatch(false, true));
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(RankingOf(findings).front(), "gpu-idle-gaps/other_host_work")
      << rules2_test::Describe(findings);
  const std::string& fix = findings.front().fix;
  EXPECT_THAT(fix, HasSubstr("already compiled"));
  EXPECT_THAT(fix, HasSubstr("TORCH_LOGS=graph_breaks"));
  ExpectNoTrainingAdvice(fix);
}

TEST(AdviceVariants, HostWorkBetweenInferenceStepsGetsOverlapAdvice) {
  std::vector<Finding> findings = Ranked(BetweenSteps());
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(RankingOf(findings).front(), "gpu-idle-gaps/other_host_work")
      << rules2_test::Describe(findings);
  EXPECT_THAT(findings.front().fix, HasSubstr("between inference steps"));
}

// One training step shape with an exposed collective of the given kind;
// the optimizer step marks it as training (no backward: only exposed
// communication is judged).
Scenario ExposedCollective(std::string_view op, std::string_view kernel, TimeNs comm_ns) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 0; k < 3; ++k) {
    s.BeginStep(k);
    s.BeginOp(op).Kernel(kernel, comm_ns, OnComm()).End().Sync({0, testing::kCommStream});
    s.BeginOp("aten::mm").Kernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn",
                                 4 * kNsPerMs).End();
    s.BeginAnnotation("Optimizer.step#SGD.step").Kernel(kElementwise, 100 * kNsPerUs).End();
    s.Sync().EndStep();
  }
  return s;
}

TEST(AdviceVariants, AllToAllOfSparseEmbeddings) {
  std::vector<Finding> findings =
      Ranked(ExposedCollective("nccl:all_to_all", "ncclDevKernel_SendRecv(x)", 2 * kNsPerMs));
  EXPECT_THAT(RankingOf(findings), ElementsAre("comm-clustered-allreduce/exposed_communication"))
      << rules2_test::Describe(findings);
  const std::string& fix = Get(findings, "comm-clustered-allreduce").fix;
  EXPECT_THAT(fix, HasSubstr("all_to_all"));
  EXPECT_THAT(fix, HasSubstr("TrainPipelineSparseDist"));
  EXPECT_THAT(fix, Not(HasSubstr("bucket_cap_mb")));
}

TEST(AdviceVariants, FsdpAllGatherAndReduceScatter) {
  std::vector<Finding> findings = Ranked(ExposedCollective(
      "nccl:_all_gather_base", "ncclDevKernel_AllGather_RING_LL(x)", 2 * kNsPerMs));
  EXPECT_THAT(RankingOf(findings), ElementsAre("comm-clustered-allreduce/exposed_communication"))
      << rules2_test::Describe(findings);
  const std::string& fix = Get(findings, "comm-clustered-allreduce").fix;
  EXPECT_THAT(fix, HasSubstr("FSDP"));
  EXPECT_THAT(fix, HasSubstr("forward_prefetch"));
  EXPECT_THAT(fix, Not(HasSubstr("bucket_cap_mb")));
}

TEST(AdviceVariants, ManySmallAllReducesGetBucketing) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 0; k < 3; ++k) {
    s.BeginStep(k).BeginOp("aten::mm");
    s.Kernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn", 4 * kNsPerMs).End().Sync();
    for (int i = 0; i < 40; ++i) s.AllReduce(4096, 30 * kNsPerUs);
    s.Sync({0, testing::kCommStream});
    s.BeginAnnotation("Optimizer.step#SGD.step").Kernel(kElementwise, 100 * kNsPerUs).End();
    s.Sync().EndStep();
  }
  std::vector<Finding> findings = Ranked(s);
  EXPECT_THAT(RankingOf(findings), ElementsAre("comm-clustered-allreduce/exposed_communication"))
      << rules2_test::Describe(findings);
  const std::string& fix = Get(findings, "comm-clustered-allreduce").fix;
  EXPECT_THAT(fix, HasSubstr("small all_reduce"));
  EXPECT_THAT(fix, HasSubstr("coalesce"));
}

TEST(AdviceVariants, InferenceTensorParallelAllReduce) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 0; k < 3; ++k) {
    s.BeginStep(k).BeginOp("aten::mm");
    s.Kernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn", 4 * kNsPerMs).End().Sync();
    s.AllReduce(16 << 20, 2 * kNsPerMs).Sync({0, testing::kCommStream}).EndStep();
  }
  std::vector<Finding> findings = Ranked(s);
  EXPECT_THAT(RankingOf(findings), ElementsAre("comm-clustered-allreduce/exposed_communication"))
      << rules2_test::Describe(findings);
  const std::string& fix = Get(findings, "comm-clustered-allreduce").fix;
  EXPECT_THAT(fix, HasSubstr("tensor-parallel"));
  ExpectNoTrainingAdvice(fix);
}

// 10 ms of exposed communication beside 1 ms of compute: overlap could hide
// at most the compute's 1.1 ms, so that is the saving.
TEST(AdviceVariants, ExposedCommunicationSavingCappedByCompute) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 0; k < 3; ++k) {
    s.BeginStep(k).BeginOp("aten::mm");
    s.Kernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn", 1 * kNsPerMs).End().Sync();
    s.AllReduce(256 << 20, 10 * kNsPerMs).Sync({0, testing::kCommStream});
    s.BeginAnnotation("Optimizer.step#SGD.step").Kernel(kElementwise, 100 * kNsPerUs).End();
    s.Sync().EndStep();
  }
  std::vector<Finding> findings = Ranked(s);
  EXPECT_THAT(RankingOf(findings), ElementsAre("comm-clustered-allreduce/exposed_communication"))
      << rules2_test::Describe(findings);
  const Finding& f = Get(findings, "comm-clustered-allreduce");
  rules2_test::ExpectWithin(f.recoverable_ns_per_step, 1.1 * kNsPerMs, 0.05, "capped saving");
  EXPECT_THAT(f.message, HasSubstr("no compute beside it"));
}

}  // namespace
}  // namespace tracelint
