#ifndef TRACELINT_ANALYZER_ANALYSIS_IDLE_ATTRIBUTION_H_
#define TRACELINT_ANALYZER_ANALYSIS_IDLE_ATTRIBUTION_H_

#include <array>
#include <string_view>
#include <vector>

#include "analyzer/model/timeline.h"

namespace tracelint {

class AnalysisContext;

// domain.md, "Time accounting": every idle instant of a device inside a
// step is charged to exactly one cause; each cause has one owning rule.
enum class IdleCause : uint8_t {
  kDataLoader = 0,        // gpu-idle-gaps
  kSyncCall,              // host-side-ops
  kPageableCopy,          // h2d-copy-dominance
  kHostSideOp,            // host-side-ops
  kLaunchOverhead,        // gpu-idle-gaps
  kOtherHostWork,         // gpu-idle-gaps
  kHostSilent,            // gpu-idle-gaps
  kDeviceWaitCollective,  // comm-clustered-allreduce
  kDeviceWaitOther,       // gpu-idle-gaps
  kUnattributed,          // no linked launch: never guessed
};
inline constexpr int kIdleCauseCount = static_cast<int>(IdleCause::kUnattributed) + 1;
std::string_view IdleCauseName(IdleCause cause);  // "data_loader", ...

struct IdlePiece {
  int device = -1;
  int step_index = -1;            // index into StepSet::steps
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  IdleCause cause = IdleCause::kUnattributed;
  SliceId host_slice = kNoIndex;  // innermost host op covering the piece
  SliceId next_activity = kNoIndex;  // device activity that ends the gap
};

struct IdleAttribution {
  std::vector<IdlePiece> pieces;  // sorted by (device, start)
  // [step_index][cause] -> idle ns, summed over devices.
  std::vector<std::array<TimeNs, kIdleCauseCount>> per_step_ns;
  std::array<TimeNs, kIdleCauseCount> total_ns{};
  TimeNs total_idle_ns = 0;
};

IdleAttribution ComputeIdleAttribution(AnalysisContext& ctx);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_IDLE_ATTRIBUTION_H_
