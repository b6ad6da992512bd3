#include "analyzer/base/byte_size.h"

#include "gtest/gtest.h"

namespace tracelint {
namespace {

TEST(ByteSizeTest, ParsesBinaryMultiples) {
  EXPECT_EQ(*ParseByteSize("0"), 0);
  EXPECT_EQ(*ParseByteSize("1048576"), 1048576);
  EXPECT_EQ(*ParseByteSize("512K"), 512 << 10);
  EXPECT_EQ(*ParseByteSize("500m"), int64_t{500} << 20);
  EXPECT_EQ(*ParseByteSize("4G"), int64_t{4} << 30);
  EXPECT_EQ(*ParseByteSize("2048G"), int64_t{2} << 40);
}

TEST(ByteSizeTest, RejectsJunk) {
  for (const char* bad : {"", "G", "-1", "1.5G", "4GB", "1 G", "99999999999G", "1T"}) {
    EXPECT_FALSE(ParseByteSize(bad).ok()) << bad;
  }
}

TEST(ByteSizeTest, FormatsWhatParsesBack) {
  EXPECT_EQ(FormatByteSize(uint64_t{1} << 30), "1G");
  EXPECT_EQ(FormatByteSize(uint64_t{3} << 29), "1536M");
  EXPECT_EQ(FormatByteSize(1000), "1000");
  for (uint64_t v : {uint64_t{1} << 30, uint64_t{12345}, uint64_t{7} << 20}) {
    EXPECT_EQ(static_cast<uint64_t>(*ParseByteSize(FormatByteSize(v))), v);
  }
}

}  // namespace
}  // namespace tracelint
