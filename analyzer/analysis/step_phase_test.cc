#include "analyzer/analysis/step_phase.h"

#include "tests/support/metrics_test_trace.h"
#include "analyzer/analysis/steps.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using metrics_test::DeviceOpts;
using metrics_test::TestTrace;

constexpr TimeNs Us(TimeNs us) { return us * kNsPerUs; }

std::vector<StepPhase> PhasesOf(Timeline& tl, StepPhaseSet* out = nullptr) {
  StepPhaseSet p = ComputeStepPhase(tl, ComputeSteps(tl));
  if (out != nullptr) *out = p;
  return p.phases;
}

// Three steps of one kernel each; step 1 optionally carries extra work.
TestTrace ThreeSteps() {
  TestTrace t;
  t.Device(0, 108);
  for (int k = 0; k < 3; ++k) {
    TimeNs base = 1'000'000 * k;  // 1 s apart (us)
    t.Step(k + 1, base, 900'000).Kernel("k", base + 10, base + 20, 100);
  }
  return t;
}

// docs/steady-state.md, "One-time work inside a step": one-time work is cut
// out as time; the step stays steady while at least half of it is left.
// Step 1 lasts 900 ms; a cudaFree of `cut_ms` with the device idle.
TEST(StepPhase, OneTimeWorkIsCutOutAsTimeWhileHalfTheStepIsLeft) {
  for (TimeNs cut_ms : {300, 449, 451, 600}) {
    TestTrace t = ThreeSteps();
    t.Host("cudaFree", EventKind::kRuntime, 1'000, cut_ms * 1'000);
    Timeline tl = std::move(t).Build();
    StepPhaseSet p;
    const bool steady = cut_ms < 450;  // the remainder is at least half of 900 ms
    EXPECT_EQ(PhasesOf(tl, &p)[0], steady ? StepPhase::kSteady : StepPhase::kWarmup) << cut_ms;
    ASSERT_EQ(p.costs.size(), 1u);
    EXPECT_EQ(p.costs[0].kind, OneTimeKind::kContextCreation);
    EXPECT_EQ(p.costs[0].total_ns, Us(cut_ms * 1'000));
    EXPECT_EQ(p.costs[0].events[0].name, "cudaFree");
    EXPECT_EQ(p.steady_count, steady ? 3 : 2);
    EXPECT_FALSE(p.NoSteadyStep());
    EXPECT_FALSE(p.AllSteady());

    StepSet all = ComputeSteps(tl);
    StepSet judged = SteadySteps(all, p);
    if (steady) {
      ASSERT_EQ(judged.steps.size(), 3u);
      // The steady view removes the cut from the step; the all view keeps wall time.
      EXPECT_EQ(judged.steps[0].cut_ns(), Us(cut_ms * 1'000));
      EXPECT_EQ(judged.steps[0].duration_ns(), all.steps[0].duration_ns() - Us(cut_ms * 1'000));
      EXPECT_EQ(all.steps[0].cut_ns(), 0);
      EXPECT_FALSE(judged.steps[0].Covers(Us(2'000)));  // inside the cut
      EXPECT_TRUE(judged.steps[0].Covers(Us(cut_ms * 1'000 + 2'000)));
      EXPECT_NE(judged.notes.front().find("one-time work cut out of 1 steady step"),
                std::string::npos);
    } else {
      ASSERT_EQ(judged.steps.size(), 2u);
      EXPECT_EQ(judged.steps[0].number, 2);
      EXPECT_NE(judged.notes.back().find("ProfilerStep#1 (warm-up)"), std::string::npos);
    }
  }
}

// A stall found by its length that recurs in most steps is a per-step cost:
// not one-time, and no step is cut or left out for it.
TEST(StepPhase, AStallRecurringInMostStepsIsNotOneTime) {
  for (int steps_with_stall : {1, 2, 3}) {
    TestTrace t = ThreeSteps();
    for (int k = 0; k < steps_with_stall; ++k) {
      t.Host("hipFree", EventKind::kRuntime, 1'000'000 * k + 100'000, 150'000);
    }
    Timeline tl = std::move(t).Build();
    StepPhaseSet p;
    PhasesOf(tl, &p);
    const bool recurring = steps_with_stall >= 2;  // more than half of 3
    EXPECT_EQ(p.costs.empty(), recurring) << steps_with_stall;
    EXPECT_EQ(p.CutNs(), recurring ? 0 : Us(150'000));
    EXPECT_EQ(p.recurring_notes.size(), recurring ? 1u : 0u);
    if (recurring) {
      EXPECT_NE(p.recurring_notes[0].find("hipFree stalls in"), std::string::npos);
    }
  }
}

TEST(StepPhase, ShortRuntimeCallsAndBusyDeviceStallsAreSteady) {
  TestTrace t = ThreeSteps();
  t.Host("cudaFree", EventKind::kRuntime, 1'000, 50'000);  // below 100 ms
  // A 20 ms launch while the device is busy: a full queue, not module loading.
  t.Kernel("long", 2'000'000, 2'000'000, 100'000);
  DeviceOpts slow;
  slow.launch_dur_us = 20'000;
  t.Kernel("queued", 2'010'000, 2'100'000, 10, slow);
  Timeline tl = std::move(t).Build();
  StepPhaseSet p;
  EXPECT_EQ(PhasesOf(tl, &p),
            (std::vector<StepPhase>{StepPhase::kSteady, StepPhase::kSteady, StepPhase::kSteady}));
  EXPECT_TRUE(p.costs.empty());
}

// The first launch of a kernel name loads its module lazily: 1 ms counts
// there, while the same stall for a kernel already run is not a load, and
// 0.9 ms is below the threshold.
TEST(StepPhase, FirstLaunchOfAKernelNameCountsFromOneMillisecond) {
  for (TimeNs launch_us : {900, 1'000}) {
    for (bool seen_before : {false, true}) {
      TestTrace t = ThreeSteps();
      DeviceOpts slow;
      slow.launch_dur_us = launch_us;
      std::string name = seen_before ? "k" : "lazy";
      t.Kernel(name, 1'000'200, 1'000'200 + launch_us + 10, 10, slow);
      Timeline tl = std::move(t).Build();
      StepPhaseSet p;
      bool load = launch_us >= 1'000 && !seen_before;
      // A load is one-time work, cut out of the (still steady) step.
      EXPECT_EQ(PhasesOf(tl, &p)[1], StepPhase::kSteady);
      EXPECT_EQ(p.costs.size(), load ? 1u : 0u) << launch_us << " us, seen before " << seen_before;
      EXPECT_EQ(p.CutNs(), load ? Us(launch_us) : 0);
    }
  }
}

TEST(StepPhase, SlowFirstLaunchWithIdleDeviceIsModuleLoading) {
  TestTrace t = ThreeSteps();
  DeviceOpts slow;
  slow.launch_dur_us = 40'000;
  t.Kernel("first", 1'000'100, 1'040'200, 10, slow);
  t.Kernel("k3b", 2'000'300, 2'000'400, 10);  // step 3 stays complete
  Timeline tl = std::move(t).Build();
  StepPhaseSet p;
  EXPECT_EQ(PhasesOf(tl, &p),
            (std::vector<StepPhase>{StepPhase::kSteady, StepPhase::kSteady, StepPhase::kSteady}));
  ASSERT_EQ(p.costs.size(), 1u);
  EXPECT_EQ(p.costs[0].kind, OneTimeKind::kModuleLoading);
  EXPECT_EQ(p.costs[0].total_ns, Us(40'000));
  ASSERT_EQ(p.cuts[1].size(), 1u);
  EXPECT_EQ(p.cuts[1][0].length_ns(), Us(40'000));
}

// A window without markers: 300 ms of context creation, then `work_ms` of
// 20 kernels. Judged from the end of the start-up when the rest is at least
// half the window; otherwise the window stays warm-up.
TEST(StepPhase, WindowIsJudgedAfterItsStartUp) {
  for (TimeNs work_ms : {250, 350}) {
    TestTrace t;
    t.Device(0, 108);
    t.Host("cudaFree", EventKind::kRuntime, 0, 300'000);
    TimeNs step_us = work_ms * 1'000 / 20;
    for (int k = 0; k < 20; ++k) {
      TimeNs base = 300'000 + k * step_us;
      t.Op("aten::mm", base, 20).Kernel("k", base + 1, base + 10, step_us - 20);
    }
    Timeline tl = std::move(t).Build();
    StepSet all = ComputeSteps(tl);
    StepPhaseSet p = ComputeStepPhase(tl, all);
    StepSet steady = SteadySteps(all, p);
    // Over half of the window left once the start-up is cut out as time:
    // steady, judged on the rest (docs/steady-state.md, "One-time work
    // inside a step"); under half: warm-up.
    bool cut = work_ms > 300;
    EXPECT_EQ(p.phases[0], cut ? StepPhase::kSteady : StepPhase::kWarmup) << work_ms;
    EXPECT_EQ(p.AllSteady(), false);
    ASSERT_EQ(steady.steps.size(), cut ? 1u : 0u);
    ASSERT_EQ(p.costs.size(), 1u);  // reported once either way
    if (cut) {
      EXPECT_EQ(steady.steps[0].duration_ns(), all.steps[0].end_ns - Us(300'000));
      EXPECT_EQ(steady.steps[0].end_ns, all.steps[0].end_ns);
    }
  }
}

TEST(StepPhase, CudnnAutotuningIsWarmup) {
  TestTrace t = ThreeSteps();
  t.Op("aten::cudnn_convolution", 100, 5'000);
  t.Host("cudaEventSynchronize", EventKind::kRuntime, 200, 100);
  t.Host("cudaEventElapsedTime", EventKind::kRuntime, 400, 10);
  // The same pair outside any cuDNN op is not autotuning.
  t.Host("cudaEventSynchronize", EventKind::kRuntime, 2'000'100, 100);
  t.Host("cudaEventElapsedTime", EventKind::kRuntime, 2'000'300, 10);
  Timeline tl = std::move(t).Build();
  StepPhaseSet p;
  EXPECT_EQ(PhasesOf(tl, &p),
            (std::vector<StepPhase>{StepPhase::kSteady, StepPhase::kSteady, StepPhase::kSteady}));
  ASSERT_EQ(p.costs.size(), 1u);
  EXPECT_EQ(p.costs[0].kind, OneTimeKind::kAutotuning);
  EXPECT_EQ(p.costs[0].total_ns, Us(5'000));
  EXPECT_EQ(p.CutNs(), Us(5'000));
}

TEST(StepPhase, GraphCaptureAndCompileNameTheirSteps) {
  TestTrace t = ThreeSteps();
  t.Host("cudaStreamBeginCapture", EventKind::kRuntime, 1'000'100, 5);
  t.Host("cudaStreamEndCapture", EventKind::kRuntime, 1'050'000, 5);
  t.Host("cudaGraphInstantiateWithFlags", EventKind::kRuntime, 1'050'010, 800);
  t.Host("compile_fx_inner (dynamo_timed)", EventKind::kUserAnnotation, 2'000'100, 600'000);
  // The allocator's per-allocation capture query is no capture.
  t.Host("cudaStreamGetCaptureInfo", EventKind::kRuntime, 50, 1);
  Timeline tl = std::move(t).Build();
  StepPhaseSet p;
  // The 50 ms capture leaves step 2 steady (cut out); 600 ms of compilation
  // leave step 3 less than half: a compile step.
  EXPECT_EQ(PhasesOf(tl, &p),
            (std::vector<StepPhase>{StepPhase::kSteady, StepPhase::kSteady, StepPhase::kCompile}));
  ASSERT_EQ(p.costs.size(), 2u);
  EXPECT_EQ(p.costs[0].kind, OneTimeKind::kCompilation);
  EXPECT_EQ(p.costs[0].total_ns, Us(600'000));
  EXPECT_EQ(p.costs[1].kind, OneTimeKind::kGraphCapture);
  EXPECT_EQ(p.costs[1].total_ns, Us(49'905 + 800));
}

TEST(StepPhase, OverlappingKindsAreChargedOnce) {
  TestTrace t = ThreeSteps();
  t.Host("capture_32_FULL", EventKind::kUserAnnotation, 100, 500'000);
  DeviceOpts slow;
  slow.launch_dur_us = 20'000;
  t.Kernel("first", 1'000, 30'000, 10, slow);  // module loading inside the capture
  Timeline tl = std::move(t).Build();
  StepPhaseSet p;
  EXPECT_EQ(PhasesOf(tl, &p)[0], StepPhase::kCapture);
  // The module loading inside the capture is charged to the capture only.
  ASSERT_EQ(p.costs.size(), 1u);
  EXPECT_EQ(p.costs[0].kind, OneTimeKind::kGraphCapture);
  EXPECT_EQ(p.costs[0].total_ns, Us(500'000));
}

TEST(StepPhase, AWindowOfWarmupOnlyHasNoSteadyStep) {
  TestTrace t;
  t.Device(0, 108);
  t.Host("cudaDeviceGetStreamPriorityRange", EventKind::kRuntime, 0, 2'000'000);
  t.Kernel("k", 2'000'100, 2'000'200, 50);
  Timeline tl = std::move(t).Build();
  StepPhaseSet p;
  EXPECT_EQ(PhasesOf(tl, &p), std::vector<StepPhase>{StepPhase::kWarmup});
  EXPECT_TRUE(p.NoSteadyStep());
  EXPECT_TRUE(SteadySteps(ComputeSteps(tl), p).steps.empty());
}

}  // namespace
}  // namespace tracelint
