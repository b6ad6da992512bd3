// What an expert says on generated traces (issue 28): the whole ranking and
// verdict for each cause, one trace that shows it and one that does not.

#include <string>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/step_phase.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/report/report_data.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/ranking.h"
#include "tests/support/scenario.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::DeviceSpec;
using testing::KernelOptions;
using testing::RankAll;
using testing::RankedTrace;
using testing::VerdictOf;
using testing::FindingOf;
using testing::Scenario;
using testing::ScenarioArgs;
using testing::ShapeArgs;
using testing::StreamRef;

constexpr TimeNs Ms(TimeNs ms) { return ms * kNsPerMs; }
constexpr TimeNs Us(TimeNs us) { return us * kNsPerUs; }

std::string AllEvidence(const Finding& f) {
  std::string out;
  for (const Evidence& e : f.evidence) out += e.text + "\n";
  return out;
}

// ---- 1. One-time work is cut out as time

// An eager step of ~42 ms (enough events to be no fragment) whose first
// launch loads its module for `load_us`: judged on the rest, the one-time
// cost reported beside it.
Scenario ModuleLoadingInTheOnlyStep(TimeNs load_us) {
  Scenario s;
  s.Device(DeviceSpec::H100());
  KernelOptions slow;
  slow.launch_ns = Us(load_us);
  s.BeginStep(1).BeginOp("aten::mm").Kernel("sm90_xmma_gemm_bf16bf16", Ms(1), slow).End();
  for (int i = 0; i < 40; ++i) {
    s.HostOp("aten::view", Ms(1)).BeginOp("aten::add").Kernel("elementwise_kernel", Us(50)).End();
  }
  s.Sync().EndStep();
  return s;
}

