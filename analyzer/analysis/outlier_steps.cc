#include "analyzer/analysis/outlier_steps.h"

#include <algorithm>
#include <cmath>

#include "analyzer/analysis/stats.h"

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

}  // namespace tracelint
