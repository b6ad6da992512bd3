#include "analyzer/analysis/perf_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/analysis/perf_model_internal.h"
#include "analyzer/base/strings.h"
#include "fmt/format.h"

namespace tracelint {
namespace perf_model_internal {

// Parses "[[16, 559, 1024], [], [[2, 3], [2, 3]]]". Malformed text gives
// what was read before the fault; the models check what they need.
std::vector<Input> ParseDims(std::string_view s) {
  std::vector<Input> out;
  size_t i = s.find('[');
  if (i == std::string_view::npos) return out;
  ++i;
  int depth = 1;  // inside the outer list
  Input cur;
  int64_t value = -1;
  auto flush_value = [&] {
    if (value >= 0) {
      cur.dims.push_back(value);
      value = -1;
    }
  };
  for (; i < s.size() && depth > 0; ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      value = (value < 0 ? 0 : value * 10) + (c - '0');
      if (value > (int64_t{1} << 50)) return {};
      continue;
    }
    if (c == '[') {
      ++depth;
      if (depth == 3) cur.is_list = true;
      continue;
    }
    if (c == ']') {
      flush_value();
      --depth;
      if (depth == 1) {
        cur.is_tensor = !cur.dims.empty() && !cur.is_list;
        out.push_back(std::move(cur));
        cur = Input();
      }
      continue;
    }
    if (c == ',') {
      flush_value();
      continue;
    }
    // A bare number at depth 1 ("[1, [2, 3]]" is not Kineto's) is ignored.
  }
  return out;
}

// The quoted items of a JSON list of strings.
std::vector<std::string_view> ParseStrings(std::string_view s) {
  std::vector<std::string_view> out;
  while (true) {
    size_t open = s.find('"');
    if (open == std::string_view::npos) break;
    size_t close = s.find('"', open + 1);
    if (close == std::string_view::npos) break;
    out.push_back(s.substr(open + 1, close - open - 1));
    s.remove_prefix(close + 1);
  }
  return out;
}

double Numel(const std::vector<int64_t>& dims) {
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(d);
  return n;
}

std::string Shape(const std::vector<int64_t>& dims) {
  return fmt::format("{}", fmt::join(dims, "x"));
}


OpModel Matrix(DeviceFamily family, const Op& op, size_t type_index) {
  OpModel m;
  m.family = family;
  m.dtype = ComputeDtypeOf(op.Type(type_index));
  return m;
}

}  // namespace perf_model_internal

