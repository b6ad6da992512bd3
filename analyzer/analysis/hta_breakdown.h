#ifndef TRACELINT_ANALYZER_ANALYSIS_HTA_BREAKDOWN_H_
#define TRACELINT_ANALYZER_ANALYSIS_HTA_BREAKDOWN_H_

// HTA's get_temporal_breakdown, reproduced (docs/devices-and-advice.md,
// "HTA parity", has the definition and where HTA itself is off).

#include <string_view>
#include <vector>

#include "analyzer/analysis/step_metrics.h"
#include "analyzer/model/timeline.h"

namespace tracelint {

// HTA's kernel type by name (hta/utils/utils.py get_kernel_type):
// communication when the name starts with "nccl" or contains "gloo:",
// memory when it contains "Memcpy" or "Memset", computation otherwise.
enum class HtaKernelType { kComputation, kCommunication, kMemory };
HtaKernelType HtaKernelTypeOf(std::string_view name);

// One entry per device with GPU work left after HTA's filter, by device.
std::vector<HtaBreakdown> ComputeHtaBreakdown(const Timeline& tl);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_HTA_BREAKDOWN_H_
