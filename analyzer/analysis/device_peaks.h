#ifndef TRACELINT_ANALYZER_ANALYSIS_DEVICE_PEAKS_H_
#define TRACELINT_ANALYZER_ANALYSIS_DEVICE_PEAKS_H_

// Peak rates of the accelerators the roofline knows (docs/roofline.md, "Peak
// table", lists every figure with its source). Figures are per device as the
// trace sees one: an MI250X shows each of its two GCDs as a device, so its
// entry is half the package.

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "analyzer/analysis/kernel_classify.h"

namespace tracelint {

struct DevicePeak {
  std::string_view name;    // "NVIDIA H100 SXM"
  std::string_view vendor;  // "NVIDIA", "AMD", "Google"
  // Dense (no sparsity) matrix-unit TFLOP/s per ComputeDtype from the
  // vendor's datasheet; 0 where the device has no such path. MX/NVFP4 take
  // the FP8/FP4 rates of the devices that have them.
  std::array<double, kComputeDtypeCount> tflops{};
  double vector_tflops = 0;  // FP32 without matrix units (pointwise work)
  double tbps = 0;           // memory bandwidth, TB/s (1e12 bytes)
  // A measured "max achievable" figure where one is published (AMD's
  // MI300X/MI325X measurements); 0 where none is.
  std::array<double, kComputeDtypeCount> achievable_tflops{};
  double achievable_tbps = 0;
  // Compute capability (NVIDIA) or gfx major/minor (AMD 9.4 = gfx942),
  // -1 for TPUs; used only to say whether an architecture names one device.
  int arch_major = -1;
  int arch_minor = -1;
  std::string_view source;  // where the figures come from
  double achievable_vector_tflops = 0;  // measured FP32 without matrix units
};

// The table entry a device name names ("NVIDIA H100 80GB HBM3", "AMD
// Instinct MI300X VF", "TPU v6 lite"), using the memory size where the name
// alone leaves variants apart (A100 40/80 GB, GH200 96/144 GB); nullptr
// when the name matches no entry or the name is empty.
const DevicePeak* FindDevicePeak(std::string_view device_name, int64_t total_memory_bytes = -1);

// The entry an architecture alone names: only when exactly one entry of the
// table has it and the kernel names prove it exactly (sm90 is H100 SXM,
// H100 PCIe, H800, H200 or GH200: no peak). nullptr otherwise.
const DevicePeak* FindDevicePeakForArchitecture(const ArchitectureHint& hint);

// Every entry, in table order (docs and tests).
std::vector<const DevicePeak*> AllDevicePeaks();

// The peak an efficiency is measured against for work of `dtype` on matrix
// units (matrix = true) or vector units: the achievable figure where one is
// published, else the datasheet's; 0 when the device has none.
struct PeakChoice {
  double tflops = 0;
  double tbps = 0;
  bool achievable = false;  // the figures are measured "max achievable" ones
};
PeakChoice ChoosePeak(const DevicePeak& peak, ComputeDtype dtype, bool matrix);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_DEVICE_PEAKS_H_
