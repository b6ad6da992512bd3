#include "analyzer/analysis/outlier_steps.h"

#include <algorithm>
#include <cmath>

#include "analyzer/analysis/stats.h"
#include "analyzer/analysis/steps.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace tracelint {

bool OutlierSteps::Contains(size_t index) const {
  return std::binary_search(indices.begin(), indices.end(), index);
}

OutlierSteps FindOutlierSteps(const std::vector<TimeNs>& step_ns) {
  OutlierSteps out;
  out.samples = static_cast<int64_t>(step_ns.size());
  if (step_ns.empty()) return out;
  std::vector<double> values(step_ns.begin(), step_ns.end());
  const double median = Median(values);
  out.median_ns = static_cast<TimeNs>(std::llround(median));
  if (!out.judged()) return out;
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double v : values) deviations.push_back(std::fabs(v - median));
  const double limit = std::max(kOutlierMinExcessShare * median, kOutlierMads * Median(deviations));
  out.limit_ns = static_cast<TimeNs>(std::llround(limit));
  std::vector<size_t> slow;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] - median > limit) slow.push_back(i);
  }
  const size_t max_outliers = values.size() / 3;
  if (slow.size() > max_outliers) {
    // The slowest third; equal times keep step order, so the set is
    // deterministic.
    std::stable_sort(slow.begin(), slow.end(),
                     [&](size_t a, size_t b) { return values[a] > values[b]; });
    slow.resize(max_outliers);
    std::sort(slow.begin(), slow.end());
  }
  out.indices = std::move(slow);
  return out;
}

StepSet JudgedSteps(const StepSet& steady, const OutlierSteps& outliers) {
  if (outliers.indices.empty()) return steady;
  StepSet out = steady;
  out.steps.clear();
  std::vector<std::string> left_out;
  for (size_t i = 0; i < steady.steps.size(); ++i) {
    if (!outliers.Contains(i)) {
      out.steps.push_back(steady.steps[i]);
      continue;
    }
    const Step& s = steady.steps[i];
    left_out.push_back(fmt::format("{}{} (+{})",
                                   steady.source == StepSource::kInferred ? "iteration " : "#",
                                   s.number, FormatDurationNs(s.duration_ns() - outliers.median_ns)));
  }
  out.notes.push_back(fmt::format(
      "outlier step{} {} left out of every per-step saving and of the steady view's mean step "
      "(slower than the median {} by more than {}); their extra time goes to the finding of "
      "the cause that owns it",
      left_out.size() == 1 ? "" : "s", fmt::join(left_out, ", "),
      FormatDurationNs(outliers.median_ns), FormatDurationNs(outliers.limit_ns)));
  return out;
}

}  // namespace tracelint
