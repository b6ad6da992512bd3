#include "analyzer/analysis/step_metrics.h"

#include <numeric>
#include <tuple>

#include "analyzer/analysis/analysis_context.h"
#include "tests/support/metrics_test_trace.h"
#include "analyzer/analysis/steps.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using metrics_test::DeviceOpts;
using metrics_test::TestTrace;

constexpr TimeNs Us(TimeNs us) { return us * kNsPerUs; }

TimeNs Cat(const DeviceMetrics& m, StepCategory c) {
  return m.breakdown_ns[static_cast<int>(c)];
}
TimeNs Sum(const DeviceMetrics& m) {
  return std::accumulate(m.breakdown_ns.begin(), m.breakdown_ns.end(), TimeNs{0});
}

DeviceOpts Kern(int64_t stream, int32_t grid_x, float occupancy_pct) {
  DeviceOpts o;
  o.stream = stream;
  o.grid_x = grid_x;
  o.occupancy_pct = occupancy_pct;
  return o;
}

// Kineto writes "est. achieved occupancy %": 0 when its calculator failed
// (a kernel that ran had warps resident): unknown, not 0%.
TEST(StepMetrics, ReportedZeroOccupancyIsUnknown) {
  TestTrace t;
  t.Device(0, 100)
      .Step(1, 0, 1000)
      .Op("aten::mm", 5, 25)
      .Kernel("ampere_fp16_s16816gemm_fp16_128x256_ldg8_f2f_stages_64x3_nn", 10, 100, 400,
              Kern(7, 5000, 0))
      .Kernel("vectorized_elementwise_kernel", 20, 500, 100, Kern(7, 200, 50));
  Timeline tl = std::move(t).Build();
  AnalysisContext ctx(tl);
  const DeviceMetrics& d = ctx.step_metrics().steps[0].devices[0];
  ASSERT_TRUE(d.est_achieved_occupancy.has_value());
  EXPECT_DOUBLE_EQ(*d.est_achieved_occupancy, 0.5);  // the one kernel that reports one
}

// Two kernels on two streams overlap for 200 us inside one 1000 us step.
TEST(StepMetrics, OverlappingKernelsOnTwoStreams) {
  TestTrace t;
  t.Device(0, 100)
      .Step(1, 0, 1000)
      .Op("aten::mm", 5, 25)
      .Kernel("ampere_sgemm_128x64_nn", 10, 100, 400, Kern(7, 50, 40))  // 0.5 of the SMs
      .Kernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn", 20, 300, 400,
              Kern(8, 200, 60));  // all SMs
  Timeline tl = std::move(t).Build();
  AnalysisContext ctx(tl);
  const StepMetrics& m = ctx.step_metrics();
  ASSERT_EQ(m.steps.size(), 1u);
  ASSERT_EQ(m.steps[0].devices.size(), 1u);
  const DeviceMetrics& d = m.steps[0].devices[0];
  EXPECT_EQ(d.step_ns, Us(1000));
  EXPECT_EQ(d.kernel_busy_ns, Us(600));  // union [100, 700), not 800
  EXPECT_DOUBLE_EQ(d.gpu_utilization, 0.6);
  EXPECT_DOUBLE_EQ(d.busy_including_copies, 0.6);
  // SM efficiency: 0.5 x 200 + min(1.5, 1) x 200 + 1 x 200 = 500 us of 1000.
  ASSERT_TRUE(d.est_sm_efficiency.has_value());
  EXPECT_DOUBLE_EQ(*d.est_sm_efficiency, 0.5);
  // Occupancy: (0.4 x 400 + 0.6 x 400) / 800.
  ASSERT_TRUE(d.est_achieved_occupancy.has_value());
  EXPECT_DOUBLE_EQ(*d.est_achieved_occupancy, 0.5);
  ASSERT_TRUE(d.tensor_core_kernel_share.has_value());
  EXPECT_DOUBLE_EQ(*d.tensor_core_kernel_share, 0.5);
  EXPECT_EQ(Cat(d, StepCategory::kKernel), Us(600));
  EXPECT_EQ(Cat(d, StepCategory::kRuntime), Us(2));   // two 1 us launches
  EXPECT_EQ(Cat(d, StepCategory::kCpuExec), Us(23));  // aten::mm minus its launches
  EXPECT_EQ(Cat(d, StepCategory::kOther), Us(375));
  EXPECT_EQ(Sum(d), d.step_ns);

  ASSERT_EQ(m.hta.size(), 1u);
  EXPECT_EQ(m.hta[0].span_ns(), Us(600));
  EXPECT_EQ(m.hta[0].idle_ns, 0);
  EXPECT_EQ(m.hta[0].compute_ns, Us(600));
  EXPECT_EQ(m.hta[0].non_compute_ns, 0);

  ASSERT_EQ(m.top_kernels.size(), 2u);
  // Equal time: name order breaks the tie.
  EXPECT_EQ(m.top_kernels[0].name, "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn");
  EXPECT_DOUBLE_EQ(m.top_kernels[0].share, 0.5);
  ASSERT_EQ(m.top_ops.size(), 1u);
  EXPECT_EQ(m.top_ops[0].name, "aten::mm");
  EXPECT_EQ(m.top_ops[0].count, 1);
  EXPECT_EQ(m.top_ops[0].kernel_count, 2);
  EXPECT_EQ(m.top_ops[0].device_ns, Us(800));
  EXPECT_DOUBLE_EQ(m.top_ops[0].share, 1.0);
}

