// The whole ranking (every finding, in order, with cause, confidence and
// share, plus what was withheld) for one generated trace per idle
// attribution case of docs/design/domain.md step 2-3 and per trace-integrity check
// (docs/trace-integrity.md). A finding that appears, vanishes, moves or
// claims more than the trace allows fails.

#include <functional>
#include <string>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/report/report_data.h"
#include "tests/support/scenario.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/ranking.h"

namespace tracelint {
namespace {

using testing::DeviceSpec;
using testing::KernelOptions;
using ::testing::HasSubstr;
using testing::RankAll;
using testing::RankedTrace;
using testing::VerdictOf;
using testing::Ranking;
using testing::Scenario;
using testing::ScenarioEvent;
using testing::StreamRef;

bool IsDeviceCat(const ScenarioEvent& e) {
  return e.cat == "kernel" || e.cat == "gpu_memcpy" || e.cat == "gpu_memset";
}

// Five steps: a 2 ms data-loader fetch, then 10 op + kernel pairs, a sync.
Scenario Starved(int steps = 5) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= steps; ++k) {
    s.BeginStep(k).DataLoaderNext(2 * kNsPerMs);
    s.OpKernels("aten::mm", "ampere_sgemm_128x64_nn", 10, 400 * kNsPerUs, 10 * kNsPerUs);
    s.Sync().EndStep();
  }
  return s;
}

// ---- Idle attribution (docs/design/domain.md "Time accounting", step 2 and 3)

TEST(IntegrityRankingTest, LaunchCallSpanningTheGapIsLaunchStall) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 8; ++k) {
    s.BeginStep(k).OpKernels("aten::mm", "gemm", 4, kNsPerMs, 10 * kNsPerUs);
    // The call starts while the GPU is busy and returns 2 ms after the GPU
    // ran dry (module loading): the GPU idles inside it.
    s.BeginOp("aten::conv2d").Kernel("conv", kNsPerMs, KernelOptions{.launch_ns = 6 * kNsPerMs});
    s.End().Sync().EndStep();
  }
  RankedTrace r = RankAll(s);
  EXPECT_EQ(r.ranking,
            "integrity trusted\n"
            "gpu-idle-gaps launch_stall measured 29%\n");
  // A slow launch call is host-side idle: the verdict's host bound.
  const Verdict v = VerdictOf(r);
  EXPECT_EQ(v.bound, "host");
  EXPECT_THAT(v.line, HasSubstr("29% of the step"));
}

TEST(IntegrityRankingTest, LaunchEndedBeforeTheGapIsDeviceWait) {
  Scenario s;
  s.Device(DeviceSpec::A100(0)).Device(DeviceSpec::A100(1));
  for (int k = 1; k <= 5; ++k) {
    s.BeginStep(k)
        .Kernel("x", 3 * kNsPerMs, KernelOptions{.stream = {1, testing::kComputeStream}})
        .OpKernels("aten::mm", "gemm", 4, 200 * kNsPerUs, 10 * kNsPerUs)
        .StreamWait({0, testing::kComputeStream}, {1, testing::kComputeStream})
        .OpKernels("aten::add", "add", 4, 200 * kNsPerUs, 10 * kNsPerUs)
        .DeviceSync(0)
        .DeviceSync(1)
        .EndStep();
  }
  EXPECT_EQ(Ranking(s),
            "integrity trusted\n"
            "gpu-idle-gaps device_wait_other measured 29%\n"
            "host-side-ops sync_call measured 11%\n");
}

TEST(IntegrityRankingTest, SlowLaunchAfterSyncIsLaunchStallNotSync) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 8; ++k) {
    s.BeginStep(k).OpKernels("aten::mm", "gemm", 4, kNsPerMs, 10 * kNsPerUs).Sync();
    s.BeginOp("aten::mul").Kernel("mul", kNsPerMs, KernelOptions{.launch_ns = kNsPerMs}).End();
    s.Sync().EndStep();
  }
  EXPECT_EQ(Ranking(s),
            "integrity trusted\n"
            "gpu-idle-gaps launch_stall measured 17%\n");
}

// A blocking hipMemcpyWithStream at the end of a forward-only (inference)
// step reads the result; the idle after it is charged to what the host does
// then (log_metrics), not to the copy (rules/docs/gpu-idle-gaps.md).
TEST(IntegrityRankingTest, HipBlockingCopyThenHostWorkIsTheHostWork) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 8; ++k) {
    s.BeginStep(k).OpKernels("aten::mm", "gemm", 4, kNsPerMs, 10 * kNsPerUs);
    s.BeginOp("aten::to").Sync({}, "hipMemcpyWithStream").End();
    s.HostOp("log_metrics", 2 * kNsPerMs).EndStep();
  }
  EXPECT_EQ(Ranking(s),
            "integrity trusted\n"
            "host-side-ops host_side_op measured 33%\n");
}

// ---- Trace integrity, one trace per check

TEST(IntegrityRankingTest, HealthyBaseline) { EXPECT_EQ(Ranking(Starved()),
            "integrity trusted\n"
            "gpu-idle-gaps data_loader measured 33%\n"
            "tensor-cores-idle no_tensor_cores inferred 33%\n"); }

