// The op model of convolutions and memory-bound ops (perf_model.h).

#include "analyzer/analysis/perf_model_internal.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/base/strings.h"
#include "fmt/format.h"

namespace tracelint::perf_model_internal {

// --- convolution ---------------------------------------------------------

// "[1, 1]" -> {1, 1}; a bare number repeats over `rank` dims.
std::vector<int64_t> IntList(std::string_view s, size_t rank) {
  std::vector<int64_t> out;
  int64_t v = -1;
  for (char c : s) {
    if (c >= '0' && c <= '9') {
      v = (v < 0 ? 0 : v * 10) + (c - '0');
      if (v > (int64_t{1} << 40)) return {};  // no stride or padding is this large
    } else if (v >= 0) {
      out.push_back(v);
      v = -1;
    }
  }
  if (v >= 0) out.push_back(v);
  if (out.size() == 1 && rank > 1) out.assign(rank, out.front());
  return out;
}

// "[True, False, True]" -> {true, false, true}.
std::vector<bool> BoolList(std::string_view s) {
  std::vector<bool> out;
  for (size_t at = 0; at < s.size();) {
    if (s.substr(at).starts_with("True")) {
      out.push_back(true);
      at += 4;
    } else if (s.substr(at).starts_with("False")) {
      out.push_back(false);
      at += 5;
    } else {
      ++at;
    }
  }
  return out;
}

// FLOPs of the forward convolution of input [N, C, *in] with weight
// [K, C/g, *kernel] producing [N, K, *out].
struct ConvShape {
  double n = 0, c = 0, k = 0, groups = 1;
  double in_spatial = 1, out_spatial = 1, kernel_spatial = 1;
  double Flops() const { return 2 * n * k * out_spatial * (c / groups) * kernel_spatial; }
};

// aten::convolution / aten::_convolution(input, weight, bias, stride,
// padding, dilation, transposed, output_padding, groups, ...).
std::optional<OpModel> Convolution(const Op& op) {
  const auto* x = op.Tensor(0, 3);
  const auto* w = op.Tensor(1, 3);
  const int bpe = op.Bytes(0);
  if (x == nullptr || w == nullptr || x->size() != w->size() || bpe == 0) return std::nullopt;
  const size_t rank = x->size() - 2;
  const std::vector<int64_t> stride = IntList(op.Concrete(3), rank);
  const std::vector<int64_t> padding = IntList(op.Concrete(4), rank);
  const std::vector<int64_t> dilation = IntList(op.Concrete(5), rank);
  const std::string_view transposed = op.Concrete(6);
  const std::vector<int64_t> out_pad = IntList(op.Concrete(7), rank);
  const std::vector<int64_t> groups = IntList(op.Concrete(8), 1);
  if (stride.size() != rank || padding.size() != rank || dilation.size() != rank ||
      groups.size() != 1 || groups[0] <= 0 || (transposed != "True" && transposed != "False")) {
    return std::nullopt;
  }
  const bool is_transposed = transposed == "True";
  ConvShape s;
  s.n = (*x)[0];
  s.groups = static_cast<double>(groups[0]);
  std::vector<int64_t> out_dims;
  for (size_t i = 0; i < rank; ++i) {
    const int64_t in = (*x)[i + 2], kk = (*w)[i + 2];
    int64_t o;
    if (is_transposed) {
      const int64_t op_i = i < out_pad.size() ? out_pad[i] : 0;
      o = (in - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kk - 1) + op_i + 1;
    } else {
      if (stride[i] <= 0) return std::nullopt;
      o = (in + 2 * padding[i] - dilation[i] * (kk - 1) - 1) / stride[i] + 1;
    }
    if (o <= 0) return std::nullopt;
    out_dims.push_back(o);
    s.in_spatial *= static_cast<double>(in);
    s.out_spatial *= static_cast<double>(o);
    s.kernel_spatial *= static_cast<double>(kk);
  }
  // Transposed: weight [C_in, C_out/g, *k]; the work is the forward
  // convolution's with input and output swapped.
  s.c = is_transposed ? (*w)[0] : (*x)[1];
  s.k = is_transposed ? (*w)[1] * s.groups : (*w)[0];
  OpModel out = Matrix(DeviceFamily::kConvFwd, op, 0);
  out.flops = is_transposed ? 2 * s.n * s.c * s.in_spatial * (s.k / s.groups) * s.kernel_spatial
                            : s.Flops();
  const double out_elems = s.n * s.k * s.out_spatial;
  out.bytes = (Numel(*x) + Numel(*w) + out_elems) * bpe;
  if (const auto* bias = op.Tensor(2)) {
    out.flops += out_elems;
    out.bytes += Numel(*bias) * bpe;
  }
  out.params = fmt::format("in={} w={} out={}{}{}", Shape(*x), Shape(*w), Shape(out_dims),
                           s.groups > 1 ? fmt::format(" groups={}", s.groups) : "",
                           is_transposed ? " transposed" : "");
  return out;
}

// aten::convolution_backward(grad_output, input, weight, bias_sizes, stride,
// padding, dilation, transposed, output_padding, groups, output_mask): each
// of the input and weight gradients costs one forward convolution.
std::optional<OpModel> ConvolutionBackward(const Op& op) {
  const auto* gy = op.Tensor(0, 3);
  const auto* x = op.Tensor(1, 3);
  const auto* w = op.Tensor(2, 3);
  const int bpe = op.Bytes(0);
  if (gy == nullptr || x == nullptr || w == nullptr || gy->size() != x->size() ||
      w->size() != x->size() || bpe == 0) {
    return std::nullopt;
  }
  const std::vector<int64_t> groups = IntList(op.Concrete(9), 1);
  const std::vector<bool> mask = BoolList(op.Concrete(10));
  if (groups.size() != 1 || groups[0] <= 0 || mask.size() < 2) return std::nullopt;
  const bool grad_input = mask[0], grad_weight = mask[1];
  if (!grad_input && !grad_weight) return std::nullopt;
  const bool transposed = op.Concrete(7) == "True";
  ConvShape s;
  s.n = (*x)[0];
  s.groups = static_cast<double>(groups[0]);
  for (size_t i = 2; i < x->size(); ++i) {
    s.in_spatial *= static_cast<double>((*x)[i]);
    s.out_spatial *= static_cast<double>((*gy)[i]);
    s.kernel_spatial *= static_cast<double>((*w)[i]);
  }
  s.c = (*x)[1];
  s.k = (*gy)[1];
  // A transposed convolution's gradients are convolutions over its input.
  const double one = transposed
                         ? 2 * s.n * s.c * s.in_spatial * (s.k / s.groups) * s.kernel_spatial
                         : s.Flops();
  OpModel out = Matrix(DeviceFamily::kConvBwd, op, 0);
  out.flops = one * ((grad_input ? 1 : 0) + (grad_weight ? 1 : 0));
  // Reads dY, X and W; writes dX and dW.
  out.bytes = (Numel(*gy) + Numel(*x) * (grad_input ? 2 : 1) +
               Numel(*w) * (grad_weight ? 2 : 1)) *
              bpe;
  out.params = fmt::format("dy={} in={} w={}{}{}", Shape(*gy), Shape(*x), Shape(*w),
                           grad_input ? " dgrad" : "", grad_weight ? " wgrad" : "");
  return out;
}

// --- memory-bound ops ----------------------------------------------------

OpModel Memory(DeviceFamily family, const Op& op, double flops, double bytes,
               const std::vector<int64_t>& shape) {
  OpModel m;
  m.family = family;
  m.dtype = ComputeDtypeOf(op.Type(0));
  m.flops = flops;
  m.bytes = bytes;
  m.params = Shape(shape);
  return m;
}

// Normalizations read the input and write the output once (plus the affine
// parameters); the backward reads dY and X and writes dX.
std::optional<OpModel> Norm(const Op& op, bool backward) {
  const size_t x_index = backward ? 1 : 0;
  const auto* x = op.Tensor(x_index);
  const int bpe = op.Bytes(x_index);
  if (x == nullptr || bpe == 0) return std::nullopt;
  const double n = Numel(*x);
  return Memory(DeviceFamily::kNormalization, op, (backward ? 8 : 5) * n,
                (backward ? 3 : 2) * n * bpe, *x);
}

std::optional<OpModel> Softmax(const Op& op, bool backward) {
  const auto* x = op.Tensor(0);
  const int bpe = op.Bytes(0);
  if (x == nullptr || bpe == 0) return std::nullopt;
  const double n = Numel(*x);
  return Memory(DeviceFamily::kSoftmax, op, (backward ? 3 : 5) * n, (backward ? 3 : 2) * n * bpe,
                *x);
}

// Broadcast shape of two operands (numpy rules); empty when they clash.
std::vector<int64_t> Broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1) return {};
    out[out.size() - 1 - i] = std::max(x, y);
  }
  return out;
}

