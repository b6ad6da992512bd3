#include "analyzer/engine/finding.h"

#include <algorithm>
#include <cmath>

#include "fmt/format.h"

namespace tracelint {

std::string_view FindingSeverityName(FindingSeverity s) {
  switch (s) {
    case FindingSeverity::kLow: return "low";
    case FindingSeverity::kMedium: return "medium";
    case FindingSeverity::kHigh: return "high";
  }
  return "low";
}

FindingSeverity SeverityForShare(double recoverable_share) {
  if (recoverable_share >= kHighSeverityShare) return FindingSeverity::kHigh;
  if (recoverable_share >= kMediumSeverityShare) return FindingSeverity::kMedium;
  return FindingSeverity::kLow;
}

std::string_view ConfidenceName(Confidence c) {
  switch (c) {
    case Confidence::kInferred: return "inferred";
    case Confidence::kModelled: return "modelled";
    case Confidence::kMeasured: return "measured";
  }
  return "inferred";
}

void ScaleRecoverable(Finding& f, double scale) {
  f.recoverable_ns_per_step = static_cast<TimeNs>(
      std::floor(static_cast<double>(f.recoverable_ns_per_step) * scale));
  for (TimeNs& ns : f.recoverable_ns_steps) {
    ns = static_cast<TimeNs>(std::floor(static_cast<double>(ns) * scale));
  }
}

FindingsSummary SummarizeFindings(const std::vector<Finding>& findings) {
  FindingsSummary s;
  s.count = static_cast<int>(findings.size());
  for (const Finding& f : findings) {
    s.recoverable_ns_per_step += f.recoverable_ns_per_step;
    s.recoverable_share += f.recoverable_share;
  }
  s.recoverable_share = std::min(1.0, s.recoverable_share);
  if (s.count == 0) {
    s.line = "no findings";
  } else {
    s.line = fmt::format("{} finding{}, up to {:.0f}% of step time recoverable", s.count,
                         s.count == 1 ? "" : "s", 100 * s.recoverable_share);
  }
  return s;
}

}  // namespace tracelint
