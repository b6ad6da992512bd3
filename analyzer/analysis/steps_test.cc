#include "analyzer/analysis/steps.h"

#include <string>

#include "tests/support/metrics_test_trace.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using metrics_test::DeviceOpts;
using metrics_test::TestTrace;

constexpr TimeNs Us(TimeNs us) { return us * kNsPerUs; }

TEST(Steps, ExtendToDeviceWorkAndNeverOverlap) {
  TestTrace t;
  t.Device(0, 108)
      .Step(1, 0, 100)
      .Kernel("k1", 10, 50, 130)  // ends at 180, after the host step
      .Step(2, 100, 100)
      .Kernel("k2", 110, 180, 10)
      .Step(3, 200, 100)
      .Kernel("k3", 210, 210, 80);
  Timeline tl = std::move(t).Build();
  StepSet s = ComputeSteps(tl);
  ASSERT_TRUE(s.from_markers);
  ASSERT_EQ(s.steps.size(), 3u);
  EXPECT_EQ(s.steps[0].number, 1);
  EXPECT_EQ(s.steps[0].start_ns, Us(0));
  EXPECT_EQ(s.steps[0].end_ns, Us(180));
  EXPECT_EQ(s.steps[0].host_end_ns, Us(100));
  // Starts where step 1's device work ended, not at its own marker.
  EXPECT_EQ(s.steps[1].start_ns, Us(180));
  EXPECT_EQ(s.steps[1].end_ns, Us(200));
  EXPECT_EQ(s.steps[2].start_ns, Us(200));
  EXPECT_EQ(s.steps[2].end_ns, Us(300));
  EXPECT_EQ(s.steps[2].device_activities, 1);
  EXPECT_EQ(s.TotalNs(), Us(300));
  EXPECT_EQ(s.dropped_incomplete, 0);
  // Step 1 ends 80 us past its 100 us marker: the note says so, once.
  std::string notes;
  for (const std::string& n : s.notes) notes += n + "\n";
  EXPECT_NE(notes.find("1 of 3 steps end after their ProfilerStep marker"), std::string::npos)
      << notes;
  EXPECT_NE(notes.find("80.0 us past ProfilerStep#1"), std::string::npos) << notes;
}

TEST(Steps, NoOverrunNoteWhenDeviceWorkEndsWithinTheMarker) {
  TestTrace t;
  t.Device(0, 108)
      .Step(1, 0, 100)
      .Kernel("k1", 10, 50, 55)  // ends at 105: 5 us past, under a tenth of the marker
      .Step(2, 110, 100)
      .Kernel("k2", 120, 150, 10);
  Timeline tl = std::move(t).Build();
  StepSet s = ComputeSteps(tl);
  ASSERT_EQ(s.steps.size(), 2u);
  for (const std::string& n : s.notes) EXPECT_EQ(n.find("end after their"), std::string::npos) << n;
}

TEST(Steps, LaunchOnAnotherThreadCounts) {
  TestTrace t;
  t.Device(0, 108).Step(1, 0, 100);
  DeviceOpts other_thread;
  other_thread.tid = 2;
  t.Kernel("k1", 50, 60, 200, other_thread);
  Timeline tl = std::move(t).Build();
  StepSet s = ComputeSteps(tl);
  ASSERT_EQ(s.steps.size(), 1u);
  EXPECT_EQ(s.steps[0].end_ns, Us(260));
  EXPECT_EQ(s.steps[0].device_activities, 1);
}

TEST(Steps, WorkLaunchedOutsideTheStepDoesNotExtendIt) {
  TestTrace t;
  t.Device(0, 108).Step(1, 0, 100).Kernel("k1", 10, 10, 20).Kernel("late", 150, 150, 500);
  Timeline tl = std::move(t).Build();
  StepSet s = ComputeSteps(tl);
  ASSERT_EQ(s.steps.size(), 1u);
  EXPECT_EQ(s.steps[0].end_ns, Us(100));
}

