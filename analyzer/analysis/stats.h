#ifndef TRACELINT_ANALYZER_ANALYSIS_STATS_H_
#define TRACELINT_ANALYZER_ANALYSIS_STATS_H_

// Small-sample statistics for comparing two runs step by step (docs/design/contract.md,
// "diff"): quantiles, the two-sided Mann-Whitney U test and the
// Hodges-Lehmann shift estimate with its confidence interval. Samples are
// treated as independent; no distribution is assumed.

#include <cstdint>
#include <vector>

namespace tracelint {

// Fewer steady steps than this on either side: too few to judge noise.
inline constexpr int kMinSamplesToJudgeNoise = 5;
inline constexpr double kNoiseAlpha = 0.05;

// The q-quantile (0..1) with linear interpolation between order statistics
// (Hyndman-Fan type 7, numpy's and R's default). 0 for an empty sample.
double Quantile(std::vector<double> values, double q);
inline double Median(std::vector<double> values) { return Quantile(std::move(values), 0.5); }

struct MannWhitney {
  // U of `y` against `x`: pairs with y > x, plus half the tied pairs. Under
  // "no difference" its mean is n_x * n_y / 2.
  double u = 0;
  double p_value = 1;  // two-sided
  // The exact null distribution (no ties and both samples under 50, as R's
  // wilcox.test), else the normal approximation with tie and continuity
  // correction.
  bool exact = false;
};
// Two-sided test of x against y. Both samples must be non-empty.
MannWhitney MannWhitneyU(const std::vector<double>& x, const std::vector<double>& y);

struct ShiftEstimate {
  double estimate = 0;  // Hodges-Lehmann: median of all differences y_j - x_i
  double low = 0;       // confidence interval of the shift (order statistics
  double high = 0;      // of the differences picked by the U distribution)
};
// The shift of y against x and its interval at `confidence` (e.g. 0.95),
// using the same exact-or-normal choice as MannWhitneyU. With samples too
// small to reach that confidence the interval is the full range of the
// differences.
ShiftEstimate HodgesLehmann(const std::vector<double>& x, const std::vector<double>& y,
                            double confidence);

// The k-th smallest (1-based) of the n_x * n_y differences y_j - x_i of two
// ascending samples, without listing them: bisection on the value with an
// O(n_x + n_y) count per step. What HodgesLehmann uses for large samples.
double KthDifference(const std::vector<double>& x_sorted, const std::vector<double>& y_sorted,
                     int64_t k);

// One metric of two runs, compared as docs/design/contract.md "diff" says.
struct SampleComparison {
  int n_base = 0;
  int n_new = 0;
  double median_base = 0;
  double median_new = 0;
  double p10_base = 0, p90_base = 0;
  double p10_new = 0, p90_new = 0;
  // false: fewer than kMinSamplesToJudgeNoise on a side; only the medians
  // compare and nothing below is meaningful.
  bool judged = false;
  MannWhitney test;
  ShiftEstimate shift;  // new - base, 95% interval
  // judged and p < kNoiseAlpha: the difference is beyond run-to-run noise.
  bool beyond_noise = false;
};
SampleComparison CompareSamples(const std::vector<double>& base, const std::vector<double>& next);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_STATS_H_
