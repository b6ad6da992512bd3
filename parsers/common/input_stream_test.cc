#include "parsers/common/input_stream.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/support/test_files.h"

namespace tracelint {
namespace {

using ::tracelint::testing::Gzip;
using ::tracelint::testing::TempDir;

std::string ReadAll(InputStream& in, size_t chunk = 7) {
  std::string out;
  std::string buf(chunk, '\0');
  for (;;) {
    absl::StatusOr<size_t> n = in.Read(buf.data(), buf.size());
    EXPECT_TRUE(n.ok()) << n.status();
    if (!n.ok() || *n == 0) break;
    out.append(buf.data(), *n);
  }
  return out;
}

std::string Payload(size_t n) {
  std::string s;
  for (size_t i = 0; s.size() < n; ++i) s += "{\"ts\": " + std::to_string(i * 7919 % 100003) + "},";
  return s;
}

TEST(InputStream, OutputCapStopsABombAndNotAnInputOfExactlyItsSize) {
  TempDir dir;
  std::string text = Payload(100000);
  std::string member = Gzip(text);
  std::string file = dir.Write("bomb.gz", member + member + member);
  for (uint64_t cap : {uint64_t{3} * text.size(), uint64_t{3} * text.size() + 1}) {
    auto in = InputStream::Open(file);
    ASSERT_TRUE(in.ok());
    (*in)->set_max_output_bytes(cap);
    EXPECT_EQ(ReadAll(**in, 4096), text + text + text);
    EXPECT_FALSE((*in)->limit_reached()) << cap;
  }
  for (size_t chunk : {size_t{7}, size_t{4096}, size_t{1} << 20}) {
    auto in = InputStream::Open(file);
    ASSERT_TRUE(in.ok());
    const uint64_t cap = 2 * text.size() + 5;
    (*in)->set_max_output_bytes(cap);
    std::string got = ReadAll(**in, chunk);
    EXPECT_EQ(got, (text + text + text).substr(0, cap));
    EXPECT_TRUE((*in)->limit_reached());
    EXPECT_EQ((*in)->decompressed_offset(), cap);
    EXPECT_EQ((*in)->damage(), nullptr);
  }
}

TEST(InputStream, PlainFileIsReadAsIs) {
  TempDir dir;
  std::string text = Payload(10000);
  auto in = InputStream::Open(dir.Write("a.json", text));
  ASSERT_TRUE(in.ok());
  EXPECT_FALSE((*in)->compressed());
  EXPECT_EQ(ReadAll(**in), text);
  EXPECT_EQ((*in)->damage(), nullptr);
}

TEST(InputStream, GzipDetectedByMagicNotName) {
  TempDir dir;
  std::string text = Payload(3 << 20);  // several input chunks
  auto in = InputStream::Open(dir.Write("no_extension", Gzip(text)));
  ASSERT_TRUE(in.ok());
  EXPECT_TRUE((*in)->compressed());
  EXPECT_EQ(ReadAll(**in, 100000), text);
  EXPECT_EQ((*in)->damage(), nullptr);
  EXPECT_EQ((*in)->decompressed_offset(), text.size());
}

TEST(InputStream, ConcatenatedMembersAreOneStream) {
  TempDir dir;
  auto in = InputStream::Open(dir.Write("two.gz", Gzip("hello ") + Gzip("world")));
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(ReadAll(**in), "hello world");
  EXPECT_EQ((*in)->damage(), nullptr);
}

TEST(InputStream, TruncatedGzipGivesPrefixAndDamage) {
  TempDir dir;
  std::string text = Payload(200000);
  std::string gz = Gzip(text);
  auto in = InputStream::Open(dir.Write("cut.gz", gz.substr(0, gz.size() / 2)));
  ASSERT_TRUE(in.ok());
  std::string got = ReadAll(**in, 4096);
  EXPECT_GT(got.size(), 0u);
  EXPECT_LT(got.size(), text.size());
  EXPECT_EQ(got, text.substr(0, got.size()));
  ASSERT_NE((*in)->damage(), nullptr);
  EXPECT_TRUE((*in)->damage()->truncated);
}

// A stream cut inside its 8-byte trailer (CRC-32 and length) holds all the
// data, unverified: a truncation, never a clean end.
TEST(InputStream, CutInsideTheTrailerIsATruncation) {
  TempDir dir;
  std::string text = Payload(5000);
  std::string gz = Gzip(text);
  for (size_t cut = 1; cut <= 8; ++cut) {
    for (std::string bytes : {gz.substr(0, gz.size() - cut),
                              Gzip("first ") + gz.substr(0, gz.size() - cut)}) {
      auto in = InputStream::Open(dir.Write("trailer.gz", bytes));
      ASSERT_TRUE(in.ok());
      std::string got = ReadAll(**in, 4096);
      EXPECT_EQ(got.substr(got.size() - text.size()), text) << "cut " << cut;
      ASSERT_NE((*in)->damage(), nullptr) << "cut " << cut << " bytes of the trailer";
      EXPECT_TRUE((*in)->damage()->truncated) << "cut " << cut;
      EXPECT_NE((*in)->damage()->what.find("trailer"), std::string::npos)
          << (*in)->damage()->what;
      EXPECT_EQ((*in)->damage()->compressed_offset, static_cast<int64_t>(bytes.size()));
    }
  }
}

TEST(InputStream, CorruptDataMidStreamGivesPrefixAndDamage) {
  TempDir dir;
  std::string text = Payload(200000);
  std::string gz = Gzip(text);
  for (size_t i = gz.size() / 2; i < gz.size() / 2 + 64; ++i) gz[i] = static_cast<char>(0xff);
  auto in = InputStream::Open(dir.Write("bad.gz", gz));
  ASSERT_TRUE(in.ok());
  std::string got = ReadAll(**in, 4096);
  // Bytes before the damage are intact; what follows it may be garbage
  // until the decoder notices (at the latest, the checksum).
  ASSERT_GT(got.size(), 1000u);
  EXPECT_EQ(got.substr(0, 1000), text.substr(0, 1000));
  ASSERT_NE((*in)->damage(), nullptr);
  EXPECT_GE((*in)->damage()->compressed_offset, 0);
}

TEST(InputStream, CorruptHeaderIsAnError) {
  TempDir dir;
  std::string gz = Gzip("data");
  gz[2] = 0x07;  // compression method other than deflate
  auto in = InputStream::Open(dir.Write("hdr.gz", gz));
  ASSERT_TRUE(in.ok());
  std::string buf(64, '\0');
  absl::StatusOr<size_t> n = (*in)->Read(buf.data(), buf.size());
  ASSERT_FALSE(n.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(n.status()));
  EXPECT_NE(n.status().message().find("hdr.gz"), std::string::npos);
  EXPECT_NE(n.status().message().find("compressed byte"), std::string::npos);
}

TEST(InputStream, MissingFileIsNotFound) {
  auto in = InputStream::Open("/nonexistent/tracelint/x.json");
  ASSERT_FALSE(in.ok());
  EXPECT_TRUE(absl::IsNotFound(in.status()));
}

TEST(InputStream, ReadHeadStopsAtLimit) {
  TempDir dir;
  std::string text = Payload(100000);
  auto head = ReadHead(dir.Write("h.gz", Gzip(text)), 1000);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(*head, text.substr(0, 1000));
}

}  // namespace
}  // namespace tracelint