// The trailing step is kept at exactly 80% of the previous step's device
// activities and dropped below.
TEST(Steps, TrailingIncompleteStepThreshold) {
  for (int last_count : {4, 3}) {
    TestTrace t;
    t.Device(0, 108).Step(1, 0, 100);
    for (int i = 0; i < 5; ++i) t.Kernel("k", 10 + i, 20 + 10 * i, 5);
    t.Step(2, 100, 100);
    for (int i = 0; i < last_count; ++i) t.Kernel("k", 110 + i, 120 + 10 * i, 5);
    Timeline tl = std::move(t).Build();
    StepSet s = ComputeSteps(tl);
    if (last_count == 4) {
      EXPECT_EQ(s.steps.size(), 2u);
      EXPECT_EQ(s.dropped_incomplete, 0);
      EXPECT_TRUE(s.notes.empty());
    } else {
      ASSERT_EQ(s.steps.size(), 1u);
      EXPECT_EQ(s.steps[0].number, 1);
      EXPECT_EQ(s.dropped_incomplete, 1);
      ASSERT_EQ(s.notes.size(), 1u);
      EXPECT_NE(s.notes[0].find("ProfilerStep#2"), std::string::npos);
    }
  }
}

TEST(Steps, NoMarkersGiveOneWindowIgnoringTheProfilerSpan) {
  TestTrace t;
  t.Device(0, 108)
      .ProfilerSpan(0, 10000)
      .Op("aten::mm", 100, 50)
      .Kernel("k1", 110, 200, 300);
  Timeline tl = std::move(t).Build();
  StepSet s = ComputeSteps(tl);
  EXPECT_FALSE(s.from_markers);
  ASSERT_EQ(s.steps.size(), 1u);
  EXPECT_EQ(s.steps[0].number, 0);
  EXPECT_EQ(s.steps[0].start_ns, Us(100));
  EXPECT_EQ(s.steps[0].end_ns, Us(500));
  EXPECT_EQ(s.steps[0].device_activities, 1);
  ASSERT_FALSE(s.notes.empty());
  EXPECT_NE(s.notes[0].find("no ProfilerStep#N markers"), std::string::npos);
}

TEST(Steps, EmptyTimeline) {
  Timeline tl = TestTrace().Build();
  StepSet s = ComputeSteps(tl);
  EXPECT_TRUE(s.steps.empty());
  EXPECT_FALSE(s.from_markers);
  EXPECT_EQ(s.notes.size(), 2u);
}

TEST(Steps, MarkerOnTwoThreadsIsOneStep) {
  TestTrace t;
  t.Device(0, 108).Step(7, 0, 100).Step(7, 10, 120, 2).Kernel("k", 5, 5, 10);
  Timeline tl = std::move(t).Build();
  StepSet s = ComputeSteps(tl);
  ASSERT_EQ(s.steps.size(), 1u);
  EXPECT_EQ(s.steps[0].number, 7);
  EXPECT_EQ(s.steps[0].end_ns, Us(130));
}

TEST(Steps, FirstStepStartsWhereInheritedDeviceWorkEnds) {
  TestTrace t;
  t.Device(0, 108).Step(1, 100, 1000).Step(2, 1100, 1000);
  // Queued before the trace began (no launch in the file), still running
  // when ProfilerStep#1 starts.
  t.Device(EventKind::kKernel, "inherited", 0, 400);
  t.Kernel("k1", 150, 400, 300).Kernel("k2", 1150, 1200, 300);
  Timeline tl = std::move(t).Build();
  StepSet s = ComputeSteps(tl);
  ASSERT_EQ(s.steps.size(), 2u);
  EXPECT_EQ(s.steps[0].start_ns, Us(400));
  EXPECT_EQ(s.inherited_device_ns, Us(300));
  EXPECT_EQ(s.steps[1].start_ns, Us(1100));
  EXPECT_NE(s.notes[0].find("starts 300.0 us after its marker"), std::string::npos) << s.notes[0];
}

// Inherited work that starts after the marker, on another stream (a
// collective queued before the trace began): the first step still starts
// where it ends, as long as that is before the step's own first activity.
TEST(Steps, InheritedWorkOnAnotherStreamAfterTheMarkerIsInherited) {
  for (TimeNs inherited_start_us : {50, 150}) {
    TestTrace t;
    t.Device(0, 108).Step(1, 100, 1000).Step(2, 1100, 1000);
    DeviceOpts comm;
    comm.stream = 23;
    t.Device(EventKind::kKernel, "ncclDevKernel_AllReduce_Sum_f32", inherited_start_us, 200, comm);
    t.Kernel("k1", 150, 600, 300).Kernel("k2", 1150, 1200, 300);
    Timeline tl = std::move(t).Build();
    StepSet s = ComputeSteps(tl);
    ASSERT_EQ(s.steps.size(), 2u);
    const TimeNs end_us = inherited_start_us + 200;
    EXPECT_EQ(s.steps[0].start_ns, Us(end_us)) << inherited_start_us;
    EXPECT_EQ(s.inherited_device_ns, Us(end_us - 100));
  }
}

