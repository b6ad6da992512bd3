#ifndef TRACELINT_ANALYZER_ANALYSIS_KERNEL_CLASSIFY_H_
#define TRACELINT_ANALYZER_ANALYSIS_KERNEL_CLASSIFY_H_

#include <cstdint>
#include <string_view>

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

struct KernelClass {
  KernelFamily family = KernelFamily::kElementwiseOther;
  TensorCoreUse tc = TensorCoreUse::kUnknown;
  bool operator==(const KernelClass&) const = default;
};

// `op_dtype` is the dtype of the op that launched the kernel as the trace
// states it ("c10::BFloat16", "float", "Half", "bf16", ...), empty when
// unknown. Names are evidence; for kernels whose name does not say (flash
// attention, generic GEMMs) a 16-bit/fp8/int8 dtype decides "yes" and an
// fp32 dtype decides "no" only for attention (fp32 GEMMs may use TF32).
KernelClass ClassifyKernel(std::string_view kernel_name, std::string_view op_dtype = {});

// Low-precision class of a dtype string, for callers that need to reason
// about compute capability (TF32 needs 8.0, FP8 8.9).
enum class DtypeClass : uint8_t {
  kUnknown = 0, k16Bit, kFp8, kInt8, kFp32, kFp64,
};
DtypeClass ClassifyDtype(std::string_view op_dtype);

std::string_view KernelFamilyName(KernelFamily family);  // "gemm", "conv", ...
std::string_view TensorCoreUseName(TensorCoreUse tc);    // "yes", "no", "unknown"

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_KERNEL_CLASSIFY_H_
