#ifndef TRACELINT_ANALYZER_ANALYSIS_STEP_METRICS_H_
#define TRACELINT_ANALYZER_ANALYSIS_STEP_METRICS_H_

// The numbers users compare with the PyTorch TensorBoard plugin and HTA
// (docs/design/domain.md, "Definitions"): per step and device, summaries over the
// analysed steps, the HTA temporal breakdown, top kernels and top ops.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis/kernel_classify.h"
#include "analyzer/base/time.h"
#include "analyzer/model/timeline.h"

namespace tracelint {

class AnalysisContext;

// Step breakdown categories in attribution priority: each instant of a step
// goes to the first category present.
enum class StepCategory : uint8_t {
  kKernel = 0,     // kernels not launched by a collective op
  kMemcpy,
  kMemset,
  kCommunication,  // collective kernels and host collective ops
  kRuntime,        // cuda_runtime / cuda_driver calls
  kDataLoader,     // enumerate(DataLoader)#...__next__, enumerate(DataPipe)#...
  kCpuExec,        // any other host op or annotation
  kOther,          // none of the above
};
inline constexpr int kStepCategoryCount = static_cast<int>(StepCategory::kOther) + 1;
std::string_view StepCategoryName(StepCategory c);  // "kernel", "memcpy", ...

// One device over one step, or (in StepMetrics::summary) over all analysed
// steps, in which case every _ns field is a sum over the steps.
struct DeviceMetrics {
  int device = -1;             // -1: a rank without device activity
  TimeNs step_ns = 0;          // step duration (sum of steps in a summary)
  TimeNs kernel_busy_ns = 0;   // |union of kernels on all streams, clipped|
  TimeNs busy_ns = 0;          // |union of kernels, copies and memsets, clipped|
  // Indexed by StepCategory; sums to step_ns exactly.
  std::array<TimeNs, kStepCategoryCount> breakdown_ns{};
  TimeNs kernel_ns = 0;              // sum of kernel durations (clipped), not a union
  TimeNs tensor_core_kernel_ns = 0;  // of which kernels classified as using Tensor Cores

  double gpu_utilization = 0;        // kernel_busy_ns / step_ns
  double busy_including_copies = 0;  // busy_ns / step_ns
  // nullopt when no kernel in the window carries the needed facts.
  std::optional<double> est_sm_efficiency;       // 0..1
  std::optional<double> est_achieved_occupancy;  // 0..1
  std::optional<double> tensor_core_kernel_share;  // tensor_core_kernel_ns / kernel_ns

  // Raw sums behind the estimates (so summaries combine steps exactly).
  double sm_efficiency_ns = 0;     // integral of the capped per-instant efficiency
  double occupancy_weighted_ns = 0;  // sum of occupancy (0..1) x duration
  TimeNs occupancy_known_ns = 0;     // kernel time that states an occupancy
  bool sm_efficiency_known = false;
  // Kernel time (clipped) whose launch dims (grid or blocks per SM) are
  // known; SM efficiency is shown only when it covers at least
  // kMinSmEfficiencyCoverage of kernel_ns (kernels without dims would count
  // as 0 and drag the estimate down).
  TimeNs sm_dims_known_ns = 0;
  std::optional<double> sm_efficiency_coverage;  // sm_dims_known_ns / kernel_ns
};
inline constexpr double kMinSmEfficiencyCoverage = 0.5;

struct StepRow {
  int64_t number = -1;  // N of ProfilerStep#N; 0 for the single window
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::vector<DeviceMetrics> devices;  // by device index
};

// HTA's get_temporal_breakdown for one device over the span from the start
// of its first GPU activity to the end of its last, after HTA's own filter
// (hta_breakdown.h).
struct HtaBreakdown {
  int device = -1;
  TimeNs span_start_ns = 0;
  TimeNs span_end_ns = 0;
  TimeNs idle_ns = 0;         // span - |union of all GPU activities|
  TimeNs compute_ns = 0;      // |union of HTA's computation kernels|
  TimeNs non_compute_ns = 0;  // the rest of the busy time (collectives, copies, memsets)
  bool launch_filter = false;       // HTA's last-step filter applied (2+ steps)
  int64_t excluded_activities = 0;  // GPU rows that filter left out
  // XSpace: XLA op names carry no "Memcpy"/"nccl", so copies and collectives
  // are told by the kind the parser gave them (HTA reads Kineto only).
  bool by_kind = false;
  TimeNs span_ns() const { return span_end_ns - span_start_ns; }
};

struct KernelStat {
  std::string name;
  int64_t count = 0;
  TimeNs total_ns = 0;
  TimeNs mean_ns = 0;
  double share = 0;  // of all kernel time in the analysed steps
  KernelClass kernel_class;
};

// A host op and the device time of every kernel it launched (directly or
// through the ops under it).
struct OpStat {
  std::string name;
  int64_t count = 0;         // op instances that launched kernels
  int64_t kernel_count = 0;
  TimeNs device_ns = 0;
  TimeNs mean_device_ns = 0;  // per op instance
  double share = 0;           // of all kernel time in the analysed steps
};

// Names of the pseudo-ops for kernels whose launching op is unknown.
inline constexpr std::string_view kNoHostOpName = "[launched outside any op]";
inline constexpr std::string_view kUnlinkedKernelName = "[no linked launch]";

struct StepMetrics {
  std::vector<StepRow> steps;           // the analysed steps
  std::vector<DeviceMetrics> summary;   // per device, over all analysed steps
  int64_t step_count = 0;
  TimeNs total_step_ns = 0;
  TimeNs mean_step_ns = 0;              // total_step_ns / step_count
  std::vector<HtaBreakdown> hta;        // per device with GPU activity
  // All kernels / ops in the analysed steps, by device time (desc), then
  // name: the report cuts them to --top.
  std::vector<KernelStat> top_kernels;
  std::vector<OpStat> top_ops;
  TimeNs total_kernel_ns = 0;           // denominator of the shares above
  // No step is steady: the top lists describe every complete step instead
  // (a descriptive table stays when no per-step claim can be made).
  bool top_lists_from_all_steps = false;
};

// The share of its device's SMs a kernel's grid asks for: blocks / SMs from
// the grid and deviceProperties' SM count, else the trace's own "blocks per
// SM" (the same ratio); not capped, so > 1 is more than one wave. nullopt
// without launch dimensions. min(1, fill) is the TensorBoard plugin's
// per-kernel SM efficiency.
std::optional<double> KernelSmFill(const Timeline& tl, SliceId kernel);

// Over ctx.steps() (the steady steps), or over the given steps.
StepMetrics ComputeStepMetrics(AnalysisContext& ctx);
struct StepSet;
StepMetrics ComputeStepMetrics(AnalysisContext& ctx, const StepSet& steps);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_STEP_METRICS_H_