namespace {

using perf_model_internal::Convolution;
using perf_model_internal::ConvolutionBackward;
using perf_model_internal::Copy;
using perf_model_internal::Embedding;
using perf_model_internal::Matrix;
using perf_model_internal::Norm;
using perf_model_internal::Numel;
using perf_model_internal::Op;
using perf_model_internal::ParseDims;
using perf_model_internal::ParseStrings;
using perf_model_internal::Pointwise;
using perf_model_internal::Reduction;
using perf_model_internal::Shape;
using perf_model_internal::Softmax;

// Bounds of a plausible op call: one zettaFLOP, one exabyte.
constexpr double kMaxFlops = 1e21;
constexpr double kMaxBytes = 1e18;

// --- GEMMs ---------------------------------------------------------------

std::optional<OpModel> Gemm2d(const Op& op, size_t a, size_t b, int bias) {
  const auto* da = op.Tensor(a, 2);
  const auto* db = op.Tensor(b, 2);
  const int bpe = op.Bytes(a);
  if (da == nullptr || db == nullptr || da->size() != 2 || db->size() != 2 || bpe == 0) {
    return std::nullopt;
  }
  const double m = (*da)[0], k = (*da)[1], n = (*db)[1];
  if ((*db)[0] != (*da)[1]) return std::nullopt;
  OpModel out = Matrix(DeviceFamily::kGemm, op, a);
  out.flops = 2 * m * n * k;
  out.bytes = (m * k + k * n + m * n) * bpe;
  if (bias >= 0) {
    const auto* dbias = op.Tensor(bias, 1);
    if (dbias != nullptr) {
      out.flops += m * n;
      out.bytes += Numel(*dbias) * op.Bytes(bias);
    }
  }
  out.params = fmt::format("M={} N={} K={}{}", m, n, k, bias >= 0 ? " bias" : "");
  return out;
}

std::optional<OpModel> Gemm3d(const Op& op, size_t a, size_t b, int bias) {
  const auto* da = op.Tensor(a, 3);
  const auto* db = op.Tensor(b, 3);
  const int bpe = op.Bytes(a);
  if (da == nullptr || db == nullptr || da->size() != 3 || db->size() != 3 || bpe == 0 ||
      (*da)[2] != (*db)[1]) {
    return std::nullopt;
  }
  const double batch = (*da)[0], m = (*da)[1], k = (*da)[2], n = (*db)[2];
  OpModel out = Matrix(DeviceFamily::kGemm, op, a);
  out.flops = 2 * batch * m * n * k;
  out.bytes = batch * (m * k + k * n + m * n) * bpe;
  if (bias >= 0) {
    if (const auto* dbias = op.Tensor(bias, 1)) {
      out.flops += batch * m * n;
      out.bytes += Numel(*dbias) * op.Bytes(bias);
    }
  }
  out.params = fmt::format("B={} M={} N={} K={}{}", batch, m, n, k, bias >= 0 ? " bias" : "");
  return out;
}

// torch.matmul: broadcast batch dims, 1-D operands as vectors.
std::optional<OpModel> Matmul(const Op& op) {
  const auto* da = op.Tensor(0);
  const auto* db = op.Tensor(1);
  const int bpe = op.Bytes(0);
  if (da == nullptr || db == nullptr || bpe == 0) return std::nullopt;
  std::vector<int64_t> a = *da, b = *db;
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  const double m = a[a.size() - 2], k = a.back(), n = b.back();
  if (b[b.size() - 2] != a.back()) return std::nullopt;
  double batch = 1;
  const size_t ra = a.size() - 2, rb = b.size() - 2;
  for (size_t i = 0; i < std::max(ra, rb); ++i) {
    const int64_t x = i < ra ? a[ra - 1 - i] : 1;
    const int64_t y = i < rb ? b[rb - 1 - i] : 1;
    batch *= static_cast<double>(std::max(x, y));
  }
  OpModel out = Matrix(DeviceFamily::kGemm, op, 0);
  out.flops = 2 * batch * m * n * k;
  out.bytes = (Numel(*da) + Numel(*db) + batch * m * n) * bpe;
  out.params = fmt::format("B={} M={} N={} K={}", batch, m, n, k);
  return out;
}

// F.linear(input[..., K], weight[N, K], bias[N]).
std::optional<OpModel> Linear(const Op& op) {
  const auto* x = op.Tensor(0);
  const auto* w = op.Tensor(1, 2);
  const int bpe = op.Bytes(0);
  if (x == nullptr || w == nullptr || w->size() != 2 || bpe == 0 || x->back() != (*w)[1]) {
    return std::nullopt;
  }
  const double k = x->back(), n = (*w)[0], m = Numel(*x) / k;
  OpModel out = Matrix(DeviceFamily::kGemm, op, 0);
  out.flops = 2 * m * n * k;
  out.bytes = (m * k + n * k + m * n) * bpe;
  const auto* bias = op.Tensor(2);
  if (bias != nullptr) {
    out.flops += m * n;
    out.bytes += Numel(*bias) * op.Bytes(2);
  }
  out.params = fmt::format("M={} N={} K={}{}", m, n, k, bias != nullptr ? " bias" : "");
  return out;
}

// torch._scaled_mm(A[M,K] fp8, B[K,N] fp8, scale_a, scale_b, bias, ...): the
// output dtype is an argument Kineto records as a number, so its bytes are
// counted as 2 (bf16, the common choice; documented in docs/roofline.md).
std::optional<OpModel> ScaledMm(const Op& op) {
  const auto* da = op.Tensor(0, 2);
  const auto* db = op.Tensor(1, 2);
  const int bpe = op.Bytes(0);
  if (da == nullptr || db == nullptr || da->size() != 2 || db->size() != 2 || bpe == 0 ||
      (*da)[1] != (*db)[0]) {
    return std::nullopt;
  }
  const double m = (*da)[0], k = (*da)[1], n = (*db)[1];
  OpModel out = Matrix(DeviceFamily::kGemm, op, 0);
  out.flops = 2 * m * n * k;
  out.bytes = (m * k + k * n) * bpe + m * n * 2;
  out.params = fmt::format("M={} N={} K={} scaled", m, n, k);
  return out;
}

// torch._grouped_mm(mat_a, mat_b, offs, ...): 2-D tokens x 3-D experts
// (MoE), or 3-D x 3-D batches.
std::optional<OpModel> GroupedMm(const Op& op) {
  const auto* da = op.Tensor(0, 2);
  const auto* db = op.Tensor(1, 2);
  const int bpe = op.Bytes(0);
  if (da == nullptr || db == nullptr || bpe == 0) return std::nullopt;
  OpModel out = Matrix(DeviceFamily::kGroupedGemm, op, 0);
  if (da->size() == 2 && db->size() == 3 && (*da)[1] == (*db)[1]) {
    const double t = (*da)[0], k = (*da)[1], g = (*db)[0], n = (*db)[2];
    out.flops = 2 * t * k * n;
    out.bytes = (t * k + g * k * n + t * n) * bpe;
    out.params = fmt::format("tokens={} groups={} N={} K={}", t, g, n, k);
    return out;
  }
  if (da->size() == 3 && db->size() == 3 && (*da)[2] == (*db)[1] && (*da)[0] == (*db)[0]) {
    const double g = (*da)[0], m = (*da)[1], k = (*da)[2], n = (*db)[2];
    out.flops = 2 * g * m * n * k;
    out.bytes = g * (m * k + k * n + m * n) * bpe;
    out.params = fmt::format("groups={} M={} N={} K={}", g, m, n, k);
    return out;
  }
  return std::nullopt;
}

// --- attention -----------------------------------------------------------

// q [B, H, Nq, d], k [B, Hkv, Nkv, d], v [B, Hkv, Nkv, dv]. is_causal is a
// scalar input; without it the count is unknown (a factor of 2).
std::optional<OpModel> Sdpa(const Op& op, size_t q_index, size_t causal_index, bool backward) {
  const auto* q = op.Tensor(q_index, 4);
  const auto* k = op.Tensor(q_index + 1, 4);
  const auto* v = op.Tensor(q_index + 2, 4);
  const int bpe = op.Bytes(q_index);
  if (q == nullptr || k == nullptr || v == nullptr || q->size() != 4 || k->size() != 4 ||
      v->size() != 4 || bpe == 0) {
    return std::nullopt;
  }
  const std::string_view causal_text = op.Concrete(causal_index);
  if (causal_text != "True" && causal_text != "False") return std::nullopt;
  const bool causal = causal_text == "True";
  const double b = (*q)[0], h = (*q)[1], nq = (*q)[2], dqk = (*q)[3];
  const double hkv = (*k)[1], nkv = (*k)[2], dv = (*v)[3];
  double flops = 2 * b * h * nq * nkv * dqk + 2 * b * h * nq * nkv * dv;
  if (causal) flops /= 2;
  // Q, K, V read and O written once (TraceLens's count); the backward also
  // reads O and dO and writes dQ, dK, dV.
  const double q_elems = b * h * nq * dqk, kv_elems = b * hkv * nkv * (dqk + dv);
  const double o_elems = b * h * nq * dv;
  OpModel out = Matrix(DeviceFamily::kAttention, op, q_index);
  if (backward) {
    out.flops = 2.5 * flops;
    out.bytes = (2 * q_elems + 2 * kv_elems + 2 * o_elems) * bpe;
  } else {
    out.flops = flops;
    out.bytes = (q_elems + kv_elems + o_elems) * bpe;
  }
  out.params = fmt::format("B={} H={} Nq={} Nkv={} d={}{}{}", b, h, nq, nkv, dqk,
                           hkv != h ? fmt::format(" Hkv={}", hkv) : "", causal ? " causal" : "");
  return out;
}

constexpr std::array<std::string_view, 22> kUnaryOps = {
    "neg",  "abs",  "exp",   "log",   "sqrt",    "rsqrt",      "sigmoid", "tanh",
    "relu", "gelu", "silu",  "sin",   "cos",     "reciprocal", "erf",     "clone",
    "relu_", "silu_", "gelu_", "sigmoid_", "exp_", "neg_"};
constexpr std::array<std::string_view, 28> kBinaryOps = {
    "add",  "sub",  "mul",  "div",      "add_",      "sub_",    "mul_",
    "div_", "pow",  "pow_", "maximum",  "minimum",   "eq",      "ne",
    "lt",   "le",   "gt",   "ge",       "masked_fill", "masked_fill_", "threshold_backward",
    "gelu_backward", "silu_backward", "sigmoid_backward", "tanh_backward", "rsub",
    "fmod", "remainder"};
constexpr std::array<std::string_view, 10> kReductionOps = {
    "sum", "mean", "amax", "amin", "max", "min", "var", "std", "norm", "linalg_vector_norm"};

bool OneOf(std::string_view s, const auto& table) {
  for (std::string_view t : table) {
    if (s == t) return true;
  }
  return false;
}

std::optional<OpModel> Dispatch(const Op& op) {
  const std::string_view n = op.base;
  if (n == "mm") return Gemm2d(op, 0, 1, -1);
  if (n == "addmm") return Gemm2d(op, 1, 2, 0);
  if (n == "bmm") return Gemm3d(op, 0, 1, -1);
  if (n == "baddbmm") return Gemm3d(op, 1, 2, 0);
  if (n == "matmul") return Matmul(op);
  if (n == "linear") return Linear(op);
  if (n == "_scaled_mm") return ScaledMm(op);
  if (n == "_grouped_mm" || n == "_scaled_grouped_mm") return GroupedMm(op);
  if (n == "scaled_dot_product_attention") return Sdpa(op, 0, 5, false);
  if (n == "_scaled_dot_product_flash_attention") return Sdpa(op, 0, 4, false);
  if (n == "_scaled_dot_product_efficient_attention") return Sdpa(op, 0, 6, false);
  if (n == "_scaled_dot_product_cudnn_attention") return Sdpa(op, 0, 6, false);
  if (n == "_scaled_dot_product_flash_attention_backward") return Sdpa(op, 1, 11, true);
  if (n == "_scaled_dot_product_efficient_attention_backward") return Sdpa(op, 1, 11, true);
  if (n == "_scaled_dot_product_cudnn_attention_backward") return Sdpa(op, 1, 14, true);
  if (n == "convolution" || n == "_convolution") return Convolution(op);
  if (n == "convolution_backward") return ConvolutionBackward(op);
  if (n == "layer_norm" || n == "native_layer_norm" || n == "rms_norm" ||
      n == "_fused_rms_norm" || n == "group_norm" || n == "native_group_norm" ||
      n == "native_batch_norm" || n == "cudnn_batch_norm" || n == "_native_batch_norm_legit") {
    return Norm(op, false);
  }
  if (n == "native_layer_norm_backward" || n == "native_group_norm_backward" ||
      n == "native_batch_norm_backward" || n == "_fused_rms_norm_backward") {
    return Norm(op, true);
  }
  if (n == "_softmax" || n == "softmax" || n == "_log_softmax" || n == "log_softmax") {
    return Softmax(op, false);
  }
  if (n == "_softmax_backward_data" || n == "_log_softmax_backward_data") {
    return Softmax(op, true);
  }
  if (n == "copy_") return Copy(op);
  if (OneOf(n, kUnaryOps)) return Pointwise(op, 1);
  if (OneOf(n, kBinaryOps)) return Pointwise(op, 2);
  if (n == "where") return Pointwise(op, 3);
  if (OneOf(n, kReductionOps)) return Reduction(op);
  if (n == "embedding") return Embedding(op);
  return std::nullopt;
}

std::string_view BaseName(std::string_view name) {
  if (!name.starts_with("aten::")) return {};
  return name.substr(6);
}

}  // namespace

