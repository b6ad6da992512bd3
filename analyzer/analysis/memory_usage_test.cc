#include "analyzer/analysis/memory_usage.h"

#include <algorithm>

#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/model/timeline_builder.h"
#include "tests/support/scenario.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using testing::DeviceSpec;
using testing::Scenario;

constexpr char kGemm[] = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn";
constexpr int64_t kMiB = 1 << 20;

MemoryUsage UsageOf(const Scenario& s) {
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  EXPECT_TRUE(tl.ok()) << tl.status();
  if (!tl.ok()) return {};
  StepSet steps = ComputeSteps(*tl);
  return ComputeMemoryUsage(*tl, steps, steps);
}

// Three steps; each allocates `step_bytes` of activations and frees them,
// on top of `resident_bytes` of weights allocated before the first.
Scenario Training(int64_t resident_bytes, int64_t step_bytes,
                  const DeviceSpec& device = DeviceSpec::A100()) {
  Scenario s;
  s.Device(device);
  s.Allocate(resident_bytes);
  for (int k = 0; k < 3; ++k) {
    s.BeginStep(k).BeginOp("aten::linear").Allocate(step_bytes).Kernel(kGemm, kNsPerMs).End();
    s.Allocate(-step_bytes).Sync().EndStep();
  }
  return s;
}

TEST(MemoryUsage, NotRecordedWithoutAllocatorEvents) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginStep(0).Kernel(kGemm, kNsPerMs).Sync().EndStep();
  MemoryUsage m = UsageOf(s);
  EXPECT_FALSE(m.recorded());
  EXPECT_EQ(m.Fullest(), nullptr);
}

TEST(MemoryUsage, PeaksAreTheAllocatorTotalsAndTheirStep) {
  const int64_t weights = 3000 * kMiB;
  const int64_t activations = 1000 * kMiB;
  MemoryUsage m = UsageOf(Training(weights, activations));
  ASSERT_EQ(m.devices.size(), 1u);
  const DeviceMemoryUsage& d = m.devices[0];
  EXPECT_EQ(d.device, 0);
  EXPECT_EQ(d.samples, 7);
  EXPECT_EQ(d.peak_allocated_bytes, weights + activations);
  EXPECT_EQ(d.peak_reserved_bytes, weights + activations);  // whole 2 MiB segments
  EXPECT_EQ(d.peak_step, 0);  // the first time the total reached its peak
  EXPECT_EQ(d.total_memory_bytes, DeviceSpec::A100().total_memory_bytes);
  ASSERT_TRUE(d.peak_allocated_share.has_value());
  EXPECT_NEAR(*d.peak_allocated_share,
              static_cast<double>(weights + activations) / DeviceSpec::A100().total_memory_bytes,
              1e-12);
  EXPECT_EQ(d.state, MemoryState::kHeadroom);
  EXPECT_EQ(m.Fullest(), &m.devices[0]);
  EXPECT_EQ(DescribeMemory(d), "peak allocated 3.91 GiB (9.9% of 39.41 GiB), reserved 3.91 GiB (9.9%)");
}

// The curve the HTML report draws: at most kMemoryCurvePoints slices of
// the window, each holding its largest totals, so a short peak survives and
// a total holds between events.
TEST(MemoryUsage, CurveKeepsThePeakAndHoldsBetweenEvents) {
  const int64_t weights = 3000 * kMiB;
  const int64_t activations = 1000 * kMiB;
  DeviceMemoryUsage d = UsageOf(Training(weights, activations)).devices[0];
  ASSERT_FALSE(d.curve.empty());
  EXPECT_LE(d.curve.size(), kMemoryCurvePoints);
  int64_t top = 0;
  for (const MemoryCurvePoint& p : d.curve) {
    top = std::max(top, p.allocated_bytes);
    // Never below the weights once they are allocated (the first event).
    EXPECT_GE(p.allocated_bytes, weights);
    EXPECT_GE(p.reserved_bytes, p.allocated_bytes);
  }
  EXPECT_EQ(top, d.peak_allocated_bytes);
  for (size_t i = 1; i < d.curve.size(); ++i) EXPECT_GT(d.curve[i].ts_ns, d.curve[i - 1].ts_ns);
  EXPECT_LT(d.curve.back().ts_ns, d.curve_end_ns + 1);
  // Between steps the activations are freed: the curve comes back down.
  size_t peaks = 0, troughs_after_peak = 0;
  for (const MemoryCurvePoint& p : d.curve) {
    if (p.allocated_bytes == weights + activations) ++peaks;
    if (peaks > 0 && p.allocated_bytes == weights) ++troughs_after_peak;
  }
  EXPECT_GT(troughs_after_peak, 0u);
}

