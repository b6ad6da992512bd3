#ifndef TRACELINT_ANALYZER_ANALYSIS_PERF_MODEL_INTERNAL_H_
#define TRACELINT_ANALYZER_ANALYSIS_PERF_MODEL_INTERNAL_H_

// Between the op model's files: perf_model.cc (parsing, GEMMs, attention,
// dispatch) and perf_model_ops.cc (convolution and the memory-bound ops).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis/perf_model.h"

namespace tracelint::perf_model_internal {

// One entry of "Input Dims": a tensor's shape (a scalar's is empty), or a
// tensor list's shapes.
struct Input {
  std::vector<int64_t> dims;
  bool is_list = false;
  bool is_tensor = false;  // a non-empty shape, or the type says tensor
};

// Parses "[[16, 559, 1024], [], [[2, 3], [2, 3]]]". Malformed text gives
// what was read before the fault; the models check what they need.
std::vector<Input> ParseDims(std::string_view s);
// The quoted items of a JSON list of strings.
std::vector<std::string_view> ParseStrings(std::string_view s);
double Numel(const std::vector<int64_t>& dims);
std::string Shape(const std::vector<int64_t>& dims);  // "16x559x1024"

struct Op {
  std::string_view base;  // "addmm" of "aten::addmm"
  std::vector<Input> in;
  std::vector<std::string_view> types;
  std::vector<std::string_view> concrete;

  const Input* At(size_t i) const { return i < in.size() ? &in[i] : nullptr; }
  const std::vector<int64_t>* Tensor(size_t i, size_t rank_min = 1) const {
    const Input* x = At(i);
    if (x == nullptr || x->is_list || x->dims.size() < rank_min) return nullptr;
    return &x->dims;
  }
  std::string_view Type(size_t i) const { return i < types.size() ? types[i] : ""; }
  int Bytes(size_t i) const { return BytesPerElement(Type(i)); }
  std::string_view Concrete(size_t i) const { return i < concrete.size() ? concrete[i] : ""; }
};

// A model of a matrix-unit family with the dtype of input `type_index`.
OpModel Matrix(DeviceFamily family, const Op& op, size_t type_index);

// perf_model_ops.cc.
std::optional<OpModel> Convolution(const Op& op);
std::optional<OpModel> ConvolutionBackward(const Op& op);
std::optional<OpModel> Norm(const Op& op, bool backward);
std::optional<OpModel> Softmax(const Op& op, bool backward);
// Pointwise ops of `tensor_inputs` inputs (Scalars count as none).
std::optional<OpModel> Pointwise(const Op& op, size_t tensor_inputs);
std::optional<OpModel> Copy(const Op& op);
std::optional<OpModel> Reduction(const Op& op);
std::optional<OpModel> Embedding(const Op& op);

}  // namespace tracelint::perf_model_internal

#endif  // TRACELINT_ANALYZER_ANALYSIS_PERF_MODEL_INTERNAL_H_
