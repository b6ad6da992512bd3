#ifndef TRACELINT_ANALYZER_DIFF_DIFF_FORMAT_H_
#define TRACELINT_ANALYZER_DIFF_DIFF_FORMAT_H_

// The words and numbers every `tracelint diff` renderer prints (text,
// Markdown, JSON's verdict, HTML), in one place so the formats never
// disagree. Plain text: a renderer escapes for its medium.

#include <string>
#include <string_view>

#include "analyzer/analysis/run_diff.h"

namespace tracelint::diff_format {

std::string SignedDur(double ns);   // "+1.2 ms", "-3.0 us", "0 ns"
std::string SignedPct(double pct);  // "+12.3%"

// A metric value: ns as a duration, shares in percent.
std::string Value(const MetricDiff& m, double v);
// A change of that metric: a signed duration, or percentage points.
std::string Delta(const MetricDiff& m, double v);
// "step time", "GPU utilization", "breakdown.kernel", ...
// "step time", "GPU utilization" ("TPU utilization" on a TPU run), ...
std::string MetricLabel(const MetricDiff& m, std::string_view accelerator);
// "Peak device memory (allocated): 2.44 GiB -> 3.10 GiB (+27.0%) of 39.41 GiB";
// empty when neither run recorded allocator events.
std::string PeakMemoryLine(const PeakMemoryDiff& m);
// "beyond noise", "within noise" or "too few steps".
std::string NoiseVerdict(const SampleComparison& c);
// "+1.2 ms [+0.8 ms .. +1.6 ms]", or "+1.2 ms (medians)" when not judged.
std::string ShiftCell(const MetricDiff& m);
// "0.026", "0.0312 (normal)", or "-" when not judged.
std::string PValue(const SampleComparison& c);
// "too few steps to judge noise (3 and 4 steady steps; 5 needed ...)".
std::string TooFewLine(const RunDiff& d);
// "2 outlier steps in New (#21 +81.2 ms, #16 +48.0 ms); without them -20.0%":
// what the headline adds when a compared rank has outlier steps; empty
// when neither has any.
std::string OutlierClause(const RunDiff& d);
// Which ranks are compared and why: "rank 3 of each (New's slowest rank)".
std::string RanksLine(const RunDiff& d);
// The --fail-on-regression line; empty when the gate was not asked for.
std::string GateLine(const RunDiff& d);

// The finding as it stands in the run that has it: NEW, or BASE if removed.
const DiffFinding& Shown(const FindingChange& c);
std::string FindingName(const FindingChange& c);   // "rule / cause"
std::string FindingTimes(const FindingChange& c);  // "3 ms/step -> 1 ms/step (-2 ms)"

// How a matched finding was judged ("per-step shift +1 ms [..], p 0.01",
// "too few steps ... moved more than 20%?"); empty for added/removed.
std::string FindingBasis(const FindingChange& c);

struct FindingCounts {
  int added = 0, removed = 0, changed = 0, unchanged = 0;
};
FindingCounts CountFindings(const RunDiff& d);

}  // namespace tracelint::diff_format

#endif  // TRACELINT_ANALYZER_DIFF_DIFF_FORMAT_H_
