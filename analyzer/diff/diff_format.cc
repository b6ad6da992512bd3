#include "analyzer/diff/diff_format.h"

#include <cmath>

#include "analyzer/analysis/memory_usage.h"
#include "fmt/format.h"

namespace tracelint::diff_format {

std::string SignedDur(double ns) {
  TimeNs v = std::llround(ns);
  return (v > 0 ? "+" : "") + FormatDurationNs(v);
}

std::string SignedPct(double pct) { return fmt::format("{:+.1f}%", pct); }

std::string Value(const MetricDiff& m, double v) {
  return m.is_share ? fmt::format("{:.1f}%", 100 * v) : FormatDurationNs(std::llround(v));
}

std::string Delta(const MetricDiff& m, double v) {
  return m.is_share ? fmt::format("{:+.1f} pt", 100 * v) : SignedDur(v);
}

std::string MetricLabel(const MetricDiff& m, std::string_view accelerator) {
  if (m.name == "step_time") return "step time";
  if (m.name == "gpu_utilization") return fmt::format("{} utilization", accelerator);
  return m.name;  // breakdown.<category>
}

std::string PeakMemoryLine(const PeakMemoryDiff& m) {
  if (!m.any()) return "";
  auto side = [](int64_t bytes) {
    return bytes >= 0 ? MemoryBytes(bytes) : std::string("not recorded");
  };
  std::string line = fmt::format("Peak device memory (allocated): {} -> {}", side(m.base_bytes),
                                 side(m.new_bytes));
  if (m.base_bytes > 0 && m.new_bytes >= 0) {
    line += fmt::format(" ({:+.1f}%)", 100.0 * (m.new_bytes - m.base_bytes) / m.base_bytes);
  }
  if (m.device_bytes > 0) line += fmt::format(" of {}", MemoryBytes(m.device_bytes));
  return line;
}

std::string NoiseVerdict(const SampleComparison& c) {
  if (!c.judged) return "too few steps";
  return c.beyond_noise ? "beyond noise" : "within noise";
}

std::string ShiftCell(const MetricDiff& m) {
  const SampleComparison& c = m.comparison;
  if (!c.judged) return Delta(m, c.median_new - c.median_base) + " (medians)";
  return fmt::format("{} [{} .. {}]", Delta(m, c.shift.estimate), Delta(m, c.shift.low),
                     Delta(m, c.shift.high));
}

std::string PValue(const SampleComparison& c) {
  if (!c.judged) return "-";
  return fmt::format("{:.3g}{}", c.test.p_value, c.test.exact ? "" : " (normal)");
}

// How a matched finding was judged, so a "changed" is never read as a
// significant move when only the 20% rule applied.
std::string FindingBasis(const FindingChange& c) {
  const SampleComparison& s = c.comparison;
  switch (c.judged_by) {
    case FindingJudgedBy::kNone: return "";
    case FindingJudgedBy::kTest:
      return fmt::format("per-step shift {} [{} .. {}], p {}", SignedDur(s.shift.estimate),
                         SignedDur(s.shift.low), SignedDur(s.shift.high), PValue(s));
    case FindingJudgedBy::kTooFewSteps:
      return fmt::format("too few steps to judge noise ({} and {}): moved more than {:.0f}%?",
                         s.n_base, s.n_new, 100 * kFindingChangeShareWithoutNoise);
    case FindingJudgedBy::kMeanOnly:
      return fmt::format("rule gives only a mean, no per-step values: moved more than {:.0f}%?",
                         100 * kFindingChangeShareWithoutNoise);
    case FindingJudgedBy::kOneTime:
      return fmt::format("one-time cost: moved more than {:.0f}%?",
                         100 * kFindingChangeShareWithoutNoise);
  }
  return "";
}

std::string TooFewLine(const RunDiff& d) {
  const SampleComparison& c = d.step_time().comparison;
  return fmt::format(
      "too few steps to judge noise ({} and {} steady steps; {} needed on each side): medians "
      "compared only, nothing is claimed significant",
      c.n_base, c.n_new, kMinSamplesToJudgeNoise);
}

std::string OutlierClause(const RunDiff& d) {
  if (!d.has_outliers()) return "";
  auto side = [](const std::vector<DiffOutlier>& outliers, std::string_view run) {
    std::vector<std::string> steps;
    for (const DiffOutlier& o : outliers) {
      steps.push_back(fmt::format("#{} {}", o.number, SignedDur(static_cast<double>(o.excess_ns))));
    }
    return fmt::format("{} outlier step{} in {} ({})", outliers.size(),
                       outliers.size() == 1 ? "" : "s", run, fmt::join(steps, ", "));
  };
  std::vector<std::string> parts;
  if (!d.new_outliers.empty()) parts.push_back(side(d.new_outliers, "New"));
  if (!d.base_outliers.empty()) parts.push_back(side(d.base_outliers, "Base"));
  return fmt::format("{}; without them {}", fmt::join(parts, ", "),
                     SignedPct(d.trimmed_change_pct));
}

std::string RanksLine(const RunDiff& d) {
  switch (d.rank_choice) {
    case RankChoice::kAsked:
      return fmt::format("rank {} of each run (--rank)", d.new_rank);
    case RankChoice::kSameAsNew:
      return fmt::format("rank {} of New (its slowest) and the same rank of Base", d.new_rank);
    case RankChoice::kEachWorst:
      return fmt::format("rank {} of New and rank {} of Base, each run's slowest (Base has no "
                         "rank {} with steady steps)",
                         d.new_rank, d.base_rank, d.new_rank);
  }
  return "";
}

std::string GateLine(const RunDiff& d) {
  if (d.fail_on_regression_pct < 0) return "";
  if (!d.gate_evaluated) {
    return fmt::format("--fail-on-regression {}%: not evaluated, too few steps to judge noise",
                       d.fail_on_regression_pct);
  }
  return fmt::format("--fail-on-regression {}%: {} (lower bound of the step-time change {})",
                     d.fail_on_regression_pct, d.gate_tripped ? "TRIPPED" : "not tripped",
                     SignedPct(d.step_change_low_pct));
}

const DiffFinding& Shown(const FindingChange& c) {
  return c.kind == FindingChangeKind::kRemoved ? c.base : c.next;
}

std::string FindingName(const FindingChange& c) {
  const DiffFinding& f = Shown(c);
  return fmt::format("{} / {}", f.rule_id, f.cause);
}

std::string FindingTimes(const FindingChange& c) {
  const DiffFinding& f = Shown(c);
  bool one_time = c.base.one_time_ns > 0 || c.next.one_time_ns > 0;
  auto value = [&](const DiffFinding& x) {
    return one_time ? FormatDurationNs(x.one_time_ns) + " once"
                    : FormatDurationNs(x.recoverable_ns_per_step) + "/step";
  };
  switch (c.kind) {
    case FindingChangeKind::kAdded:
    case FindingChangeKind::kRemoved: return value(f);
    default:
      return fmt::format("{} -> {} ({})", value(c.base), value(c.next),
                         one_time ? SignedDur(c.delta_one_time_ns)
                                  : SignedDur(c.delta_ns_per_step));
  }
}

FindingCounts CountFindings(const RunDiff& d) {
  FindingCounts n;
  for (const FindingChange& c : d.findings) {
    switch (c.kind) {
      case FindingChangeKind::kAdded: ++n.added; break;
      case FindingChangeKind::kRemoved: ++n.removed; break;
      case FindingChangeKind::kChanged: ++n.changed; break;
      case FindingChangeKind::kUnchanged: ++n.unchanged; break;
    }
  }
  return n;
}

}  // namespace tracelint::diff_format
