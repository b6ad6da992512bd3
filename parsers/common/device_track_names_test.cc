#include "parsers/common/device_track_names.h"

#include "gtest/gtest.h"

namespace tracelint {
namespace {

TEST(DeviceTrackNames, DevicePrefix) {
  std::optional<DeviceNamePrefix> gpu = ParseDeviceNamePrefix("/device:GPU:3");
  ASSERT_TRUE(gpu.has_value());
  EXPECT_EQ(gpu->family, DeviceFamily::kGpu);
  EXPECT_EQ(gpu->ordinal, 3);
  EXPECT_EQ(gpu->rest, "");
  std::optional<DeviceNamePrefix> tf1 = ParseDeviceNamePrefix("/device:GPU:0/stream:13 Compute");
  ASSERT_TRUE(tf1.has_value());
  EXPECT_EQ(tf1->rest, "/stream:13 Compute");
  std::optional<DeviceNamePrefix> tpu = ParseDeviceNamePrefix("/device:TPU:1 (pid 5)");
  ASSERT_TRUE(tpu.has_value());
  EXPECT_EQ(tpu->family, DeviceFamily::kTpu);
  EXPECT_EQ(tpu->ordinal, 1);
  EXPECT_FALSE(ParseDeviceNamePrefix("/device:TPU:0 SparseCore 1").has_value());
  EXPECT_FALSE(ParseDeviceNamePrefix("/device:GPU:x").has_value());
  EXPECT_FALSE(ParseDeviceNamePrefix("/device:GPU:-1").has_value());
  EXPECT_FALSE(ParseDeviceNamePrefix("/host:CPU").has_value());
  EXPECT_FALSE(ParseDeviceNamePrefix("/job:localhost/replica:0/task:0/device:GPU:0").has_value());
}

TEST(DeviceTrackNames, LineClasses) {
  EXPECT_EQ(ClassifyDeviceLine("Stream #13(Compute)"), DeviceLineClass::kStream);
  EXPECT_EQ(ClassifyDeviceLine("Stream #7"), DeviceLineClass::kStream);
  EXPECT_EQ(ClassifyDeviceLine("XLA Ops"), DeviceLineClass::kXlaOps);
  EXPECT_EQ(ClassifyDeviceLine("CUPTI overhead"), DeviceLineClass::kOverhead);
  for (std::string_view derived : {"Steps", "XLA Modules", "TensorFlow Ops",
                                   "TensorFlow Name Scope", "Source code", "Framework Ops"}) {
    EXPECT_EQ(ClassifyDeviceLine(derived), DeviceLineClass::kDerived) << derived;
  }
  EXPECT_EQ(ClassifyDeviceLine("python3"), DeviceLineClass::kOther);
  EXPECT_TRUE(IsTensorFlowDeviceLine("TensorFlow Ops"));
  EXPECT_FALSE(IsTensorFlowDeviceLine("Framework Ops"));
  EXPECT_EQ(StreamLineNumber("Stream #13(Compute)"), 13);
  EXPECT_EQ(StreamLineNumber("Stream #7"), 7);
  EXPECT_FALSE(StreamLineNumber("Stream #x").has_value());
  EXPECT_FALSE(StreamLineNumber("XLA Ops").has_value());
}

TEST(DeviceTrackNames, CopyNames) {
  EXPECT_EQ(CopyDirectionFromName("MemcpyH2D"), CopyDirection::kHtoD);
  EXPECT_EQ(CopyDirectionFromName("MEMCPYDtoH"), CopyDirection::kDtoH);
  EXPECT_EQ(CopyDirectionFromName("CopyDeviceToDevice"), CopyDirection::kDtoD);
  EXPECT_EQ(CopyDirectionFromName("MatMul"), CopyDirection::kUnknown);
  EXPECT_EQ(StreamLineCopyDirection("Stream #14(MemcpyH2D)"), CopyDirection::kHtoD);
  EXPECT_EQ(StreamLineCopyDirection("Stream #14(Kernel,MemcpyH2D)"), CopyDirection::kUnknown);
  EXPECT_EQ(StreamLineCopyDirection("Stream #14(Compute)"), CopyDirection::kUnknown);
  EXPECT_TRUE(IsCopyOnlyStreamLine("Stream #14(MemcpyD2H)"));
  EXPECT_FALSE(IsCopyOnlyStreamLine("Stream #14"));
  EXPECT_TRUE(IsCopyEventName("MemcpyH2D"));
  EXPECT_TRUE(IsCopyEventName("CopyHostToDevice"));
  EXPECT_FALSE(IsCopyEventName("Copy"));
  EXPECT_TRUE(IsMemsetEventName("Memset (Device)"));
  EXPECT_TRUE(IsMemoryManagementName("MemoryAlloc"));
}

}  // namespace
}  // namespace tracelint