TEST(ExpertCauses, OneTimeWorkInsideTheOnlyStepIsCutNotRefused) {
  RankedTrace r = RankAll(ModuleLoadingInTheOnlyStep(/*load_us=*/1'200));
  const StepPhaseSet& phase = r.context->step_phase();
  ASSERT_EQ(phase.phases.size(), 1u);
  EXPECT_EQ(phase.phases[0], StepPhase::kSteady);
  EXPECT_EQ(r.context->steps().steps[0].cut_ns(), Us(1'200));
  const Verdict v = VerdictOf(r);
  EXPECT_TRUE(v.judgeable) << v.line;
  EXPECT_EQ(v.bound, "host");
  const Finding* once = FindingOf(r, "warmup-one-time-cost", "module_loading");
  ASSERT_NE(once, nullptr);
  EXPECT_EQ(once->one_time_ns, Us(1'200));
  EXPECT_EQ(once->severity, FindingSeverity::kLow);  // steady time exists
  EXPECT_THAT(once->message, HasSubstr("cut out of ProfilerStep#1 as time"));
}

TEST(ExpertCauses, OneTimeWorkOverHalfTheStepLeavesNoSteadyTime) {
  // 60 ms of loading beside ~42 ms of work: under half of the step is left.
  RankedTrace r = RankAll(ModuleLoadingInTheOnlyStep(/*load_us=*/60'000));
  EXPECT_TRUE(r.context->step_phase().NoSteadyStep());
  EXPECT_FALSE(VerdictOf(r).judgeable);
  // The descriptive tables stay: the top kernels come from every step.
  const StepMetrics& m = r.context->step_metrics();
  EXPECT_TRUE(m.top_lists_from_all_steps);
  EXPECT_FALSE(m.top_kernels.empty());
}

// ---- 3. Causes experts name

Scenario AllocatorSteps(std::string_view call, int steps = 5) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= steps; ++k) {
    s.BeginStep(k).BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", Ms(1)).End();
    for (int i = 0; i < 8; ++i) s.HostCall(call, Ms(1));
    s.BeginOp("aten::relu").Kernel("elementwise_kernel", Ms(1)).End().Sync().EndStep();
  }
  return s;
}

TEST(ExpertCauses, AllocatorStallsAreTheAllocatorWithItsFix) {
  RankedTrace r = RankAll(AllocatorSteps("hipFree"));
  const Finding* f = FindingOf(r, "gpu-idle-gaps", "allocator");
  ASSERT_NE(f, nullptr) << r.ranking;
  EXPECT_THAT(f->fix, HasSubstr("expandable_segments:True"));
  EXPECT_THAT(f->fix, HasSubstr("empty_cache()"));
  EXPECT_THAT(AllEvidence(*f), HasSubstr("8 allocator calls per step"));
  EXPECT_THAT(AllEvidence(*f), HasSubstr("hipFree x8"));
  EXPECT_EQ(FindingOf(r, "gpu-idle-gaps", "other_host_work"), nullptr) << r.ranking;
  EXPECT_EQ(VerdictOf(r).bound, "host");
}

TEST(ExpertCauses, OtherRuntimeCallsAreNoAllocatorFinding) {
  RankedTrace r = RankAll(AllocatorSteps("cudaStreamQuery"));
  EXPECT_EQ(FindingOf(r, "gpu-idle-gaps", "allocator"), nullptr) << r.ranking;
  EXPECT_NE(FindingOf(r, "gpu-idle-gaps", "other_host_work"), nullptr) << r.ranking;
}

TEST(ExpertCauses, JobSubmissionHasItsOwnCauseAndFix) {
  RankedTrace r = RankAll(AllocatorSteps("runFunction - job_prep_and_submit_for_execution"));
  const Finding* f = FindingOf(r, "gpu-idle-gaps", "job_submission");
  ASSERT_NE(f, nullptr) << r.ranking;
  EXPECT_THAT(f->fix, HasSubstr("fused"));
  EXPECT_THAT(f->fix, Not(HasSubstr("CUDA_MODULE_LOADING")));
  EXPECT_EQ(FindingOf(r, "warmup-one-time-cost", "module_loading"), nullptr);
}

// Six steps, one with a 30 ms data-loader stall: an outlier. It leaves the
// saving per step, and its extra time goes on the data loader's finding.
Scenario OneBadStep(bool bad) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 6; ++k) {
    s.BeginStep(k).DataLoaderNext(Ms(k == 4 && bad ? 32 : 2));
    s.OpKernels("aten::mm", "ampere_sgemm_128x64_nn", 10, Us(400), Us(10));
    s.Sync().EndStep();
  }
  return s;
}

TEST(ExpertCauses, AnOutlierStepLeavesTheSavingAndIsReportedOnItsOwner) {
  RankedTrace bad = RankAll(OneBadStep(true));
  RankedTrace even = RankAll(OneBadStep(false));
  ASSERT_EQ(bad.context->outlier_steps().indices.size(), 1u);
  EXPECT_EQ(bad.context->steps().steps.size(), 5u);
  EXPECT_EQ(bad.context->steady_steps().steps.size(), 6u);
  const Finding* f = FindingOf(bad, "gpu-idle-gaps", "data_loader");
  const Finding* g = FindingOf(even, "gpu-idle-gaps", "data_loader");
  ASSERT_NE(f, nullptr) << bad.ranking;
  ASSERT_NE(g, nullptr) << even.ranking;
  // The saving per step is what the even steps show, not inflated by one stall.
  EXPECT_NEAR(static_cast<double>(f->recoverable_ns_per_step),
              static_cast<double>(g->recoverable_ns_per_step), static_cast<double>(Us(50)));
  EXPECT_EQ(f->outlier_steps, std::vector<int64_t>{4});
  EXPECT_GT(f->outlier_step_ns, Ms(29));
  EXPECT_LT(f->outlier_step_ns, Ms(31));
  EXPECT_THAT(AllEvidence(*f), HasSubstr("outlier step ProfilerStep#4"));
  EXPECT_THAT(f->fix, HasSubstr("ProfilerStep#4 is an outlier step"));
  EXPECT_THAT(f->fix, HasSubstr("what runs every N steps"));
  EXPECT_EQ(g->outlier_step_ns, 0);
  EXPECT_THAT(g->fix, Not(HasSubstr("outlier")));
  EXPECT_TRUE(even.context->outlier_steps().indices.empty());
}

// Many outliers (here 5 of 20 steps stall): the first three get an evidence
// line each, the rest one summary line with their total, so a long run's
// finding stays readable; the fix names the stall once.
TEST(ExpertCauses, ManyOutlierStepsAreSummarisedAfterThree) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 20; ++k) {
    s.BeginStep(k).DataLoaderNext(Ms(k % 4 == 0 ? 32 : 2));
    s.OpKernels("aten::mm", "ampere_sgemm_128x64_nn", 10, Us(400), Us(10));
    s.Sync().EndStep();
  }
  RankedTrace r = RankAll(s);
  ASSERT_EQ(r.context->outlier_steps().indices.size(), 5u);
  const Finding* f = FindingOf(r, "gpu-idle-gaps", "data_loader");
  ASSERT_NE(f, nullptr) << r.ranking;
  EXPECT_EQ(f->outlier_steps.size(), 5u);
  int per_step_lines = 0, summary_lines = 0;
  double summary_ns = 0, lines_ns = 0;
  for (const Evidence& e : f->evidence) {
    if (e.text.starts_with("outlier step ")) {
      ++per_step_lines;
      lines_ns += e.value;
    }
    if (e.text.starts_with("2 more outlier steps (")) {
      ++summary_lines;
      summary_ns = e.value;
    }
  }
  EXPECT_EQ(per_step_lines, 3);
  EXPECT_EQ(summary_lines, 1);
  EXPECT_NEAR(lines_ns + summary_ns, static_cast<double>(f->outlier_step_ns), 1.0);
  size_t mentions = 0;
  for (size_t at = f->fix.find("is an outlier step"); at != std::string::npos;
       at = f->fix.find("is an outlier step", at + 1)) {
    ++mentions;
  }
  EXPECT_EQ(mentions, 1u);
}

// Exposed collectives that outweigh compute and every idle cause bound
// the run; below compute they do not.
Scenario CommSteps(TimeNs compute_ms, TimeNs comm_ms) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.Distributed(0, 8);
  for (int k = 1; k <= 5; ++k) {
    s.BeginStep(k).BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", Ms(compute_ms)).End();
    s.Sync().AllReduce(64 << 20, Ms(comm_ms)).Sync(StreamRef{0, testing::kCommStream}).EndStep();
  }
  return s;
}

TEST(ExpertCauses, ExposedCommunicationOverComputeIsCommunicationBound) {
  RankedTrace comm = RankAll(CommSteps(2, 6));
  const Verdict v = VerdictOf(comm);
  EXPECT_EQ(v.bound, "communication") << v.line;
  EXPECT_THAT(v.line, HasSubstr("busy with compute kernels"));
  RankedTrace compute = RankAll(CommSteps(6, 2));
  EXPECT_EQ(VerdictOf(compute).bound, "gpu compute") << VerdictOf(compute).line;
}

// Hundreds of per-parameter all-reduces per step: bucket them.
Scenario ManyAllReduces(int per_step) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.Distributed(0, 8);
  for (int k = 1; k <= 3; ++k) {
    s.BeginStep(k).BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", Ms(2)).End();
    s.BeginBackward("MmBackward0").Kernel("ampere_sgemm_128x64_nt", Ms(2)).End().Sync();
    for (int i = 0; i < per_step; ++i) s.AllReduce(1 << 20, Us(60));
    s.Sync(StreamRef{0, testing::kCommStream}).EndStep();
  }
  return s;
}

