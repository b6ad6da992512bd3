#include "analyzer/analysis/idle_attribution.h"

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/device_activity.h"
#include "analyzer/analysis/steps.h"
#include "tests/support/analysed.h"
#include "tests/support/scenario.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using testing::DeviceSpec;
using testing::KernelOptions;
using testing::Scenario;
using testing::StreamRef;

TimeNs CauseNs(const IdleAttribution& a, IdleCause c) { return a.total_ns[static_cast<int>(c)]; }

// Holds the timeline alive for the context.
using testing::Analyse;
using testing::Analysed;

// The accounting invariants of docs/design/domain.md on any input: pieces disjoint,
// inside their step, summing to step time minus device busy time.
void ExpectAccountingHolds(Analysed& a) {
  const IdleAttribution& idle = a.idle();
  const StepSet& steps = a.ctx->steps();
  TimeNs expected_idle = 0;
  for (const DeviceActivity& d : a.ctx->device_activity()) {
    for (const Step& s : steps.steps) {
      expected_idle += s.duration_ns() - s.OverlapNs(d.all);
    }
  }
  EXPECT_EQ(idle.total_idle_ns, expected_idle);
  TimeNs sum = 0;
  for (TimeNs ns : idle.total_ns) sum += ns;
  EXPECT_EQ(sum, idle.total_idle_ns);
  for (size_t i = 0; i < idle.pieces.size(); ++i) {
    const IdlePiece& p = idle.pieces[i];
    EXPECT_LT(p.start_ns, p.end_ns);
    const Step& s = steps.steps[p.step_index];
    EXPECT_GE(p.start_ns, s.start_ns);
    EXPECT_LE(p.end_ns, s.end_ns);
    if (i > 0 && idle.pieces[i - 1].device == p.device) {
      EXPECT_LE(idle.pieces[i - 1].end_ns, p.start_ns);
    }
  }
  for (size_t si = 0; si < steps.steps.size(); ++si) {
    TimeNs step_sum = 0;
    for (TimeNs ns : idle.per_step_ns[si]) step_sum += ns;
    EXPECT_LE(step_sum, steps.steps[si].duration_ns() *
                            static_cast<TimeNs>(a.ctx->device_activity().size()));
  }
}

TEST(IdleAttributionTest, DataLoaderThenSyncDrainedLaunch) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 3; ++k) {
    s.BeginStep(k)
        .DataLoaderNext(8 * kNsPerMs)
        .BeginOp("aten::mm")
        .Kernel("gemm", 2 * kNsPerMs)
        .End()
        .Sync()
        .EndStep();
  }
  auto a = Analyse(s);
  ExpectAccountingHolds(*a);
  const IdleAttribution& idle = a->idle();
  EXPECT_EQ(CauseNs(idle, IdleCause::kDataLoader), 3 * 8 * kNsPerMs);
  // The 5 us launch call is other host work in every step: in steps 2 and 3
  // the previous step's sync drained the queue, but the 8 ms of loading
  // since it returned used up the 2 ms lead the host could have had.
  EXPECT_EQ(CauseNs(idle, IdleCause::kOtherHostWork), 3 * 5 * kNsPerUs);
  EXPECT_EQ(CauseNs(idle, IdleCause::kSyncCall), 0);
  EXPECT_EQ(idle.per_step_ns[0][static_cast<int>(IdleCause::kDataLoader)], 8 * kNsPerMs);
  const IdlePiece& first = idle.pieces.front();
  EXPECT_EQ(first.cause, IdleCause::kDataLoader);
  EXPECT_EQ(a->tl.str(a->tl.slices().name[first.host_slice]),
            "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  EXPECT_EQ(a->tl.str(a->tl.slices().name[first.next_activity]), "gemm");
}

TEST(IdleAttributionTest, HostSideOpThenLongGapLaunch) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginStep(1)
      .Kernel("a", kNsPerMs)
      .HostOp("aten::to_numpy_metric", 3 * kNsPerMs)
      .Kernel("b", kNsPerMs)
      .Sync()
      .EndStep();
  auto a = Analyse(s);
  ExpectAccountingHolds(*a);
  const IdleAttribution& idle = a->idle();
  // a's 5 us launch opens the step (a short gap: launch overhead); a ends at
  // 1.005 ms; the op runs 0.005..3.005 ms; b's launch call ends at 3.010 ms,
  // inside a 2 ms gap: other host work.
  EXPECT_EQ(CauseNs(idle, IdleCause::kLaunchOverhead), 5 * kNsPerUs);
  EXPECT_EQ(CauseNs(idle, IdleCause::kHostSideOp), 2 * kNsPerMs);
  EXPECT_EQ(CauseNs(idle, IdleCause::kOtherHostWork), 5 * kNsPerUs);
}

