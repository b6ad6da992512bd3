// The whole ranking for one generated trace per profiling-window edge of
// issue 9 point 2 (docs/steady-state.md, "Window edges") and for its
// contrast: the same job without the edge, where the time in question is
// the job's own and must be reported. An edge that leaks into a per-step
// finding, or a contrast whose finding vanishes, fails.

#include <string>
#include <string_view>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/report/report_data.h"
#include "tests/support/scenario.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/ranking.h"

namespace tracelint {
namespace {

using testing::DeviceSpec;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::RankAll;
using testing::RankedTrace;
using testing::Ranking;
using testing::Scenario;
using testing::ScenarioEvent;

// Tensor Core GEMMs: the steady steps' own kernels give tensor-cores-idle
// nothing to say, so whatever it says comes from the edge.
constexpr std::string_view kTensorCoreGemm = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn";
// An FP32 GEMM: tensor-cores-idle's finding when it is the job's own work.
constexpr std::string_view kFp32Gemm = "ampere_sgemm_128x64_nn";

constexpr TimeNs kLoaderNs = 2 * kNsPerMs;

// The verdict line's bound, as every reporter prints it.
std::string Bound(RankedTrace& r) {
  ReportInput input;
  input.ranks = {r.timeline.get()};
  input.contexts = {r.context.get()};
  AttachRecords(input);
  input.findings = r.result.findings;
  input.not_judged = r.result.not_judged;
  return input.summary().verdict.bound;
}

// The steps every rule and saving uses, with the edges they were cut from.
const StepSet& Steps(RankedTrace& r) { return r.context->steps(); }

std::string Notes(const StepSet& steps) {
  std::string out;
  for (const std::string& n : steps.notes) out += n + "\n";
  return out;
}

// One training step: a 2 ms data-loader fetch with the GPU idle, ten Tensor
// Core GEMMs of 400 us, a sync, then `quiet_end_ns` with host and GPU silent.
void LoaderStepBody(Scenario& s, TimeNs quiet_end_ns = 0) {
  s.DataLoaderNext(kLoaderNs);
  s.OpKernels("aten::mm", kTensorCoreGemm, 10, 400 * kNsPerUs, 10 * kNsPerUs).Sync();
  s.Idle(quiet_end_ns);
}

// ---- Device work launched before the trace began

constexpr TimeNs kEarlyGemmNs = 6 * kNsPerMs;
constexpr TimeNs kEarlyLaunchAheadNs = 100 * kNsPerUs;

// An FP32 GEMM runs when ProfilerStep#1 starts, then five loader-starved
// steps. kInherited: launched 100 us before the marker, and the launch and
// its link are gone, as when the profiler started after the call.
// kInFirstStep: the first thing ProfilerStep#1 launches, so it is the job's
// own work.
enum class EarlyGemm { kInherited, kInFirstStep };
Scenario EarlyWork(EarlyGemm early) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  if (early == EarlyGemm::kInherited) s.Kernel(kFp32Gemm, kEarlyGemmNs).Idle(kEarlyLaunchAheadNs);
  for (int k = 1; k <= 5; ++k) {
    s.BeginStep(k);
    if (k == 1 && early == EarlyGemm::kInFirstStep) s.Kernel(kFp32Gemm, kEarlyGemmNs);
    LoaderStepBody(s);
    s.EndStep();
  }
  if (early == EarlyGemm::kInFirstStep) return s;
  int64_t correlation = 0;
  for (const ScenarioEvent& e : s.events()) {
    if (e.name == kFp32Gemm) correlation = e.correlation;
  }
  s.Edit([&](ScenarioEvent& e) {
    if (e.correlation != correlation) return true;
    if (e.cat == "cuda_runtime") return false;
    e.correlation = 0;
    return true;
  });
  return s;
}

TimeNs FirstMarkerNs(const Scenario& s) {
  for (const ScenarioEvent& e : s.events()) {
    if (e.name == "ProfilerStep#1") return e.ts_ns;
  }
  return -1;
}

// The inherited GEMM covers step 1's data-loader fetch, and step 1's own
// GEMMs queue behind it: cut from the step, step 1 is its own 4 ms of
// back-to-back work, and only steps 2-5 starve (8 of 28 ms). Counted, it
// would be an FP32 GEMM in the step and dilute the loader's share, as in the
// contrast below.
TEST(WindowEdgesRankingTest, InheritedDeviceWorkIsCutFromTheFirstStep) {
  Scenario s = EarlyWork(EarlyGemm::kInherited);
  RankedTrace r = RankAll(s);
  EXPECT_EQ(r.ranking,
            "integrity trusted\n"
            "gpu-idle-gaps data_loader measured 29%\n");
  EXPECT_EQ(Bound(r), "input");
  const StepSet& steps = Steps(r);
  ASSERT_EQ(steps.steps.size(), 5u);
  EXPECT_EQ(steps.inherited_device_ns, kEarlyGemmNs - kEarlyLaunchAheadNs);
  EXPECT_EQ(steps.steps[0].start_ns, FirstMarkerNs(s) + steps.inherited_device_ns);
  EXPECT_EQ(steps.stop_tail_ns, 0);
  EXPECT_EQ(steps.lead_in_ns, 0);
  EXPECT_THAT(Notes(steps), HasSubstr("the first step (ProfilerStep#1) starts 5.900 ms after its "
                                      "marker, where device work launched before the trace "
                                      "began ends"));
}

// The same GEMM launched inside the first step is the job's: it stays in
// the step (covering that step's fetch), so step 1 runs 4 ms longer than the
// others and is an outlier step (docs/steady-state.md, "Outlier steps"): it
// leaves every per-step saving, and the judged steps 2-5 starve as in the
// inherited case. Nothing is cut from the marker.
TEST(WindowEdgesRankingTest, EarlyWorkLaunchedInTheFirstStepIsItsOwn) {
  Scenario s = EarlyWork(EarlyGemm::kInFirstStep);
  RankedTrace r = RankAll(s);
  EXPECT_EQ(r.ranking,
            "integrity trusted\n"
            "gpu-idle-gaps data_loader measured 33%\n");
  EXPECT_EQ(Bound(r), "input");
  const StepSet& steady = r.context->steady_steps();
  ASSERT_EQ(steady.steps.size(), 5u);
  ASSERT_EQ(r.context->outlier_steps().indices, std::vector<size_t>{0});
  EXPECT_EQ(Steps(r).steps.size(), 4u);
  EXPECT_EQ(steady.inherited_device_ns, 0);
  EXPECT_EQ(steady.steps[0].start_ns, FirstMarkerNs(s));
  EXPECT_GT(steady.steps[0].duration_ns(), steady.steps[1].duration_ns() + 3 * kNsPerMs);
  EXPECT_EQ(steady.stop_tail_ns, 0);
  EXPECT_EQ(steady.lead_in_ns, 0);
  EXPECT_THAT(Notes(steady), Not(HasSubstr("after its marker")));
}

// ---- The last step's profiler-stop tail

// Five loader-starved steps, each ending `quiet_end_ns` after its sync with
// host and GPU silent; the last one `last_quiet_end_ns`.
Scenario QuietEnds(TimeNs last_quiet_end_ns, TimeNs quiet_end_ns = 0) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 5; ++k) {
    LoaderStepBody(s.BeginStep(k), k == 5 ? last_quiet_end_ns : quiet_end_ns);
    s.EndStep();
  }
  return s;
}

