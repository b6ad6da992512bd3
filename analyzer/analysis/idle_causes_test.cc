// The idle causes experts name (docs/design/domain.md, "Time accounting";
// docs/design/contract.md, "Unlinked device work"): the allocator, job
// submission, the cause inferred for unlinked idle, and the end of an
// inference step.
#include <memory>
#include <string>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/step_phase.h"
#include "analyzer/analysis/steps.h"
#include "gtest/gtest.h"
#include "tests/support/analysed.h"
#include "tests/support/scenario.h"

namespace tracelint {
namespace {

using testing::DeviceSpec;
using testing::Scenario;

constexpr TimeNs Ms(TimeNs ms) { return ms * kNsPerMs; }
TimeNs CauseNs(const IdleAttribution& a, IdleCause c) { return a.total_ns[static_cast<int>(c)]; }

using testing::Analyse;
using testing::Analysed;

// Four steps: a 2 ms GEMM, then a 3 ms host call `call` while it runs (the
// GPU idles for the last ~1 ms of it), then the next kernel.
Scenario StepsWithCall(std::string_view call) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k)
        .BeginOp("aten::mm")
        .Kernel("ampere_sgemm_128x64_nn", Ms(2))
        .End()
        .HostCall(call, Ms(3))
        .BeginOp("aten::relu")
        .Kernel("elementwise_kernel", Ms(1))
        .End()
        .Sync()
        .EndStep();
  }
  return s;
}

TEST(IdleCauses, AllocatorCallsStallingTheGpuAreTheAllocator) {
  for (std::string_view call : {"hipFree", "cudaFree", "cudaMalloc", "cuMemMap",
                                "cudaMallocAsync", "cudaHostAlloc"}) {
    auto a = Analyse(StepsWithCall(call));
    const IdleAttribution& idle = a->ctx->idle_attribution();
    // ~1 ms per step: the 3 ms call outlasts the 2 ms GEMM.
    EXPECT_GT(CauseNs(idle, IdleCause::kAllocator), Ms(4) - Ms(1) / 10) << call;
    EXPECT_LT(CauseNs(idle, IdleCause::kAllocator), Ms(4) + Ms(1) / 10) << call;
    // Only the few microseconds after the call returns, while the host
    // enters the next op and launches, are another cause's.
    EXPECT_LT(CauseNs(idle, IdleCause::kOtherHostWork), Ms(1) / 10) << call;
    EXPECT_EQ(IdleCauseName(IdleCause::kAllocator), "allocator");
  }
}

TEST(IdleCauses, OtherRuntimeCallsAreNotTheAllocator) {
  auto a = Analyse(StepsWithCall("cudaStreamQuery"));
  const IdleAttribution& idle = a->ctx->idle_attribution();
  EXPECT_EQ(CauseNs(idle, IdleCause::kAllocator), 0);
  EXPECT_GT(CauseNs(idle, IdleCause::kOtherHostWork), Ms(4) - Ms(1) / 10);
}

TEST(IdleCauses, JobSubmissionIsItsOwnCause) {
  auto a = Analyse(StepsWithCall("runFunction - job_prep_and_submit_for_execution"));
  const IdleAttribution& idle = a->ctx->idle_attribution();
  EXPECT_GT(CauseNs(idle, IdleCause::kJobSubmission), Ms(4) - Ms(1) / 10);
  EXPECT_EQ(CauseNs(idle, IdleCause::kLaunchStall), 0);
  // Never one-time work (module loading) either.
  EXPECT_TRUE(a->ctx->step_phase().costs.empty());
}