// Gaps, a memcpy and a memset inside the step, a collective overlapped by
// compute, a data loader wait: every category of the priority order.
TEST(StepMetrics, BreakdownPriorityWithCopiesGapsAndCommunication) {
  DeviceOpts copy_stream;
  copy_stream.stream = 9;
  DeviceOpts comm_stream;
  comm_stream.stream = 23;
  TestTrace t;
  t.Device(0, 108)
      .Step(1, 0, 1000)
      .Launch(EventKind::kMemcpy, "Memcpy HtoD (Pageable -> Device)", 40, 50, 100, copy_stream)
      .Kernel("k1", 160, 200, 200)
      .Launch(EventKind::kMemset, "Memset (Device)", 170, 380, 40, copy_stream)
      .Op("record_param_comms", 450, 10)
      .Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 455, 500, 200, comm_stream)
      .Kernel("k2", 465, 600, 200)
      .Op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 850, 100);
  Timeline tl = std::move(t).Build();
  AnalysisContext ctx(tl);
  const StepMetrics& m = ctx.step_metrics();
  ASSERT_EQ(m.steps.size(), 1u);
  const DeviceMetrics& d = m.steps[0].devices[0];
  EXPECT_EQ(d.step_ns, Us(1000));
  EXPECT_EQ(Cat(d, StepCategory::kKernel), Us(400));
  EXPECT_EQ(Cat(d, StepCategory::kMemcpy), Us(100));
  EXPECT_EQ(Cat(d, StepCategory::kMemset), Us(20));          // 20 us under k1
  EXPECT_EQ(Cat(d, StepCategory::kCommunication), Us(110));  // 100 exposed NCCL + 10 host op
  EXPECT_EQ(Cat(d, StepCategory::kRuntime), Us(4));          // the 5th launch is inside the op
  EXPECT_EQ(Cat(d, StepCategory::kDataLoader), Us(100));
  EXPECT_EQ(Cat(d, StepCategory::kCpuExec), 0);
  EXPECT_EQ(Cat(d, StepCategory::kOther), Us(266));
  EXPECT_EQ(Sum(d), d.step_ns);
  // Collective kernels count towards utilization; copies do not.
  EXPECT_EQ(d.kernel_busy_ns, Us(500));
  EXPECT_DOUBLE_EQ(d.gpu_utilization, 0.5);
  EXPECT_DOUBLE_EQ(d.busy_including_copies, 0.62);
  EXPECT_FALSE(d.est_sm_efficiency.has_value());
  EXPECT_FALSE(d.est_achieved_occupancy.has_value());

  ASSERT_EQ(m.hta.size(), 1u);
  EXPECT_EQ(m.hta[0].span_start_ns, Us(50));
  EXPECT_EQ(m.hta[0].span_ns(), Us(750));
  EXPECT_EQ(m.hta[0].idle_ns, Us(130));
  EXPECT_EQ(m.hta[0].compute_ns, Us(400));
  EXPECT_EQ(m.hta[0].non_compute_ns, Us(220));

  // k1 and k2 were launched outside any op; NCCL by record_param_comms.
  ASSERT_EQ(m.top_ops.size(), 2u);
  EXPECT_EQ(m.top_ops[0].name, kNoHostOpName);
  EXPECT_EQ(m.top_ops[0].device_ns, Us(400));
  EXPECT_EQ(m.top_ops[1].name, "record_param_comms");
  EXPECT_EQ(m.total_kernel_ns, Us(600));
}

