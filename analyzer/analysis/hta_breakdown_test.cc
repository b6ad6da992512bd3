#include "analyzer/analysis/hta_breakdown.h"

#include "analyzer/model/timeline_builder.h"
#include "tests/support/scenario.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using testing::DeviceSpec;
using testing::Scenario;

constexpr char kGemm[] = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn";

// Each step: a 2 ms GEMM then a 1 ms all-reduce on the same stream, so the
// busy time is known by construction (3 ms, of which 2 ms compute).
Scenario Steps(int count) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 0; k < count; ++k) {
    s.BeginStep(k)
        .BeginOp("aten::mm")
        .Kernel(kGemm, 2 * kNsPerMs)
        .End()
        .AllReduce(1 << 20, 1 * kNsPerMs, {0, testing::kComputeStream})
        .Sync()
        .EndStep();
  }
  return s;
}

TEST(HtaBreakdown, KernelTypesByHtaNames) {
  EXPECT_EQ(HtaKernelTypeOf("ncclDevKernel_AllReduce_Sum_f32_RING_LL"),
            HtaKernelType::kCommunication);
  EXPECT_EQ(HtaKernelTypeOf("gloo:all_reduce"), HtaKernelType::kCommunication);
  EXPECT_EQ(HtaKernelTypeOf("Memcpy HtoD (Pageable -> Device)"), HtaKernelType::kMemory);
  EXPECT_EQ(HtaKernelTypeOf("Memset (Device)"), HtaKernelType::kMemory);
  // HTA's own rule: RCCL and custom all-reduce kernels count as computation.
  EXPECT_EQ(HtaKernelTypeOf("rcclGenericKernel"), HtaKernelType::kComputation);
  EXPECT_EQ(HtaKernelTypeOf("multimem_all_reduce_kernel"), HtaKernelType::kComputation);
  EXPECT_EQ(HtaKernelTypeOf(kGemm), HtaKernelType::kComputation);
}

// Three steps: HTA keeps only the GPU work launched before the last
// ProfilerStep starts, i.e. the first two steps.
TEST(HtaBreakdown, KeepsWorkLaunchedBeforeTheLastStep) {
  absl::StatusOr<Timeline> tl = Steps(3).BuildTimeline();
  ASSERT_TRUE(tl.ok()) << tl.status();
  std::vector<HtaBreakdown> hta = ComputeHtaBreakdown(*tl);
  ASSERT_EQ(hta.size(), 1u);
  const HtaBreakdown& h = hta[0];
  EXPECT_TRUE(h.launch_filter);
  EXPECT_EQ(h.excluded_activities, 2);
  EXPECT_EQ(h.compute_ns, 4 * kNsPerMs);
  EXPECT_EQ(h.non_compute_ns, 2 * kNsPerMs);
  EXPECT_EQ(h.idle_ns, h.span_ns() - 6 * kNsPerMs);
  EXPECT_GT(h.idle_ns, 0);
  // The span ends with the second step's all-reduce.
  const SliceColumns& c = tl->slices();
  TimeNs last_kept_end = 0;
  int collectives = 0;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (c.kind[s] == EventKind::kKernel && tl->HasFlag(s, kFlagCollective) && ++collectives == 2) {
      last_kept_end = c.end_ns(s);
    }
  }
  EXPECT_EQ(h.span_end_ns, last_kept_end);
}

// One step: HTA skips its filter and keeps everything.
TEST(HtaBreakdown, OneStepKeepsEverything) {
  absl::StatusOr<Timeline> tl = Steps(1).BuildTimeline();
  ASSERT_TRUE(tl.ok()) << tl.status();
  std::vector<HtaBreakdown> hta = ComputeHtaBreakdown(*tl);
  ASSERT_EQ(hta.size(), 1u);
  EXPECT_FALSE(hta[0].launch_filter);
  EXPECT_EQ(hta[0].excluded_activities, 0);
  EXPECT_EQ(hta[0].compute_ns, 2 * kNsPerMs);
  EXPECT_EQ(hta[0].non_compute_ns, 1 * kNsPerMs);
}

// XSpace: XLA names its copies copy-start/copy-done and its collectives
// all-reduce, so HTA's name rule would call them compute; their kind says.
TEST(HtaBreakdown, XSpaceCopiesAndCollectivesAreNonComputeByKind) {
  TimelineBuilder b;
  b.metadata().format = "xspace";
  TrackId ops = b.GetTrack(TrackKind::kDeviceStream, 0, 1);
  auto add = [&](const char* name, EventKind kind, TimeNs ts_ns, TimeNs dur_ns,
                 uint16_t flags = 0) {
    SliceSpec spec;
    spec.ts_ns = ts_ns;
    spec.dur_ns = dur_ns;
    spec.track = ops;
    spec.name = b.Intern(name);
    spec.kind = kind;
    spec.extra_flags = flags;
    b.AddSlice(spec);
  };
  add("fusion.1", EventKind::kKernel, 0, 2 * kNsPerMs);
  add("copy-start.4", EventKind::kMemcpy, 2 * kNsPerMs, kNsPerMs);
  add("all-reduce.7", EventKind::kKernel, 4 * kNsPerMs, kNsPerMs, kFlagCollective);
  absl::StatusOr<Timeline> tl = std::move(b).Finalize();
  ASSERT_TRUE(tl.ok()) << tl.status();
  std::vector<HtaBreakdown> hta = ComputeHtaBreakdown(*tl);
  ASSERT_EQ(hta.size(), 1u);
  EXPECT_TRUE(hta[0].by_kind);
  EXPECT_EQ(hta[0].compute_ns, 2 * kNsPerMs);
  EXPECT_EQ(hta[0].non_compute_ns, 2 * kNsPerMs);
  EXPECT_EQ(hta[0].idle_ns, kNsPerMs);
  // A Kineto trace keeps HTA's name rule.
  absl::StatusOr<Timeline> kineto = Steps(1).BuildTimeline();
  ASSERT_TRUE(kineto.ok());
  EXPECT_FALSE(ComputeHtaBreakdown(*kineto)[0].by_kind);
}

}  // namespace
}  // namespace tracelint
