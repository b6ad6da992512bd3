#ifndef TRACELINT_ANALYZER_ANALYSIS_KERNEL_CLASSIFY_H_
#define TRACELINT_ANALYZER_ANALYSIS_KERNEL_CLASSIFY_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "analyzer/model/event_kinds.h"

namespace tracelint {

// What a device kernel computes, from its name. Used by the metrics (Tensor
// Core share) and by the tensor-cores-idle rule; the token tables live in
// kernel_classify.cc only (docs/design/domain.md, rule 5).
enum class KernelFamily : uint8_t {
  kGemm = 0,          // cuBLAS/cuBLASLt/CUTLASS/nvjet/Tensile GEMMs and GEMVs
  kConv,              // cuDNN/MIOpen convolutions (incl. implicit GEMM)
  kAttention,         // flash / fmha / fused attention
  kCollective,        // NCCL/RCCL
  kElementwiseOther,  // everything else (pointwise, reductions, norms ...)
};

enum class TensorCoreUse : uint8_t {
  kUnknown = 0,  // the name does not say and the dtype does not decide
  kYes,
  kNo,
};

// The report's kernel families (docs/roofline.md): every device activity is
// in exactly one. Compute families are everything but communication, copies
// and memset. KernelFamily above is the coarse view of the same decision.
enum class DeviceFamily : uint8_t {
  kGemm = 0,
  kGroupedGemm,     // grouped / MoE GEMMs
  kAttention,
  kConvFwd,
  kConvBwd,
  kNormalization,
  kSoftmax,
  kElementwise,     // pointwise kernels, including copy and layout kernels
  kReduction,
  kEmbedding,       // embedding lookups, gathers, scatters, index kernels
  kOptimizer,
  kCommunication,   // NCCL/RCCL, DeepEP, NVSHMEM, symmetric memory, MSCCL++
  kCopy,            // memcpy activities
  kMemset,
  kOther,
};
inline constexpr int kDeviceFamilyCount = static_cast<int>(DeviceFamily::kOther) + 1;

// Element type a GEMM/attention/conv computes in, from the kernel name, else
// the launching op's dtype.
enum class ComputeDtype : uint8_t {
  kUnknown = 0, kFp64, kFp32, kTf32, kBf16, kFp16, kFp8, kMxfp8, kMxfp4, kNvfp4, kInt8,
};
inline constexpr int kComputeDtypeCount = static_cast<int>(ComputeDtype::kInt8) + 1;

enum class AttentionKind : uint8_t { kNone = 0, kFlash, kSdpa, kPaged, kDecode };

struct KernelClass {
  KernelFamily family = KernelFamily::kElementwiseOther;
  TensorCoreUse tc = TensorCoreUse::kUnknown;
  DeviceFamily device_family = DeviceFamily::kOther;
  ComputeDtype dtype = ComputeDtype::kUnknown;
  AttentionKind attention = AttentionKind::kNone;
  bool operator==(const KernelClass&) const = default;
};

// What the host side says about a device activity, for the names that do not
// say enough themselves ("at::native::elementwise_kernel" under
// aten::native_layer_norm is normalization).
struct LaunchHints {
  std::string_view op_name;       // innermost host op that launched it ("aten::mm")
  std::string_view op_dtype;      // that op's first tensor dtype as written
  bool in_optimizer = false;      // under an Optimizer.step annotation
  bool collective = false;        // the slice carries kFlagCollective
  // The caller's `collective` is the timeline's own decision (the flag the
  // builder set from the same name test), so the name need not be tested
  // again.
  bool collective_known = false;
  std::string_view hlo_category;  // XSpace: the XLA op's hlo_category stat
};

// The one classifier of device activities: kernels by name (then by the
// launching op), memcpy and memset by kind. Callers cache it per distinct
// (name, op, dtype) since names repeat every step.
KernelClass ClassifyDeviceActivity(EventKind kind, std::string_view name,
                                   const LaunchHints& hints);

// `op_dtype` is the dtype of the op that launched the kernel as the trace
// states it ("c10::BFloat16", "float", "Half", "bf16", ...), empty when
// unknown. Names are evidence; for kernels whose name does not say (flash
// attention, generic GEMMs) a 16-bit/fp8/int8 dtype decides "yes" and an
// fp32 dtype decides "no" only for attention (fp32 GEMMs may use TF32).
KernelClass ClassifyKernel(std::string_view kernel_name, std::string_view op_dtype = {});
// The same with what the launching op says (ClassifyDeviceActivity for kernels).
KernelClass ClassifyKernel(std::string_view kernel_name, const LaunchHints& hints);

namespace kernel_classify_internal {
// kernel_family.cc: the fine family, dtype and attention kind of a kernel
// whose coarse family and Tensor Core use are already in `out`.
void RefineKernelClass(std::string_view lower_name, const LaunchHints& hints, KernelClass& out);
bool IsGroupedGemmName(std::string_view lower_name);
// The precision code of a cuBLAS nvjet kernel ("tst" in "nvjet_tst_128x256_..."
// and in CUDA 13's "nvjet_sm90_tst_..."), empty when the name has none.
std::string_view NvjetPrecisionCode(std::string_view lower_name);
}  // namespace kernel_classify_internal

// Low-precision class of a dtype string, for callers that need to reason
// about compute capability (TF32 needs 8.0, FP8 8.9).
enum class DtypeClass : uint8_t {
  kUnknown = 0, k16Bit, kFp8, kInt8, kFp32, kFp64,
};
DtypeClass ClassifyDtype(std::string_view op_dtype);

std::string_view KernelFamilyName(KernelFamily family);  // "gemm", "conv", ...
std::string_view DeviceFamilyName(DeviceFamily family);  // "gemm", "grouped_gemm", ...
std::string_view ComputeDtypeName(ComputeDtype dtype);   // "bf16", "fp8", "" when unknown
std::string_view AttentionKindName(AttentionKind kind);  // "flash", "sdpa", "paged", "decode"
// Families that compute (the kernel-efficiency rule's scope): not
// communication, copies or memset.
bool IsComputeFamily(DeviceFamily family);
// The compute dtype an op's "Input type" entry names ("c10::BFloat16" ->
// kBf16, "c10::Float8_e4m3fn" -> kFp8), kUnknown for non-float types.
ComputeDtype ComputeDtypeOf(std::string_view op_dtype);

// The lowest compute capability the kernel names prove (cuBLAS/cuDNN
// architecture prefixes: volta_ 7.0, turing_ 7.5, ampere_/sm80_ 8.0, sm86_
// 8.6, sm89_ 8.9, sm90_ 9.0, sm100_ 10.0, sm120_ 12.0), for traces without
// deviceProperties. Kernels of an older architecture run on newer GPUs, so
// the highest prefix seen is a floor, exact only for the sm90_/sm100_/sm120_
// families (architecture-specific instructions).
struct ArchitectureHint {
  int compute_major = -1;  // -1: no prefix seen
  int compute_minor = -1;
  bool exact = false;
  std::string token;       // the prefix that decided ("sm90_")
};
ArchitectureHint ArchitectureFromKernelName(std::string_view kernel_name);
// The higher of two hints (the floor both prove).
ArchitectureHint HigherArchitecture(const ArchitectureHint& a, const ArchitectureHint& b);
std::string_view TensorCoreUseName(TensorCoreUse tc);    // "yes", "no", "unknown"

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_KERNEL_CLASSIFY_H_
