#include "analyzer/analysis/interval_set.h"

#include <algorithm>

namespace tracelint {
namespace {
// More sorted runs than this and a plain sort is cheaper than merging them.
constexpr size_t kMaxMergedRuns = 64;
}  // namespace

IntervalSet IntervalSet::FromUnsorted(std::vector<Interval> intervals) {
  // The union does not depend on how intervals with equal starts are
  // ordered, so ordering by start alone is enough. Callers collect track by
  // track, which gives a few sorted runs: merging those beats a full sort.
  auto by_start = [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; };
  std::vector<size_t> run_ends;
  for (size_t i = 1; i < intervals.size(); ++i) {
    if (intervals[i].start_ns < intervals[i - 1].start_ns) {
      run_ends.push_back(i);
      if (run_ends.size() > kMaxMergedRuns) break;
    }
  }
  if (run_ends.size() > kMaxMergedRuns) {
    std::sort(intervals.begin(), intervals.end(), by_start);
  } else {
    run_ends.push_back(intervals.size());
    // Merge adjacent runs pairwise until one is left.
    while (run_ends.size() > 1) {
      std::vector<size_t> merged_ends;
      size_t begin = 0;
      for (size_t r = 0; r < run_ends.size(); r += 2) {
        if (r + 1 < run_ends.size()) {
          std::inplace_merge(intervals.begin() + begin, intervals.begin() + run_ends[r],
                             intervals.begin() + run_ends[r + 1], by_start);
          begin = run_ends[r + 1];
        } else {
          begin = run_ends[r];
        }
        merged_ends.push_back(begin);
      }
      run_ends = std::move(merged_ends);
    }
  }
  IntervalSet out;
  for (const Interval& i : intervals) {
    if (i.end_ns <= i.start_ns) continue;
    if (!out.intervals_.empty() && i.start_ns <= out.intervals_.back().end_ns) {
      out.intervals_.back().end_ns = std::max(out.intervals_.back().end_ns, i.end_ns);
    } else {
      out.intervals_.push_back(i);
    }
  }
  return out;
}

TimeNs IntervalSet::TotalNs() const {
  TimeNs total = 0;
  for (const Interval& i : intervals_) total += i.length_ns();
  return total;
}

TimeNs IntervalSet::OverlapNs(TimeNs start_ns, TimeNs end_ns) const {
  TimeNs total = 0;
  auto it = std::lower_bound(intervals_.begin(), intervals_.end(), start_ns,
                             [](const Interval& i, TimeNs t) { return i.end_ns <= t; });
  for (; it != intervals_.end() && it->start_ns < end_ns; ++it) {
    total += std::min(end_ns, it->end_ns) - std::max(start_ns, it->start_ns);
  }
  return total;
}

IntervalSet IntervalSet::Union(const IntervalSet& other) const {
  std::vector<Interval> all = intervals_;
  all.insert(all.end(), other.intervals_.begin(), other.intervals_.end());
  return FromUnsorted(std::move(all));
}

IntervalSet IntervalSet::Intersect(const IntervalSet& other) const {
  IntervalSet out;
  size_t i = 0, j = 0;
  const auto& a = intervals_;
  const auto& b = other.intervals_;
  while (i < a.size() && j < b.size()) {
    TimeNs lo = std::max(a[i].start_ns, b[j].start_ns);
    TimeNs hi = std::min(a[i].end_ns, b[j].end_ns);
    if (lo < hi) out.intervals_.push_back({lo, hi});
    if (a[i].end_ns < b[j].end_ns) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

IntervalSet IntervalSet::Subtract(const IntervalSet& other) const {
  IntervalSet out;
  size_t j = 0;
  const auto& b = other.intervals_;
  for (Interval cur : intervals_) {
    while (j < b.size() && b[j].end_ns <= cur.start_ns) ++j;
    size_t k = j;
    while (k < b.size() && b[k].start_ns < cur.end_ns) {
      if (b[k].start_ns > cur.start_ns) out.intervals_.push_back({cur.start_ns, b[k].start_ns});
      cur.start_ns = std::max(cur.start_ns, b[k].end_ns);
      if (cur.start_ns >= cur.end_ns) break;
      ++k;
    }
    if (cur.start_ns < cur.end_ns) out.intervals_.push_back(cur);
  }
  return out;
}

IntervalSet IntervalSet::Clip(TimeNs start_ns, TimeNs end_ns) const {
  // Callers clip one large set to every step window: a binary search keeps
  // that linear in the output instead of in the whole set.
  IntervalSet out;
  if (start_ns >= end_ns) return out;
  auto it = std::upper_bound(intervals_.begin(), intervals_.end(), start_ns,
                             [](TimeNs t, const Interval& i) { return t < i.end_ns; });
  for (; it != intervals_.end() && it->start_ns < end_ns; ++it) {
    out.intervals_.push_back({std::max(start_ns, it->start_ns), std::min(end_ns, it->end_ns)});
  }
  return out;
}

IntervalSet IntervalSet::ComplementWithin(TimeNs start_ns, TimeNs end_ns) const {
  IntervalSet window;
  if (start_ns < end_ns) window.intervals_.push_back({start_ns, end_ns});
  return window.Subtract(*this);
}

}  // namespace tracelint
