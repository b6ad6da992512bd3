#include "analyzer/model/timeline_builder.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "analyzer/base/time_limits.h"
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

// aten::item on a CPU tensor (Adam's step counter) runs no copy and no sync:
// only the one with a runtime call inside is an implicit sync. A trace with
// no runtime call at all keeps the name's word.
TEST(TimelineBuilder, ImplicitSyncNeedsARuntimeCallInsideWhenTheTraceHasThem) {
  TimelineBuilder b;
  TrackId host = b.GetTrack(TrackKind::kHostThread, 10, 11);
  b.AddSlice(Host(host, 100, 20, b.Intern("aten::item")));
  b.AddSlice(Host(host, 105, 10, b.Intern("cudaStreamSynchronize"), EventKind::kRuntime));
  b.AddSlice(Host(host, 200, 20, b.Intern("aten::item")));  // a CPU tensor
  absl::StatusOr<Timeline> tl = std::move(b).Finalize();
  ASSERT_TRUE(tl.ok());
  EXPECT_TRUE(tl->HasFlag(0, kFlagImplicitSync));
  EXPECT_FALSE(tl->HasFlag(2, kFlagImplicitSync));

  TimelineBuilder no_runtime;
  TrackId t = no_runtime.GetTrack(TrackKind::kHostThread, 10, 11);
  no_runtime.AddSlice(Host(t, 200, 20, no_runtime.Intern("aten::item")));
  absl::StatusOr<Timeline> unknown = std::move(no_runtime).Finalize();
  ASSERT_TRUE(unknown.ok());
  EXPECT_TRUE(unknown->HasFlag(0, kFlagImplicitSync));
}

// A parser that learns a track's identity after its events (Chrome JSON
// metadata) re-keys the track and edits its slices before Finalize.
TEST(TimelineBuilder, RekeyTrackAndEditSlices) {
  TimelineBuilder part;
  TrackId t = part.GetTrack(TrackKind::kHostThread, 5, 0);
  part.AddSlice(Host(t, 100, 10, part.Intern("MEMCPYHtoD"), EventKind::kOther));
  TimelineBuilder b;
  TrackId other = b.GetTrack(TrackKind::kHostThread, 7, 0);
  b.AddSlice(Host(other, 100, 50, b.Intern("MatMul"), EventKind::kOther));
  b.Append(std::move(part));
  b.AddSlice(Host(other, 200, 5, b.Intern("Add"), EventKind::kOther));  // still pending
  TrackId moved = 1;
  ASSERT_EQ(b.tracks()[moved].pid, 5);
  EXPECT_FALSE(b.RekeyTrack(moved, TrackKind::kHostThread, 7, 0));  // taken
  EXPECT_TRUE(b.RekeyTrack(moved, TrackKind::kDeviceStream, 0, 13));
  EXPECT_TRUE(b.HasTrack(TrackKind::kDeviceStream, 0, 13));
  EXPECT_FALSE(b.HasTrack(TrackKind::kHostThread, 5, 0));
  EXPECT_EQ(b.GetTrack(TrackKind::kDeviceStream, 0, 13), moved);
  int visited = 0;
  b.EditSlices([&](TimelineBuilder::SliceEditor& e) {
    ++visited;
    if (e.track() != moved) return;
    e.set_kind(EventKind::kMemcpy);
    e.details().direction = CopyDirection::kHtoD;
  });
  EXPECT_EQ(visited, 3);
  absl::StatusOr<Timeline> tl = std::move(b).Finalize();
  ASSERT_TRUE(tl.ok());
  EXPECT_EQ(tl->tracks()[moved].kind, TrackKind::kDeviceStream);
  EXPECT_EQ(tl->tracks()[moved].device, 0);
  auto [first, last] = tl->track_range(moved);
  ASSERT_EQ(last - first, 1u);
  EXPECT_EQ(tl->slices().kind[first], EventKind::kMemcpy);
  ASSERT_NE(tl->details(first), nullptr);
  EXPECT_EQ(tl->details(first)->direction, CopyDirection::kHtoD);
}

