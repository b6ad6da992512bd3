#include "tests/support/scenario.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "simdjson.h"

namespace tracelint::testing {
namespace {

SliceId FindSlice(const Timeline& tl, std::string_view name, int nth = 0) {
  for (SliceId s = 0; s < tl.slice_count(); ++s) {
    if (tl.str(tl.slices().name[s]) == name && nth-- == 0) return s;
  }
  return kNoIndex;
}

TEST(ScenarioTest, HostDelayBecomesDeviceGapAndLaunchIsLinked) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginStep(1)
      .DataLoaderNext(8 * kNsPerMs)
      .BeginOp("aten::mm")
      .Kernel("k1", 2 * kNsPerMs)
      .End()
      .Sync()
      .EndStep();
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  ASSERT_TRUE(tl.ok()) << tl.status();
  const SliceColumns& c = tl->slices();
  SliceId kernel = FindSlice(*tl, "k1");
  SliceId launch = FindSlice(*tl, "cudaLaunchKernel");
  SliceId step = FindSlice(*tl, "ProfilerStep#1");
  SliceId loader =
      FindSlice(*tl, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  ASSERT_NE(kernel, kNoIndex);
  ASSERT_NE(launch, kNoIndex);
  EXPECT_EQ(c.launch[kernel], launch);
  EXPECT_TRUE(tl->HasFlag(launch, kFlagLaunch));
  EXPECT_TRUE(tl->HasFlag(step, kFlagStepMarker));
  EXPECT_TRUE(tl->HasFlag(loader, kFlagDataLoader));
  // The kernel starts when its 5 us launch call returns, after the 8 ms loader.
  EXPECT_EQ(c.ts_ns[kernel], kScenarioStartNs + 8 * kNsPerMs + 5 * kNsPerUs);
  // The sync call holds the host until the kernel ends; the step ends there.
  SliceId sync = FindSlice(*tl, "cudaStreamSynchronize");
  EXPECT_TRUE(tl->HasFlag(sync, kFlagSyncCall));
  EXPECT_EQ(c.end_ns(sync), c.end_ns(kernel));
  EXPECT_EQ(c.end_ns(step), c.end_ns(kernel));
  EXPECT_EQ(tl->metadata().devices.size(), 1u);
  EXPECT_EQ(tl->flows().size(), 1u);
  ASSERT_NE(tl->details(kernel), nullptr);
  EXPECT_EQ(tl->details(kernel)->grid[0], 1024);
}

TEST(ScenarioTest, StreamQueueDelaysLaterWork) {
  Scenario s;
  s.Kernel("a", 10 * kNsPerMs).Kernel("b", 1 * kNsPerMs);
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  ASSERT_TRUE(tl.ok());
  SliceId a = FindSlice(*tl, "a");
  SliceId b = FindSlice(*tl, "b");
  EXPECT_EQ(tl->slices().ts_ns[b], tl->slices().end_ns(a));
  EXPECT_EQ(s.stream_free_ns(), tl->slices().end_ns(b));
}

TEST(ScenarioTest, PageableCopyBlocksHostPinnedDoesNot) {
  Scenario s;
  s.CopyH2D(1 << 20, 3 * kNsPerMs, MemorySpace::kPageable);
  TimeNs after_pageable = s.now();
  s.CopyH2D(1 << 20, 3 * kNsPerMs, MemorySpace::kPinned);
  EXPECT_EQ(after_pageable, kScenarioStartNs + 8 * kNsPerUs + 3 * kNsPerMs);
  EXPECT_EQ(s.now(), after_pageable + 8 * kNsPerUs);
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  ASSERT_TRUE(tl.ok());
  SliceId copy = FindSlice(*tl, "Memcpy HtoD (Pageable -> Device)");
  ASSERT_NE(copy, kNoIndex);
  const DeviceDetails* d = tl->details(copy);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->direction, CopyDirection::kHtoD);
  EXPECT_EQ(d->src, MemorySpace::kPageable);
  EXPECT_EQ(d->bytes, 1 << 20);
}

TEST(ScenarioTest, ItemNestsImplicitSyncOverCopyAndSync) {
  Scenario s;
  s.Kernel("long", 4 * kNsPerMs).Item();
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  ASSERT_TRUE(tl.ok());
  const SliceColumns& c = tl->slices();
  SliceId item = FindSlice(*tl, "aten::item");
  SliceId dense = FindSlice(*tl, "aten::_local_scalar_dense");
  SliceId sync = FindSlice(*tl, "cudaStreamSynchronize");
  EXPECT_TRUE(tl->HasFlag(item, kFlagImplicitSync));
  EXPECT_EQ(c.parent[dense], item);
  EXPECT_EQ(c.parent[sync], dense);
  SliceId copy = FindSlice(*tl, "Memcpy DtoH (Device -> Pageable)");
  EXPECT_EQ(c.end_ns(item), c.end_ns(copy));
}

TEST(ScenarioTest, GraphReplayKernelsShareTheLaunch) {
  Scenario s;
  s.GraphLaunch({{"g1", kNsPerMs}, {"g2", kNsPerMs}});
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  ASSERT_TRUE(tl.ok());
  SliceId launch = FindSlice(*tl, "cudaGraphLaunch");
  EXPECT_TRUE(tl->HasFlag(launch, kFlagGraphLaunch));
  EXPECT_EQ(tl->slices().launch[FindSlice(*tl, "g2")], launch);
}

TEST(ScenarioTest, WithoutCorrelationLeavesActivitiesUnlinked) {
  Scenario s;
  s.WithoutCorrelation().Kernel("k", kNsPerMs);
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  ASSERT_TRUE(tl.ok());
  EXPECT_EQ(tl->slices().launch[FindSlice(*tl, "k")], kNoIndex);
  EXPECT_TRUE(tl->flows().empty());
}

TEST(ScenarioTest, UnclosedScopeIsAnError) {
  Scenario s;
  s.BeginStep(3);
  EXPECT_FALSE(s.BuildTimeline().ok());
  EXPECT_FALSE(s.ToKinetoJson().ok());
  Scenario t;
  t.End();
  EXPECT_FALSE(t.BuildTimeline().ok());
}

TEST(ScenarioTest, JsonIsValidKinetoWithExactTimes) {
  Scenario s;
  s.Device(DeviceSpec::H100()).Distributed(1, 2);
  s.BeginStep(7)
      .BeginOp("aten::addmm", ShapeArgs("[[64, 128], [128, 256]]", "[\"float\", \"float\"]"))
      .Kernel("sm90_xmma_gemm_bf16bf16", 1234567)
      .End()
      .AllReduce(1 << 20, 500 * kNsPerUs)
      .EndStep();
  absl::StatusOr<std::string> json = s.ToKinetoJson();
  ASSERT_TRUE(json.ok());
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(*json).get(doc), simdjson::SUCCESS) << *json;
  EXPECT_EQ(int64_t(doc["schemaVersion"]), 1);
  EXPECT_EQ(int64_t(doc["distributedInfo"]["rank"]), 1);
  EXPECT_EQ(int64_t(doc["deviceProperties"].at(0)["numSms"]), 132);
  size_t x_events = 0;
  bool saw_kernel = false;
  for (simdjson::dom::element e : doc["traceEvents"].get_array()) {
    std::string_view ph = e["ph"];
    if (ph != "X") continue;
    ++x_events;
    if (std::string_view(e["name"]) == "sm90_xmma_gemm_bf16bf16") {
      saw_kernel = true;
      // 1234567 ns written as 1234.567 us.
      EXPECT_DOUBLE_EQ(double(e["dur"]), 1234.567);
      EXPECT_EQ(int64_t(e["args"]["stream"]), kComputeStream);
    }
  }
  EXPECT_TRUE(saw_kernel);
  EXPECT_EQ(x_events, s.events().size());
  EXPECT_THAT(*json, ::testing::HasSubstr("\"Input Dims\": [[64, 128], [128, 256]]"));
  EXPECT_THAT(*json, ::testing::HasSubstr("\"cat\": \"ac2g\""));
}

}  // namespace
}  // namespace tracelint::testing
