#ifndef TRACELINT_ANALYZER_ANALYSIS_INTERVAL_SET_H_
#define TRACELINT_ANALYZER_ANALYSIS_INTERVAL_SET_H_

#include <vector>

#include "analyzer/base/time.h"

namespace tracelint {

struct Interval {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;  // exclusive
  TimeNs length_ns() const { return end_ns - start_ns; }
  bool operator==(const Interval&) const = default;
};

// A set of disjoint, sorted, non-empty half-open intervals.
class IntervalSet {
 public:
  IntervalSet() = default;
  // Builds the union of arbitrary (unsorted, overlapping) intervals.
  static IntervalSet FromUnsorted(std::vector<Interval> intervals);

  const std::vector<Interval>& intervals() const { return intervals_; }
  bool empty() const { return intervals_.empty(); }
  TimeNs TotalNs() const;
  // Length of the intersection with [start_ns, end_ns).
  TimeNs OverlapNs(TimeNs start_ns, TimeNs end_ns) const;

  IntervalSet Union(const IntervalSet& other) const;
  IntervalSet Intersect(const IntervalSet& other) const;
  IntervalSet Subtract(const IntervalSet& other) const;
  IntervalSet Clip(TimeNs start_ns, TimeNs end_ns) const;
  // [start_ns, end_ns) minus this set.
  IntervalSet ComplementWithin(TimeNs start_ns, TimeNs end_ns) const;

 private:
  std::vector<Interval> intervals_;
};

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_INTERVAL_SET_H_
