#ifndef TRACELINT_ANALYZER_ANALYSIS_PERF_MODEL_H_
#define TRACELINT_ANALYZER_ANALYSIS_PERF_MODEL_H_

// FLOPs and bytes of one framework op from its recorded input shapes and
// dtypes (record_shapes), for the roofline (docs/roofline.md, "The op
// model"). The formulas are TraceLens's where it has one, so the same shapes
// give the same FLOPs: GEMM 2*M*N*K (+ M*N with a bias), SDPA
// 4*B*H*Nq*Nkv*d (halved when causal, x2.5 for the backward), convolution
// 2*N*K*out_spatial*(C/groups)*kernel_spatial. An op whose inputs do not
// determine the count (unknown dtype, tensor lists, missing scalar inputs)
// is not modelled: nothing is guessed.

#include <optional>
#include <string>
#include <string_view>

#include "analyzer/analysis/kernel_classify.h"

namespace tracelint {

// An op's inputs as the trace records them (Kineto args, raw JSON text).
struct OpInputs {
  std::string_view name;             // "aten::addmm"
  std::string_view input_dims;       // [[1024], [8944, 1024], [1024, 1024], [], []]
  std::string_view input_types;      // ["c10::BFloat16", ..., "Scalar"]
  std::string_view concrete_inputs;  // ["", "", "", "1", "1"]
  std::optional<double> kineto_flops;  // the "flops" arg (with_flops=True)
};

// What the model knows about one call of an op.
struct OpModel {
  DeviceFamily family = DeviceFamily::kOther;  // the kernels it applies to
  ComputeDtype dtype = ComputeDtype::kUnknown;
  double flops = 0;
  double bytes = -1;    // < 0: unknown (Kineto's flops arg alone)
  std::string params;   // "M=8944 N=2816 K=1024 bias", shown with the op
  bool from_kineto_flops = false;
};

// Whether ModelOp knows the op at all (cheap: a name lookup), so callers
// parse shapes only for ops that can be modelled.
bool IsModelledOpName(std::string_view op_name);

// The model of one call, or nullopt when the op is not modelled or its
// recorded inputs do not determine it.
std::optional<OpModel> ModelOp(const OpInputs& op);

// Whether an op model of `op_family` describes a kernel of `kernel_family`:
// a GEMM op's memset is not its GEMM, and a copy kernel inside a matmul is
// not the matmul's.
bool ModelAppliesTo(DeviceFamily op_family, DeviceFamily kernel_family);

// Bytes per element of a recorded dtype ("c10::BFloat16" 2, "float" 4),
// 0 when unknown.
int BytesPerElement(std::string_view dtype);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_PERF_MODEL_H_
