#ifndef TRACELINT_ANALYZER_ANALYSIS_ROOFLINE_INTERNAL_H_
#define TRACELINT_ANALYZER_ANALYSIS_ROOFLINE_INTERNAL_H_

// Between the roofline's collection pass (roofline.cc) and its summary
// (roofline_summary.cc): sums per family and per op group, before peaks.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/analysis/kernel_classify.h"
#include "analyzer/analysis/perf_model.h"
#include "analyzer/analysis/roofline.h"

namespace tracelint {

class AnalysisContext;

namespace roofline_internal {

struct FamilyAcc {
  DeviceFamily family = DeviceFamily::kOther;
  ComputeDtype dtype = ComputeDtype::kUnknown;
  AttentionKind attention = AttentionKind::kNone;
  std::vector<double> device_ns_steps;  // owned busy time per step
  double modelled_ns = 0;               // owned time of modelled kernels
  double bytes_known_ns = 0;            // ... whose op's bytes are known
  double flops = 0;
  double bytes = 0;
};

struct GroupAcc {
  RooflineOp op;                 // name, shapes, kernel, calls filled here
  std::optional<OpModel> model;  // the op's model, when it has one
  // Of its longest kernel the model describes (before one: of its first
  // kernel): a convolution's workspace-init or layout kernels come first.
  DeviceFamily family = DeviceFamily::kOther;
  ComputeDtype dtype = ComputeDtype::kUnknown;
  double longest_modelled_ns = -1;
  double raw_ns = 0;             // its kernels' durations (clipped to steps)
  double modelled_raw_ns = 0;    // ... of the kernels its model describes
  int64_t modelled_calls = 0;
  double longest_ns = 0;
  // (step, owned ns) that kernel-efficiency may judge (RooflineGroup).
  std::vector<std::pair<uint32_t, double>> owned_steps;
};

struct Collected {
  std::vector<FamilyAcc> families;
  std::vector<GroupAcc> groups;
  std::vector<double> busy_ns;          // per step, summed over devices
  std::vector<double> compute_busy_ns;  // per step, summed over devices
  std::vector<int> devices;             // with activity in the steps
  ArchitectureHint architecture;        // from the kernel names
  double unlinked_compute_ns = 0;       // compute kernels without an op
};

Collected Collect(AnalysisContext& ctx);

}  // namespace roofline_internal
}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_ROOFLINE_INTERNAL_H_
