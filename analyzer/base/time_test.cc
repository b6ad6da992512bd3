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

}  // namespace
}  // namespace tracelint
