#include "analyzer/model/timeline_invariants.h"

#include "analyzer/model/timeline_builder.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

SliceSpec Slice(TrackId t, TimeNs ts, TimeNs dur, StringId name, EventKind kind,
                int64_t correlation = 0) {
  SliceSpec s;
  s.track = t;
  s.ts_ns = ts;
  s.dur_ns = dur;
  s.name = name;
  s.kind = kind;
  s.correlation = correlation;
  return s;
}

TEST(TimelineInvariants, FinalizedTimelinePasses) {
  TimelineBuilder b;
  TrackId host = b.GetTrack(TrackKind::kHostThread, 1, 1);
  TrackId stream = b.GetTrack(TrackKind::kDeviceStream, 0, 7);
  b.AddSlice(Slice(host, 0, 100, b.Intern("step"), EventKind::kUserAnnotation));
  b.AddSlice(Slice(host, 10, 20, b.Intern("aten::mm"), EventKind::kCpuOp));
  b.AddSlice(Slice(host, 12, 5, b.Intern("cudaLaunchKernel"), EventKind::kRuntime, 9));
  b.AddSlice(Slice(host, 50, 2000, b.Intern("overshoot"), EventKind::kCpuOp));
  b.AddSlice(Slice(stream, 30, 40, b.Intern("gemm"), EventKind::kKernel, 9));
  b.AddSlice(Slice(stream, 80, 0, b.Intern("empty"), EventKind::kKernel, 77));
  FlowPoint from{9, b.Intern("ac2g"), true, true, host, 13};
  FlowPoint to{9, b.Intern("ac2g"), false, true, stream, 30};
  b.AddFlowPoint(from);
  b.AddFlowPoint(to);
  absl::StatusOr<Timeline> tl = std::move(b).Finalize();
  ASSERT_TRUE(tl.ok());
  EXPECT_TRUE(CheckTimelineInvariants(*tl).ok()) << CheckTimelineInvariants(*tl);
  EXPECT_EQ(tl->flows().size(), 1u);
}

TEST(TimelineInvariants, EmptyTimelinePasses) {
  absl::StatusOr<Timeline> tl = TimelineBuilder().Finalize();
  ASSERT_TRUE(tl.ok());
  EXPECT_TRUE(CheckTimelineInvariants(*tl).ok());
}

// A kernel whose correlation id has two runtime calls is linked to the first.
TEST(TimelineInvariants, DuplicateCorrelationStillLinksConsistently) {
  TimelineBuilder b;
  TrackId host = b.GetTrack(TrackKind::kHostThread, 1, 1);
  TrackId stream = b.GetTrack(TrackKind::kDeviceStream, 0, 7);
  b.AddSlice(Slice(host, 0, 5, b.Intern("cudaLaunchKernel"), EventKind::kRuntime, 3));
  b.AddSlice(Slice(host, 10, 5, b.Intern("cudaLaunchKernel"), EventKind::kRuntime, 3));
  b.AddSlice(Slice(stream, 20, 5, b.Intern("k"), EventKind::kKernel, 3));
  absl::StatusOr<Timeline> tl = std::move(b).Finalize();
  ASSERT_TRUE(tl.ok());
  EXPECT_TRUE(CheckTimelineInvariants(*tl).ok()) << CheckTimelineInvariants(*tl);
  EXPECT_EQ(tl->diagnostics().Count("duplicate_correlation"), 1);
}

// Hand-built columns: one host track holding a parent, a child and a
// launch, and a device track holding a kernel linked to the launch.
SliceColumns GoodColumns() {
  SliceColumns c;
  auto add = [&c](TimeNs ts, TimeNs dur, TrackId track, EventKind kind, uint16_t depth,
                  SliceId parent, int64_t correlation, SliceId launch) {
    c.ts_ns.push_back(ts);
    c.dur_ns.push_back(dur);
    c.track.push_back(track);
    c.name.push_back(0);
    c.kind.push_back(kind);
    c.flags.push_back(0);
    c.depth.push_back(depth);
    c.parent.push_back(parent);
    c.correlation.push_back(correlation);
    c.external_id.push_back(0);
    c.args_begin.push_back(0);
    c.args_count.push_back(0);
    c.details.push_back(kNoIndex);
    c.launch.push_back(launch);
  };
  add(0, 100, 0, EventKind::kCpuOp, 0, kNoIndex, 0, kNoIndex);
  add(10, 20, 0, EventKind::kCpuOp, 1, 0, 0, kNoIndex);
  add(12, 5, 0, EventKind::kRuntime, 2, 1, 4, kNoIndex);
  add(40, 10, 1, EventKind::kKernel, 0, kNoIndex, 4, 2);
  return c;
}

TEST(TimelineInvariants, HandBuiltColumnsPass) {
  EXPECT_TRUE(CheckSliceColumnInvariants(GoodColumns(), 2).ok());
}

TEST(TimelineInvariants, CatchesEachBrokenRule) {
  struct Case {
    const char* what;
    void (*breakit)(SliceColumns&);
  };
  const Case cases[] = {
      {"negative duration", [](SliceColumns& c) { c.dur_ns[1] = -1; }},
      {"partial overlap", [](SliceColumns& c) { c.dur_ns[1] = 200; }},
      {"wrong parent", [](SliceColumns& c) { c.parent[2] = 0; }},
      {"wrong depth", [](SliceColumns& c) { c.depth[2] = 5; }},
      {"unsorted", [](SliceColumns& c) { c.ts_ns[2] = 5; }},
      {"track out of range", [](SliceColumns& c) { c.track[3] = 9; }},
      {"unlinked kernel", [](SliceColumns& c) { c.launch[3] = kNoIndex; }},
      {"link to non-launch", [](SliceColumns& c) { c.launch[3] = 1; }},
      {"column length", [](SliceColumns& c) { c.flags.pop_back(); }},
  };
  for (const Case& k : cases) {
    SliceColumns c = GoodColumns();
    k.breakit(c);
    EXPECT_FALSE(CheckSliceColumnInvariants(c, 2).ok()) << k.what;
  }
}

}  // namespace
}  // namespace tracelint
