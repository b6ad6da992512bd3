#include "parsers/xplane/xplane_visitor.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "tests/support/xspace_builder.h"

namespace tracelint::xplane {
namespace {

using tracelint::testing::XSpaceBuilder;

TEST(XPlaneVisitorTest, ResolvesNamesRefsAndCompressedStats) {
  XSpaceBuilder space;
  auto plane = space.AddPlane("/device:GPU:0");
  plane.Stat("core_count", int64_t{108});
  plane.AddLine(3, "Stream #3(Kernel)", 1000)
      .AddEvent("ampere_sgemm", 2500, 1000)
      .RefStat("kernel_details", "regs:64 grid:1,1,1 block:128,1,1")
      .Stat("correlation_id", uint64_t{77})
      .CompressedStat("source_stack", "train.py:10\nmodel.py:42")
      .DanglingStat(999, 1);

  PlaneVisitor v(space.proto().planes(0));
  EXPECT_EQ(v.name(), "/device:GPU:0");
  ASSERT_TRUE(v.GetStat(StatType::kCoreCount).has_value());
  EXPECT_EQ(v.GetStat(StatType::kCoreCount)->IntValue(), 108);

  int events = 0;
  v.ForEachLine([&](const LineVisitor& line) {
    EXPECT_EQ(line.id(), 3);
    line.ForEachEvent([&](const EventVisitor& e) {
      ++events;
      EXPECT_EQ(e.name(), "ampere_sgemm");
      // 1000 ns + 2500 ps = 1002.5 ns -> 1003 (nearest); end 1003.5 -> 1004.
      EXPECT_EQ(e.start_ns(), 1003);
      EXPECT_EQ(e.end_ns(), 1004);
      auto kd = e.GetStat(StatType::kKernelDetails);
      ASSERT_TRUE(kd.has_value());
      EXPECT_EQ(kd->kind(), StatVisitor::ValueKind::kRef);
      EXPECT_EQ(kd->StrOrRefValue(), "regs:64 grid:1,1,1 block:128,1,1");
      EXPECT_EQ(e.GetStat(StatType::kCorrelationId)->IntValue(), 77);
      std::vector<std::string> names;
      std::string stack;
      e.ForEachStat([&](const StatVisitor& s) {
        names.emplace_back(s.name());
        if (s.name() == "source_stack") stack = std::string(s.StrOrRefValue());
      });
      EXPECT_EQ(stack, "train.py:10\nmodel.py:42");
      ASSERT_EQ(names.size(), 4u);
      EXPECT_EQ(names[3], "");  // the dangling metadata id
    });
  });
  EXPECT_EQ(events, 1);
  EXPECT_EQ(v.unknown_metadata_refs(), 1);
}

TEST(XPlaneVisitorTest, EventMetadataStatsApplyToEveryEventAndEventStatsWin) {
  XSpaceBuilder space;
  auto plane = space.AddPlane("/device:TPU:0");
  plane.MetadataStats("fusion.1").Stat("flops", int64_t{1000}).Stat("hlo_category", "convolution");
  auto line = plane.AddLine(1, "XLA Ops", 0);
  line.AddEvent("fusion.1", 0, 10);
  line.AddEvent("fusion.1", 20, 10).Stat("flops", int64_t{5});

  PlaneVisitor v(space.proto().planes(0));
  std::vector<int64_t> flops;
  v.ForEachLine([&](const LineVisitor& l) {
    l.ForEachEvent([&](const EventVisitor& e) {
      EXPECT_EQ(e.GetStat(StatType::kHloCategory)->StrOrRefValue(), "convolution");
      e.ForEachStat([&](const StatVisitor& s) {
        if (s.name() == "flops") flops.push_back(*s.IntValue());
      });
    });
  });
  // Event 1: metadata only; event 2: its own value first, then metadata.
  EXPECT_EQ(flops, (std::vector<int64_t>{1000, 5, 1000}));
}

TEST(XPlaneVisitorTest, IntValueRefusesWhatDoesNotFit) {
  XSpaceBuilder space;
  auto plane = space.AddPlane("x");
  plane.Stat("big", uint64_t{18446744073709551615u}).Stat("half", 2.5).Stat("whole", 3.0);
  PlaneVisitor v(space.proto().planes(0));
  std::vector<std::optional<int64_t>> ints;
  v.ForEachStat([&](const StatVisitor& s) { ints.push_back(s.IntValue()); });
  ASSERT_EQ(ints.size(), 3u);
  EXPECT_FALSE(ints[0].has_value());
  EXPECT_FALSE(ints[1].has_value());
  EXPECT_EQ(ints[2], 3);
}

TEST(XPlaneVisitorTest, ExtremeTimesSaturateInsteadOfOverflowing) {
  XSpaceBuilder space;
  auto line = space.AddPlane("/host:CPU").AddLine(1, "t", std::numeric_limits<int64_t>::max());
  line.AddEvent("e", std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max());
  PlaneVisitor v(space.proto().planes(0));
  v.ForEachLine([&](const LineVisitor& l) {
    l.ForEachEvent([&](const EventVisitor& e) {
      EXPECT_EQ(e.start_ns(), std::numeric_limits<int64_t>::max());
      EXPECT_EQ(e.end_ns(), std::numeric_limits<int64_t>::max());
      EXPECT_EQ(e.duration_ns(), 0);
    });
  });
}

TEST(InflateGzipTest, RejectsGarbage) {
  EXPECT_FALSE(InflateGzip("not gzip at all").has_value());
  EXPECT_FALSE(InflateGzip("").has_value());
}

}  // namespace
}  // namespace tracelint::xplane
