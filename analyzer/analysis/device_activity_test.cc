#include "analyzer/analysis/device_activity.h"

#include "tests/support/metrics_test_trace.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using metrics_test::DeviceOpts;
using metrics_test::TestTrace;

constexpr TimeNs Us(TimeNs us) { return us * kNsPerUs; }

DeviceOpts On(int device, int64_t stream) {
  DeviceOpts o;
  o.device = device;
  o.stream = stream;
  return o;
}

TEST(DeviceActivity, UnionsOverStreamsPerDevice) {
  TestTrace t;
  t.Device(0, 108).Device(1, 108);
  t.Kernel("a", 0, 100, 400, On(0, 7))      // [100, 500)
      .Kernel("b", 1, 300, 400, On(0, 8))   // [300, 700) overlaps a
      .Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 2, 650, 100, On(0, 23))
      .Launch(EventKind::kMemcpy, "Memcpy HtoD (Pinned -> Device)", 3, 800, 50, On(0, 9))
      .Launch(EventKind::kMemcpy, "Memcpy DtoH (Device -> Pinned)", 4, 900, 10, On(0, 9))
      .Launch(EventKind::kMemset, "Memset (Device)", 5, 950, 5, On(0, 9))
      .Kernel("c", 6, 10, 20, On(1, 7));
  Timeline tl = std::move(t).Build();
  std::vector<DeviceActivity> a = ComputeDeviceActivity(tl);
  ASSERT_EQ(a.size(), 2u);
  const DeviceActivity& d0 = a[0];
  EXPECT_EQ(d0.device, 0);
  EXPECT_EQ(d0.kernel_count, 3);
  EXPECT_EQ(d0.memcpy_count, 2);
  EXPECT_EQ(d0.memset_count, 1);
  EXPECT_EQ(d0.kernels.TotalNs(), Us(650));             // [100, 750)
  EXPECT_EQ(d0.compute_kernels.TotalNs(), Us(600));     // [100, 700)
  EXPECT_EQ(d0.collective_kernels.TotalNs(), Us(100));  // [650, 750)
  EXPECT_EQ(d0.memcpy.TotalNs(), Us(60));
  EXPECT_EQ(d0.htod.TotalNs(), Us(50));
  EXPECT_EQ(d0.memset.TotalNs(), Us(5));
  EXPECT_EQ(d0.all.TotalNs(), Us(715));
  EXPECT_EQ(a[1].device, 1);
  EXPECT_EQ(a[1].kernels.TotalNs(), Us(20));
}

TEST(DeviceActivity, NoDeviceWorkNoEntries) {
  TestTrace t;
  t.Op("aten::add", 0, 10);
  Timeline tl = std::move(t).Build();
  EXPECT_TRUE(ComputeDeviceActivity(tl).empty());
}

}  // namespace
}  // namespace tracelint
