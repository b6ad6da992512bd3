#include "analyzer/analysis/kernel_classify.h"

#include <array>
#include <string>

#include "analyzer/base/strings.h"
#include "analyzer/model/classify.h"

namespace tracelint {
namespace {

// All tables hold lower-case tokens; names are lower-cased once.

// Tokens that name a Tensor Core instruction or tile shape (docs/design/domain.md rule 5).
constexpr std::array<std::string_view, 13> kTensorCoreTokens = {
    "h884", "s884", "h1688", "s1688", "i8816", "16816", "i16832",
    "hmma", "imma", "tensorop", "gmma", "wgmma", "tcgen05"};

// Kernel generators whose names carry operand type tokens instead of an
// instruction token; the types decide (plus the sm90_/sm100_ cuBLAS kernels,
// which are xmma kernels without the word).
constexpr std::array<std::string_view, 3> kTypedGenerators = {"xmma", "nvjet", "cutlass3x"};
constexpr std::array<std::string_view, 3> kTypedPrefixes = {"sm90_", "sm100_", "sm120_"};

// Operand types that only Tensor Cores take in these generators.
constexpr std::array<std::string_view, 10> kLowPrecisionTypeTokens = {
    "bf16", "f16", "tf32", "e4m3", "e5m2", "fp8", "int8", "i8i8", "s8s8", "bfloat16"};

// Operand formats that exist only as Tensor Core inputs: FP8 and the
// block-scaled MX/NVFP4 formats of Blackwell ("bmm_MxE4m3_MxE2m1..." from
// trtllm-gen, "...ue8m0..." scale factors). They decide only for
// GEMM/conv/attention kernels: quantize and cast kernels carry the same
// words and are pointwise.
constexpr std::array<std::string_view, 12> kTensorCoreOnlyFormats = {
    "e4m3", "e5m2", "e2m1", "e3m2", "e2m3", "ue8m0", "ue4m3",
    "mxfp4", "mxfp6", "mxfp8", "nvfp4", "fp8"};

// Tokens that mean the kernel runs on CUDA cores.
constexpr std::array<std::string_view, 2> kCudaCoreTokens = {"simt", "ffma"};
constexpr std::array<std::string_view, 3> kCudaCoreGemmTokens = {"gemv", "gemmsn",
                                                                  "splitkreduce"};
// "sgemm"/"dgemm" mean CUDA cores unless an MMA shape token says otherwise
// (that case is caught earlier by kTensorCoreTokens).
constexpr std::array<std::string_view, 2> kScalarGemmTokens = {"sgemm", "dgemm"};

// Kernels named after the ops Inductor fused into them: the op names
// (convolution, addmm, flash_attention ...) say nothing about the kernel,
// which is pointwise or a reduction.
constexpr std::array<std::string_view, 3> kTritonFusedPrefixes = {
    "triton_poi_", "triton_per_", "triton_red_"};

constexpr std::array<std::string_view, 6> kAttentionTokens = {
    "flash", "fmha", "attn_fwd", "attn_bwd", "attention", "sdpa"};
// Kernels that carry an attention word but only move data.
constexpr std::array<std::string_view, 1> kAttentionExclusions = {"reshape_and_cache"};

constexpr std::array<std::string_view, 18> kConvTokens = {
    "convolution", "convolve", "conv1d", "conv2d", "conv3d", "3dconv", "_conv_", "conv_fwd",
    "conv_bwd", "scudnn", "fprop", "dgrad", "wgrad", "winograd", "implicit_gemm",
    "implicitgemm", "igemm_", "im2col"};

constexpr std::array<std::string_view, 6> kGemmTokens = {"gemm", "gemv", "cijk_", "nvjet",
                                                         "matmul", "splitkreduce"};
// trtllm-gen batched GEMMs ("bmm_E4m3_E4m3E4m3_Fp32_t128x8x128..._sm100a")
// carry no "gemm" word.
constexpr std::array<std::string_view, 1> kGemmPrefixes = {"bmm_"};
// "fbgemm_gpu::..." kernels are embedding/permutation kernels.
constexpr std::array<std::string_view, 1> kGemmExclusions = {"fbgemm"};

bool ContainsAny(std::string_view s, const auto& table) {
  for (std::string_view t : table) {
    if (Contains(s, t)) return true;
  }
  return false;
}
bool StartsWithAny(std::string_view s, const auto& table) {
  for (std::string_view t : table) {
    if (s.starts_with(t)) return true;
  }
  return false;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

KernelFamily FamilyOf(std::string_view original, std::string_view lower, const LaunchHints& h) {
  if (h.collective || (!h.collective_known && IsCollectiveKernelName(original))) {
    return KernelFamily::kCollective;
  }
  if (StartsWithAny(lower, kTritonFusedPrefixes)) return KernelFamily::kElementwiseOther;
  // Inductor templates: "triton_tem_fused_mm_0", "triton_tem_fused_addmm_...".
  if (lower.starts_with("triton_tem_")) {
    if (Contains(lower, "conv")) return KernelFamily::kConv;
    if (Contains(lower, "mm")) return KernelFamily::kGemm;
  }
  if (ContainsAny(lower, kAttentionTokens) && !ContainsAny(lower, kAttentionExclusions)) {
    return KernelFamily::kAttention;
  }
  // Before GEMM: implicit-GEMM convolutions contain "gemm".
  if (ContainsAny(lower, kConvTokens)) return KernelFamily::kConv;
  if ((ContainsAny(lower, kGemmTokens) || StartsWithAny(lower, kGemmPrefixes) ||
       kernel_classify_internal::IsGroupedGemmName(lower)) &&
      !ContainsAny(lower, kGemmExclusions)) {
    return KernelFamily::kGemm;
  }
  return KernelFamily::kElementwiseOther;
}

bool IsLowPrecision(DtypeClass d) {
  return d == DtypeClass::k16Bit || d == DtypeClass::kFp8 || d == DtypeClass::kInt8;
}

// nvjet names start with cuBLAS's precision code: "nvjet_tst_..." (bf16 in,
// fp32 compute, bf16 out), "nvjet_hsh_" (fp16), "nvjet_qqtst_" (fp8),
// "nvjet_sss_tf32_" (fp32 via TF32). Letters other than s/d are sub-32-bit
// types, which only Tensor Cores take.
TensorCoreUse NvjetPrecision(std::string_view lower) {
  const std::string_view code = kernel_classify_internal::NvjetPrecisionCode(lower);
  if (code.empty()) return TensorCoreUse::kUnknown;
  for (char c : code) {
    if (c != 's' && c != 'd') return TensorCoreUse::kYes;
  }
  // All fp32/fp64: Tensor Cores only through TF32 (handled by the caller's
  // type-token check), otherwise CUDA cores.
  return TensorCoreUse::kNo;
}

// The name's own verdict, before any dtype is consulted.
TensorCoreUse FromName(std::string_view lower) {
  if (ContainsAny(lower, kCudaCoreTokens)) return TensorCoreUse::kNo;
  if (ContainsAny(lower, kTensorCoreTokens)) return TensorCoreUse::kYes;
  if (ContainsAny(lower, kTypedGenerators) || StartsWithAny(lower, kTypedPrefixes)) {
    if (ContainsAny(lower, kLowPrecisionTypeTokens)) return TensorCoreUse::kYes;
    if (Contains(lower, "nvjet")) {
      TensorCoreUse nvjet = NvjetPrecision(lower);
      if (nvjet != TensorCoreUse::kUnknown) return nvjet;
    }
  }
  if (Contains(lower, "f32f32_f32f32") && !Contains(lower, "tf32")) return TensorCoreUse::kNo;
  if (ContainsAny(lower, kCudaCoreGemmTokens)) return TensorCoreUse::kNo;
  if (ContainsAny(lower, kScalarGemmTokens)) return TensorCoreUse::kNo;
  return TensorCoreUse::kUnknown;
}

// Flash/fmha kernels are templated on their element type; the demangled
// name often says it when the op dtype is absent.
DtypeClass DtypeFromAttentionName(std::string_view lower) {
  if (Contains(lower, "bfloat16") || Contains(lower, "bf16") || Contains(lower, "half") ||
      Contains(lower, "fp16") || Contains(lower, "f16")) {
    return DtypeClass::k16Bit;
  }
  if (Contains(lower, "e4m3") || Contains(lower, "e5m2") || Contains(lower, "fp8")) {
    return DtypeClass::kFp8;
  }
  if (Contains(lower, "_f32_") || Contains(lower, "<float")) return DtypeClass::kFp32;
  return DtypeClass::kUnknown;
}

}  // namespace

DtypeClass ClassifyDtype(std::string_view op_dtype) {
  std::string d = ToLower(StripAsciiWhitespace(op_dtype));
  if (d.empty()) return DtypeClass::kUnknown;
  std::string_view v = d;
  if (Contains(v, "float8") || Contains(v, "fp8") || Contains(v, "e4m3") ||
      Contains(v, "e5m2")) {
    return DtypeClass::kFp8;
  }
  if (Contains(v, "bfloat16") || Contains(v, "bf16") || Contains(v, "half") ||
      Contains(v, "float16") || Contains(v, "fp16") || Contains(v, "f16")) {
    return DtypeClass::k16Bit;
  }
  if (Contains(v, "unsigned")) return DtypeClass::kUnknown;  // uint8 images etc.
  // c10 prints int8 as "signed char".
  if (Contains(v, "int8") || Contains(v, "char") || v == "s8" || v == "i8") {
    return DtypeClass::kInt8;
  }
  if (Contains(v, "double") || Contains(v, "float64") || Contains(v, "fp64") || v == "f64") {
    return DtypeClass::kFp64;
  }
  if (Contains(v, "float") || Contains(v, "fp32") || v == "f32" || v == "tf32") {
    return DtypeClass::kFp32;
  }
  return DtypeClass::kUnknown;
}

KernelClass ClassifyKernel(std::string_view kernel_name, std::string_view op_dtype) {
  LaunchHints hints;
  hints.op_dtype = op_dtype;
  return ClassifyKernel(kernel_name, hints);
}

KernelClass ClassifyKernel(std::string_view kernel_name, const LaunchHints& hints) {
  const std::string_view op_dtype = hints.op_dtype;
  std::string lower = ToLower(kernel_name);
  KernelClass out;
  out.family = FamilyOf(kernel_name, lower, hints);
  // The fine family may move a kernel the name leaves generic into a matrix
  // family by its launching op; Tensor Core use follows the final family.
  kernel_classify_internal::RefineKernelClass(lower, hints, out);
  TensorCoreUse by_name = FromName(lower);
  switch (out.family) {
    case KernelFamily::kCollective:
      out.tc = TensorCoreUse::kNo;
      break;
    case KernelFamily::kElementwiseOther:
      // Pointwise kernels never use Tensor Cores unless the name says so.
      out.tc = by_name == TensorCoreUse::kYes ? TensorCoreUse::kYes : TensorCoreUse::kNo;
      break;
    case KernelFamily::kAttention: {
      if (by_name != TensorCoreUse::kUnknown) {
        out.tc = by_name;
        break;
      }
      DtypeClass dtype = ClassifyDtype(op_dtype);
      if (dtype == DtypeClass::kUnknown) dtype = DtypeFromAttentionName(lower);
      if (IsLowPrecision(dtype)) {
        out.tc = TensorCoreUse::kYes;
      } else if (dtype == DtypeClass::kFp32 || dtype == DtypeClass::kFp64) {
        out.tc = TensorCoreUse::kNo;
      }
      break;
    }
    case KernelFamily::kGemm:
    case KernelFamily::kConv:
      if (lower.starts_with("cijk_")) {
        // Tensile (ROCm) names encode matrix-core use in ways we do not
        // decode; the rules treat non-NVIDIA devices as "could not judge".
        out.tc = TensorCoreUse::kUnknown;
      } else if (by_name != TensorCoreUse::kUnknown) {
        out.tc = by_name;
      } else if (ContainsAny(lower, kTensorCoreOnlyFormats)) {
        out.tc = TensorCoreUse::kYes;
      } else if (IsLowPrecision(ClassifyDtype(op_dtype))) {
        // cuBLAS/cuDNN always pick Tensor Core kernels for 16-bit/fp8/int8
        // operands on devices that have them. fp32 stays unknown: it may run
        // as TF32 depending on allow_tf32.
        out.tc = TensorCoreUse::kYes;
      }
      break;
  }
  return out;
}

std::string_view KernelFamilyName(KernelFamily family) {
  switch (family) {
    case KernelFamily::kGemm: return "gemm";
    case KernelFamily::kConv: return "conv";
    case KernelFamily::kAttention: return "attention";
    case KernelFamily::kCollective: return "collective";
    case KernelFamily::kElementwiseOther: return "other";
  }
  return "other";
}

std::string_view TensorCoreUseName(TensorCoreUse tc) {
  switch (tc) {
    case TensorCoreUse::kYes: return "yes";
    case TensorCoreUse::kNo: return "no";
    case TensorCoreUse::kUnknown: return "unknown";
  }
  return "unknown";
}

}  // namespace tracelint
