#ifndef TRACELINT_ANALYZER_ANALYSIS_OUTLIER_STEPS_H_
#define TRACELINT_ANALYZER_ANALYSIS_OUTLIER_STEPS_H_

// The one definition of an outlier step (docs/steady-state.md, "Outlier
// steps"), computed here once and used by every report (text, HTML, diff,
// batch) and every per-step saving.
//
// A steady step is an outlier when it is slower than
//   median + max(10% of the median, 3 x 1.4826 x MAD)
// of the rank's steady steps (the slow side only: a fast step is not a
// problem to explain). 1.4826 x MAD estimates the standard deviation of a
// normal sample without letting the outliers widen it. With fewer than 5
// steady steps nothing is an outlier (no spread can be judged), and at most
// a third of the steps are (the slowest ones): when more are slow, slow is
// the run's normal and no step stands out alone.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analyzer/base/time.h"

namespace tracelint {

inline constexpr int kOutlierMinSteps = 5;
inline constexpr double kOutlierMinExcessShare = 0.10;  // of the median
inline constexpr double kOutlierMads = 3 * 1.4826;

struct OutlierSteps {
  int64_t samples = 0;  // steady steps the test saw
  TimeNs median_ns = 0;
  // How far above the median a step may be before it is an outlier; 0 when
  // there are too few steps to judge.
  TimeNs limit_ns = 0;
  // Indices into the samples given, ascending.
  std::vector<size_t> indices;
  bool judged() const { return samples >= kOutlierMinSteps; }
  bool Contains(size_t index) const;
};

// `step_ns`: the rank's steady steps' times, in step order.
OutlierSteps FindOutlierSteps(const std::vector<TimeNs>& step_ns);

// The steady steps less the outliers (docs/design/contract.md, "Outlier
// steps"): what every saving and the steady view's denominator use. A note
// names the steps left out.
struct StepSet;
StepSet JudgedSteps(const StepSet& steady, const OutlierSteps& outliers);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_OUTLIER_STEPS_H_
