#include "analyzer/analysis/stats.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace tracelint {
namespace {

// R's wilcox.test switches to the normal approximation at 50.
constexpr size_t kExactLimit = 50;

double NormalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// Inverse of NormalCdf by bisection: only called for a handful of fixed
// confidences, so simplicity beats speed.
double NormalQuantile(double p) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    double mid = (lo + hi) / 2;
    (NormalCdf(mid) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

bool HasTies(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> all(x);
  all.insert(all.end(), y.begin(), y.end());
  std::sort(all.begin(), all.end());
  return std::adjacent_find(all.begin(), all.end()) != all.end();
}

bool UseExact(const std::vector<double>& x, const std::vector<double>& y) {
  return x.size() < kExactLimit && y.size() < kExactLimit && !HasTies(x, y);
}

// Null distribution of U for samples of m and n without ties: counts[u] is
// the number of orderings of the pooled sample giving U = u, over C(m+n, m).
// Built by placing the pooled values in increasing order: a y placed after
// i x's adds i to U. Only additions of positive counts, so no cancellation.
std::vector<double> ExactUDistribution(size_t m, size_t n) {
  size_t max_u = m * n;
  // row[j] = polynomial (counts by u) for i x's and j y's placed.
  std::vector<std::vector<double>> row(n + 1, std::vector<double>(max_u + 1, 0.0));
  for (size_t j = 0; j <= n; ++j) row[j][0] = 1;  // i = 0: every y adds 0
  for (size_t i = 1; i <= m; ++i) {
    // row[0] stays {1}: no y placed yet. row[j] = old row[j] + row[j-1] << i.
    for (size_t j = 1; j <= n; ++j) {
      std::vector<double>& cur = row[j];
      const std::vector<double>& left = row[j - 1];
      for (size_t u = max_u + 1; u-- > i;) cur[u] += left[u - i];
    }
  }
  std::vector<double> counts = row[n];
  double total = 0;
  for (double c : counts) total += c;
  for (double& c : counts) c /= total;
  return counts;
}

double Cdf(const std::vector<double>& dist, double u) {
  double p = 0;
  for (size_t k = 0; k < dist.size() && static_cast<double>(k) <= u + 1e-9; ++k) p += dist[k];
  return std::min(1.0, p);
}

// Standard deviation of U under the null with the tie correction.
double TieCorrectedSigma(const std::vector<double>& x, const std::vector<double>& y) {
  double m = static_cast<double>(x.size()), n = static_cast<double>(y.size());
  double total = m + n;
  std::map<double, int> counts;
  for (double v : x) ++counts[v];
  for (double v : y) ++counts[v];
  double ties = 0;
  for (const auto& [value, t] : counts) ties += static_cast<double>(t) * t * t - t;
  double var = m * n / 12.0 * ((total + 1) - ties / (total * (total - 1)));
  return std::sqrt(std::max(0.0, var));
}

// Differences y_j - x_i <= t, for ascending x and y. fl(y - x) is monotone
// in both, so one forward pointer over y serves every x.
int64_t CountDifferencesAtMost(const std::vector<double>& x, const std::vector<double>& y,
                               double t) {
  int64_t count = 0;
  size_t j = 0;
  for (size_t i = 0; i < x.size(); ++i) {  // as x rises, so does the bound on y
    while (j < y.size() && y[j] - x[i] <= t) ++j;
    count += static_cast<int64_t>(j);
  }
  return count;
}

// Listing every difference costs 8 bytes each; above this many pairs (a
// 2000-step run against another) the selection below is used instead.
constexpr size_t kListDifferencesLimit = 4'000'000;

}  // namespace

double KthDifference(const std::vector<double>& x, const std::vector<double>& y, int64_t k) {
  double lo = (y.front() - x.back());  // the smallest difference
  double hi = (y.back() - x.front());  // the largest
  if (k <= 1) return lo;
  // Invariant: fewer than k differences <= lo, at least k <= hi. Stop when
  // lo and hi are adjacent doubles: every difference in (lo, hi] is hi.
  lo = std::nextafter(lo, -INFINITY);
  while (true) {
    double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (CountDifferencesAtMost(x, y, mid) >= k ? hi : lo) = mid;
  }
  return hi;
}

double Quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, values.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return values[lo] + frac * (values[hi] - values[lo]);
}

