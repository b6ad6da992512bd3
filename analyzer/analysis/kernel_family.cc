// The report's kernel families, compute dtypes and architecture hints from
// kernel names (kernel_classify.h). The coarse family (kernel_classify.cc)
// decides first; this file refines it, so the two views never disagree.

#include <array>
#include <string>
#include <string_view>

#include "analyzer/analysis/kernel_classify.h"
#include "analyzer/base/strings.h"

namespace tracelint {
namespace {

// All tables hold lower-case tokens; names are lower-cased once.

bool Any(std::string_view s, const auto& table) {
  for (std::string_view t : table) {
    if (Contains(s, t)) return true;
  }
  return false;
}

// Grouped / MoE GEMMs: PyTorch's _grouped_mm, vLLM/SGLang fused_moe (Triton),
// TensorRT-LLM and CUTLASS MoE GEMMs, CK grouped GEMMs, aiter fmoe.
constexpr std::array<std::string_view, 11> kGroupedGemmTokens = {
    "grouped_gemm", "groupedgemm", "grouped_mm", "group_gemm", "groupgemm", "fused_moe",
    "moe_gemm",     "moegemm",     "cutlass_moe", "fmoe_",    "ck_moe"};

// Convolution backward (data and weight gradients): cuDNN dgrad/wgrad,
// MIOpen igemm_bwd/igemm_wrw, CK conv_bwd_data/conv_bwd_weight, TensorFlow
// op names (Conv2DBackpropFilter/Input) where a timeline names kernels so.
constexpr std::array<std::string_view, 8> kConvBwdTokens = {
    "dgrad", "wgrad", "_bwd", "bwd_", "wrw", "backward", "_grad", "backprop"};

constexpr std::array<std::string_view, 7> kEmbeddingTokens = {
    "embedding", "indexselect", "index_select", "gather", "scatter", "index_elementwise",
    "index_put"};

constexpr std::array<std::string_view, 8> kOptimizerTokens = {
    "multi_tensor_apply", "fused_adam", "fusedadam", "adam_kernel", "adamw",
    "lamb_",              "fused_sgd",  "adagrad"};

constexpr std::array<std::string_view, 3> kSoftmaxTokens = {"softmax", "soft_max",
                                                            "logsumexp"};

constexpr std::array<std::string_view, 16> kNormTokens = {
    "layer_norm",      "layernorm",      "rms_norm",     "rmsnorm",       "group_norm",
    "groupnorm",       "batch_norm",     "batchnorm",    "instance_norm", "bn_fw",
    "bn_bw",           "rowwisemoments", "gammabetabackward", "welford", "fused_add_rms",
    "cunn_layernorm"};

constexpr std::array<std::string_view, 9> kReductionTokens = {
    "reduce_kernel", "reduction", "reduce_", "_reduce", "argmax", "argmin",
    "devicereduce",  "segmentedreduce", "cumsum"};

constexpr std::array<std::string_view, 16> kElementwiseTokens = {
    "elementwise",  "copy_kernel", "catarraybatchedcopy", "transpose",   "nchwtonhwc",
    "nhwctonchw",   "fill",        "cast",               "quant",       "rotary",
    "rope",         "act_and_mul", "silu",               "gelu",        "relu",
    "scalepackedtensor"};

// Host ops whose kernels belong to a family whatever the kernel is called.
constexpr std::array<std::string_view, 10> kNormOps = {
    "layer_norm", "rms_norm", "group_norm", "batch_norm", "instance_norm",
    "native_layer_norm", "native_group_norm", "native_batch_norm", "cudnn_batch_norm",
    "miopen_batch_norm"};
constexpr std::array<std::string_view, 3> kSoftmaxOps = {"softmax", "_softmax", "log_softmax"};
constexpr std::array<std::string_view, 8> kEmbeddingOps = {
    "embedding", "embedding_bag", "_embedding_bag", "index_select", "gather", "index",
    "index_put_", "embedding_dense_backward"};
constexpr std::array<std::string_view, 7> kGemmOps = {
    "mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "_scaled_mm"};

// "aten::native_layer_norm_backward" -> "native_layer_norm"; "" for other
// namespaces than aten.
std::string_view AtenBase(std::string_view op) {
  if (!op.starts_with("aten::")) return {};
  op.remove_prefix(6);
  if (op.ends_with("_backward")) op.remove_suffix(9);
  if (op.ends_with("_backward_data")) op.remove_suffix(14);
  return op;
}

bool OneOf(std::string_view s, const auto& table) {
  for (std::string_view t : table) {
    if (s == t) return true;
  }
  return false;
}

// Inductor names its kernels after the ops it fused: the words say whether a
// reduction is a normalization or a softmax.
DeviceFamily InductorFamily(std::string_view lower) {
  if (Any(lower, kNormTokens) || (Contains(lower, "rsqrt") &&
                                  (Contains(lower, "mean") || Contains(lower, "var")))) {
    return DeviceFamily::kNormalization;
  }
  if (Contains(lower, "softmax") ||
      (Contains(lower, "amax") && Contains(lower, "exp") && Contains(lower, "sum"))) {
    return DeviceFamily::kSoftmax;
  }
  return lower.starts_with("triton_poi_") ? DeviceFamily::kElementwise
                                          : DeviceFamily::kReduction;
}

// XSpace: xprof's hlo_category of an XLA op.
DeviceFamily FromHloCategory(std::string_view cat) {
  if (cat.empty()) return DeviceFamily::kOther;
  if (Contains(cat, "convolution")) return DeviceFamily::kConvFwd;
  if (Contains(cat, "output fusion") || Contains(cat, "matmul") || Contains(cat, "dot")) {
    return DeviceFamily::kGemm;
  }
  if (Contains(cat, "all-") || Contains(cat, "collective") || Contains(cat, "send") ||
      Contains(cat, "recv") || Contains(cat, "reduce-scatter")) {
    return DeviceFamily::kCommunication;
  }
  if (Contains(cat, "reduce") || Contains(cat, "input fusion")) return DeviceFamily::kReduction;
  if (Contains(cat, "elementwise") || Contains(cat, "loop fusion") ||
      Contains(cat, "data formatting") || Contains(cat, "copy")) {
    return DeviceFamily::kElementwise;
  }
  return DeviceFamily::kOther;
}

// Families of kernels the coarse classifier calls "other", from the name.
DeviceFamily OtherFromName(std::string_view lower) {
  if (lower.starts_with("triton_poi_") || lower.starts_with("triton_per_") ||
      lower.starts_with("triton_red_")) {
    return InductorFamily(lower);
  }
  // Embedding before optimizer: fbgemm's "split_embedding_backward_codegen_
  // rowwise_adagrad" kernels are the embedding's own update.
  if (Any(lower, kEmbeddingTokens)) return DeviceFamily::kEmbedding;
  if (Any(lower, kOptimizerTokens)) return DeviceFamily::kOptimizer;
  if (Any(lower, kSoftmaxTokens)) return DeviceFamily::kSoftmax;
  if (Any(lower, kNormTokens)) return DeviceFamily::kNormalization;
  // XLA GPU fusions ("loop_add_fusion", "input_reduce_fusion").
  if (Contains(lower, "fusion")) {
    if (Contains(lower, "reduce") || lower.starts_with("input_")) return DeviceFamily::kReduction;
    return DeviceFamily::kElementwise;
  }
  if (Any(lower, kReductionTokens)) return DeviceFamily::kReduction;
  if (Any(lower, kElementwiseTokens)) return DeviceFamily::kElementwise;
  return DeviceFamily::kOther;
}

AttentionKind AttentionOf(std::string_view lower, std::string_view op) {
  if (Contains(lower, "paged") || Contains(lower, "unified_attention")) {
    return AttentionKind::kPaged;
  }
  if (Contains(lower, "decode") || Contains(lower, "splitkv") || Contains(lower, "xqa") ||
      Contains(lower, "mmha") || Contains(lower, "masked_multihead") ||
      Contains(lower, "forgen")) {
    return AttentionKind::kDecode;
  }
  if (Contains(op, "efficient_attention") || Contains(op, "cudnn_attention") ||
      Contains(lower, "sdpa") || Contains(lower, "cutlassf") || Contains(lower, "cutlassb") ||
      Contains(lower, "efficient")) {
    return AttentionKind::kSdpa;
  }
  if (Contains(lower, "flash") || Contains(lower, "fmha") || Contains(lower, "attn_fwd") ||
      Contains(lower, "attn_bwd") || Contains(op, "flash_attention")) {
    return AttentionKind::kFlash;
  }
  return AttentionKind::kSdpa;
}

// Tensile / hipBLASLt: "Cijk_Ailk_Bljk_BBS_BH_..." - the field after the
// two index codes starts with the data type: B bf16, H fp16, S fp32,
// D fp64, X xf32 (TF32), F8/B8 fp8 (e4m3/e5m2), I8 int8.
ComputeDtype TensileDtype(std::string_view lower) {
  size_t at = lower.find("cijk_");
  if (at == std::string_view::npos) return ComputeDtype::kUnknown;
  std::string_view rest = lower.substr(at + 5);
  for (int field = 0; field < 2; ++field) {
    size_t us = rest.find('_');
    if (us == std::string_view::npos) return ComputeDtype::kUnknown;
    rest.remove_prefix(us + 1);
  }
  if (rest.starts_with("f8") || rest.starts_with("b8") || rest.starts_with("fp8")) {
    return ComputeDtype::kFp8;
  }
  if (rest.starts_with("i8") || rest.starts_with("4xi8")) return ComputeDtype::kInt8;
  if (rest.empty()) return ComputeDtype::kUnknown;
  switch (rest.front()) {
    case 'b': return ComputeDtype::kBf16;
    case 'h': return ComputeDtype::kFp16;
    case 's': return ComputeDtype::kFp32;
    case 'd': return ComputeDtype::kFp64;
    case 'x': return ComputeDtype::kTf32;
    default: return ComputeDtype::kUnknown;
  }
}

// nvjet's precision code ("nvjet_tst_...": bf16 in, fp32 compute, bf16 out).
ComputeDtype NvjetDtype(std::string_view lower) {
  const std::string_view code = kernel_classify_internal::NvjetPrecisionCode(lower);
  if (code.empty()) return ComputeDtype::kUnknown;
  switch (code.front()) {
    case 't': return ComputeDtype::kBf16;
    case 'h': return ComputeDtype::kFp16;
    case 'q': return ComputeDtype::kFp8;
    case 'i': return ComputeDtype::kInt8;
    case 'd': return ComputeDtype::kFp64;
    case 's': return Contains(lower, "tf32") ? ComputeDtype::kTf32 : ComputeDtype::kFp32;
    default: return ComputeDtype::kUnknown;
  }
}

constexpr std::array<std::string_view, 6> kFp4Tokens = {"e2m1", "fp4", "float4", "mxf4",
                                                         "nvf4", "_f4_"};
constexpr std::array<std::string_view, 6> kFp8Tokens = {"e4m3", "e5m2", "fp8", "float8",
                                                         "_f8_", "f8f6f4"};
constexpr std::array<std::string_view, 6> kInt8Tokens = {"int8", "i8i8", "s8s8", "imma",
                                                          "i8816", "i16832"};
constexpr std::array<std::string_view, 4> kBf16Tokens = {"bf16", "bfloat16", "bhalf",
                                                          "nv_bfloat"};
constexpr std::array<std::string_view, 8> kFp16Tokens = {"f16", "fp16", "half", "h884",
                                                          "h1688", "hgemm", "hmma", "float16"};
constexpr std::array<std::string_view, 4> kFp64Tokens = {"dgemm", "f64", "fp64", "double"};
constexpr std::array<std::string_view, 6> kFp32Tokens = {"sgemm", "f32", "fp32", "<float",
                                                          "scudnn", "float,"};

// The element type a GEMM/conv/attention kernel's name states, low-precision
// formats first (their names also carry the fp32 accumulator).
ComputeDtype DtypeFromName(std::string_view lower) {
  // Itanium-mangled names (Composable Kernel's "_ZN2ck...") spell template
  // arguments as type codes and substitutions ("S8_", "tttf"): only whole
  // words of an identifier ("_ZN5aiter30fmoe_bf16_...") say a dtype, else
  // the launching op decides.
  if (lower.starts_with("_z")) {
    if (Contains(lower, "bf16") || Contains(lower, "bfloat16")) return ComputeDtype::kBf16;
    if (Contains(lower, "fp16")) return ComputeDtype::kFp16;
    if (Contains(lower, "fp8") || Contains(lower, "e4m3") || Contains(lower, "e5m2")) {
      return ComputeDtype::kFp8;
    }
    if (Contains(lower, "int8")) return ComputeDtype::kInt8;
    // CUTLASS's element types, spelled whole in its mangled templates
    // ("...NS_10tfloat32_tE..." in cuDNN's implicit-GEMM convolutions).
    if (Contains(lower, "tfloat32_t")) return ComputeDtype::kTf32;
    if (Contains(lower, "half_t")) return ComputeDtype::kFp16;
    return ComputeDtype::kUnknown;
  }
  if (ComputeDtype t = TensileDtype(lower); t != ComputeDtype::kUnknown) return t;
  if (ComputeDtype n = NvjetDtype(lower); n != ComputeDtype::kUnknown) return n;
  if (Any(lower, kFp4Tokens)) {
    return Contains(lower, "nvfp4") || Contains(lower, "ue4m3") || Contains(lower, "nv_float4")
               ? ComputeDtype::kNvfp4
               : ComputeDtype::kMxfp4;
  }
  if (Contains(lower, "mxfp8") || Contains(lower, "mxe4m3") || Contains(lower, "mxe5m2") ||
      (Any(lower, kFp8Tokens) && Contains(lower, "ue8m0"))) {
    return ComputeDtype::kMxfp8;
  }
  if (Any(lower, kFp8Tokens)) return ComputeDtype::kFp8;
  if (Any(lower, kInt8Tokens)) return ComputeDtype::kInt8;
  if (Any(lower, kBf16Tokens)) return ComputeDtype::kBf16;
  if (Contains(lower, "tf32") || Contains(lower, "xf32")) return ComputeDtype::kTf32;
  if (Any(lower, kFp16Tokens)) return ComputeDtype::kFp16;
  if (Any(lower, kFp64Tokens)) return ComputeDtype::kFp64;
  // CUTLASS Tensor Core kernels named by the MMA shape only take fp32
  // operands as TF32 ("cutlass_80_tensorop_s1688gemm_64x64").
  if (Contains(lower, "tensorop_s1688") || Contains(lower, "tensorop_s16816")) {
    return ComputeDtype::kTf32;
  }
  if (Any(lower, kFp32Tokens)) return ComputeDtype::kFp32;
  return ComputeDtype::kUnknown;
}

// aten::convolution, _convolution, cudnn_convolution, convolution_backward,
// miopen_convolution, conv2d, conv_transpose2d ...
bool IsConvolutionOp(std::string_view base) {
  return Contains(base, "convolution") || base == "conv1d" || base == "conv2d" ||
         base == "conv3d" || base.starts_with("conv_transpose");
}

bool IsMatrixFamily(DeviceFamily f) {
  return f == DeviceFamily::kGemm || f == DeviceFamily::kGroupedGemm ||
         f == DeviceFamily::kAttention || f == DeviceFamily::kConvFwd ||
         f == DeviceFamily::kConvBwd;
}

KernelFamily CoarseOf(DeviceFamily f) {
  switch (f) {
    case DeviceFamily::kGemm:
    case DeviceFamily::kGroupedGemm: return KernelFamily::kGemm;
    case DeviceFamily::kConvFwd:
    case DeviceFamily::kConvBwd: return KernelFamily::kConv;
    case DeviceFamily::kAttention: return KernelFamily::kAttention;
    case DeviceFamily::kCommunication: return KernelFamily::kCollective;
    default: return KernelFamily::kElementwiseOther;
  }
}

}  // namespace

namespace kernel_classify_internal {

bool IsGroupedGemmName(std::string_view lower) { return Any(lower, kGroupedGemmTokens); }

// CUDA 13's cuBLAS puts the architecture before the code ("nvjet_sm90_tst_",
// "nvjet_sm100a_hsh_"): read as a code, "sm90" would say fp32.
std::string_view NvjetPrecisionCode(std::string_view lower) {
  const size_t at = lower.find("nvjet_");
  if (at == std::string_view::npos) return {};
  std::string_view rest = lower.substr(at + 6);
  auto token = [&rest] { return rest.substr(0, rest.find('_')); };
  std::string_view code = token();
  if (code.size() > 2 && code.starts_with("sm") && code[2] >= '0' && code[2] <= '9' &&
      code.size() < rest.size()) {
    rest.remove_prefix(code.size() + 1);
    code = token();
  }
  if (code.empty()) return {};
  for (char c : code) {
    if (c < 'a' || c > 'z') return {};  // a tile shape or another field, not a code
  }
  return code;
}

// Refines the coarse class of a kernel (kernel_classify.cc) into a family, a
// dtype and an attention kind; `lower` is the lower-cased name.
void RefineKernelClass(std::string_view lower, const LaunchHints& hints, KernelClass& out) {
  const std::string_view op = hints.op_name;
  const std::string_view base = AtenBase(op);
  switch (out.family) {
    case KernelFamily::kCollective:
      out.device_family = DeviceFamily::kCommunication;
      break;
    case KernelFamily::kGemm:
      if (IsConvolutionOp(base)) {
        // cuDNN runs some convolutions and their gradients (1x1, wgrad) as
        // plain GEMMs ("cutlass_80_tensorop_s1688gemm_..." under
        // convolution_backward): the work is the convolution's.
        out.family = KernelFamily::kConv;
        out.device_family =
            Contains(op, "backward") ? DeviceFamily::kConvBwd : DeviceFamily::kConvFwd;
        break;
      }
      out.device_family = IsGroupedGemmName(lower) || Contains(base, "grouped_mm")
                              ? DeviceFamily::kGroupedGemm
                              : DeviceFamily::kGemm;
      break;
    case KernelFamily::kConv:
      out.device_family = Any(lower, kConvBwdTokens) || op.ends_with("_backward")
                              ? DeviceFamily::kConvBwd
                              : DeviceFamily::kConvFwd;
      break;
    case KernelFamily::kAttention:
      out.device_family = DeviceFamily::kAttention;
      break;
    case KernelFamily::kElementwiseOther: {
      // XLA op names ("fusion.12") say less than xprof's category for them.
      DeviceFamily f = hints.collective ? DeviceFamily::kCommunication
                                        : FromHloCategory(hints.hlo_category);
      if (f == DeviceFamily::kOther) f = OtherFromName(lower);
      // The launching op decides for generic kernels: an elementwise or
      // reduction kernel under layer_norm is the normalization's.
      if (f == DeviceFamily::kElementwise || f == DeviceFamily::kReduction ||
          f == DeviceFamily::kOther) {
        if (OneOf(base, kNormOps)) {
          f = DeviceFamily::kNormalization;
        } else if (OneOf(base, kSoftmaxOps)) {
          f = DeviceFamily::kSoftmax;
        } else if (OneOf(base, kEmbeddingOps)) {
          f = DeviceFamily::kEmbedding;
        } else if (hints.in_optimizer || base.starts_with("_foreach_") ||
                   base.starts_with("_fused_adam") || base.starts_with("_fused_sgd") ||
                   base.starts_with("_fused_adagrad")) {
          f = DeviceFamily::kOptimizer;
        } else if (f == DeviceFamily::kOther && OneOf(base, kGemmOps)) {
          // A kernel whose name says nothing, launched by a GEMM op.
          f = DeviceFamily::kGemm;
        } else if (f == DeviceFamily::kOther && Contains(base, "attention")) {
          f = DeviceFamily::kAttention;
        } else if (f == DeviceFamily::kOther && Contains(base, "convolution")) {
          f = Contains(op, "backward") ? DeviceFamily::kConvBwd : DeviceFamily::kConvFwd;
        }
      }
      out.device_family = f;
      // A family the op decided keeps the coarse view consistent with it.
      if (IsMatrixFamily(f) || f == DeviceFamily::kCommunication) out.family = CoarseOf(f);
      break;
    }
  }
  if (out.device_family == DeviceFamily::kAttention) out.attention = AttentionOf(lower, op);
  if (IsMatrixFamily(out.device_family)) {
    out.dtype = DtypeFromName(lower);
    const ComputeDtype op_dtype = ComputeDtypeOf(hints.op_dtype);
    // cuDNN's generated kernels say "f16" of both 16-bit formats
    // ("..._sdpa_sm90_flash_fprop_wgmma_f16_..." on bf16 tensors): the op
    // knows which.
    if (out.dtype == ComputeDtype::kUnknown ||
        (out.dtype == ComputeDtype::kFp16 && op_dtype == ComputeDtype::kBf16)) {
      out.dtype = op_dtype;
    }
  } else if (out.device_family != DeviceFamily::kCommunication) {
    out.dtype = ComputeDtypeOf(hints.op_dtype);
  }
}

}  // namespace kernel_classify_internal

ComputeDtype ComputeDtypeOf(std::string_view op_dtype) {
  std::string d;
  for (char c : StripAsciiWhitespace(op_dtype)) d.push_back(AsciiLower(c));
  std::string_view v = d;
  if (v.empty()) return ComputeDtype::kUnknown;
  if (Contains(v, "float4") || Contains(v, "e2m1")) return ComputeDtype::kMxfp4;
  if (Contains(v, "float8") || Contains(v, "fp8") || Contains(v, "e4m3") ||
      Contains(v, "e5m2")) {
    return ComputeDtype::kFp8;
  }
  if (Contains(v, "bfloat16") || Contains(v, "bf16")) return ComputeDtype::kBf16;
  if (Contains(v, "half") || Contains(v, "float16") || Contains(v, "fp16") || v == "f16") {
    return ComputeDtype::kFp16;
  }
  if (Contains(v, "unsigned")) return ComputeDtype::kUnknown;
  if (Contains(v, "int8") || v == "signed char" || v == "char" || v == "s8" || v == "i8") {
    return ComputeDtype::kInt8;
  }
  if (Contains(v, "double") || Contains(v, "float64") || Contains(v, "fp64") || v == "f64") {
    return ComputeDtype::kFp64;
  }
  if (v == "tf32") return ComputeDtype::kTf32;
  if (Contains(v, "float") || Contains(v, "fp32") || v == "f32") return ComputeDtype::kFp32;
  return ComputeDtype::kUnknown;
}

KernelClass ClassifyDeviceActivity(EventKind kind, std::string_view name,
                                   const LaunchHints& hints) {
  KernelClass out;
  if (kind == EventKind::kMemcpy) {
    out.device_family = DeviceFamily::kCopy;
    out.tc = TensorCoreUse::kNo;
    return out;
  }
  if (kind == EventKind::kMemset) {
    out.device_family = DeviceFamily::kMemset;
    out.tc = TensorCoreUse::kNo;
    return out;
  }
  return ClassifyKernel(name, hints);
}

bool IsComputeFamily(DeviceFamily f) {
  return f != DeviceFamily::kCommunication && f != DeviceFamily::kCopy &&
         f != DeviceFamily::kMemset;
}

std::string_view DeviceFamilyName(DeviceFamily f) {
  switch (f) {
    case DeviceFamily::kGemm: return "gemm";
    case DeviceFamily::kGroupedGemm: return "grouped_gemm";
    case DeviceFamily::kAttention: return "attention";
    case DeviceFamily::kConvFwd: return "conv_fwd";
    case DeviceFamily::kConvBwd: return "conv_bwd";
    case DeviceFamily::kNormalization: return "normalization";
    case DeviceFamily::kSoftmax: return "softmax";
    case DeviceFamily::kElementwise: return "elementwise";
    case DeviceFamily::kReduction: return "reduction";
    case DeviceFamily::kEmbedding: return "embedding";
    case DeviceFamily::kOptimizer: return "optimizer";
    case DeviceFamily::kCommunication: return "communication";
    case DeviceFamily::kCopy: return "copy";
    case DeviceFamily::kMemset: return "memset";
    case DeviceFamily::kOther: return "other";
  }
  return "other";
}

std::string_view ComputeDtypeName(ComputeDtype d) {
  switch (d) {
    case ComputeDtype::kUnknown: return "";
    case ComputeDtype::kFp64: return "fp64";
    case ComputeDtype::kFp32: return "fp32";
    case ComputeDtype::kTf32: return "tf32";
    case ComputeDtype::kBf16: return "bf16";
    case ComputeDtype::kFp16: return "fp16";
    case ComputeDtype::kFp8: return "fp8";
    case ComputeDtype::kMxfp8: return "mxfp8";
    case ComputeDtype::kMxfp4: return "mxfp4";
    case ComputeDtype::kNvfp4: return "nvfp4";
    case ComputeDtype::kInt8: return "int8";
  }
  return "";
}

std::string_view AttentionKindName(AttentionKind k) {
  switch (k) {
    case AttentionKind::kNone: return "";
    case AttentionKind::kFlash: return "flash";
    case AttentionKind::kSdpa: return "sdpa";
    case AttentionKind::kPaged: return "paged";
    case AttentionKind::kDecode: return "decode";
  }
  return "";
}

ArchitectureHint ArchitectureFromKernelName(std::string_view name) {
  std::string lower;
  lower.reserve(std::min<size_t>(name.size(), 200));
  for (char c : name.substr(0, 200)) lower.push_back(AsciiLower(c));
  std::string_view l = lower;
  if (l.starts_with("void ")) l.remove_prefix(5);
  ArchitectureHint best;
  auto offer = [&best](int major, int minor, bool exact, std::string_view token) {
    ArchitectureHint h{major, minor, exact, std::string(token)};
    best = HigherArchitecture(best, h);
  };
  // cuBLAS/cuDNN generation prefixes: kernels of a generation also run on
  // later GPUs, so they give a floor.
  if (Contains(l, "volta_")) offer(7, 0, false, "volta_");
  if (Contains(l, "turing_")) offer(7, 5, false, "turing_");
  if (Contains(l, "ampere_")) offer(8, 0, false, "ampere_");
  // "sm90_xmma", "cutlass3x_sm90_", "..._sm80", "sm100a": an "sm" followed
  // by the architecture's digits at a word boundary.
  for (size_t at = l.find("sm"); at != std::string_view::npos; at = l.find("sm", at + 2)) {
    if (at > 0 && l[at - 1] != '_' && l[at - 1] != ' ' && l[at - 1] != '<') continue;
    size_t end = at + 2;
    int digits = 0;
    while (end < l.size() && l[end] >= '0' && l[end] <= '9' && end - at < 6) {
      digits = digits * 10 + (l[end] - '0');
      ++end;
    }
    const size_t n = end - at - 2;
    if (n < 2 || n > 3) continue;
    if (end < l.size() && l[end] != '_' && l[end] != 'a' && l[end] != 'f') continue;
    const int major = digits / 10;  // 90 -> 9.0, 100 -> 10.0, 120 -> 12.0
    const int minor = digits % 10;
    if (major < 7 || major > 12) continue;
    // Hopper and Blackwell kernels use instructions of their own (wgmma,
    // tcgen05): they run only there.
    offer(major, minor, major >= 9, l.substr(at, end - at + 1));
  }
  return best;
}

ArchitectureHint HigherArchitecture(const ArchitectureHint& a, const ArchitectureHint& b) {
  if (b.compute_major < 0) return a;
  if (a.compute_major < 0) return b;
  if (b.compute_major != a.compute_major) return b.compute_major > a.compute_major ? b : a;
  if (b.compute_minor != a.compute_minor) return b.compute_minor > a.compute_minor ? b : a;
  return b.exact && !a.exact ? b : a;
}

}  // namespace tracelint