// Pointwise ops: every tensor input read once, the output written once (a
// Scalar input costs nothing), one FLOP per output element.
std::optional<OpModel> Pointwise(const Op& op, size_t tensor_inputs) {
  std::vector<int64_t> shape;
  double read = 0;
  int out_bpe = 0;
  for (size_t i = 0; i < tensor_inputs; ++i) {
    const Input* in = op.At(i);
    if (in == nullptr || in->is_list) return std::nullopt;
    if (in->dims.empty()) {
      // A scalar (or a 0-d tensor): nothing to stream.
      if (op.Type(i) != "Scalar" && BytesPerElement(op.Type(i)) == 0 && i == 0) {
        return std::nullopt;
      }
      continue;
    }
    const int bpe = op.Bytes(i);
    if (bpe == 0) return std::nullopt;
    if (out_bpe == 0) out_bpe = bpe;
    read += Numel(in->dims) * bpe;
    shape = shape.empty() ? in->dims : Broadcast(shape, in->dims);
    if (shape.empty()) return std::nullopt;
  }
  if (shape.empty() || out_bpe == 0) return std::nullopt;
  const double out_elems = Numel(shape);
  return Memory(DeviceFamily::kElementwise, op, out_elems, read + out_elems * out_bpe, shape);
}

// copy_(self, src): read src, write self.
std::optional<OpModel> Copy(const Op& op) {
  const auto* dst = op.Tensor(0);
  const auto* src = op.Tensor(1);
  const int dst_bpe = op.Bytes(0), src_bpe = op.Bytes(1);
  if (dst == nullptr || src == nullptr || dst_bpe == 0 || src_bpe == 0) return std::nullopt;
  const double n = Numel(*dst);
  return Memory(DeviceFamily::kElementwise, op, n, n * (dst_bpe + src_bpe), *dst);
}

// Reductions stream their input once; the output is small.
std::optional<OpModel> Reduction(const Op& op) {
  const auto* x = op.Tensor(0);
  const int bpe = op.Bytes(0);
  if (x == nullptr || bpe == 0) return std::nullopt;
  const double n = Numel(*x);
  return Memory(DeviceFamily::kReduction, op, n, n * bpe, *x);
}

// embedding(weight[V, D], indices): gathered rows read and written once.
std::optional<OpModel> Embedding(const Op& op) {
  const auto* w = op.Tensor(0, 2);
  const auto* idx = op.Tensor(1);
  const int bpe = op.Bytes(0);
  if (w == nullptr || idx == nullptr || w->size() != 2 || bpe == 0) return std::nullopt;
  const double rows = Numel(*idx), d = (*w)[1];
  std::vector<int64_t> shape = *idx;
  shape.push_back((*w)[1]);
  return Memory(DeviceFamily::kEmbedding, op, 0, 2 * rows * d * bpe + rows * op.Bytes(1), shape);
}

}  // namespace tracelint::perf_model_internal
