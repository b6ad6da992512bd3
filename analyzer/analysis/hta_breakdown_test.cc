#include "analyzer/analysis/hta_breakdown.h"

#include "analyzer/testing/scenario.h"
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

}  // namespace
}  // namespace tracelint