// Device work with no linked launch: its idle stays unattributed, and the
// host's recorded work meanwhile names the likely cause, inferred.
TEST(IdleCauses, UnlinkedIdleGetsACauseInferredFromTheHost) {
  for (bool host_works : {true, false}) {
    Scenario s;
    s.Device(DeviceSpec::A100());
    s.WithoutCorrelation();  // before the events: they take their ids when added
    for (int k = 1; k <= 3; ++k) {
      s.BeginStep(k).BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", Ms(1)).End();
      if (host_works) {
        s.HostOp("aten::cat", Ms(4));
      } else {
        s.Idle(Ms(4));
      }
      s.BeginOp("aten::relu").Kernel("elementwise_kernel", Ms(1)).End().Sync().EndStep();
    }
    auto a = Analyse(s);
    const IdleAttribution& idle = a->ctx->idle_attribution();
    const TimeNs unattributed = CauseNs(idle, IdleCause::kUnattributed);
    // Per step the GEMM runs 1 ms of the host's 4 ms: ~3 ms idle, three steps.
    EXPECT_GT(unattributed, Ms(9) - Ms(1) / 2);
    // Nothing but unattributed is charged: inferred causes are no saving.
    EXPECT_EQ(CauseNs(idle, IdleCause::kOtherHostWork), 0);
    EXPECT_EQ(CauseNs(idle, IdleCause::kHostSideOp), 0);
    const TimeNs inferred_work = idle.inferred_ns[static_cast<int>(IdleCause::kOtherHostWork)];
    auto [cause, share] = InferredUnattributedCause(idle);
    if (host_works) {
      EXPECT_GT(inferred_work, Ms(9) - Ms(1) / 2);
      EXPECT_EQ(cause, IdleCause::kOtherHostWork);
      EXPECT_GT(share, 0.9);
      EXPECT_NE(InferredUnattributedText(idle).find("inferred:"), std::string::npos);
    } else {
      EXPECT_EQ(cause, IdleCause::kUnattributed);
      EXPECT_EQ(InferredUnattributedText(idle), "");
    }
  }
}

// The end of an inference step: the GPU idles after a blocking `.cpu()`
// while the host post-processes. That idle is the post-processing's, not
// the sync's; in training the sync drained the queue the host could have
// kept full, and keeps it.
TEST(IdleCauses, IdleAfterTheLastCopyOfAnInferenceIsWhatTheHostDoes) {
  for (bool training : {false, true}) {
    Scenario s;
    s.Device(DeviceSpec::A100());
    for (int k = 1; k <= 3; ++k) {
      s.BeginStep(k).BeginOp("aten::linear").Kernel("ampere_sgemm_128x64_nn", Ms(5)).End();
      if (training) s.BeginBackward("MmBackward0").Kernel("sgemm_bwd", Ms(1)).End();
      s.BeginOp("aten::to").CopyD2H(4096, Ms(1) / 10, MemorySpace::kPageable).End();
      s.HostOp("postprocess", Ms(4)).EndStep();
    }
    auto a = Analyse(s);
    const IdleAttribution& idle = a->ctx->idle_attribution();
    if (training) {
      EXPECT_GT(CauseNs(idle, IdleCause::kSyncCall), Ms(3)) << "training";
    } else {
      EXPECT_EQ(CauseNs(idle, IdleCause::kSyncCall), 0);
      EXPECT_GT(CauseNs(idle, IdleCause::kHostSideOp), Ms(11));
    }
  }
}

// XLA's runtime dispatching a jitted executable (PJRT / TFRT frames that
// launch nothing the trace links) is the call's dispatch, other host work;
// a host op of the user's that launches nothing is a host-side op.
TEST(IdleCauses, XlaRuntimeDispatchIsNoHostSideOp) {
  for (std::string_view name :
       {"PjRtStreamExecutorLoadedExecutable::Execute", "TfrtTpuLoadedExecutable::Execute",
        "np_preprocess"}) {
    Scenario s;
    s.Device(DeviceSpec::A100());
    for (int k = 1; k <= 4; ++k) {
      s.BeginStep(k).BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", Ms(2)).End();
      s.HostOp(name, Ms(4));
      s.BeginOp("aten::relu").Kernel("elementwise_kernel", Ms(1)).End().Sync().EndStep();
    }
    auto a = Analyse(s);
    const IdleAttribution& idle = a->ctx->idle_attribution();
    if (name == "np_preprocess") {
      EXPECT_GT(CauseNs(idle, IdleCause::kHostSideOp), Ms(7)) << name;
    } else {
      EXPECT_EQ(CauseNs(idle, IdleCause::kHostSideOp), 0) << name;
      EXPECT_GT(CauseNs(idle, IdleCause::kOtherHostWork), Ms(7)) << name;
    }
  }
}

}  // namespace
}  // namespace tracelint
