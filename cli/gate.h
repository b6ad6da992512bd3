#ifndef TRACELINT_CLI_GATE_H_
#define TRACELINT_CLI_GATE_H_

// The findings gate of `analyze` (exit code 1, docs/ci.md): --fail-on and
// --fail-on-recoverable.

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/engine/finding.h"

namespace tracelint {

struct GateOptions {
  std::optional<FindingSeverity> fail_on;  // trips at or above this severity
  std::optional<double> fail_on_recoverable_share;  // trips when the total share reaches it
};

// `fail_on`: "" (off), "high", "medium" or "low". `recoverable`: "" (off), a
// share in (0, 1] ("0.2") or a percentage ("20%"). Anything else is a usage
// error.
absl::StatusOr<GateOptions> ParseGateOptions(const std::string& fail_on,
                                             const std::string& recoverable);

struct GateResult {
  bool tripped = false;
  std::vector<std::string> reasons;  // one line per tripped condition
};

// One-time findings count for --fail-on by their severity but never for
// --fail-on-recoverable: their per-step share is 0 (docs/design/contract.md).
GateResult EvaluateGate(const GateOptions& options, const std::vector<Finding>& findings);

}  // namespace tracelint

#endif  // TRACELINT_CLI_GATE_H_