TEST(Timeline, ReleaseEventsKeepsWhatTheReportReads) {
  TimelineBuilder b;
  TrackId host = b.GetTrack(TrackKind::kHostThread, 10, 11);
  TrackId stream = b.GetTrack(TrackKind::kDeviceStream, 0, 7);
  b.AddSlice(Host(host, 100, 10, b.Intern("aten::mm")));
  b.AddSlice(Host(stream, 120, 50, b.Intern("sgemm"), EventKind::kKernel));
  b.metadata().rank = 3;
  b.diagnostics().Add("string_pid", Severity::kWarning, "kept", 2);
  absl::StatusOr<Timeline> tl = std::move(b).Finalize();
  ASSERT_TRUE(tl.ok());
  const size_t before = tl->MemoryBytes();
  EXPECT_FALSE(tl->events_released());
  tl->ReleaseEvents();
  EXPECT_TRUE(tl->events_released());
  EXPECT_EQ(tl->slice_count(), 0u);
  EXPECT_TRUE(tl->flows().empty());
  EXPECT_EQ(tl->track_range(host), std::make_pair(SliceId{0}, SliceId{0}));
  EXPECT_EQ(tl->track_range(stream), std::make_pair(SliceId{0}, SliceId{0}));
  EXPECT_EQ(tl->Bounds(), std::make_pair(TimeNs{100}, TimeNs{170}));
  EXPECT_EQ(tl->metadata().rank, 3);
  EXPECT_EQ(tl->diagnostics().Count("string_pid"), 2);
  EXPECT_EQ(tl->tracks().size(), 2u);
  EXPECT_LT(tl->MemoryBytes(), before);
  tl->ReleaseEvents();  // twice is harmless
  EXPECT_EQ(tl->Bounds(), std::make_pair(TimeNs{100}, TimeNs{170}));
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

// with_stack=True: record_function opens enumerate(DataLoader)#... from
// inside _record_function_enter_new, which returns 5 us later. The range
// keeps its place over the ops it encloses; the frames end where it begins.
TEST(TimelineBuilder, PythonFramesYieldToTheRangeTheyOpen) {
  TimelineBuilder b;
  TrackId host = b.GetTrack(TrackKind::kHostThread, 1, 1);
  const TimeNs us = kNsPerUs;
  b.AddSlice(Host(host, 0, 1000 * us, b.Intern("dataloader.py(703): __next__"),
                  EventKind::kPythonFunction));
  b.AddSlice(Host(host, 10 * us, 9 * us, b.Intern("torch/_ops.py(1112): __call__"),
                  EventKind::kPythonFunction));
  b.AddSlice(Host(host, 11 * us, 7 * us, b.Intern("_record_function_enter_new"),
                  EventKind::kPythonFunction));
  b.AddSlice(Host(host, 14 * us, 900 * us, b.Intern("enumerate(DataLoader)#__next__"),
                  EventKind::kUserAnnotation));
  b.AddSlice(Host(host, 20 * us, 800 * us, b.Intern("fetch.py(25): fetch"),
                  EventKind::kPythonFunction));
  b.AddSlice(Host(host, 30 * us, 100 * us, b.Intern("aten::copy_")));
  // A frame running far past a range it holds is not an enter call: the
  // range moves out as before.
  b.AddSlice(Host(host, 2000 * us, 1000 * us, b.Intern("train.py(9): loop"),
                  EventKind::kPythonFunction));
  b.AddSlice(Host(host, 2500 * us, 1000 * us, b.Intern("aten::mm")));
  absl::StatusOr<Timeline> tl = std::move(b).Finalize();
  ASSERT_TRUE(tl.ok());
  const SliceColumns& c = tl->slices();
  auto find = [&](std::string_view name) {
    for (SliceId s = 0; s < c.size(); ++s) {
      if (tl->str(c.name[s]) == name) return s;
    }
    ADD_FAILURE() << name;
    return SliceId{0};
  };
  const SliceId next = find("dataloader.py(703): __next__");
  const SliceId range = find("enumerate(DataLoader)#__next__");
  EXPECT_EQ(c.track[range], host) << "the range stays on the thread's track";
  EXPECT_EQ(c.parent[range], next);
  EXPECT_EQ(c.parent[find("fetch.py(25): fetch")], range);
  EXPECT_EQ(c.parent[c.parent[find("aten::copy_")]], range);
  EXPECT_EQ(c.end_ns(find("_record_function_enter_new")), 14 * us);
  EXPECT_EQ(c.end_ns(find("torch/_ops.py(1112): __call__")), 14 * us);
  EXPECT_NE(c.track[find("aten::mm")], host);
  EXPECT_EQ(tl->diagnostics().Count("nesting_overflow_track"), 1);
  EXPECT_EQ(tl->diagnostics().Count("nesting_clamped"), 2);
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
  // Id 4 ends without a start: counted apart from arrows that lost an end.
  EXPECT_EQ(tl->diagnostics().Count("flow_end_without_start"), 1);
  EXPECT_EQ(tl->diagnostics().Count("flow_unresolved"), 0);
}

// PyTorch 2.x writes a block of device activities, with their flow ends,
// before the host's runtime calls and their flow starts: an end written
// before its start is still its end. An id used twice pairs in file order.
TEST(TimelineBuilder, FlowEndWrittenBeforeItsStartIsPaired) {
  TimelineBuilder b;
  TrackId host = b.GetTrack(TrackKind::kHostThread, 1, 1);
  TrackId dev = b.GetTrack(TrackKind::kDeviceStream, 0, 7);
  b.AddSlice(Host(host, 0, 10, b.Intern("cudaLaunchKernel"), EventKind::kRuntime));
  b.AddSlice(Host(host, 40, 10, b.Intern("cudaLaunchKernel"), EventKind::kRuntime));
  b.AddSlice(Host(dev, 20, 10, b.Intern("k1"), EventKind::kKernel));
  b.AddSlice(Host(dev, 60, 10, b.Intern("k2"), EventKind::kKernel));
  StringId cat = b.Intern("ac2g");
  b.AddFlowPoint({.id = 5, .category = cat, .is_start = false, .track = dev, .ts_ns = 20});
  b.AddFlowPoint({.id = 5, .category = cat, .is_start = true, .track = host, .ts_ns = 2});
  b.AddFlowPoint({.id = 6, .category = cat, .is_start = true, .track = host, .ts_ns = 2});
  b.AddFlowPoint({.id = 6, .category = cat, .is_start = false, .track = dev, .ts_ns = 20});
  b.AddFlowPoint({.id = 6, .category = cat, .is_start = true, .track = host, .ts_ns = 42});
  b.AddFlowPoint({.id = 6, .category = cat, .is_start = false, .track = dev, .ts_ns = 60});
  absl::StatusOr<Timeline> tl = std::move(b).Finalize();
  ASSERT_TRUE(tl.ok());
  ASSERT_EQ(tl->flows().size(), 3u);
  EXPECT_EQ(tl->diagnostics().Count("flow_unresolved"), 0);
  EXPECT_EQ(tl->diagnostics().Count("flow_end_without_start"), 0);
  std::vector<std::pair<TimeNs, TimeNs>> pairs;
  for (const Flow& f : tl->flows()) {
    pairs.emplace_back(tl->slices().ts_ns[f.from], tl->slices().ts_ns[f.to]);
  }
  std::sort(pairs.begin(), pairs.end());
  EXPECT_EQ(pairs, (std::vector<std::pair<TimeNs, TimeNs>>{{0, 20}, {0, 20}, {40, 60}}));
}

// The nesting repair as first written: one sort of everything by (track, ts,
// -dur, input order), a walk of every track, repeated while slices move.
// Finalize's per-track version must give the same slices in the same order.
struct RefSlice {
  TimeNs ts_ns;
  TimeNs dur_ns;
  uint32_t track;
};

std::vector<uint32_t> ReferenceRepair(std::vector<RefSlice>& s, uint32_t track_count,
                                      int64_t* clamped, int64_t* moved) {
  std::vector<uint32_t> order(s.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  auto less = [&](uint32_t a, uint32_t b) {
    if (s[a].track != s[b].track) return s[a].track < s[b].track;
    if (s[a].ts_ns != s[b].ts_ns) return s[a].ts_ns < s[b].ts_ns;
    if (s[a].dur_ns != s[b].dur_ns) return s[a].dur_ns > s[b].dur_ns;
    return a < b;
  };
  std::sort(order.begin(), order.end(), less);
  std::vector<uint32_t> overflow(track_count, UINT32_MAX);
  bool any_moved = true;
  while (any_moved) {
    any_moved = false;
    std::vector<uint32_t> stack;
    uint32_t current = UINT32_MAX;
    for (uint32_t idx : order) {
      RefSlice& x = s[idx];
      if (x.track != current) {
        stack.clear();
        current = x.track;
      }
      while (!stack.empty() && s[stack.back()].ts_ns + s[stack.back()].dur_ns <= x.ts_ns) {
        stack.pop_back();
      }
      if (!stack.empty()) {
        TimeNs parent_end = s[stack.back()].ts_ns + s[stack.back()].dur_ns;
        if (x.ts_ns + x.dur_ns > parent_end) {
          if (x.ts_ns + x.dur_ns - parent_end <= 1000) {
            x.dur_ns = parent_end - x.ts_ns;
            ++*clamped;
          } else {
            if (overflow[x.track] == UINT32_MAX) {
              overflow[x.track] = static_cast<uint32_t>(overflow.size());
              overflow.push_back(UINT32_MAX);
            }
            x.track = overflow[x.track];
            ++*moved;
            any_moved = true;
            continue;
          }
        }
      }
      stack.push_back(idx);
    }
    if (any_moved) std::sort(order.begin(), order.end(), less);
  }
  return order;
}

TEST(TimelineBuilder, NestingRepairMatchesGlobalSortReference) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 40; ++round) {
    const uint32_t tracks = 1 + rng() % 4;
    const int n = 20 + static_cast<int>(rng() % 400);
    TimelineBuilder b;
    std::vector<RefSlice> ref;
    for (uint32_t t = 0; t < tracks; ++t) b.GetTrack(TrackKind::kHostThread, 1, t);
    for (int i = 0; i < n; ++i) {
      RefSlice r;
      r.track = static_cast<uint32_t>(rng() % tracks);
      // Coarse times give many equal starts; durations from tiny to long
      // give clamps (overshoot <= 1 us), moves and overflow of overflow.
      r.ts_ns = static_cast<TimeNs>(rng() % 50) * 500;
      r.dur_ns = static_cast<TimeNs>(rng() % 6) * 700 + static_cast<TimeNs>(rng() % 3) * 3000;
      ref.push_back(r);
      b.AddSlice(Host(r.track, r.ts_ns, r.dur_ns, b.Intern("s" + std::to_string(i))));
    }
    int64_t clamped = 0, moved = 0;
    std::vector<uint32_t> order = ReferenceRepair(ref, tracks, &clamped, &moved);
    absl::StatusOr<Timeline> tl = std::move(b).Finalize();
    ASSERT_TRUE(tl.ok());
    const SliceColumns& c = tl->slices();
    ASSERT_EQ(c.size(), order.size());
    for (size_t i = 0; i < order.size(); ++i) {
      const RefSlice& r = ref[order[i]];
      ASSERT_EQ(tl->str(c.name[i]), "s" + std::to_string(order[i])) << "round " << round;
      EXPECT_EQ(c.ts_ns[i], r.ts_ns);
      EXPECT_EQ(c.dur_ns[i], r.dur_ns);
      EXPECT_EQ(c.track[i], r.track);
    }
    EXPECT_EQ(tl->diagnostics().Count("nesting_clamped"), clamped);
    EXPECT_EQ(tl->diagnostics().Count("nesting_overflow_track"), moved);
  }
}

