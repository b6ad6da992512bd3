#include "parsers/common/read_ahead.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/support/test_files.h"

namespace tracelint {
namespace {

using ::tracelint::testing::Gzip;
using ::tracelint::testing::TempDir;

TEST(ReadAhead, SameBytesAtAnyDepth) {
  TempDir dir;
  std::string text;
  for (int i = 0; text.size() < 300000; ++i) text += std::to_string(i * 31 % 977) + ",";
  std::string path = dir.Write("a.gz", Gzip(text));
  for (int depth : {0, 1, 3}) {
    auto in = InputStream::Open(path);
    ASSERT_TRUE(in.ok());
    ReadAhead reader(**in, 4096, depth);
    std::string got;
    for (;;) {
      absl::StatusOr<std::string_view> chunk = reader.Next();
      ASSERT_TRUE(chunk.ok()) << chunk.status();
      if (chunk->empty()) break;
      got.append(*chunk);
    }
    EXPECT_EQ(got, text) << depth;
  }
}

TEST(ReadAhead, StopsEarlyWithoutHanging) {
  TempDir dir;
  std::string path = dir.Write("b.json", std::string(1 << 20, 'x'));
  auto in = InputStream::Open(path);
  ASSERT_TRUE(in.ok());
  ReadAhead reader(**in, 1024, 2);
  absl::StatusOr<std::string_view> first = reader.Next();
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->size(), 1024u);
  // The destructor stops the producer while it waits for a free buffer.
}

TEST(ReadAhead, ErrorsReachTheCaller) {
  TempDir dir;
  std::string gz = Gzip("data");
  gz[2] = 0x07;
  auto in = InputStream::Open(dir.Write("c.gz", gz));
  ASSERT_TRUE(in.ok());
  ReadAhead reader(**in, 1024, 2);
  EXPECT_TRUE(absl::IsInvalidArgument(reader.Next().status()));
}

}  // namespace
}  // namespace tracelint