// A handful of events is no profile of the job: nothing per step is
// claimed from it (docs/design/contract.md: exit 5), whatever it seems to show.
TEST(IntegrityRankingTest, FragmentMakesNoPerStepClaim) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginStep(1).DataLoaderNext(20 * kNsPerMs).Kernel("k", kNsPerMs).Sync().EndStep();
  EXPECT_EQ(Ranking(s),
            "integrity untrusted\n"
            "withheld gpu-idle-gaps data_loader\n");
}

TEST(IntegrityRankingTest, NoStepMarkersCapClaimsAtHalfTheWindow) {
  // A 20 ms data-loader wait before 4 ms of work: 80% of the window, capped.
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 8; ++k) {
    s.DataLoaderNext(20 * kNsPerMs);
    s.OpKernels("aten::mm", "gemm", 10, 400 * kNsPerUs, 10 * kNsPerUs).Sync();
  }
  EXPECT_EQ(Ranking(s),
            "integrity limited\n"
            "gpu-idle-gaps data_loader measured 50%\n");
}

TEST(IntegrityRankingTest, GpuOnlyCapture) {
  Scenario s = Starved(12);  // enough device events not to be a fragment
  s.Edit(IsDeviceCat);
  EXPECT_EQ(Ranking(s),
            "integrity limited\n"
            "tensor-cores-idle no_tensor_cores inferred 34%\n");
}

TEST(IntegrityRankingTest, HostOnlyCapture) {
  Scenario s = Starved();
  s.Edit([](ScenarioEvent& e) { return !IsDeviceCat(e); });
  EXPECT_EQ(Ranking(s),
            "integrity limited\n");
}

TEST(IntegrityRankingTest, FilteredFile) {
  Scenario s = Starved();
  s.Edit([](ScenarioEvent& e) { return e.cat != "cuda_runtime"; });
  EXPECT_EQ(Ranking(s),
            "integrity limited\n"
            "tensor-cores-idle no_tensor_cores inferred 33%\n");
}

TEST(IntegrityRankingTest, KernelsWithoutLaunches) {
  Scenario s = Starved();
  s.Edit([](ScenarioEvent& e) {
    if (IsDeviceCat(e)) e.correlation = 0;
    return true;
  });
  RankedTrace r = RankAll(s);
  EXPECT_EQ(r.ranking,
            "integrity limited\n"
            "tensor-cores-idle no_tensor_cores inferred 33%\n");
  // The GPU idles a third of each step and no launch says why, but the host
  // is recorded waiting for the DataLoader meanwhile: the verdict names that
  // cause labelled "inferred" and claims nothing for it (docs/design/
  // contract.md, "Unlinked device work"); no finding is made of it.
  const Verdict v = VerdictOf(r);
  EXPECT_EQ(v.bound, "input");
  EXPECT_THAT(v.line, HasSubstr("inferred: 33% of the step is idle before device work with no "
                                "linked launch"));
  EXPECT_THAT(v.line, HasSubstr("the recorded host waits for input; no saving is claimed"));
  // The same steps with their launches linked: the data loader.
  RankedTrace linked = RankAll(Starved());
  EXPECT_EQ(VerdictOf(linked).bound, "input");
}

TEST(IntegrityRankingTest, DroppedRecords) {
  Scenario s = Starved();
  // Kineto writes what the profiler lost as an event of its own.
  s.HostOp("CUPTI dropped records", kNsPerUs);
  s.Edit([](ScenarioEvent& e) {
    if (e.name == "CUPTI dropped records") e.cat = "overhead";
    return true;
  });
  EXPECT_EQ(Ranking(s),
            "integrity limited\n"
            "gpu-idle-gaps data_loader inferred 33%\n"
            "tensor-cores-idle no_tensor_cores inferred 33%\n");
}

TEST(IntegrityRankingTest, ClockSkew) {
  Scenario s = Starved();
  s.Edit([](ScenarioEvent& e) {
    if (IsDeviceCat(e)) e.ts_ns -= 3 * kNsPerMs;
    return true;
  });
  EXPECT_EQ(Ranking(s),
            "integrity untrusted\n"
            "tensor-cores-idle no_tensor_cores inferred 31%\n"
            "withheld host-side-ops sync_call\n");
}

TEST(IntegrityRankingTest, MissingDeviceWorkWithholdsTheSync) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k).OpKernels("aten::mm", "gemm", 10, 200 * kNsPerUs, 10 * kNsPerUs).Sync();
    if (k == 2) s.HostCall("cudaStreamSynchronize", 300 * kNsPerMs);
    s.EndStep();
  }
  EXPECT_EQ(Ranking(s),
            "integrity untrusted\n"
            "withheld host-side-ops sync_call\n");
}

TEST(IntegrityRankingTest, StepWithMissingDeviceWork) {
  Scenario s = Starved();
  TimeNs from_ns = 0, to_ns = 0;
  for (const ScenarioEvent& e : s.events()) {
    if (e.name == "ProfilerStep#3") {
      from_ns = e.ts_ns;
      to_ns = e.ts_ns + e.dur_ns;
    }
  }
  s.Edit([&](ScenarioEvent& e) {
    return !(IsDeviceCat(e) && e.ts_ns >= from_ns && e.ts_ns < to_ns);
  });
  EXPECT_EQ(Ranking(s),
            "integrity limited\n"
            "gpu-idle-gaps data_loader inferred 33%\n"
            "tensor-cores-idle no_tensor_cores inferred 27%\n"
            // Step 3's syncs wait on the work the file lost.
            "withheld host-side-ops sync_call\n");
}

}  // namespace
}  // namespace tracelint