// Large enough for Finalize's threads (per track, per column) and for
// several blocks of its page-returning split, built from appended parts:
// the same slices, args and details, in the reference order, whatever the
// thread count.
TEST(TimelineBuilder, LargeFinalizeMatchesReferenceWithAnyThreads) {
  const uint32_t tracks = 5;
  const int n = 150000;
  std::vector<RefSlice> ref;
  std::mt19937_64 rng(11);
  for (int i = 0; i < n; ++i) {
    RefSlice r;
    r.track = static_cast<uint32_t>(rng() % tracks);
    r.ts_ns = static_cast<TimeNs>(rng() % 20000) * 500;
    r.dur_ns = static_cast<TimeNs>(rng() % 6) * 700 + static_cast<TimeNs>(rng() % 3) * 3000;
    ref.push_back(r);
  }
  auto build = [&] {
    TimelineBuilder merged;
    for (uint32_t t = 0; t < tracks; ++t) merged.GetTrack(TrackKind::kHostThread, 1, t);
    const int part_size = 7000;
    for (int from = 0; from < n; from += part_size) {
      TimelineBuilder part;
      for (int i = from; i < std::min(n, from + part_size); ++i) {
        const RefSlice& r = ref[i];
        TrackId t = part.GetTrack(TrackKind::kHostThread, 1, r.track);
        part.AddSlice(Host(t, r.ts_ns, r.dur_ns, part.Intern("op" + std::to_string(i % 97))));
        part.AddArg(part.Intern("i"), ArgValue::Int(i));
        if (i % 3 == 0) part.AddDetails().bytes = i;
      }
      merged.Append(std::move(part));
      if (from == part_size) merged.ReserveScaled(static_cast<double>(n) / (2 * part_size));
    }
    return merged;
  };
  std::vector<RefSlice> repaired = ref;
  int64_t clamped = 0, moved = 0;
  std::vector<uint32_t> order = ReferenceRepair(repaired, tracks, &clamped, &moved);
  ASSERT_GT(moved, 0);
  for (int threads : {1, 3}) {
    FinalizeOptions options;
    options.threads = threads;
    absl::StatusOr<Timeline> tl = build().Finalize(options);
    ASSERT_TRUE(tl.ok());
    const SliceColumns& c = tl->slices();
    ASSERT_EQ(c.size(), order.size());
    for (size_t i = 0; i < order.size(); ++i) {
      const uint32_t input = order[i];
      const RefSlice& r = repaired[input];
      ASSERT_EQ(c.ts_ns[i], r.ts_ns) << "threads " << threads << " slice " << i;
      ASSERT_EQ(c.dur_ns[i], r.dur_ns);
      ASSERT_EQ(c.track[i], r.track);
      ASSERT_EQ(tl->str(c.name[i]), "op" + std::to_string(input % 97));
      ASSERT_EQ(tl->args(i).size(), 1u);
      ASSERT_EQ(tl->args(i)[0].value.i, input);
      const DeviceDetails* d = tl->details(i);
      ASSERT_EQ(d != nullptr, input % 3 == 0);
      if (d != nullptr) {
        ASSERT_EQ(d->bytes, input);
      }
    }
    EXPECT_EQ(tl->diagnostics().Count("nesting_clamped"), clamped);
    EXPECT_EQ(tl->diagnostics().Count("nesting_overflow_track"), moved);
  }
}