// A kernel launched by a collective op is Communication even without an
// NCCL name.
TEST(StepMetrics, KernelLaunchedByCollectiveOpIsCommunication) {
  TestTrace t;
  t.Device(0, 108)
      .Step(1, 0, 100)
      .Op("nccl:all_reduce", 10, 20)
      .Kernel("void at::native::vectorized_elementwise_kernel<4>", 15, 40, 30);
  Timeline tl = std::move(t).Build();
  AnalysisContext ctx(tl);
  const DeviceMetrics& d = ctx.step_metrics().steps[0].devices[0];
  EXPECT_EQ(Cat(d, StepCategory::kKernel), 0);
  EXPECT_EQ(Cat(d, StepCategory::kCommunication), Us(50));  // [10, 70)
  EXPECT_EQ(d.kernel_busy_ns, Us(30));
  EXPECT_EQ(Sum(d), Us(100));
}

// Kernels that end after the host step: each step extends to them, and the
// next starts where they end.
TEST(StepMetrics, KernelsFinishingAfterTheHostStep) {
  TestTrace t;
  t.Device(0, 108)
      .Step(1, 0, 100)
      .Kernel("k", 50, 90, 160)  // [90, 250)
      .Step(2, 150, 150)
      .Kernel("k", 200, 250, 150);  // [250, 400)
  Timeline tl = std::move(t).Build();
  AnalysisContext ctx(tl);
  const StepMetrics& m = ctx.step_metrics();
  ASSERT_EQ(m.steps.size(), 2u);
  EXPECT_EQ(m.steps[0].end_ns, Us(250));
  EXPECT_EQ(m.steps[1].start_ns, Us(250));
  EXPECT_EQ(m.steps[1].end_ns, Us(400));
  EXPECT_DOUBLE_EQ(m.steps[0].devices[0].gpu_utilization, 160.0 / 250);
  EXPECT_DOUBLE_EQ(m.steps[1].devices[0].gpu_utilization, 1.0);
  ASSERT_EQ(m.summary.size(), 1u);
  EXPECT_EQ(m.summary[0].step_ns, Us(400));
  EXPECT_DOUBLE_EQ(m.summary[0].gpu_utilization, 310.0 / 400);
  EXPECT_EQ(m.step_count, 2);
  EXPECT_EQ(m.mean_step_ns, Us(200));
  EXPECT_EQ(Sum(m.summary[0]), Us(400));
  ASSERT_EQ(m.top_kernels.size(), 1u);
  EXPECT_EQ(m.top_kernels[0].count, 2);
  EXPECT_EQ(m.top_kernels[0].mean_ns, Us(155));
}

TEST(StepMetrics, NoStepsUsesOneWindow) {
  TestTrace t;
  t.Device(0, 108).Op("aten::add", 100, 20).Kernel("k", 110, 200, 100);
  Timeline tl = std::move(t).Build();
  AnalysisContext ctx(tl);
  const StepMetrics& m = ctx.step_metrics();
  ASSERT_EQ(m.steps.size(), 1u);
  EXPECT_EQ(m.steps[0].number, 0);
  EXPECT_EQ(m.mean_step_ns, Us(200));  // [100, 300)
  EXPECT_DOUBLE_EQ(m.summary[0].gpu_utilization, 0.5);
  EXPECT_FALSE(ctx.steps().notes.empty());
}

