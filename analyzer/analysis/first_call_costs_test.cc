// One-time work shown by first calls (first_call_costs.cc): each detector
// fires on its first call and stays quiet on either side of its threshold.
#include <string>

#include "analyzer/analysis/step_phase.h"
#include "analyzer/analysis/steps.h"
#include "gtest/gtest.h"
#include "tests/support/metrics_test_trace.h"
#include "tests/support/scenario.h"

namespace tracelint {
namespace {

using metrics_test::TestTrace;
using testing::DeviceSpec;
using testing::KernelOptions;
using testing::Scenario;
using testing::ScenarioEvent;

constexpr TimeNs Ms(TimeNs ms) { return ms * kNsPerMs; }

StepPhaseSet PhaseOf(const Timeline& tl) { return ComputeStepPhase(tl, ComputeSteps(tl)); }

// TorchScript: three steps calling a fused op; before the first call the
// host is silent for `silent_ms` (the profiling executor and the fuser
// compiling).
Scenario TorchScriptSteps(TimeNs silent_ms) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  KernelOptions driver;
  driver.driver_launch = true;
  for (int k = 1; k <= 3; ++k) {
    s.BeginStep(k).BeginOp("aten::add").Kernel("elementwise_kernel", Ms(1)).End();
    s.Sync();
    if (k == 1) s.Idle(Ms(silent_ms));
    s.BeginOp("fallback_function").Kernel("fused_add_mul_0", Ms(2), driver).End();
    s.Sync().BeginOp("aten::relu").Kernel("elementwise_kernel", Ms(1)).End().Sync().EndStep();
  }
  return s;
}

TEST(FirstCallCosts, TorchScriptFirstCallsCompile) {
  for (TimeNs silent_ms : {9, 11, 60}) {
    absl::StatusOr<Timeline> tl = TorchScriptSteps(silent_ms).BuildTimeline();
    ASSERT_TRUE(tl.ok()) << tl.status();
    StepPhaseSet p = PhaseOf(*tl);
    const bool compiles = silent_ms >= 10;
    ASSERT_EQ(p.costs.size(), compiles ? 1u : 0u) << silent_ms;
    if (!compiles) continue;
    EXPECT_EQ(p.costs[0].kind, OneTimeKind::kCompilation);
    EXPECT_GE(p.costs[0].total_ns, Ms(silent_ms));
    EXPECT_LT(p.costs[0].total_ns, Ms(silent_ms) + Ms(1));
    // One-time: steps 2 and 3 carry none of it.
    EXPECT_EQ(p.cuts[1].size() + p.cuts[2].size(), 0u);
  }
}

// TensorFlow: the first Conv2D's host side autotunes cuDNN for hundreds of
// ms; the later ones take microseconds.
TEST(FirstCallCosts, TensorFlowFirstConvAutotunes) {
  for (TimeNs first_ms : {90, 110, 400}) {
    TestTrace t;
    t.Device(0, 80);
    t.Op("IteratorGetNext", 0, 1'000);
    t.Op("Conv2D", 2'000, first_ms * 1'000);
    t.Device(EventKind::kKernel, "Conv2D", 2'000 + first_ms * 1'000, 500);
    for (int i = 0; i < 3; ++i) {
      const TimeNs at = 10'000 + first_ms * 1'000 + i * 5'000;
      t.Op("Conv2D", at, 50);
      t.Device(EventKind::kKernel, "Conv2D", at + 60, 500);
    }
    Timeline tl = std::move(t).Build();
    StepPhaseSet p = PhaseOf(tl);
    const bool autotune = first_ms >= 100;
    ASSERT_EQ(p.costs.size(), autotune ? 1u : 0u) << first_ms;
    if (autotune) {
      EXPECT_EQ(p.costs[0].kind, OneTimeKind::kAutotuning);
      EXPECT_EQ(p.costs[0].total_ns, Ms(first_ms));
    }
  }
}

// A later Conv2D as slow as the first is no first-call cost.
TEST(FirstCallCosts, EquallySlowConvsAreNoAutotuning) {
  TestTrace t;
  t.Device(0, 80);
  for (int i = 0; i < 3; ++i) t.Op("Conv2D", i * 300'000, 200'000);
  Timeline tl = std::move(t).Build();
  EXPECT_TRUE(PhaseOf(tl).costs.empty());
}

// The first pageable copy blocks its call for tens of ms (staging buffers);
// the later ones do not.
Scenario CopySteps(TimeNs first_call_extra_ms) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 3; ++k) {
    s.BeginStep(k);
    if (k == 1) s.Idle(Ms(first_call_extra_ms));
    s.CopyH2D(1 << 20, Ms(1) / 10, MemorySpace::kPageable);
    s.BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", Ms(2)).End().Sync().EndStep();
  }
  // The first copy's call starts when the host went quiet: it blocked there.
  bool first = true;
  s.Edit([&](ScenarioEvent& e) {
    if (first && e.name == "cudaMemcpyAsync") {
      e.ts_ns -= Ms(first_call_extra_ms);
      e.dur_ns += Ms(first_call_extra_ms);
      first = false;
    }
    return true;
  });
  return s;
}

TEST(FirstCallCosts, FirstPageableCopyBlockingIsOneTime) {
  for (TimeNs extra_ms : {5, 30}) {
    absl::StatusOr<Timeline> tl = CopySteps(extra_ms).BuildTimeline();
    ASSERT_TRUE(tl.ok()) << tl.status();
    StepPhaseSet p = PhaseOf(*tl);
    const bool one_time = extra_ms >= 10;
    ASSERT_EQ(p.costs.size(), one_time ? 1u : 0u) << extra_ms;
    if (!one_time) continue;
    EXPECT_EQ(p.costs[0].kind, OneTimeKind::kContextCreation);
    EXPECT_EQ(p.costs[0].events[0].name, "cudaMemcpyAsync");
    EXPECT_GE(p.costs[0].total_ns, Ms(extra_ms));
  }
}

}  // namespace
}  // namespace tracelint