// Ops that launch nothing but last under 100 us (aten::empty, views,
// result_type: the framework's bookkeeping between launches) are dispatch,
// other host work; from 100 us on, a host-side op. Each side of the floor.
TEST(IdleAttributionTest, ShortOpsThatLaunchNothingAreDispatchNotHostSideOps) {
  for (TimeNs op_ns : {99 * kNsPerUs, 100 * kNsPerUs}) {
    SCOPED_TRACE(op_ns);
    Scenario s;
    s.Device(DeviceSpec::A100());
    s.BeginStep(1).Kernel("a", 10 * kNsPerUs);
    for (int i = 0; i < 10; ++i) s.HostOp("aten::empty", op_ns);
    s.Kernel("b", kNsPerMs).Sync().EndStep();
    auto a = Analyse(s);
    ExpectAccountingHolds(*a);
    const IdleAttribution& idle = a->idle();
    const bool host_side = op_ns >= IdleAttributionOptions().host_op_min_ns;
    // The ten ops run while the GPU has nothing queued (a ends at 15 us).
    EXPECT_EQ(CauseNs(idle, IdleCause::kHostSideOp) > 0, host_side);
    EXPECT_GE(CauseNs(idle, host_side ? IdleCause::kHostSideOp : IdleCause::kOtherHostWork),
              10 * op_ns - 10 * kNsPerUs);
  }
}

// Back-to-back runtime calls inside an annotation cut the gap at their
// boundaries, but every part says the same (the same cause, charged to the
// annotation): one piece, not three.
TEST(IdleAttributionTest, CutsThatChangeNothingLeaveOnePiece) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginStep(1)
      .Kernel("a", kNsPerMs)
      .BeginAnnotation("execute_request")
      .HostCall("cudaGetDevice", kNsPerMs)
      .HostCall("cudaGetDevice", kNsPerMs)
      .HostCall("cudaGetDevice", kNsPerMs)
      .End()
      .Kernel("b", kNsPerMs)
      .Sync()
      .EndStep();
  auto a = Analyse(s);
  ExpectAccountingHolds(*a);
  const IdleAttribution& idle = a->idle();
  // a runs 0.005..1.005 ms while the first call runs; the gap to b's
  // launch (3.005..3.010 ms) holds the second and third calls: 2 ms in one
  // piece (two before the merge).
  int pieces_in_calls = 0;
  for (const IdlePiece& p : idle.pieces) {
    if (p.start_ns >= idle.pieces.front().start_ns + kNsPerMs &&
        p.end_ns <= idle.pieces.front().start_ns + 3 * kNsPerMs + 5 * kNsPerUs) {
      ++pieces_in_calls;
      EXPECT_EQ(p.end_ns - p.start_ns, 2 * kNsPerMs);
    }
  }
  EXPECT_EQ(pieces_in_calls, 1);
  for (size_t i = 1; i < idle.pieces.size(); ++i) {
    const IdlePiece& x = idle.pieces[i - 1];
    const IdlePiece& y = idle.pieces[i];
    EXPECT_FALSE(x.end_ns == y.start_ns && x.gap == y.gap && x.cause == y.cause &&
                 x.host_slice == y.host_slice && x.cause_slice == y.cause_slice &&
                 x.next_activity == y.next_activity &&
                 x.host_thread_slice == y.host_thread_slice)
        << "pieces " << i - 1 << " and " << i << " say the same thing";
  }
}