int BytesPerElement(std::string_view t) {
  t = StripAsciiWhitespace(t);
  if (t.starts_with("c10::")) t.remove_prefix(5);
  if (t == "BFloat16" || t == "Half" || t == "short int" || t == "Short") return 2;
  if (t == "float" || t == "Float" || t == "int" || t == "Int") return 4;
  if (t == "double" || t == "Double" || t == "long int" || t == "long" || t == "Long" ||
      t == "complex<float>") {
    return 8;
  }
  if (t.starts_with("Float8_") || t == "signed char" || t == "unsigned char" || t == "bool" ||
      t == "Bool" || t == "Byte" || t == "Char") {
    return 1;
  }
  return 0;
}

bool IsModelledOpName(std::string_view name) {
  const std::string_view base = BaseName(name);
  if (base.empty()) return false;
  static constexpr std::array<std::string_view, 34> kOthers = {
      "mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "_scaled_mm", "_grouped_mm",
      "_scaled_grouped_mm", "scaled_dot_product_attention",
      "_scaled_dot_product_flash_attention", "_scaled_dot_product_efficient_attention",
      "_scaled_dot_product_cudnn_attention", "_scaled_dot_product_flash_attention_backward",
      "_scaled_dot_product_efficient_attention_backward",
      "_scaled_dot_product_cudnn_attention_backward", "convolution", "_convolution",
      "convolution_backward", "layer_norm", "native_layer_norm", "rms_norm", "_fused_rms_norm",
      "group_norm", "native_group_norm", "native_batch_norm", "cudnn_batch_norm",
      "_native_batch_norm_legit", "_softmax", "softmax", "_log_softmax", "log_softmax",
      "copy_", "embedding"};
  if (OneOf(base, kOthers)) return true;
  if (base.ends_with("_backward") || base.ends_with("_backward_data")) {
    static constexpr std::array<std::string_view, 6> kBackward = {
        "native_layer_norm_backward", "native_group_norm_backward",
        "native_batch_norm_backward", "_fused_rms_norm_backward", "_softmax_backward_data",
        "_log_softmax_backward_data"};
    if (OneOf(base, kBackward)) return true;
  }
  return OneOf(base, kUnaryOps) || OneOf(base, kBinaryOps) || OneOf(base, kReductionOps) ||
         base == "where";
}

