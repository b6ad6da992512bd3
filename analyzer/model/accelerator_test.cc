#include "analyzer/model/accelerator.h"

#include "gtest/gtest.h"

namespace tracelint {
namespace {

DeviceInfo Device(std::string name, std::string vendor, int major, int minor) {
  DeviceInfo d;
  d.name = std::move(name);
  d.vendor = std::move(vendor);
  d.compute_major = major;
  d.compute_minor = minor;
  return d;
}

TEST(DeviceArchitecture, NvidiaIsItsComputeCapabilityAmdItsGfxTarget) {
  EXPECT_EQ(DeviceArchitecture(Device("NVIDIA A100-SXM4-40GB", "NVIDIA", 8, 0)), "CC 8.0");
  // ROCm reports gfx942 as 9.4 and gfx90a as 9.0: the product settles it.
  EXPECT_EQ(DeviceArchitecture(Device("AMD Instinct MI300X VF", "AMD", 9, 4)), "gfx942");
  EXPECT_EQ(DeviceArchitecture(Device("AMD Instinct MI250X", "", 9, 0)), "gfx90a");
  EXPECT_EQ(DeviceArchitecture(Device("AMD Instinct MI100", "AMD", 9, 0)), "gfx908");
  EXPECT_EQ(DeviceArchitecture(Device("AMD Radeon Graphics", "AMD", 9, 4)), "gfx942");
  EXPECT_EQ(DeviceArchitecture(Device("AMD Radeon Graphics", "AMD", 9, 0)), "gfx90x");
  EXPECT_EQ(DeviceArchitecture(Device("", "AMD", -1, -1)), "");
  EXPECT_EQ(DeviceArchitecture(Device("TPU v6 Lite", "Google", -1, -1)), "");
}

}  // namespace
}  // namespace tracelint