// record_function's __exit__ runs while the GPU waits: profiling cost, not
// the user's host work. The same time in the user's own frame is theirs.
TEST(IdleAttributionTest, IdleInsideTheProfilersOwnCodeIsProfilerOverhead) {
  for (const bool profiler : {true, false}) {
    Scenario s;
    s.Device(DeviceSpec::A100());
    s.BeginStep(1).Kernel("a", 50 * kNsPerUs).BeginAnnotation("Self-Attention");
    s.Spend(100 * kNsPerUs);
    s.BeginPython(profiler ? "torch/autograd/profiler.py(776): __exit__"
                           : "model.py(88): attention_scores");
    s.Spend(300 * kNsPerUs).End().End().Kernel("b", kNsPerMs).Sync().EndStep();
    auto a = Analyse(s);
    ExpectAccountingHolds(*a);
    EXPECT_EQ(CauseNs(a->idle(), IdleCause::kProfilerOverhead), profiler ? 300 * kNsPerUs : 0)
        << profiler;
  }
  EXPECT_EQ(IdleCauseName(IdleCause::kProfilerOverhead), "profiler_overhead");
}

TEST(IdleAttributionTest, ShortGapsBetweenSmallKernelsAreLaunchOverhead) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginStep(1).OpKernels("aten::add", "vectorized_add", 10, 2 * kNsPerUs, 20 * kNsPerUs);
  s.Sync().EndStep();
  auto a = Analyse(s);
  ExpectAccountingHolds(*a);
  // 25 us before the first kernel, then nine gaps of 23 us (25 us per op
  // minus 2 us of work).
  constexpr TimeNs kExpected = 25 * kNsPerUs + 9 * 23 * kNsPerUs;
  EXPECT_EQ(CauseNs(a->idle(), IdleCause::kLaunchOverhead), kExpected);

  IdleAttribution strict = ComputeIdleAttribution(*a->ctx, {/*launch_gap_ns=*/10 * kNsPerUs});
  EXPECT_EQ(CauseNs(strict, IdleCause::kLaunchOverhead), 0);
  EXPECT_EQ(CauseNs(strict, IdleCause::kOtherHostWork),
            CauseNs(a->idle(), IdleCause::kOtherHostWork) + kExpected);
}

TEST(IdleAttributionTest, ItemDrainsTheQueue) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginStep(1)
      .Kernel("a", kNsPerMs)
      .Item()
      .BeginOp("aten::add")
      .Spend(300 * kNsPerUs)
      .Kernel("b", kNsPerMs)
      .End()
      .Sync()
      .EndStep();
  auto a = Analyse(s);
  ExpectAccountingHolds(*a);
  // The D2H copy ends at 1.007 ms; b starts at 1.312 ms.
  EXPECT_EQ(CauseNs(a->idle(), IdleCause::kSyncCall), 305 * kNsPerUs);
}

TEST(IdleAttributionTest, PageableCopyCallAndSilentHost) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.Kernel("a", 10 * kNsPerUs).Idle(kNsPerMs).CopyH2D(1 << 20, 100 * kNsPerUs,
                                                      MemorySpace::kPageable);
  auto a = Analyse(s);
  ExpectAccountingHolds(*a);
  EXPECT_FALSE(a->ctx->steps().from_markers);
  EXPECT_EQ(CauseNs(a->idle(), IdleCause::kPageableCopy), 8 * kNsPerUs);
  // a runs 5..15 us; the host idles until 1.005 ms, then stages the copy.
  EXPECT_EQ(CauseNs(a->idle(), IdleCause::kHostSilent), 990 * kNsPerUs);
}

TEST(IdleAttributionTest, EarlyLaunchedWorkIsDeviceWait) {
  Scenario s;
  s.Device(DeviceSpec::A100(0)).Device(DeviceSpec::A100(1));
  // Device 1 computes 3 ms; device 0 must wait for it before b and before
  // the all-reduce, both launched at once.
  s.Kernel("a", kNsPerMs)
      .Kernel("x", 3 * kNsPerMs, KernelOptions{.stream = {1, testing::kComputeStream}})
      .StreamWait({0, testing::kComputeStream}, {1, testing::kComputeStream})
      .Kernel("b", kNsPerMs);
  auto a = Analyse(s);
  ExpectAccountingHolds(*a);
  EXPECT_GT(CauseNs(a->idle(), IdleCause::kDeviceWaitOther), 1900 * kNsPerUs);

  Scenario c;
  c.Device(DeviceSpec::A100(0)).Device(DeviceSpec::A100(1));
  c.Kernel("a", kNsPerMs)
      .Kernel("x", 3 * kNsPerMs, KernelOptions{.stream = {1, testing::kComputeStream}})
      .StreamWait({0, testing::kCommStream}, {1, testing::kComputeStream})
      .AllReduce(1 << 20, kNsPerMs);
  auto b = Analyse(c);
  ExpectAccountingHolds(*b);
  EXPECT_GT(CauseNs(b->idle(), IdleCause::kDeviceWaitCollective), 1900 * kNsPerUs);
  EXPECT_EQ(CauseNs(b->idle(), IdleCause::kDeviceWaitOther), 0);
}