TEST(ExpertCauses, UnbucketedAllReducesGetBucketingAdvice) {
  RankedTrace many = RankAll(ManyAllReduces(120));
  const Finding* f = nullptr;
  for (const Finding& x : many.result.findings) {
    if (x.rule_id == "comm-clustered-allreduce") f = &x;
  }
  ASSERT_NE(f, nullptr) << many.ranking;
  EXPECT_THAT(f->fix, HasSubstr("one per parameter"));
  EXPECT_THAT(f->fix, HasSubstr("DistributedDataParallel"));
  EXPECT_THAT(f->fix, HasSubstr("FSDP"));
  EXPECT_THAT(f->fix, Not(HasSubstr("tune bucket_cap_mb")));
  EXPECT_THAT(AllEvidence(*f), HasSubstr("120.0 collectives per step, 120.0 MiB per step"));
  EXPECT_THAT(AllEvidence(*f), HasSubstr("Algorithmic bandwidth"));

  RankedTrace few = RankAll(ManyAllReduces(4));
  for (const Finding& x : few.result.findings) {
    if (x.rule_id == "comm-clustered-allreduce") {
      EXPECT_THAT(x.fix, Not(HasSubstr("one per parameter")));
    }
  }
}

// Device work with no linked launch while the host runs ops: the verdict
// names the host as the likely bound, inferred; no finding claims it.
Scenario UnlinkedSteps(bool host_works) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.WithoutCorrelation();  // before the events: they take their ids when added
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k).BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", Ms(1)).End();
    if (host_works) {
      s.HostOp("aten::cat", Ms(6));
    } else {
      s.Idle(Ms(6));
    }
    s.BeginOp("aten::relu").Kernel("elementwise_kernel", Ms(1)).End().Sync().EndStep();
  }
  return s;
}

TEST(ExpertCauses, UnlinkedIdleNamesAnInferredBound) {
  RankedTrace works = RankAll(UnlinkedSteps(true));
  const Verdict v = VerdictOf(works);
  EXPECT_TRUE(v.judgeable) << v.line;
  EXPECT_EQ(v.bound, "host");
  EXPECT_THAT(v.line, HasSubstr("inferred"));
  EXPECT_THAT(v.line, HasSubstr("no saving is claimed"));
  EXPECT_EQ(FindingOf(works, "gpu-idle-gaps", "other_host_work"), nullptr) << works.ranking;
  RankedTrace silent = RankAll(UnlinkedSteps(false));
  EXPECT_EQ(VerdictOf(silent).bound, "not judgeable") << VerdictOf(silent).line;
}

