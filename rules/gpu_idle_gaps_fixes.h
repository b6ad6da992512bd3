#ifndef TRACELINT_RULES_GPU_IDLE_GAPS_FIXES_H_
#define TRACELINT_RULES_GPU_IDLE_GAPS_FIXES_H_

// gpu-idle-gaps' owned causes and the fix for each, for the job at hand
// (rules/docs/gpu-idle-gaps.md lists every variant).

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/job_profile.h"

namespace tracelint::rules_internal {

// Where other-host-work idle falls, which decides its fix.
// kGraphDispatch: inside the ops a graph executor dispatches to the device
// one by one (a TensorFlow 1 session's GPU ops).
enum class HostCode : uint8_t {
  kUnknown, kEagerModel, kCompiledModel, kGraphDispatch, kBetweenModelCalls
};

struct OwnedCause {
  IdleCause cause;
  std::string_view what;  // for titles: "waiting for the data loader"
  std::string_view fix;
};

inline constexpr size_t kOwnedIdleCauses = 8;
// The causes gpu-idle-gaps owns, in finding order.
const std::array<OwnedCause, kOwnedIdleCauses>& OwnedIdleCauses();

// The fix for a cause, for the job at hand: TensorFlow and JAX have their
// own input pipelines and profilers, inference has requests and decode
// steps, already-jitted JAX its per-call dispatch.
std::string IdleFixFor(const OwnedCause& owned, const JobProfile& job, HostCode where);

}  // namespace tracelint::rules_internal

#endif  // TRACELINT_RULES_GPU_IDLE_GAPS_FIXES_H_