TEST(ReleasePages, ReturnsWholePagesOnly) {
  std::vector<char> v(size_t{1} << 20, 'x');
  const void* next = ReleasePages(v.data() + 1, v.data() + v.size() - 1);
  // The partial pages at either end keep their bytes; the cursor stops at
  // the last whole page released.
  EXPECT_EQ(v[0], 'x');
  EXPECT_EQ(v[1], 'x');
  EXPECT_EQ(v.back(), 'x');
  EXPECT_LE(static_cast<const char*>(next), v.data() + v.size() - 1);
  EXPECT_GT(static_cast<const char*>(next), v.data() + v.size() / 2);
  // Nothing whole in a range inside one page: the cursor does not move.
  const char* page_inside = static_cast<const char*>(next) + 10;
  EXPECT_EQ(ReleasePages(page_inside, page_inside + 100), page_inside);
}

// Dense correlation ids take a table, sparse ones a hash map: same links,
// duplicates and orphans either way.
TEST(TimelineBuilder, LinksDenseAndSparseCorrelationsAlike) {
  for (int64_t scale : {int64_t{1}, int64_t{1} << 40}) {
    TimelineBuilder b;
    TrackId host = b.GetTrack(TrackKind::kHostThread, 1, 1);
    TrackId dev = b.GetTrack(TrackKind::kDeviceStream, 0, 7);
    StringId launch_name = b.Intern("cudaLaunchKernel");
    StringId kernel_name = b.Intern("k");
    for (int i = 0; i < 10; ++i) {
      SliceSpec l = Host(host, i * 100, 10, launch_name, EventKind::kRuntime);
      l.correlation = (i == 9 ? 8 : i + 1) * scale;  // the last one duplicates id 8
      b.AddSlice(l);
      SliceSpec k = Host(dev, i * 100 + 50, 10, kernel_name, EventKind::kKernel);
      k.correlation = (i == 0 ? -5 : i) * scale;  // the first one is an orphan
      b.AddSlice(k);
    }
    absl::StatusOr<Timeline> tl = std::move(b).Finalize();
    ASSERT_TRUE(tl.ok());
    const SliceColumns& c = tl->slices();
    auto [dev_begin, dev_end] = tl->track_range(dev);
    ASSERT_EQ(dev_end - dev_begin, 10u);
    EXPECT_EQ(c.launch[dev_begin], kNoIndex);
    for (SliceId s = dev_begin + 1; s < dev_end; ++s) {
      ASSERT_NE(c.launch[s], kNoIndex);
      EXPECT_EQ(c.correlation[c.launch[s]], c.correlation[s]);
      // Id 8 links the first of its two launches.
      if (c.correlation[s] == 8 * scale) {
        EXPECT_EQ(c.ts_ns[c.launch[s]], 700);
      }
    }
    EXPECT_EQ(tl->diagnostics().Count("duplicate_correlation"), 1) << scale;
    EXPECT_EQ(tl->diagnostics().Count("device_activity_without_launch"), 1) << scale;
  }
}