// A kernel straddling two steps is split between them.
TEST(StepMetrics, KernelClippedToSteps) {
  TestTrace t;
  t.Device(0, 100)
      .Step(1, 0, 100)
      .Step(2, 100, 100)
      .Kernel("k", 150, 150, 10, Kern(7, 100, 50))
      .Device(EventKind::kKernel, "graph_kernel", 50, 100, Kern(7, 100, 50));
  Timeline tl = std::move(t).Build();
  AnalysisContext ctx(tl);
  const StepMetrics& m = ctx.step_metrics();
  ASSERT_EQ(m.steps.size(), 2u);
  EXPECT_EQ(m.steps[0].devices[0].kernel_ns, Us(50));
  EXPECT_EQ(m.steps[1].devices[0].kernel_ns, Us(60));
  EXPECT_DOUBLE_EQ(*m.steps[0].devices[0].est_sm_efficiency, 0.5);
  EXPECT_DOUBLE_EQ(*m.summary[0].est_sm_efficiency, 110.0 / 200);
  // A kernel with no launch is a pseudo-op of its own.
  ASSERT_EQ(m.top_ops.size(), 2u);
  EXPECT_EQ(m.top_ops[0].name, kUnlinkedKernelName);
}

TEST(StepMetrics, SmEfficiencyFromBlocksPerSmWithoutSmCount) {
  TimelineBuilder b;
  TrackId stream = b.GetTrack(TrackKind::kDeviceStream, 0, 7);
  SliceSpec k;
  k.track = stream;
  k.ts_ns = 0;
  k.dur_ns = Us(100);
  k.name = b.Intern("k");
  k.kind = EventKind::kKernel;
  b.AddSlice(k);
  b.AddDetails().blocks_per_sm = 0.25f;
  absl::StatusOr<Timeline> tl = std::move(b).Finalize();
  ASSERT_TRUE(tl.ok());
  AnalysisContext ctx(*tl);
  const DeviceMetrics& d = ctx.step_metrics().summary[0];
  ASSERT_TRUE(d.est_sm_efficiency.has_value());
  EXPECT_DOUBLE_EQ(*d.est_sm_efficiency, 0.25);
}

TEST(StepMetrics, TopOpsUseTheOutermostOpAndDtypeDecidesAttention) {
  TestTrace t;
  t.Device(0, 108).Step(1, 0, 1000);
  for (int i = 0; i < 2; ++i) {
    TimeNs base = 100 * i;
    t.Op("aten::linear", base + 10, 50)
        .Op("aten::addmm", base + 20, 30)
        .Kernel("ampere_sgemm_64x64_nn", base + 25, 500 + base, 40);
  }
  t.Op("aten::_flash_attention_forward", 300, 50, metrics_test::kMainThread,
       R"(["c10::BFloat16", "c10::BFloat16", "", "Scalar"])")
      .Kernel("void flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128>>", 310, 800, 120);
  Timeline tl = std::move(t).Build();
  AnalysisContext ctx(tl);
  const StepMetrics& m = ctx.step_metrics();
  ASSERT_EQ(m.top_ops.size(), 2u);
  EXPECT_EQ(m.top_ops[0].name, "aten::_flash_attention_forward");
  EXPECT_EQ(m.top_ops[1].name, "aten::linear");
  EXPECT_EQ(m.top_ops[1].count, 2);
  EXPECT_EQ(m.top_ops[1].kernel_count, 2);
  EXPECT_EQ(m.top_ops[1].mean_device_ns, Us(40));
  // 120 us of flash (bf16: Tensor Cores) out of 200 us of kernels.
  EXPECT_DOUBLE_EQ(*m.summary[0].tensor_core_kernel_share, 0.6);
}