// ProfilerStep#5 runs on 100 ms after its 6 ms of work: the profiler
// stopping. Kept, the sync that drained the queue and the silent host would
// own most of that step; cut, the ranking is the one of the trace without
// the tail.
TEST(WindowEdgesRankingTest, ProfilerStopTailIsAnEdgeNotALoss) {
  constexpr TimeNs kTailNs = 100 * kNsPerMs;
  RankedTrace r = RankAll(QuietEnds(kTailNs));
  EXPECT_EQ(r.ranking,
            "integrity trusted\n"
            "gpu-idle-gaps data_loader measured 33%\n");
  EXPECT_EQ(r.ranking, Ranking(QuietEnds(0)));
  EXPECT_EQ(Bound(r), "input");
  const StepSet& steps = Steps(r);
  ASSERT_EQ(steps.steps.size(), 5u);
  EXPECT_EQ(steps.stop_tail_ns, kTailNs);
  EXPECT_EQ(steps.steps[4].end_ns, steps.steps[4].host_end_ns);
  EXPECT_EQ(steps.inherited_device_ns, 0);
  EXPECT_EQ(steps.lead_in_ns, 0);
  EXPECT_THAT(Notes(steps), HasSubstr("the last step (ProfilerStep#5) ends where its work ends: "
                                      "its marker runs on 100.000 ms with the host and device "
                                      "silent (the profiler stopping), an edge of the window, "
                                      "not a loss"));
}