// Flow points bind by searching outward from the previous point of their
// track; points out of time order must bind as a plain search would.
TEST(TimelineBuilder, FlowsBindInAnyTimeOrder) {
  TimelineBuilder b;
  TrackId host = b.GetTrack(TrackKind::kHostThread, 1, 1);
  TrackId dev = b.GetTrack(TrackKind::kDeviceStream, 0, 7);
  const int n = 300;
  for (int i = 0; i < n; ++i) {
    b.AddSlice(Host(host, i * 100, 10, b.Intern("cudaLaunchKernel"), EventKind::kRuntime));
    b.AddSlice(Host(dev, i * 100 + 50, 20, b.Intern("k"), EventKind::kKernel));
  }
  StringId cat = b.Intern("ac2g");
  std::vector<int> ids(n);
  for (int i = 0; i < n; ++i) ids[i] = i;
  std::shuffle(ids.begin(), ids.end(), std::mt19937(3));
  for (int i : ids) {
    b.AddFlowPoint({.id = i, .category = cat, .is_start = true, .track = host,
                    .ts_ns = i * 100 + 5});
    b.AddFlowPoint({.id = i, .category = cat, .is_start = false, .bind_enclosing = false,
                    .track = dev, .ts_ns = i * 100 + 40});
  }
  absl::StatusOr<Timeline> tl = std::move(b).Finalize();
  ASSERT_TRUE(tl.ok());
  ASSERT_EQ(tl->flows().size(), static_cast<size_t>(n));
  const SliceColumns& c = tl->slices();
  for (const Flow& f : tl->flows()) {
    EXPECT_EQ(c.ts_ns[f.from], f.id * 100);
    EXPECT_EQ(c.ts_ns[f.to], f.id * 100 + 50);
  }
}

}  // namespace
}  // namespace tracelint

