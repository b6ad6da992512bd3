#include "analyzer/engine/finding.h"

#include <cmath>

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

}  // namespace tracelint