// Every step, the last included, idles 3 ms after its sync: that is how the
// job runs, a per-step loss. The steps run forward only (an inference job),
// so the sync at a step's end reads its result and drained nothing the host
// could have queued: the idle after it belongs to what the host does then
// (rules/docs/gpu-idle-gaps.md), here nothing recorded, so the silent host
// owns the quiet (3 of 9 ms); the fetch owns its 2 ms.
TEST(WindowEdgesRankingTest, QuietEndLikeTheOtherStepsIsALoss) {
  constexpr TimeNs kQuietNs = 3 * kNsPerMs;
  RankedTrace r = RankAll(QuietEnds(kQuietNs, kQuietNs));
  EXPECT_EQ(r.ranking,
            "integrity trusted\n"
            "gpu-idle-gaps host_silent measured 33%\n"
            "gpu-idle-gaps data_loader measured 22%\n");
  EXPECT_EQ(Bound(r), "host");
  const StepSet& steps = Steps(r);
  ASSERT_EQ(steps.steps.size(), 5u);
  EXPECT_EQ(steps.stop_tail_ns, 0);
  EXPECT_EQ(steps.steps[4].duration_ns(), steps.steps[3].duration_ns());
  EXPECT_EQ(steps.inherited_device_ns, 0);
  EXPECT_EQ(steps.lead_in_ns, 0);
  EXPECT_THAT(Notes(steps), Not(HasSubstr("profiler stopping")));
}

// ---- A window without markers whose GPU work was queued early

constexpr TimeNs kSetupNs = 3 * kNsPerMs;
constexpr TimeNs kFirstLaunchNs = 15 * kNsPerUs;  // op self time + cudaLaunchKernel
constexpr TimeNs kQueueLatencyNs = 50 * kNsPerUs;

// No step markers: 3 ms of host setup, then forty 1 ms Tensor Core GEMMs,
// each after `host_between_ns` of host work, and a sync. The device starts
// 50 us after each launch returns (a cold queue's latency), so with no host
// work between them several are queued before the first one runs.
Scenario QueuedWindow(TimeNs host_between_ns) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.HostOp("aten::randn", kSetupNs);
  for (int i = 0; i < 40; ++i) {
    if (host_between_ns > 0) s.HostOp("aten::cat", host_between_ns);
    s.OpKernels("aten::mm", kTensorCoreGemm, 1, kNsPerMs, 10 * kNsPerUs);
  }
  s.Sync();
  s.Edit([](ScenarioEvent& e) {
    if (e.cat == "kernel") e.ts_ns += kQueueLatencyNs;
    if (e.name == "cudaStreamSynchronize") e.dur_ns += kQueueLatencyNs;
    return true;
  });
  return s;
}

// The GPU runs its queue back to back: GPU-bound. The setup before the
// queue filled is the window's lead-in, cut, not host_side_op idle.
TEST(WindowEdgesRankingTest, QueuedEarlyWindowIsGpuBound) {
  RankedTrace r = RankAll(QueuedWindow(0));
  EXPECT_EQ(r.ranking, "integrity limited\n");
  EXPECT_EQ(Bound(r), "gpu compute");
  const StepSet& steps = Steps(r);
  ASSERT_EQ(steps.steps.size(), 1u);
  EXPECT_EQ(steps.lead_in_ns, kSetupNs + kFirstLaunchNs + kQueueLatencyNs);
  EXPECT_EQ(steps.inherited_device_ns, 0);
  EXPECT_EQ(steps.stop_tail_ns, 0);
  EXPECT_THAT(Notes(steps), HasSubstr("GPU-bound window: its work was queued early and ran back "
                                      "to back; the 3.065 ms lead-in before the device started "
                                      "is cut from the window, not counted as host idle"));
}

// 2 ms of host work before each 1 ms GEMM: the host starves the GPU, so the
// window keeps its start and the setup is host_side_op idle like the gaps.
TEST(WindowEdgesRankingTest, HostGapsBetweenKernelsKeepTheLeadIn) {
  RankedTrace r = RankAll(QueuedWindow(2 * kNsPerMs));
  // Two thirds of the window; a window without markers claims at most half.
  EXPECT_EQ(r.ranking,
            "integrity limited\n"
            "host-side-ops host_side_op measured 50%\n");
  EXPECT_EQ(Bound(r), "host");
  const StepSet& steps = Steps(r);
  ASSERT_EQ(steps.steps.size(), 1u);
  EXPECT_EQ(steps.lead_in_ns, 0);
  EXPECT_EQ(steps.inherited_device_ns, 0);
  EXPECT_EQ(steps.stop_tail_ns, 0);
  EXPECT_THAT(Notes(steps), Not(HasSubstr("lead-in")));
}

}  // namespace
}  // namespace tracelint
