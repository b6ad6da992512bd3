// The peak table (docs/roofline.md, "Peak table"). Dense figures: a
// datasheet that quotes "with sparsity" is halved. Sources per entry; every
// figure is compiled in, nothing is read at run time.

#include "analyzer/analysis/device_peaks.h"

#include <string>

#include "analyzer/base/strings.h"

namespace tracelint {
namespace {

using Rates = std::array<double, kComputeDtypeCount>;

// fp64 (matrix where the device has it), fp32 (matrix on AMD, CUDA cores on
// NVIDIA, which have no fp32 matrix path), tf32, bf16, fp16, fp8, fp4,
// int8; MXFP8 runs at the FP8 rate, MXFP4/NVFP4 at the FP4 rate.
constexpr Rates R(double fp64, double fp32, double tf32, double bf16, double fp16, double fp8,
                  double fp4, double int8) {
  Rates r{};
  r[static_cast<int>(ComputeDtype::kFp64)] = fp64;
  r[static_cast<int>(ComputeDtype::kFp32)] = fp32;
  r[static_cast<int>(ComputeDtype::kTf32)] = tf32;
  r[static_cast<int>(ComputeDtype::kBf16)] = bf16;
  r[static_cast<int>(ComputeDtype::kFp16)] = fp16;
  r[static_cast<int>(ComputeDtype::kFp8)] = fp8;
  r[static_cast<int>(ComputeDtype::kMxfp8)] = fp8;
  r[static_cast<int>(ComputeDtype::kMxfp4)] = fp4;
  r[static_cast<int>(ComputeDtype::kNvfp4)] = fp4;
  r[static_cast<int>(ComputeDtype::kInt8)] = int8;
  return r;
}

// How a device name selects an entry: every `need` token present as a word
// (so "a10" is not "a100"), no `avoid` token present, and the memory size in
// [min_gib, max_gib) when the trace states it (0 = no bound).
struct Match {
  std::array<std::string_view, 2> need;
  std::array<std::string_view, 2> avoid;
  double min_gib = 0;
  double max_gib = 0;
};

struct Entry {
  Match match;
  DevicePeak peak;
};

constexpr std::string_view kNvidiaSource = "NVIDIA datasheet (dense Tensor Core rates)";

const Entry kTable[] = {
    // --- NVIDIA ---
    {{{"v100", "pcie"}, {}, 0, 0},
     {"NVIDIA V100 PCIe", "NVIDIA", R(7, 14, 0, 0, 112, 0, 0, 0), 14, 0.9, {}, 0, 7, 0,
      "NVIDIA V100 datasheet (PCIe)"}},
    {{{"v100s"}, {}, 0, 0},
     {"NVIDIA V100S PCIe", "NVIDIA", R(8.2, 16.4, 0, 0, 130, 0, 0, 0), 16.4, 1.134, {}, 0, 7, 0,
      "NVIDIA V100S datasheet"}},
    {{{"v100"}, {"pcie", "v100s"}, 0, 0},
     {"NVIDIA V100 SXM2", "NVIDIA", R(7.8, 15.7, 0, 0, 125, 0, 0, 0), 15.7, 0.9, {}, 0, 7, 0,
      "NVIDIA V100 datasheet (SXM2)"}},
    {{{"t4"}, {}, 0, 0},
     {"NVIDIA T4", "NVIDIA", R(0, 8.1, 0, 0, 65, 0, 0, 130), 8.1, 0.32, {}, 0, 7, 5,
      "NVIDIA T4 datasheet"}},
    {{{"a10"}, {}, 0, 0},
     {"NVIDIA A10", "NVIDIA", R(0, 31.2, 62.5, 125, 125, 0, 0, 250), 31.2, 0.6, {}, 0, 8, 6,
      kNvidiaSource}},
    {{{"a100", "pcie"}, {}, 0, 60},
     {"NVIDIA A100 PCIe 40GB", "NVIDIA", R(19.5, 19.5, 156, 312, 312, 0, 0, 624), 19.5, 1.555, {},
      0, 8, 0, kNvidiaSource}},
    {{{"a100", "pcie"}, {}, 60, 0},
     {"NVIDIA A100 PCIe 80GB", "NVIDIA", R(19.5, 19.5, 156, 312, 312, 0, 0, 624), 19.5, 1.935, {},
      0, 8, 0, kNvidiaSource}},
    {{{"a100"}, {"pcie"}, 0, 60},
     {"NVIDIA A100 SXM 40GB", "NVIDIA", R(19.5, 19.5, 156, 312, 312, 0, 0, 624), 19.5, 1.555, {},
      0, 8, 0, kNvidiaSource}},
    {{{"a100"}, {"pcie"}, 60, 0},
     {"NVIDIA A100 SXM 80GB", "NVIDIA", R(19.5, 19.5, 156, 312, 312, 0, 0, 624), 19.5, 2.039, {},
      0, 8, 0, kNvidiaSource}},
    {{{"l4"}, {}, 0, 0},
     {"NVIDIA L4", "NVIDIA", R(0, 30.3, 60, 121, 121, 242.5, 0, 242.5), 30.3, 0.3, {}, 0, 8, 9,
      kNvidiaSource}},
    {{{"l40s"}, {}, 0, 0},
     {"NVIDIA L40S", "NVIDIA", R(0, 91.6, 183, 362.05, 362.05, 733, 0, 733), 91.6, 0.864, {}, 0, 8,
      9, kNvidiaSource}},
    {{{"h100", "pcie"}, {}, 0, 0},
     {"NVIDIA H100 PCIe", "NVIDIA", R(51, 51, 378, 756, 756, 1513, 0, 1513), 51, 2.0, {}, 0, 9, 0,
      kNvidiaSource}},
    {{{"h100", "nvl"}, {}, 0, 0},
     {"NVIDIA H100 NVL", "NVIDIA", R(60, 60, 417.5, 835.5, 835.5, 1670.5, 0, 1670.5), 60, 3.9, {},
      0, 9, 0, kNvidiaSource}},
    {{{"h100"}, {"pcie", "nvl"}, 0, 0},
     {"NVIDIA H100 SXM", "NVIDIA", R(67, 67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9), 67, 3.35,
      {}, 0, 9, 0, kNvidiaSource}},
    {{{"h200", "nvl"}, {}, 0, 0},
     {"NVIDIA H200 NVL", "NVIDIA", R(60, 60, 417.5, 835.5, 835.5, 1670.5, 0, 1670.5), 60, 4.8, {},
      0, 9, 0, kNvidiaSource}},
    {{{"h200"}, {"nvl", "gh200"}, 0, 0},
     {"NVIDIA H200 SXM", "NVIDIA", R(67, 67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9), 67, 4.8, {},
      0, 9, 0, kNvidiaSource}},
    {{{"h800", "pcie"}, {}, 0, 0},
     {"NVIDIA H800 PCIe", "NVIDIA", R(0.8, 51, 378, 756, 756, 1513, 0, 1513), 51, 2.0, {}, 0, 9, 0,
      "NVIDIA H800 PCIe datasheet (H100 PCIe rates, FP64 cut)"}},
    {{{"h800"}, {"pcie"}, 0, 0},
     {"NVIDIA H800 SXM", "NVIDIA", R(1, 67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9), 67, 3.35, {},
      0, 9, 0, "NVIDIA H800 SXM datasheet (H100 SXM rates, FP64 cut)"}},
    {{{"gh200"}, {}, 0, 110},
     {"NVIDIA GH200 96GB", "NVIDIA", R(67, 67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9), 67, 4.0, {},
      0, 9, 0, "NVIDIA GH200 datasheet (HBM3)"}},
    {{{"gh200"}, {}, 110, 0},
     {"NVIDIA GH200 144GB", "NVIDIA", R(67, 67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9), 67, 4.9,
      {}, 0, 9, 0, "NVIDIA GH200 datasheet (HBM3e)"}},
    {{{"b200"}, {"gb200"}, 0, 0},
     {"NVIDIA B200", "NVIDIA", R(40, 80, 1100, 2250, 2250, 4500, 9000, 4500), 80, 8.0, {}, 0, 10,
      0, "NVIDIA HGX B200 datasheet (per GPU, sparse rates halved)"}},
    {{{"gb200"}, {}, 0, 0},
     {"NVIDIA GB200", "NVIDIA", R(45, 0, 1250, 2500, 2500, 5000, 10000, 5000), 0, 8.0, {}, 0, 10,
      0, "NVIDIA GB200 NVL72 datasheet (per GPU: rack figures / 72, sparse rates halved)"}},
    // --- AMD (matrix-core rates; fp32 has a matrix path) ---
    {{{"mi210"}, {}, 0, 0},
     {"AMD Instinct MI210", "AMD", R(45.3, 45.3, 0, 181, 181, 0, 0, 181), 22.6, 1.6, {}, 0, 9, 0,
      "AMD Instinct MI210 datasheet"}},
    {{{"mi250x"}, {"mi250x/"}, 0, 0},
     {"AMD Instinct MI250X (one GCD)", "AMD", R(47.85, 47.85, 0, 191.5, 191.5, 0, 0, 191.5),
      23.95, 1.6, {}, 0, 9, 0, "AMD Instinct MI250X datasheet, halved: each GCD is a device"}},
    {{{"mi300x"}, {}, 0, 0},
     {"AMD Instinct MI300X", "AMD", R(163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 0, 2614.9),
      163.4, 5.3, R(81, 163, 0, 708, 654, 1273, 0, 2600), 5.3, 9, 4,
      "AMD Instinct MI300X datasheet; max achievable: AMD ROCm blog \"Measuring Max-Achievable "
      "FLOPs, part 2\" (TraceLens's MI300X arch file)", 81}},
    {{{"mi325x"}, {}, 0, 0},
     {"AMD Instinct MI325X", "AMD", R(163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 0, 2614.9),
      163.4, 6.0, R(97, 194, 0, 843, 794, 1519, 0, 3094), 6.0, 9, 4,
      "AMD Instinct MI325X datasheet; max achievable: AMD ROCm blog \"Measuring Max-Achievable "
      "FLOPs, part 2\" (TraceLens's MI325X arch file)", 97}},
    {{{"mi355x"}, {}, 0, 0},
     {"AMD Instinct MI355X", "AMD", R(78.6, 157.3, 0, 2516.6, 2516.6, 5033.2, 10066.3, 5033.2),
      157.3, 8.0, {}, 0, 9, 5, "AMD Instinct MI355X datasheet"}},
    // --- Google TPU (per chip; the MXU computes in bf16) ---
    {{{"tpu", "v4"}, {"lite"}, 0, 0},
     {"Google TPU v4", "Google", R(0, 0, 0, 275, 0, 0, 0, 275), 0, 1.228, {}, 0, -1, -1,
      "Google Cloud TPU v4 documentation"}},
    {{{"tpu", "v5e"}, {}, 0, 0},
     {"Google TPU v5e", "Google", R(0, 0, 0, 197, 0, 0, 0, 394), 0, 0.819, {}, 0, -1, -1,
      "Google Cloud TPU v5e documentation"}},
    {{{"tpu", "v5 lite"}, {}, 0, 0},
     {"Google TPU v5e", "Google", R(0, 0, 0, 197, 0, 0, 0, 394), 0, 0.819, {}, 0, -1, -1,
      "Google Cloud TPU v5e documentation"}},
    {{{"tpu", "v5p"}, {}, 0, 0},
     {"Google TPU v5p", "Google", R(0, 0, 0, 459, 0, 0, 0, 918), 0, 2.765, {}, 0, -1, -1,
      "Google Cloud TPU v5p documentation"}},
    {{{"tpu", "v6e"}, {}, 0, 0},
     {"Google TPU v6e", "Google", R(0, 0, 0, 918, 0, 0, 0, 1836), 0, 1.64, {}, 0, -1, -1,
      "Google Cloud TPU v6e (Trillium) documentation"}},
    {{{"tpu", "v6 lite"}, {}, 0, 0},
     {"Google TPU v6e", "Google", R(0, 0, 0, 918, 0, 0, 0, 1836), 0, 1.64, {}, 0, -1, -1,
      "Google Cloud TPU v6e (Trillium) documentation"}},
};

bool IsWordChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// `token` in `s` not followed by a letter or digit ("a10" in "nvidia a10",
// not in "a100"; "v5 lite" in "tpu v5 lite").
bool HasWord(std::string_view s, std::string_view token) {
  for (size_t at = s.find(token); at != std::string_view::npos; at = s.find(token, at + 1)) {
    const size_t end = at + token.size();
    const bool starts = at == 0 || !IsWordChar(s[at - 1]);
    if (starts && (end == s.size() || !IsWordChar(s[end]))) return true;
  }
  return false;
}

bool Matches(const Match& m, std::string_view lower, int64_t memory_bytes) {
  for (std::string_view t : m.need) {
    if (!t.empty() && !HasWord(lower, t)) return false;
  }
  for (std::string_view t : m.avoid) {
    if (!t.empty() && Contains(lower, t)) return false;
  }
  if (m.min_gib > 0 || m.max_gib > 0) {
    // Variants told apart by memory need the size.
    if (memory_bytes <= 0) return false;
    const double gib = static_cast<double>(memory_bytes) / (1024.0 * 1024 * 1024);
    if (m.min_gib > 0 && gib < m.min_gib) return false;
    if (m.max_gib > 0 && gib >= m.max_gib) return false;
  }
  return true;
}

}  // namespace

const DevicePeak* FindDevicePeak(std::string_view device_name, int64_t total_memory_bytes) {
  std::string lower;
  for (char c : device_name) lower.push_back(c == '-' || c == '_' ? ' ' : AsciiLower(c));
  if (StripAsciiWhitespace(lower).empty()) return nullptr;
  for (const Entry& e : kTable) {
    if (Matches(e.match, lower, total_memory_bytes)) return &e.peak;
  }
  return nullptr;
}

const DevicePeak* FindDevicePeakForArchitecture(const ArchitectureHint& hint) {
  if (!hint.exact || hint.compute_major < 0) return nullptr;
  const DevicePeak* found = nullptr;
  for (const Entry& e : kTable) {
    if (e.peak.vendor != "NVIDIA" || e.peak.arch_major != hint.compute_major ||
        e.peak.arch_minor != hint.compute_minor) {
      continue;
    }
    if (found != nullptr) return nullptr;  // several devices share it
    found = &e.peak;
  }
  return found;
}

std::vector<const DevicePeak*> AllDevicePeaks() {
  std::vector<const DevicePeak*> out;
  for (const Entry& e : kTable) out.push_back(&e.peak);
  return out;
}

PeakChoice ChoosePeak(const DevicePeak& peak, ComputeDtype dtype, bool matrix) {
  PeakChoice out;
  const int d = static_cast<int>(dtype);
  const bool has_achievable = peak.achievable_tbps > 0;
  if (matrix) {
    out.tflops = peak.tflops[d];
    if (has_achievable && peak.achievable_tflops[d] > 0) out.tflops = peak.achievable_tflops[d];
  } else {
    out.tflops = peak.vector_tflops;
    if (has_achievable && peak.achievable_vector_tflops > 0) {
      out.tflops = peak.achievable_vector_tflops;
    }
  }
  out.tbps = has_achievable ? peak.achievable_tbps : peak.tbps;
  out.achievable = has_achievable;
  return out;
}

}  // namespace tracelint