// Unlinked work that starts after the step's own first activity is the
// step's (a graph replay, a lost correlation), not inherited.
TEST(Steps, UnlinkedWorkAfterTheFirstOwnActivityIsNotInherited) {
  TestTrace t;
  t.Device(0, 108).Step(1, 100, 1000).Step(2, 1100, 1000);
  t.Kernel("k1", 110, 120, 100).Kernel("k2", 1150, 1200, 300);
  DeviceOpts other;
  other.stream = 23;
  t.Device(EventKind::kKernel, "late", 300, 200, other);
  Timeline tl = std::move(t).Build();
  StepSet s = ComputeSteps(tl);
  ASSERT_EQ(s.steps.size(), 2u);
  EXPECT_EQ(s.steps[0].start_ns, Us(100));
  EXPECT_EQ(s.inherited_device_ns, 0);
}

TEST(Steps, NoInheritedWorkWhenTheTraceLinksNoLaunches) {
  TestTrace t;
  t.Device(0, 108).Step(1, 100, 1000);
  // A trace without flows: no activity has a launch, so none is "inherited".
  t.Device(EventKind::kKernel, "a", 0, 400).Device(EventKind::kKernel, "b", 500, 100);
  Timeline tl = std::move(t).Build();
  StepSet s = ComputeSteps(tl);
  ASSERT_EQ(s.steps.size(), 1u);
  EXPECT_EQ(s.steps[0].start_ns, Us(100));
  EXPECT_EQ(s.inherited_device_ns, 0);
}

TEST(Steps, ProfilerStopTailIsCutFromTheLastStep) {
  TestTrace t;
  t.Device(0, 108).Step(1, 0, 1000).Kernel("k1", 10, 20, 500);
  // The last marker runs on 100 ms after 1 ms of work: the profiler stopping.
  t.Step(2, 1000, 100'000).Op("aten::mm", 1010, 900).Kernel("k2", 1020, 1030, 900);
  Timeline tl = std::move(t).Build();
  StepSet s = ComputeSteps(tl);
  ASSERT_EQ(s.steps.size(), 2u);
  EXPECT_EQ(s.steps[1].end_ns, Us(1930));
  EXPECT_EQ(s.stop_tail_ns, Us(101'000 - 1930));
  EXPECT_EQ(s.steps[0].end_ns, Us(1000)) << "only the last step has a stop tail";
}

TEST(Steps, QuietEndOfALastStepLikeTheOthersIsKept) {
  TestTrace t;
  t.Device(0, 108).Step(1, 0, 1000).Kernel("k1", 10, 20, 50);
  // Quiet for 930 us of 1000 (a slow host), but no longer than step 1.
  t.Step(2, 1000, 1000).Kernel("k2", 1010, 1020, 50);
  Timeline tl = std::move(t).Build();
  StepSet s = ComputeSteps(tl);
  ASSERT_EQ(s.steps.size(), 2u);
  EXPECT_EQ(s.steps[1].end_ns, Us(2000));
  EXPECT_EQ(s.stop_tail_ns, 0);
}

TEST(Steps, QueuedEarlyGpuBoundWindowStartsWithTheDevice) {
  TestTrace t;
  t.Device(0, 108);
  // The host queues three kernels in 30 us, then waits; the device starts
  // 200 us later and runs them back to back.
  t.Kernel("a", 0, 200, 1000).Kernel("b", 10, 1200, 1000).Kernel("c", 20, 2200, 1000);
  t.Host("cudaDeviceSynchronize", EventKind::kRuntime, 30, 3170);
  Timeline tl = std::move(t).Build();
  StepSet s = ComputeSteps(tl);
  ASSERT_EQ(s.steps.size(), 1u);
  EXPECT_EQ(s.steps[0].start_ns, Us(200));
  EXPECT_EQ(s.lead_in_ns, Us(200));
}

TEST(Steps, WindowWithHostBetweenKernelsKeepsItsLeadIn) {
  TestTrace t;
  t.Device(0, 108);
  // Each kernel is launched after the previous one ends: host-bound.
  t.Kernel("a", 0, 200, 100).Kernel("b", 500, 510, 100).Kernel("c", 900, 910, 100);
  Timeline tl = std::move(t).Build();
  StepSet s = ComputeSteps(tl);
  ASSERT_EQ(s.steps.size(), 1u);
  EXPECT_EQ(s.steps[0].start_ns, Us(0));
  EXPECT_EQ(s.lead_in_ns, 0);
}

}  // namespace
}  // namespace tracelint
