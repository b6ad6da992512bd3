#include "analyzer/analysis/device_peaks.h"

#include <string>

#include "gtest/gtest.h"

namespace tracelint {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

std::string Named(std::string_view device, int64_t memory = -1) {
  const DevicePeak* p = FindDevicePeak(device, memory);
  return p == nullptr ? "" : std::string(p->name);
}

double Bf16(std::string_view device, int64_t memory = -1) {
  const DevicePeak* p = FindDevicePeak(device, memory);
  return p == nullptr ? 0 : p->tflops[static_cast<int>(ComputeDtype::kBf16)];
}

TEST(DevicePeaks, NamesAsTracesWriteThem) {
  EXPECT_EQ(Named("NVIDIA H100 80GB HBM3", 85018279936), "NVIDIA H100 SXM");
  EXPECT_EQ(Named("NVIDIA H100 PCIe"), "NVIDIA H100 PCIe");
  EXPECT_EQ(Named("NVIDIA H100 NVL"), "NVIDIA H100 NVL");
  EXPECT_EQ(Named("NVIDIA H200"), "NVIDIA H200 SXM");
  EXPECT_EQ(Named("NVIDIA H800"), "NVIDIA H800 SXM");
  EXPECT_EQ(Named("NVIDIA GH200 480GB", 95 * kGiB), "NVIDIA GH200 96GB");
  EXPECT_EQ(Named("NVIDIA GH200 144G HBM3e", 143 * kGiB), "NVIDIA GH200 144GB");
  EXPECT_EQ(Named("NVIDIA B200"), "NVIDIA B200");
  EXPECT_EQ(Named("NVIDIA GB200"), "NVIDIA GB200");
  EXPECT_EQ(Named("NVIDIA A100-SXM4-80GB", 85 * kGiB / 1), "NVIDIA A100 SXM 80GB");
  EXPECT_EQ(Named("NVIDIA A100-SXM4-40GB", 40 * kGiB - 1), "NVIDIA A100 SXM 40GB");
  EXPECT_EQ(Named("NVIDIA A100-PG509-200", 79 * kGiB), "NVIDIA A100 SXM 80GB");
  EXPECT_EQ(Named("NVIDIA A100 80GB PCIe", 79 * kGiB), "NVIDIA A100 PCIe 80GB");
  EXPECT_EQ(Named("NVIDIA A100-PCIE-40GB", 39 * kGiB), "NVIDIA A100 PCIe 40GB");
  EXPECT_EQ(Named("Tesla V100-SXM2-32GB"), "NVIDIA V100 SXM2");
  EXPECT_EQ(Named("Tesla V100-PCIE-16GB"), "NVIDIA V100 PCIe");
  EXPECT_EQ(Named("Tesla T4"), "NVIDIA T4");
  EXPECT_EQ(Named("NVIDIA A10"), "NVIDIA A10");
  EXPECT_EQ(Named("NVIDIA L4"), "NVIDIA L4");
  EXPECT_EQ(Named("NVIDIA L40S"), "NVIDIA L40S");
  EXPECT_EQ(Named("AMD Instinct MI300X VF"), "AMD Instinct MI300X");
  EXPECT_EQ(Named("AMD Instinct MI325X"), "AMD Instinct MI325X");
  EXPECT_EQ(Named("AMD Instinct MI355X"), "AMD Instinct MI355X");
  EXPECT_EQ(Named("AMD Instinct MI250X"), "AMD Instinct MI250X (one GCD)");
  EXPECT_EQ(Named("AMD Instinct MI210"), "AMD Instinct MI210");
  EXPECT_EQ(Named("TPU v6 lite"), "Google TPU v6e");
  EXPECT_EQ(Named("TPU v5 lite"), "Google TPU v5e");
  EXPECT_EQ(Named("TPU v5p"), "Google TPU v5p");
  EXPECT_EQ(Named("TPU v4"), "Google TPU v4");
}

TEST(DevicePeaks, LookalikesAndVariantsNeedingTheMemorySize) {
  // Words, not substrings: an A100 is not an A10, an L40S not an L4, a
  // GH200 not an H200, a GB200 not a B200.
  EXPECT_EQ(Named("NVIDIA A10G"), "");
  EXPECT_EQ(Named("NVIDIA L40"), "");
  EXPECT_EQ(Named("NVIDIA GeForce RTX 2080 Ti"), "");
  EXPECT_EQ(Named("Quadro GP100"), "");
  EXPECT_EQ(Named("AMD Radeon Graphics"), "");
  EXPECT_EQ(Named("AMD Instinct MI250X/MI250"), "");
  EXPECT_EQ(Named(""), "");
  // A100 and GH200 come in memory sizes with different bandwidth: without
  // the size, no peak.
  EXPECT_EQ(Named("NVIDIA A100-SXM4"), "");
  EXPECT_EQ(Named("NVIDIA GH200 480GB"), "");
}

TEST(DevicePeaks, DenseDatasheetFigures) {
  EXPECT_DOUBLE_EQ(Bf16("NVIDIA H100 80GB HBM3", 80 * kGiB), 989.4);
  EXPECT_DOUBLE_EQ(Bf16("NVIDIA H100 PCIe"), 756);
  EXPECT_DOUBLE_EQ(Bf16("NVIDIA B200"), 2250);
  EXPECT_DOUBLE_EQ(Bf16("AMD Instinct MI300X"), 1307.4);
  EXPECT_DOUBLE_EQ(Bf16("Tesla V100-SXM2-16GB"), 0);  // Volta has no bf16 path
  const DevicePeak* h100 = FindDevicePeak("NVIDIA H100 80GB HBM3", 80 * kGiB);
  ASSERT_NE(h100, nullptr);
  EXPECT_DOUBLE_EQ(h100->tbps, 3.35);
  EXPECT_DOUBLE_EQ(h100->tflops[static_cast<int>(ComputeDtype::kFp8)], 1978.9);
  EXPECT_DOUBLE_EQ(h100->tflops[static_cast<int>(ComputeDtype::kNvfp4)], 0);
  const DevicePeak* b200 = FindDevicePeak("NVIDIA B200");
  ASSERT_NE(b200, nullptr);
  EXPECT_DOUBLE_EQ(b200->tflops[static_cast<int>(ComputeDtype::kNvfp4)], 9000);
  EXPECT_DOUBLE_EQ(b200->tflops[static_cast<int>(ComputeDtype::kMxfp8)], 4500);
  // Every entry has a bandwidth and a source; matrix peaks are at least the
  // vector ones where both exist.
  for (const DevicePeak* p : AllDevicePeaks()) {
    EXPECT_GT(p->tbps, 0) << p->name;
    EXPECT_FALSE(p->source.empty()) << p->name;
    const double bf16 = p->tflops[static_cast<int>(ComputeDtype::kBf16)];
    if (bf16 > 0) {
      EXPECT_GE(bf16, p->vector_tflops) << p->name;
    }
  }
}

TEST(DevicePeaks, AchievableFiguresWhereTheyArePublished) {
  const DevicePeak* mi300x = FindDevicePeak("AMD Instinct MI300X");
  ASSERT_NE(mi300x, nullptr);
  PeakChoice bf16 = ChoosePeak(*mi300x, ComputeDtype::kBf16, true);
  EXPECT_TRUE(bf16.achievable);
  EXPECT_DOUBLE_EQ(bf16.tflops, 708);
  EXPECT_DOUBLE_EQ(bf16.tbps, 5.3);
  EXPECT_DOUBLE_EQ(ChoosePeak(*mi300x, ComputeDtype::kFp32, false).tflops, 81);
  // A dtype without a measured figure falls back to the datasheet's.
  EXPECT_DOUBLE_EQ(ChoosePeak(*mi300x, ComputeDtype::kTf32, true).tflops, 653.7);
  const DevicePeak* h100 = FindDevicePeak("NVIDIA H100 80GB HBM3", 80 * kGiB);
  ASSERT_NE(h100, nullptr);
  PeakChoice h = ChoosePeak(*h100, ComputeDtype::kBf16, true);
  EXPECT_FALSE(h.achievable);
  EXPECT_DOUBLE_EQ(h.tflops, 989.4);
  EXPECT_DOUBLE_EQ(ChoosePeak(*h100, ComputeDtype::kBf16, false).tflops, 67);
}

TEST(DevicePeaks, AnArchitectureAloneNamesNoDeviceOfTheTable) {
  ArchitectureHint sm90{9, 0, true, "sm90_"};
  EXPECT_EQ(FindDevicePeakForArchitecture(sm90), nullptr);  // H100, H200, H800, GH200
  ArchitectureHint sm100{10, 0, true, "sm100_"};
  EXPECT_EQ(FindDevicePeakForArchitecture(sm100), nullptr);  // B200, GB200
  ArchitectureHint floor75{7, 5, false, "turing_"};
  EXPECT_EQ(FindDevicePeakForArchitecture(floor75), nullptr);  // a floor, not the device
  ArchitectureHint none;
  EXPECT_EQ(FindDevicePeakForArchitecture(none), nullptr);
}

}  // namespace
}  // namespace tracelint
