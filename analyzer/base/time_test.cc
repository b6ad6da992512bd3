#include "analyzer/base/time.h"

#include "gtest/gtest.h"

namespace tracelint {
namespace {

TEST(ParseMicrosTextToNs, IntegersAndFractions) {
  EXPECT_EQ(ParseMicrosTextToNs("0"), 0);
  EXPECT_EQ(ParseMicrosTextToNs("12"), 12000);
  EXPECT_EQ(ParseMicrosTextToNs("12.5"), 12500);
  EXPECT_EQ(ParseMicrosTextToNs("-3"), -3000);
  EXPECT_EQ(ParseMicrosTextToNs("1.001"), 1001);
  EXPECT_EQ(ParseMicrosTextToNs("1.0015"), 1002);  // half away from zero
  EXPECT_EQ(ParseMicrosTextToNs("1.0014"), 1001);
  EXPECT_EQ(ParseMicrosTextToNs("1.5e3"), 1500000);
  EXPECT_EQ(ParseMicrosTextToNs("25e-3"), 25);
}

TEST(ParseMicrosTextToNs, EpochValuesKeepNanoseconds) {
  // A double holds this only to ~0.25 us; the text parse is exact.
  EXPECT_EQ(ParseMicrosTextToNs("1712195495519695.8"), 1712195495519695800);
  EXPECT_EQ(ParseMicrosTextToNs("1365627862757.064"), 1365627862757064);
}

TEST(ParseMicrosTextToNs, RejectsGarbageAndOverflow) {
  EXPECT_FALSE(ParseMicrosTextToNs(""));
  EXPECT_FALSE(ParseMicrosTextToNs("abc"));
  EXPECT_FALSE(ParseMicrosTextToNs("1.2.3"));
  EXPECT_FALSE(ParseMicrosTextToNs("99999999999999999999"));
  EXPECT_FALSE(ParseMicrosTextToNs("1e"));
}

TEST(FormatDurationNs, PicksUnit) {
  EXPECT_EQ(FormatDurationNs(999), "999 ns");
  EXPECT_EQ(FormatDurationNs(1500), "1.5 us");
  EXPECT_EQ(FormatDurationNs(2500000), "2.500 ms");
  EXPECT_EQ(FormatDurationNs(3 * kNsPerS), "3.000 s");
}

TEST(FormatOffsetRangeNs, TwoTimesNeverReadTheSame) {
  // 3 significant digits when they tell the ends apart.
  EXPECT_EQ(FormatOffsetRangeNs(643 * kNsPerMs, 702 * kNsPerMs), "+643 ms .. +702 ms");
  EXPECT_EQ(FormatOffsetRangeNs(0, 12'300 * kNsPerUs), "+0.0 ms .. +12.3 ms");
  // A 5.6 ms range one second in: more decimals, not "+1.02 s .. +1.02 s".
  EXPECT_EQ(FormatOffsetRangeNs(1'018'200 * kNsPerUs, 1'023'780 * kNsPerUs),
            "+1.018 s .. +1.024 s");
  // Down to the nanosecond, and no further.
  EXPECT_EQ(FormatOffsetRangeNs(5 * kNsPerS, 5 * kNsPerS + 1), "+5.000000000 s .. +5.000000001 s");
  EXPECT_EQ(FormatOffsetRangeNs(1500, 1501), "+1.500 us .. +1.501 us");
  EXPECT_EQ(FormatOffsetRangeNs(7, 9), "+7 ns .. +9 ns");
  EXPECT_EQ(FormatOffsetRangeNs(3 * kNsPerS, 3 * kNsPerS), "+3.00 s .. +3.00 s");
  EXPECT_EQ(FormatOffsetRangeNs(-2 * kNsPerMs, kNsPerMs), "-2.00 ms .. +1.00 ms");
}

}  // namespace
}  // namespace tracelint