std::optional<OpModel> ModelOp(const OpInputs& in) {
  Op op;
  op.base = BaseName(in.name);
  if (!op.base.empty() && !in.input_dims.empty()) {
    op.in = ParseDims(in.input_dims);
    op.types = ParseStrings(in.input_types);
    op.concrete = ParseStrings(in.concrete_inputs);
    // Damaged or absurd shapes give no model rather than an infinite rate.
    if (std::optional<OpModel> m = Dispatch(op);
        m.has_value() && std::isfinite(m->flops) && std::isfinite(m->bytes) && m->flops >= 0 &&
        m->flops < kMaxFlops && m->bytes < kMaxBytes) {
      return m;
    }
  }
  // Kineto's own estimate (with_flops=True) when shapes do not decide.
  if (in.kineto_flops.has_value() && *in.kineto_flops > 0 && *in.kineto_flops < kMaxFlops) {
    OpModel m;
    m.flops = *in.kineto_flops;
    m.from_kineto_flops = true;
    const std::string_view base = op.base;
    m.family = base == "convolution" || base == "conv2d" ? DeviceFamily::kConvFwd
               : base == "mm" || base == "addmm" || base == "bmm" || base == "baddbmm" ||
                       base == "matmul" || base == "linear"
                   ? DeviceFamily::kGemm
                   : DeviceFamily::kElementwise;
    const std::vector<std::string_view> types = ParseStrings(in.input_types);
    m.dtype = ComputeDtypeOf(types.empty() ? std::string_view() : types.front());
    m.params = "flops from the trace";
    return m;
  }
  return std::nullopt;
}