// Timestamps a hostile file can carry: a window wider than int64 must
// neither overflow nor lose the peak.
TEST(MemoryUsage, ExtremeTimestampsStayDefined) {
  TimelineBuilder b;
  const StringId allocated = b.Intern("Total Allocated");
  b.AddCounter({allocated, 0, -4'000'000'000'000'000'000, 100});
  b.AddCounter({allocated, 0, 0, 300});
  b.AddCounter({allocated, 0, 5'000'000'000'000'000'000, 200});
  absl::StatusOr<Timeline> tl = std::move(b).Finalize();
  ASSERT_TRUE(tl.ok()) << tl.status();
  StepSet none;
  MemoryUsage m = ComputeMemoryUsage(*tl, none, none);
  ASSERT_EQ(m.devices.size(), 1u);
  EXPECT_EQ(m.devices[0].peak_allocated_bytes, 300);
  ASSERT_EQ(m.devices[0].curve.size(), kMemoryCurvePoints);
  int64_t top = 0;
  for (const MemoryCurvePoint& p : m.devices[0].curve) top = std::max(top, p.allocated_bytes);
  EXPECT_EQ(top, 300);
  EXPECT_EQ(m.devices[0].curve.front().allocated_bytes, 100);
  EXPECT_EQ(m.devices[0].curve_end_ns, 5'000'000'000'000'000'000);
}

// docs/design/domain.md: headroom below 25% of the device, pressure from 90% reserved.
// One case on each side of each threshold, 1 MiB apart.
TEST(MemoryUsage, HeadroomThreshold) {
  const int64_t total = DeviceSpec::A100().total_memory_bytes;
  const int64_t quarter = static_cast<int64_t>(total * kMemoryHeadroomMaxShare);
  EXPECT_EQ(UsageOf(Training(quarter - 2 * kMiB, kMiB)).devices[0].state, MemoryState::kHeadroom);
  EXPECT_EQ(UsageOf(Training(quarter, kMiB)).devices[0].state, MemoryState::kNormal);
}

TEST(MemoryUsage, PressureThresholdIsOnReservedMemory) {
  const int64_t total = DeviceSpec::A100().total_memory_bytes;
  const int64_t ninety = static_cast<int64_t>(total * kMemoryPressureMinShare);
  // Reserved rounds up to 2 MiB: keep both cases clear of the rounding.
  EXPECT_EQ(UsageOf(Training(ninety - 8 * kMiB, kMiB)).devices[0].state, MemoryState::kNormal);
  MemoryUsage over = UsageOf(Training(ninety + 2 * kMiB, kMiB));
  EXPECT_EQ(over.devices[0].state, MemoryState::kPressure);
  EXPECT_GE(*over.devices[0].peak_reserved_share, kMemoryPressureMinShare);
}

TEST(MemoryUsage, UnknownDeviceSizeJudgesNothing) {
  DeviceSpec unnamed = DeviceSpec::A100();
  unnamed.total_memory_bytes = -1;
  MemoryUsage m = UsageOf(Training(100 * kMiB, kMiB, unnamed));
  ASSERT_EQ(m.devices.size(), 1u);
  EXPECT_EQ(m.devices[0].state, MemoryState::kUnknown);
  EXPECT_FALSE(m.devices[0].peak_allocated_share.has_value());
  EXPECT_EQ(m.Fullest(), nullptr);
  EXPECT_EQ(DescribeMemory(m.devices[0]), "peak allocated 101.0 MiB, reserved 102.0 MiB");
}

TEST(MemoryUsage, DevicesAreKeptApartAndTheFullestNamed) {
  Scenario s;
  s.Device(DeviceSpec::A100(0)).Device(DeviceSpec::A100(1));
  s.Allocate(100 * kMiB, 0).Allocate(30000 * kMiB, 1).Idle(kNsPerMs);
  s.BeginStep(0).Kernel(kGemm, kNsPerMs).Sync().EndStep();
  MemoryUsage m = UsageOf(s);
  ASSERT_EQ(m.devices.size(), 2u);
  EXPECT_EQ(m.devices[0].peak_allocated_bytes, 100 * kMiB);
  EXPECT_EQ(m.devices[1].peak_allocated_bytes, 30000 * kMiB);
  EXPECT_EQ(m.devices[0].peak_step, -1);  // before the first step
  ASSERT_NE(m.Fullest(), nullptr);
  EXPECT_EQ(m.Fullest()->device, 1);
  EXPECT_EQ(m.devices[1].state, MemoryState::kNormal);
}

