#include "parsers/xplane/xplane_wire.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/xspace_builder.h"

namespace tracelint::xplane {
namespace {

using ::testing::HasSubstr;
using tracelint::testing::XSpaceBuilder;

std::string SmallSpace() {
  XSpaceBuilder space;
  auto host = space.AddPlane("/host:CPU");
  host.AddLine(1, "python", 0).AddEvent("step", 0, 1000);
  auto gpu = space.AddPlane("/device:GPU:0");
  gpu.Stat("core_count", int64_t{80});
  gpu.AddLine(7, "Stream #7(Kernel)", 0).AddEvent("k", 10, 20).Stat("correlation_id", uint64_t{3});
  space.AddHostname("worker0");
  return space.Serialize();
}

TEST(SplitXSpaceTest, FindsPlanesAndHostnames) {
  std::string bytes = SmallSpace();
  absl::StatusOr<XSpaceTopLevel> top = SplitXSpace(bytes);
  ASSERT_TRUE(top.ok()) << top.status();
  ASSERT_EQ(top->planes.size(), 2u);
  EXPECT_EQ(PeekPlaneName(top->planes[0].bytes), "/host:CPU");
  EXPECT_EQ(PeekPlaneName(top->planes[1].bytes), "/device:GPU:0");
  EXPECT_EQ(top->planes[0].offset, 2);  // after tag 0x0A and a 1-byte length
  ASSERT_EQ(top->hostnames.size(), 1u);
  EXPECT_EQ(top->hostnames[0], "worker0");
  EXPECT_EQ(DescribeXPlaneWireError(top->planes[1].bytes, top->planes[1].offset), "");
}

TEST(SplitXSpaceTest, TruncatedFileSaysSo) {
  std::string bytes = SmallSpace();
  std::string cut = bytes.substr(0, bytes.size() - 20);
  absl::StatusOr<XSpaceTopLevel> top = SplitXSpace(cut);
  // The planes before the cut are kept (issue 12, point 3).
  ASSERT_TRUE(top.ok()) << top.status();
  absl::StatusOr<XSpaceTopLevel> whole = SplitXSpace(bytes);
  ASSERT_TRUE(whole.ok());
  ASSERT_EQ(top->planes.size(), 1u);
  EXPECT_EQ(top->planes[0].bytes, whole->planes[0].bytes);
  // Plane #1's tag, before its offset (where its bytes start).
  EXPECT_GT(top->truncated_at, whole->planes[0].offset);
  EXPECT_LT(top->truncated_at, whole->planes[1].offset);
  EXPECT_THAT(top->truncation, HasSubstr("truncated"));
  // Cut at every byte: never an error, never a plane that was not whole.
  for (size_t n = 1; n < bytes.size(); ++n) {
    std::string_view prefix = std::string_view(bytes).substr(0, n);  // planes point into it
    absl::StatusOr<XSpaceTopLevel> part = SplitXSpace(prefix);
    ASSERT_TRUE(part.ok()) << n << ": " << part.status();
    for (size_t i = 0; i < part->planes.size(); ++i) {
      EXPECT_EQ(part->planes[i].bytes, whole->planes[i].bytes) << n;
    }
  }
}

TEST(SplitXSpaceTest, InvalidWireTypeNamesTheByte) {
  std::string bytes = SmallSpace();
  bytes.push_back(static_cast<char>(0x0F));  // field 1, wire type 7
  absl::StatusOr<XSpaceTopLevel> top = SplitXSpace(bytes);
  ASSERT_FALSE(top.ok());
  EXPECT_THAT(std::string(top.status().message()), HasSubstr("wire type 7"));
  EXPECT_THAT(std::string(top.status().message()), HasSubstr(std::to_string(bytes.size() - 1)));
}

TEST(DescribeWireErrorTest, PointsIntoTheNestedEvent) {
  XSpaceBuilder space;
  auto gpu = space.AddPlane("/device:GPU:0");
  auto line = gpu.AddLine(7, "Stream #7", 0);
  line.AddEvent("a", 0, 5);
  line.AddEvent("b", 5, 5);
  std::string plane_bytes;
  space.proto().planes(0).SerializeToString(&plane_bytes);
  // Find the second event's duration tag (field 3, varint: 0x18 0x05) and
  // turn it into wire type 7.
  size_t pos = plane_bytes.rfind("\x18\x05");
  ASSERT_NE(pos, std::string::npos);
  plane_bytes[pos] = static_cast<char>(0x1F);
  std::string why = DescribeXPlaneWireError(plane_bytes, 100);
  EXPECT_THAT(why, HasSubstr("lines[0].events[1]"));
  EXPECT_THAT(why, HasSubstr("invalid wire type 7"));
  EXPECT_THAT(why, HasSubstr(std::to_string(100 + pos)));
}

TEST(LooksLikeXSpaceTest, AcceptsRealHeads) {
  std::string bytes = SmallSpace();
  EXPECT_TRUE(LooksLikeXSpace(bytes));
  EXPECT_TRUE(LooksLikeXSpace(std::string_view(bytes).substr(0, 16)));
}

TEST(LooksLikeXSpaceTest, RejectsOtherFormats) {
  EXPECT_FALSE(LooksLikeXSpace(""));
  EXPECT_FALSE(LooksLikeXSpace("{\"traceEvents\": []}"));
  EXPECT_FALSE(LooksLikeXSpace("\n{\"traceEvents\": [{\"name\": \"x\"}]}"));
  EXPECT_FALSE(LooksLikeXSpace("[{\"ph\":\"X\"}]"));
  EXPECT_FALSE(LooksLikeXSpace(std::string("\x1f\x8b\x08\x00\x00\x00", 6)));
  // Field 1 with a valid length but an impossible XPlane field inside.
  EXPECT_FALSE(LooksLikeXSpace(std::string("\x0a\x05\x3a\x01\x00\x00\x00", 7)));
}

}  // namespace
}  // namespace tracelint::xplane