bool ModelAppliesTo(DeviceFamily op_family, DeviceFamily kernel_family) {
  auto matrix = [](DeviceFamily f) {
    return f == DeviceFamily::kGemm || f == DeviceFamily::kGroupedGemm;
  };
  switch (op_family) {
    case DeviceFamily::kGemm:
    case DeviceFamily::kGroupedGemm:
      return matrix(kernel_family);
    case DeviceFamily::kAttention:
      return kernel_family == DeviceFamily::kAttention;
    case DeviceFamily::kConvFwd:
    case DeviceFamily::kConvBwd:
      return kernel_family == DeviceFamily::kConvFwd || kernel_family == DeviceFamily::kConvBwd;
    case DeviceFamily::kNormalization:
    case DeviceFamily::kSoftmax:
    case DeviceFamily::kElementwise:
    case DeviceFamily::kReduction:
    case DeviceFamily::kEmbedding:
      return kernel_family == DeviceFamily::kNormalization ||
             kernel_family == DeviceFamily::kSoftmax ||
             kernel_family == DeviceFamily::kElementwise ||
             kernel_family == DeviceFamily::kReduction ||
             kernel_family == DeviceFamily::kEmbedding ||
             kernel_family == DeviceFamily::kOptimizer;
    default:
      return false;
  }
}

}  // namespace tracelint