// TensorFlow and JAX reserve most of the device up front: their reserved
// total is no sign of pressure, what they allocate is.
TEST(MemoryUsage, PreallocatingFrameworksAreJudgedOnAllocatedMemory) {
  const int64_t total = DeviceSpec::A100().total_memory_bytes;
  const int64_t reserved_up_front = total / 100 * 95;
  for (const char* framework : {"JAX", "TensorFlow", "PyTorch"}) {
    Scenario s;
    s.Device(DeviceSpec::A100()).Framework(framework);
    s.Reserve(reserved_up_front).Allocate(12000 * kMiB).Idle(kNsPerMs);
    s.BeginStep(0).Kernel(kGemm, kNsPerMs).Sync().EndStep();
    MemoryUsage m = UsageOf(s);
    ASSERT_EQ(m.devices.size(), 1u) << framework;
    const bool pytorch = std::string_view(framework) == "PyTorch";
    EXPECT_EQ(m.devices[0].state, pytorch ? MemoryState::kPressure : MemoryState::kNormal)
        << framework;
    EXPECT_NEAR(*m.devices[0].held_share, pytorch ? 0.95 : 12000.0 * kMiB / total, 0.01)
        << framework;
  }
}

TEST(MemoryUsage, AdviceFollowsTheStateAndTheJob) {
  const int64_t total = DeviceSpec::A100().total_memory_bytes;
  JobProfile training;
  training.kind = JobKind::kTraining;
  JobProfile inference;
  inference.kind = JobKind::kInference;
  DeviceMemoryUsage small = UsageOf(Training(1000 * kMiB, kMiB)).devices[0];
  EXPECT_EQ(MemoryAdvice(small, training, "GPU"),
            "GPU 0 holds under 25% of its memory at the peak: there is room for a larger batch "
            "where small kernels or launch overhead bound the step");
  EXPECT_NE(MemoryAdvice(small, inference, "GPU").find("more requests per batch"),
            std::string::npos);
  DeviceMemoryUsage normal = UsageOf(Training(total / 2, kMiB)).devices[0];
  EXPECT_EQ(MemoryAdvice(normal, training, "GPU"), "");
  // Full and stable (a tuned job, an engine's KV cache): a fact, no fix.
  DeviceMemoryUsage full = UsageOf(Training(total / 100 * 95, kMiB)).devices[0];
  EXPECT_EQ(MemoryAdvice(full, training, "GPU"),
            "GPU 0 holds 95% of its memory at the peak: a larger batch will not fit");
  EXPECT_EQ(MemoryAdvice(full, inference, "GPU").find("KV cache"), std::string::npos);
  JobProfile llm_serving = inference;
  llm_serving.llm = true;
  EXPECT_NE(MemoryAdvice(full, llm_serving, "GPU").find("KV cache on purpose"),
            std::string::npos);
}

// Full and giving memory back inside the steps: the allocator is short of
// room, and each release waits for the device.
TEST(MemoryUsage, ReleasesInsideTheStepsCarryTheFix) {
  const int64_t total = DeviceSpec::A100().total_memory_bytes;
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.Allocate(total / 100 * 95).Idle(kNsPerMs);
  s.HostCall("cudaFree", 50 * kNsPerUs);  // before the steps: not counted
  for (int k = 0; k < 2; ++k) {
    s.BeginStep(k).Kernel(kGemm, kNsPerMs).HostCall("cudaFree", 200 * kNsPerUs);
    s.Sync().EndStep();
  }
  DeviceMemoryUsage m = UsageOf(s).devices[0];
  EXPECT_EQ(m.release_calls, 2);
  EXPECT_EQ(m.release_ns, 400 * kNsPerUs);
  JobProfile training;
  training.kind = JobKind::kTraining;
  std::string advice = MemoryAdvice(m, training, "GPU");
  EXPECT_NE(advice.find("gave memory back inside the steps (2 free calls, 400"),
            std::string::npos)
      << advice;
  EXPECT_NE(advice.find("expandable_segments:True"), std::string::npos) << advice;
  JobProfile jax;
  jax.framework = JobFramework::kJax;
  EXPECT_NE(MemoryAdvice(m, jax, "GPU").find("jax.checkpoint"), std::string::npos);
  // Below the pressure line the same releases call for nothing here.
  m.state = MemoryState::kNormal;
  EXPECT_EQ(MemoryAdvice(m, training, "GPU"), "");
}

}  // namespace
}  // namespace tracelint