namespace tracelint {
namespace {

// Times near int64's edges (9e18) used to overflow later sums (UBSan) and
// give negative kernel times; they are clamped at the builder and counted.
TEST(TimelineBuilder, TimesAtInt64EdgesAreClampedAndCounted) {
  TimelineBuilder b;
  TrackId stream = b.GetTrack(TrackKind::kDeviceStream, 0, 7);
  b.AddSlice(Host(stream, INT64_MAX - 5, 100, b.Intern("late"), EventKind::kKernel));
  b.AddSlice(Host(stream, 1000, INT64_MAX, b.Intern("long"), EventKind::kKernel));
  b.AddSlice(Host(stream, INT64_MIN, 10, b.Intern("early"), EventKind::kKernel));
  absl::StatusOr<Timeline> tl = std::move(b).Finalize();
  ASSERT_TRUE(tl.ok());
  const SliceColumns& c = tl->slices();
  for (size_t i = 0; i < c.size(); ++i) {
    EXPECT_GE(c.ts_ns[i], -kMaxTraceTimeNs);
    EXPECT_GE(c.dur_ns[i], 0);
    EXPECT_LE(c.ts_ns[i], kMaxTraceTimeNs - c.dur_ns[i]);
  }
  int out_of_range = 0;
  for (const Diagnostic& d : tl->diagnostics().List()) {
    if (d.name == "time_out_of_range" || d.name == "duration_out_of_range") out_of_range += d.count;
  }
  EXPECT_GE(out_of_range, 3);
}

}  // namespace
}  // namespace tracelint