MannWhitney MannWhitneyU(const std::vector<double>& x, const std::vector<double>& y) {
  MannWhitney r;
  if (x.empty() || y.empty()) return r;
  for (double b : x) {
    for (double a : y) r.u += a > b ? 1.0 : (a == b ? 0.5 : 0.0);
  }
  double mn = static_cast<double>(x.size()) * static_cast<double>(y.size());
  if (UseExact(x, y)) {
    r.exact = true;
    std::vector<double> dist = ExactUDistribution(x.size(), y.size());
    double lower = Cdf(dist, r.u);                    // P(U <= u)
    double upper = 1.0 - Cdf(dist, r.u - 1);          // P(U >= u)
    r.p_value = std::min(1.0, 2 * std::min(lower, upper));
    return r;
  }
  double sigma = TieCorrectedSigma(x, y);
  if (sigma <= 0) return r;  // every value equal: no evidence of a difference
  double d = r.u - mn / 2;
  double correction = d > 0 ? 0.5 : (d < 0 ? -0.5 : 0.0);
  double z = (d - correction) / sigma;
  r.p_value = std::min(1.0, 2 * NormalCdf(-std::fabs(z)));
  return r;
}

ShiftEstimate HodgesLehmann(const std::vector<double>& x, const std::vector<double>& y,
                            double confidence) {
  ShiftEstimate r;
  if (x.empty() || y.empty()) return r;
  size_t count = x.size() * y.size();
  std::vector<double> diffs;
  std::vector<double> xs(x), ys(y);
  std::sort(xs.begin(), xs.end());
  std::sort(ys.begin(), ys.end());
  // The k-th smallest difference, 1-based.
  auto kth = [&](size_t k) {
    return diffs.empty() ? KthDifference(xs, ys, static_cast<int64_t>(k)) : diffs[k - 1];
  };
  if (count <= kListDifferencesLimit) {
    diffs.reserve(count);
    for (double b : x) {
      for (double a : y) diffs.push_back(a - b);
    }
    std::sort(diffs.begin(), diffs.end());
  }
  // The median of the differences (type 7: the mean of the middle two).
  r.estimate = count % 2 == 1 ? kth(count / 2 + 1) : (kth(count / 2) + kth(count / 2 + 1)) / 2;
  double alpha = 1 - confidence;
  // k: the smallest U with P(U <= k) >= alpha/2 (R's qwilcox); the interval
  // is the k-th smallest and the k-th largest difference (1-based).
  size_t k = 0;
  if (UseExact(x, y)) {
    std::vector<double> dist = ExactUDistribution(x.size(), y.size());
    double cum = 0;
    while (k < dist.size() && (cum += dist[k]) < alpha / 2) ++k;
  } else {
    double z = NormalQuantile(1 - alpha / 2);
    double q = std::ceil(static_cast<double>(count) / 2 - 0.5 - z * TieCorrectedSigma(x, y));
    k = q > 0 ? static_cast<size_t>(q) : 0;
  }
  k = std::clamp<size_t>(k, 1, (count + 1) / 2);
  r.low = kth(k);
  r.high = kth(count - k + 1);
  return r;
}

SampleComparison CompareSamples(const std::vector<double>& base, const std::vector<double>& next) {
  SampleComparison c;
  c.n_base = static_cast<int>(base.size());
  c.n_new = static_cast<int>(next.size());
  c.median_base = Quantile(base, 0.5);
  c.median_new = Quantile(next, 0.5);
  c.p10_base = Quantile(base, 0.1);
  c.p90_base = Quantile(base, 0.9);
  c.p10_new = Quantile(next, 0.1);
  c.p90_new = Quantile(next, 0.9);
  c.judged = c.n_base >= kMinSamplesToJudgeNoise && c.n_new >= kMinSamplesToJudgeNoise;
  if (!c.judged) return c;
  c.test = MannWhitneyU(base, next);
  c.shift = HodgesLehmann(base, next, 1 - kNoiseAlpha);
  c.beyond_noise = c.test.p_value < kNoiseAlpha;
  return c;
}

}  // namespace tracelint
