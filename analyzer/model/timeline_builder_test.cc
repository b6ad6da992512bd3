#include "analyzer/model/timeline_builder.h"

#include "gtest/gtest.h"

namespace tracelint {
namespace {

SliceSpec Host(TrackId t, TimeNs ts, TimeNs dur, StringId name,
               EventKind kind = EventKind::kCpuOp) {
  SliceSpec s;
  s.track = t;
  s.ts_ns = ts;
  s.dur_ns = dur;
  s.name = name;
  s.kind = kind;
  return s;
}

TEST(TimelineBuilder, NestsSortsAndLinks) {
  TimelineBuilder b;
  TrackId host = b.GetTrack(TrackKind::kHostThread, 10, 11);
  TrackId stream = b.GetTrack(TrackKind::kDeviceStream, 0, 7);
  b.AddSlice(Host(host, 100, 10, b.Intern("aten::mm")));
  SliceSpec launch = Host(host, 102, 3, b.Intern("cudaLaunchKernel"), EventKind::kRuntime);
  launch.correlation = 55;
  b.AddSlice(launch);
  b.AddSlice(Host(host, 0, 200, b.Intern("ProfilerStep#1"), EventKind::kUserAnnotation));
  SliceSpec k = Host(stream, 120, 50, b.Intern("sgemm"), EventKind::kKernel);
  k.correlation = 55;
  b.AddSlice(k);
  b.AddDetails().grid[0] = 4;
  absl::StatusOr<Timeline> tl = std::move(b).Finalize();
  ASSERT_TRUE(tl.ok());
  const SliceColumns& c = tl->slices();
  ASSERT_EQ(c.size(), 4u);
  // Host track first: step, mm, launch.
  EXPECT_EQ(tl->str(c.name[0]), "ProfilerStep#1");
  EXPECT_TRUE(tl->HasFlag(0, kFlagStepMarker));
  EXPECT_EQ(c.parent[1], 0u);
  EXPECT_EQ(c.parent[2], 1u);
  EXPECT_EQ(c.depth[2], 2);
  EXPECT_EQ(c.launch[3], 2u);
  EXPECT_TRUE(tl->HasFlag(2, kFlagLaunch));
  ASSERT_NE(tl->details(3), nullptr);
  EXPECT_EQ(tl->details(3)->grid[0], 4);
  EXPECT_EQ(tl->track_range(stream), std::make_pair(SliceId{3}, SliceId{4}));
}

TEST(TimelineBuilder, RepairsPartialOverlap) {
  TimelineBuilder b;
  TrackId host = b.GetTrack(TrackKind::kHostThread, 1, 1);
  b.AddSlice(Host(host, 0, 100, b.Intern("a")));
  b.AddSlice(Host(host, 50, 50 + 500, b.Intern("clamped")));    // +500 ns overshoot
  b.AddSlice(Host(host, 60, 5000, b.Intern("moved")));          // far past the parent
  absl::StatusOr<Timeline> tl = std::move(b).Finalize();
  ASSERT_TRUE(tl.ok());
  EXPECT_EQ(tl->diagnostics().Count("nesting_clamped"), 1);
  EXPECT_EQ(tl->diagnostics().Count("nesting_overflow_track"), 1);
  ASSERT_EQ(tl->tracks().size(), 2u);
  EXPECT_EQ(tl->tracks()[1].overflow_of, 0u);
  const SliceColumns& c = tl->slices();
  for (SliceId s = 0; s < c.size(); ++s) {
    if (c.parent[s] != kNoIndex) {
      EXPECT_LE(c.end_ns(s), c.end_ns(c.parent[s]));
    }
  }
}

TEST(TimelineBuilder, AppendIsSplitIndependent) {
  auto fill = [](TimelineBuilder& b, int from, int to) {
    TrackId t = b.GetTrack(TrackKind::kHostThread, 1, 1);
    for (int i = from; i < to; ++i) {
      b.AddSlice(Host(t, (i % 5) * 10, 5, b.Intern("op" + std::to_string(i % 3))));
      b.AddArg(b.Intern("k"), ArgValue::Int(i));
    }
  };
  TimelineBuilder whole;
  fill(whole, 0, 20);
  TimelineBuilder a, part;
  fill(a, 0, 7);
  fill(part, 7, 20);
  a.Append(std::move(part));
  absl::StatusOr<Timeline> x = std::move(whole).Finalize();
  absl::StatusOr<Timeline> y = std::move(a).Finalize();
  ASSERT_TRUE(x.ok() && y.ok());
  ASSERT_EQ(x->slice_count(), y->slice_count());
  for (SliceId s = 0; s < x->slice_count(); ++s) {
    EXPECT_EQ(x->slices().ts_ns[s], y->slices().ts_ns[s]);
    EXPECT_EQ(x->str(x->slices().name[s]), y->str(y->slices().name[s]));
    EXPECT_EQ(x->args(s)[0].value.i, y->args(s)[0].value.i);
  }
}

TEST(TimelineBuilder, FlowsBindToEnclosingSlices) {
  TimelineBuilder b;
  TrackId host = b.GetTrack(TrackKind::kHostThread, 1, 1);
  TrackId dev = b.GetTrack(TrackKind::kDeviceStream, 0, 7);
  b.AddSlice(Host(host, 0, 10, b.Intern("cudaLaunchKernel"), EventKind::kRuntime));
  b.AddSlice(Host(dev, 20, 10, b.Intern("k"), EventKind::kKernel));
  StringId cat = b.Intern("ac2g");
  b.AddFlowPoint({.id = 3, .category = cat, .is_start = true, .track = host, .ts_ns = 2});
  b.AddFlowPoint({.id = 3, .category = cat, .is_start = false, .track = dev, .ts_ns = 20});
  b.AddFlowPoint({.id = 4, .category = cat, .is_start = false, .track = dev, .ts_ns = 20});
  absl::StatusOr<Timeline> tl = std::move(b).Finalize();
  ASSERT_TRUE(tl.ok());
  ASSERT_EQ(tl->flows().size(), 1u);
  EXPECT_EQ(tl->flows()[0].from, 0u);
  EXPECT_EQ(tl->flows()[0].to, 1u);
  EXPECT_EQ(tl->diagnostics().Count("flow_unresolved"), 1);
}

}  // namespace
}  // namespace tracelint
