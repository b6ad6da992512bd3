#include "analyzer/analysis/interval_set.h"

#include "gtest/gtest.h"

namespace tracelint {
namespace {

TEST(IntervalSet, UnionOfOverlapping) {
  IntervalSet s = IntervalSet::FromUnsorted({{10, 20}, {0, 5}, {15, 30}, {30, 31}, {40, 40}});
  ASSERT_EQ(s.intervals().size(), 2u);
  EXPECT_EQ(s.intervals()[0], (Interval{0, 5}));
  EXPECT_EQ(s.intervals()[1], (Interval{10, 31}));
  EXPECT_EQ(s.TotalNs(), 26);
  EXPECT_EQ(s.OverlapNs(3, 12), 4);
}

TEST(IntervalSet, SetAlgebra) {
  IntervalSet a = IntervalSet::FromUnsorted({{0, 10}, {20, 30}});
  IntervalSet b = IntervalSet::FromUnsorted({{5, 25}});
  EXPECT_EQ(a.Intersect(b).TotalNs(), 10);
  EXPECT_EQ(a.Subtract(b).intervals(), (std::vector<Interval>{{0, 5}, {25, 30}}));
  EXPECT_EQ(a.Union(b).TotalNs(), 30);
  EXPECT_EQ(a.Clip(8, 22).TotalNs(), 4);
  EXPECT_EQ(a.ComplementWithin(-5, 35).TotalNs(), 20);
}

}  // namespace
}  // namespace tracelint
