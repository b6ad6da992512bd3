#include "cli/gate.h"

#include <cmath>
#include <cstdlib>

#include "analyzer/report/report_data.h"
#include "fmt/format.h"

namespace tracelint {

absl::StatusOr<GateOptions> ParseGateOptions(const std::string& fail_on,
                                             const std::string& recoverable) {
  GateOptions out;
  if (fail_on == "high") {
    out.fail_on = FindingSeverity::kHigh;
  } else if (fail_on == "medium") {
    out.fail_on = FindingSeverity::kMedium;
  } else if (fail_on == "low") {
    out.fail_on = FindingSeverity::kLow;
  } else if (!fail_on.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("--fail-on must be high, medium or low, not '{}'", fail_on));
  }
  if (!recoverable.empty()) {
    std::string number = recoverable;
    bool percent = number.back() == '%';
    if (percent) number.pop_back();
    char* end = nullptr;
    double value = number.empty() ? NAN : std::strtod(number.c_str(), &end);
    if (percent) value /= 100;
    if (end == nullptr || *end != '\0' || !std::isfinite(value) || value <= 0 || value > 1) {
      return absl::InvalidArgumentError(fmt::format(
          "--fail-on-recoverable must be a share in (0, 1] or a percentage like 20%, not '{}'",
          recoverable));
    }
    out.fail_on_recoverable_share = value;
  }
  return out;
}

GateResult EvaluateGate(const GateOptions& options, const std::vector<Finding>& findings) {
  GateResult r;
  if (options.fail_on) {
    int at_or_above = 0;
    for (const Finding& f : findings) at_or_above += f.severity >= *options.fail_on;
    if (at_or_above > 0) {
      r.tripped = true;
      r.reasons.push_back(fmt::format("{} finding{} at or above {} severity (--fail-on {})",
                                      at_or_above, at_or_above == 1 ? "" : "s",
                                      FindingSeverityName(*options.fail_on),
                                      FindingSeverityName(*options.fail_on)));
    }
  }
  if (options.fail_on_recoverable_share) {
    double share = SummarizeFindings(findings).recoverable_share;
    // Shares are printed to 0.1%; compare with a hair of slack so "20%"
    // trips at a printed 20.0%.
    if (share + 1e-9 >= *options.fail_on_recoverable_share) {
      r.tripped = true;
      r.reasons.push_back(fmt::format(
          "findings recover {:.1f}% of the step, at or above {:.1f}% (--fail-on-recoverable)",
          100 * share, 100 * *options.fail_on_recoverable_share));
    }
  }
  return r;
}

}  // namespace tracelint
