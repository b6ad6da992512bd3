#ifndef TRACELINT_ANALYZER_ANALYSIS_ROOFLINE_H_
#define TRACELINT_ANALYZER_ANALYSIS_ROOFLINE_H_

// Where the device time goes and how far it is from the hardware
// (docs/roofline.md): device time per kernel family, the op model's FLOPs
// and bytes, achieved rates against the device's peaks, and a roofline per
// family and per op. RankRoofline is plain data (strings and numbers, no
// pointers into the timeline), so per-rank summaries can be serialised and
// merged.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/analysis/kernel_classify.h"
#include "analyzer/base/time.h"

namespace tracelint {

class AnalysisContext;

// One family (and dtype) of device work over the analysed steps. Times are
// busy time with overlapping streams counted once: an instant shared by k
// activities gives each 1/k, so the families sum to the device's busy time.
struct RooflineFamily {
  std::string family;   // DeviceFamilyName: "gemm", "attention", "elementwise" ...
  std::string dtype;    // ComputeDtypeName, "" when unknown
  std::string variant;  // attention: "flash", "sdpa", "paged", "decode"; else ""
  bool compute = true;  // not communication, copies or memset
  bool matrix = false;  // GEMM, grouped GEMM, attention, convolution
  double device_ns_per_step = 0;
  std::vector<double> device_ns_steps;  // per analysed step
  double flops_per_step = 0;     // modelled FLOPs
  double bytes_per_step = 0;     // modelled bytes (ops whose bytes are known)
  double modelled_ns_per_step = 0;  // device time of kernels whose op is modelled
  double share_of_step = 0;
  double share_of_busy = 0;
  double modelled_share = 0;  // modelled_ns / device_ns
  // Over the modelled time; 0 when nothing is modelled.
  double achieved_tflops = 0;
  double achieved_tbps = 0;
  double peak_tflops = 0;  // 0: no peak for this device and dtype
  double peak_tbps = 0;
  std::string bound;        // "compute", "memory", or "" when not known
  double efficiency = -1;   // roofline time / modelled time, -1 unknown
};

// One op with one set of input shapes, over the analysed steps.
struct RooflineOp {
  std::string name;    // "aten::mm"
  std::string family;  // of its kernels
  std::string dtype;
  std::string shapes;  // the recorded "Input Dims"
  std::string params;  // "M=8944 N=2816 K=1024"
  std::string kernel;  // its longest kernel's name
  int64_t calls = 0;
  double device_ns_per_step = 0;  // its kernels' durations (not split)
  double flops_per_call = 0;
  double bytes_per_call = -1;     // < 0 unknown
  double achieved_tflops = 0;
  double achieved_tbps = 0;
  double intensity = -1;          // FLOP per byte, -1 unknown
  double peak_tflops = 0;
  double peak_tbps = 0;
  std::string bound;
  double efficiency = -1;
  bool modelled = false;
  bool from_kineto_flops = false;
};

struct RankRoofline {
  int64_t steps = 0;           // analysed (steady) steps covered
  std::vector<int64_t> step_numbers;  // as the trace names them
  int devices = 0;             // devices with activity in them
  double step_ns = 0;          // mean step
  double busy_ns_per_step = 0;  // all devices' busy time (sum), per step
  // The peak table entry used, and how it was found; empty when none.
  std::string device;           // "NVIDIA H100 SXM"
  std::string device_in_trace;  // "NVIDIA H100 80GB HBM3"
  std::string peak_kind;        // "datasheet" or "max achievable"
  std::string no_peak_reason;   // why there is no roofline (said once)
  std::string architecture;     // from kernel names when no device properties
  std::vector<RooflineFamily> families;  // by device time, largest first
  std::vector<RooflineOp> top_ops;       // compute ops by device time
  // Modelled FLOPs of the matrix families / (step time x devices x the
  // datasheet peak of their dominant dtype), only when at least
  // kMinMfuModelledShare of their time is modelled.
  std::optional<double> mfu;
  std::string mfu_dtype;
  double mfu_peak_tflops = 0;
  double matrix_modelled_share = 0;  // of GEMM/attention/conv time
  std::vector<std::string> notes;
};
inline constexpr double kMinMfuModelledShare = 0.9;
inline constexpr size_t kMaxRooflineOps = 25;

// What the kernel-efficiency rule needs beyond the summary: per op group,
// its efficiency and the device time it owns after the busy-time claims of
// tensor-cores-idle and kernel-small-grids, step by step.
struct RooflineGroup {
  DeviceFamily family = DeviceFamily::kOther;
  ComputeDtype dtype = ComputeDtype::kUnknown;
  size_t op = 0;               // index into RankRoofline::top_ops' source list (all_ops)
  double efficiency = -1;      // -1: no model or no peak
  double flops_per_call = 0;
  double bytes_per_call = -1;
  double roofline_ns_per_call = 0;  // max(flops / peak, bytes / bandwidth)
  // (step index, owned ns) in step order: the op's kernel time after
  // overlaps are split and the other rules' claims are removed.
  std::vector<std::pair<uint32_t, double>> owned_steps;
};

struct RooflineWork {
  std::vector<RooflineOp> all_ops;      // every op group (top_ops is its head)
  std::vector<RooflineGroup> groups;    // parallel to all_ops
  std::vector<bool> device_bound;       // per analysed step: compute busy >= 80%
  std::vector<double> compute_busy_ns;  // per analysed step, summed over devices
  int device_count = 0;
  bool has_peak = false;
  // The lowest compute capability the rank's kernel names prove, for
  // devices the trace gives no properties for (kernel_classify.h).
  ArchitectureHint architecture;
};
// A step is bound by the device when compute kernels keep it busy this
// share of the step (the verdict's "gpu compute" threshold).
inline constexpr double kDeviceBoundShare = 0.8;

struct RooflineAnalysis {
  RankRoofline summary;
  RooflineWork work;
};

// Over ctx.steps().
RooflineAnalysis ComputeRoofline(AnalysisContext& ctx);

// "GEMM bf16 62% of the step at 48% of peak" for the verdict of a GPU-bound
// run: the largest compute family; "" when there is none.
std::string DominantFamilyText(const RankRoofline& r);

// "GEMM bf16", "attention (flash) bf16", "elementwise".
std::string FamilyLabel(const RooflineFamily& f);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_ROOFLINE_H_