// JAX code that is already jitted: the advice names the per-call dispatch.
Scenario JaxSteps(bool jitted) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.Framework("JAX");
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k);
    if (jitted) s.BeginAnnotation("PjitFunction(train_step)");
    s.BeginOp("dot.1").Kernel("ampere_sgemm_128x64_nn", Ms(1)).End();
    s.BeginOp("add.2").Spend(Ms(2)).Kernel("elementwise_kernel", Ms(1)).End();
    if (jitted) s.End();
    s.Sync().EndStep();
  }
  return s;
}

TEST(ExpertCauses, AlreadyJittedJaxIsNotToldToJit) {
  RankedTrace jitted = RankAll(JaxSteps(true));
  bool any = false;
  for (const Finding& f : jitted.result.findings) {
    if (f.rule_id != "gpu-idle-gaps") continue;
    any = true;
    EXPECT_THAT(f.fix, Not(HasSubstr("jit it")));
    if (f.cause == "other_host_work" || f.cause == "launch_overhead") {
      EXPECT_THAT(f.fix, HasSubstr("already jitted"));
      EXPECT_THAT(f.fix, HasSubstr("PjitFunction(train_step)"));
    }
  }
  EXPECT_TRUE(any) << jitted.ranking;
  RankedTrace eager = RankAll(JaxSteps(false));
  for (const Finding& f : eager.result.findings) EXPECT_THAT(f.fix, Not(HasSubstr("already jitted")));
}

// float32 GEMMs on AMD Matrix Cores: the mixed-precision finding, with a
// cause of its own; bf16 GEMMs there, none.
Scenario AmdGemms(std::string_view dtype) {
  Scenario s;
  DeviceSpec mi300;
  mi300.name = "AMD Instinct MI300X";
  mi300.compute_major = 9;
  mi300.compute_minor = 4;
  mi300.sm_count = 304;
  mi300.vendor = "AMD";
  s.Device(mi300);
  for (int k = 1; k <= 3; ++k) {
    s.BeginStep(k)
        .BeginOp("aten::mm", ShapeArgs("[[4096, 4096], [4096, 4096]]",
                                       fmt::format("[\"{}\", \"{}\"]", dtype, dtype)))
        .Kernel("Cijk_Alik_Bljk_SB_MT128x128x16_MI32x32x2x1", Ms(4))
        .End()
        .Sync()
        .EndStep();
  }
  return s;
}

TEST(ExpertCauses, Fp32GemmsOnAmdMatrixCoresGetMixedPrecision) {
  RankedTrace fp32 = RankAll(AmdGemms("float"));
  const Finding* f = FindingOf(fp32, "tensor-cores-idle", "fp32_matrix_units");
  ASSERT_NE(f, nullptr) << fp32.ranking;
  EXPECT_THAT(f->title, HasSubstr("AMD Matrix Cores"));
  EXPECT_THAT(f->fix, HasSubstr("torch.bfloat16"));
  RankedTrace bf16 = RankAll(AmdGemms("c10::BFloat16"));
  EXPECT_EQ(FindingOf(bf16, "tensor-cores-idle", "fp32_matrix_units"), nullptr) << bf16.ranking;
}

// Iterations inferred without markers: findings on them lose one
// confidence level.
Scenario StarvedLoop(bool markers) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 5; ++k) {
    if (markers) s.BeginStep(k);
    s.DataLoaderNext(Ms(3));
    s.OpKernels("aten::mm", "ampere_sgemm_128x64_nn", 5, Us(400), Us(10));
    s.BeginAnnotation("Optimizer.step#SGD.step").Kernel("multi_tensor_apply_kernel", Us(100)).End();
    s.Sync();
    if (markers) s.EndStep();
  }
  return s;
}

TEST(ExpertCauses, FindingsOnInferredIterationsLoseOneConfidenceLevel) {
  RankedTrace inferred = RankAll(StarvedLoop(false));
  RankedTrace marked = RankAll(StarvedLoop(true));
  EXPECT_EQ(inferred.context->steps().source, StepSource::kInferred);
  EXPECT_EQ(inferred.context->steps().steps.size(), 5u);
  const Finding* f = FindingOf(inferred, "gpu-idle-gaps", "data_loader");
  const Finding* g = FindingOf(marked, "gpu-idle-gaps", "data_loader");
  ASSERT_NE(f, nullptr) << inferred.ranking;
  ASSERT_NE(g, nullptr) << marked.ranking;
  EXPECT_EQ(g->confidence, Confidence::kMeasured);
  EXPECT_EQ(f->confidence, Confidence::kModelled);
  // Gaps are named by iteration ("at iteration 2"; grouped: "iterations 1-5").
  EXPECT_THAT(f->message,
              ::testing::AnyOf(HasSubstr("at iteration "), HasSubstr(", iterations ")));
}

}  // namespace
}  // namespace tracelint