// docs/design/domain.md step 2: "launched before" means the launch call *ended* before
// the gap began. b's launch call starts while a runs but takes 1.4 ms
// (module loading), so the device idles 400 us inside that call: a launch
// stall in the runtime, not a device-side wait (the old start-of-call test).
TEST(IdleAttributionTest, LaunchCallSpanningTheGapIsLaunchStall) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginStep(1)
      .Kernel("a", kNsPerMs)
      .Kernel("b", kNsPerMs, KernelOptions{.launch_ns = 1400 * kNsPerUs})
      .Sync()
      .EndStep();
  auto a = Analyse(s);
  ExpectAccountingHolds(*a);
  // a: 5..1005 us; b's call: 5..1405 us, b starts at its end.
  EXPECT_EQ(CauseNs(a->idle(), IdleCause::kLaunchStall), 400 * kNsPerUs);
  EXPECT_EQ(CauseNs(a->idle(), IdleCause::kDeviceWaitOther), 0);
}

// A slow launch right after a sync: the runtime stalled (first-launch module
// loading), not the sync, so the gap is not host-side-ops' time.
TEST(IdleAttributionTest, SlowLaunchAfterSyncIsLaunchStall) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginStep(1)
      .Kernel("a", kNsPerMs)
      .Sync()
      .Kernel("b", kNsPerMs, KernelOptions{.launch_ns = 400 * kNsPerUs})
      .Sync()
      .EndStep();
  auto a = Analyse(s);
  ExpectAccountingHolds(*a);
  EXPECT_EQ(CauseNs(a->idle(), IdleCause::kLaunchStall), 400 * kNsPerUs);
  EXPECT_EQ(CauseNs(a->idle(), IdleCause::kSyncCall), 0);
  // The same launch at the normal cost: the sync drained the queue.
  Scenario fast;
  fast.Device(DeviceSpec::A100());
  fast.BeginStep(1).Kernel("a", kNsPerMs).Sync().Kernel("b", kNsPerMs).Sync().EndStep();
  auto b = Analyse(fast);
  EXPECT_EQ(CauseNs(b->idle(), IdleCause::kLaunchStall), 0);
  EXPECT_EQ(CauseNs(b->idle(), IdleCause::kSyncCall), 5 * kNsPerUs);
}

// Blocking calls are synchronizing on every vendor: the GPU runs dry while
// the host waits in them, whatever the host does next.
TEST(IdleAttributionTest, HipBlockingCallsAreSyncCalls) {
  for (std::string_view api : {"hipMemcpyWithStream", "hipMemcpy", "hipStreamSynchronize",
                               "hipDeviceSynchronize", "hipEventSynchronize"}) {
    Scenario s;
    s.Device(DeviceSpec::A100());
    s.BeginStep(1).Kernel("a", kNsPerMs).Sync({}, api).Idle(500 * kNsPerUs).Kernel("b", kNsPerMs);
    s.Sync().EndStep();
    auto a = Analyse(s);
    ExpectAccountingHolds(*a);
    EXPECT_EQ(CauseNs(a->idle(), IdleCause::kSyncCall), 500 * kNsPerUs + 5 * kNsPerUs) << api;
    EXPECT_EQ(CauseNs(a->idle(), IdleCause::kHostSilent), 0) << api;
  }
}

