#include "analyzer/analysis/steps.h"

#include "analyzer/analysis/metrics_test_trace.h"
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

}  // namespace
}  // namespace tracelint