TEST(StepMetrics, HostOnlyRank) {
  TestTrace t;
  t.Step(1, 0, 100).Op("aten::add", 10, 30);
  Timeline tl = std::move(t).Build();
  AnalysisContext ctx(tl);
  const StepMetrics& m = ctx.step_metrics();
  ASSERT_EQ(m.summary.size(), 1u);
  EXPECT_EQ(m.summary[0].device, -1);
  EXPECT_EQ(Cat(m.summary[0], StepCategory::kCpuExec), Us(30));
  EXPECT_EQ(Cat(m.summary[0], StepCategory::kOther), Us(70));
  EXPECT_TRUE(m.hta.empty());
  EXPECT_FALSE(m.summary[0].tensor_core_kernel_share.has_value());
}

}  // namespace
}  // namespace tracelint

namespace tracelint {
namespace {

// SM efficiency counts kernels without launch dims as 0; it is shown only
// when dims cover at least kMinSmEfficiencyCoverage of the kernel time.
TEST(StepMetrics, SmEfficiencyNeedsLaunchDimsOnMostKernelTime) {
  DeviceOpts no_dims;  // grid_x 0: the trace recorded no launch configuration
  for (auto [with_dims_us, without_dims_us, shown] :
       {std::tuple{100, 300, false}, std::tuple{300, 100, true}}) {
    TestTrace t;
    t.Device(0, 100)
        .Step(1, 0, 1000)
        .Kernel("k_dims", 10, 100, with_dims_us, Kern(7, 100, -1))
        .Kernel("k_nodims", 20, 500, without_dims_us, no_dims);
    Timeline tl = std::move(t).Build();
    AnalysisContext ctx(tl);
    const DeviceMetrics& d = ctx.step_metrics().summary.at(0);
    ASSERT_TRUE(d.sm_efficiency_coverage.has_value());
    EXPECT_DOUBLE_EQ(*d.sm_efficiency_coverage,
                     static_cast<double>(with_dims_us) / (with_dims_us + without_dims_us));
    EXPECT_EQ(d.est_sm_efficiency.has_value(), shown) << with_dims_us;
    if (shown) {
      EXPECT_DOUBLE_EQ(*d.est_sm_efficiency, 0.3);
    }
  }
}

}  // namespace
}  // namespace tracelint

namespace tracelint {
namespace {

// Huge in-range kernel durations on three streams: their summed time
// saturates int64 while the occupancy-weighted sum (a double) does not,
// which made est_achieved_occupancy 1.5 and the JSON report fail its own
// schema (issue 31 point 5). Every share and occupancy is clamped to [0, 1]
// where it is computed.
TEST(StepMetrics, SharesStayInRangeWithSaturatingSums) {
  constexpr TimeNs kHugeUs = TimeNs{4'000'000'000'000'000};  // 4e18 ns: 2^62 is 4.6e18
  TestTrace t;
  t.Device(0, 100)
      .Step(1, 0, kHugeUs + 1000)
      .Op("aten::mm", 5, 25)
      .Kernel("ampere_sgemm_128x64_nn", 10, 100, kHugeUs, Kern(7, 50, 100))
      .Kernel("ampere_sgemm_128x64_nn", 11, 100, kHugeUs, Kern(8, 50, 100))
      .Kernel("ampere_sgemm_128x64_nn", 12, 100, kHugeUs, Kern(9, 50, 100));
  Timeline tl = std::move(t).Build();
  AnalysisContext ctx(tl);
  ASSERT_FALSE(ctx.step_metrics().steps.empty());
  for (const StepRow& row : ctx.step_metrics().steps) {
    for (const DeviceMetrics& d : row.devices) {
      for (double v : {d.gpu_utilization, d.busy_including_copies,
                       d.est_achieved_occupancy.value_or(0), d.est_sm_efficiency.value_or(0),
                       d.sm_efficiency_coverage.value_or(0),
                       d.tensor_core_kernel_share.value_or(0)}) {
        EXPECT_GE(v, 0);
        EXPECT_LE(v, 1);
      }
      ASSERT_TRUE(d.est_achieved_occupancy.has_value());
      EXPECT_DOUBLE_EQ(*d.est_achieved_occupancy, 1.0);
    }
  }
}

}  // namespace
}  // namespace tracelint