// After a sync returns, the sync owns the gap for at most as long as it
// waited for the GPU (the lead the host could have had without it): a 1 ms
// silence after waiting 200 us is 200 us of sync and 800 us of silence, and
// the same silence after waiting 2 ms is all the sync's.
TEST(IdleAttributionTest, DrainedQueueIsChargedUpToTheWait) {
  for (TimeNs kernel_ns : {200 * kNsPerUs, 2 * kNsPerMs}) {
    Scenario s;
    s.Device(DeviceSpec::A100());
    s.BeginStep(1).Kernel("a", kernel_ns).Sync().Idle(kNsPerMs).Kernel("b", kNsPerMs);
    s.Sync().EndStep();
    auto a = Analyse(s);
    ExpectAccountingHolds(*a);
    const IdleAttribution& idle = a->idle();
    TimeNs gap_ns = kNsPerMs + 5 * kNsPerUs;  // the silence and b's launch call
    TimeNs sync_ns = CauseNs(idle, IdleCause::kSyncCall);
    if (kernel_ns > gap_ns) {
      EXPECT_EQ(sync_ns, gap_ns);
    } else {
      // The wait: from the sync call's start to the end of "a".
      EXPECT_GT(sync_ns, kernel_ns - 10 * kNsPerUs);
      EXPECT_LE(sync_ns, kernel_ns);
      EXPECT_EQ(sync_ns + CauseNs(idle, IdleCause::kHostSilent) +
                    CauseNs(idle, IdleCause::kOtherHostWork),
                gap_ns);
      EXPECT_GT(CauseNs(idle, IdleCause::kHostSilent), 700 * kNsPerUs);
    }
  }
}

TEST(IdleAttributionTest, UnlinkedWorkIsUnattributed) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.WithoutCorrelation().BeginStep(1).DataLoaderNext(kNsPerMs).Kernel("k", kNsPerMs).Sync();
  s.EndStep();
  auto a = Analyse(s);
  ExpectAccountingHolds(*a);
  EXPECT_EQ(CauseNs(a->idle(), IdleCause::kDataLoader), 0);
  EXPECT_GT(CauseNs(a->idle(), IdleCause::kUnattributed), 0);
}

// A graph replay the host launched late is the host's, as any launch: the
// DataLoader ran before the cudaGraphLaunch. A gap between two nodes of a
// replay whose launch had returned is the replay's own order, which the
// trace does not show: unattributed.
TEST(IdleAttributionTest, GraphReplaysLaunchedLateAreTheHostsGapsInsideThemAreNot) {
  constexpr TimeNs kInnerGapNs = 300 * kNsPerUs;
  for (bool inner_gap : {false, true}) {
    SCOPED_TRACE(inner_gap ? "gap between the replay's nodes" : "nodes back to back");
    Scenario g;
    g.Device(DeviceSpec::A100());
    g.BeginStep(1).DataLoaderNext(kNsPerMs).GraphLaunch({{"g1", kNsPerMs}, {"g2", kNsPerMs}});
    g.Sync().EndStep();
    if (inner_gap) {
      // g2 starts later; the sync and the step wait for it.
      g.Edit([&](testing::ScenarioEvent& e) {
        if (e.name == "g2") e.ts_ns += kInnerGapNs;
        if (e.name == "cudaStreamSynchronize" || e.name.starts_with("ProfilerStep#")) {
          e.dur_ns += kInnerGapNs;
        }
        return true;
      });
    }
    auto b = Analyse(g);
    ExpectAccountingHolds(*b);
    EXPECT_EQ(CauseNs(b->idle(), IdleCause::kDataLoader), kNsPerMs);
    EXPECT_EQ(CauseNs(b->idle(), IdleCause::kUnattributed), inner_gap ? kInnerGapNs : 0);
  }
}

TEST(IdleAttributionTest, CpuOnlyTraceHasNoPieces) {
  Scenario s;
  s.BeginStep(1).HostOp("aten::mm", kNsPerMs).EndStep();
  auto a = Analyse(s);
  EXPECT_TRUE(a->idle().pieces.empty());
  EXPECT_EQ(a->idle().total_idle_ns, 0);
}

TEST(IdleCauseNameTest, StableNames) {
  EXPECT_EQ(IdleCauseName(IdleCause::kDataLoader), "data_loader");
  EXPECT_EQ(IdleCauseName(IdleCause::kLaunchStall), "launch_stall");
  EXPECT_EQ(IdleCauseName(IdleCause::kDeviceWaitCollective), "device_wait_collective");
  EXPECT_EQ(IdleCauseName(IdleCause::kUnattributed), "unattributed");
}

}  // namespace
}  // namespace tracelint
