#include "parsers/kineto/chrome_tf1_launches.h"

#include <algorithm>
#include <string>
#include <vector>

#include "analyzer/model/timeline_invariants.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "parsers/kineto/chrome_test_traces.h"
#include "tests/support/kineto_test_util.h"

namespace tracelint {
namespace {

using testing::ParseText;
using testing::TempDir;

// The node name (args.name) of a slice, or "".
std::string NodeOf(const Timeline& tl, SliceId s) {
  const Arg* a = tl.FindArg(s, "name");
  if (a == nullptr || a->value.type != ArgValue::Type::kString) return "";
  return std::string(tl.str(a->value.s));
}

// "kernel@ts_us <- op@ts_us" for every device activity, "" when unlinked.
std::vector<std::string> Links(const Timeline& tl) {
  const SliceColumns& c = tl.slices();
  std::vector<std::string> out;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (!IsDeviceActivity(c.kind[s])) continue;
    const SliceId l = c.launch[s];
    const std::string launch =
        l == kNoIndex ? "none" : fmt::format("{}@{}", NodeOf(tl, l), c.ts_ns[l] / 1000);
    out.push_back(fmt::format("{}@{} <- {}", NodeOf(tl, s), c.ts_ns[s] / 1000, launch));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<SliceId> StepMarkers(const Timeline& tl) {
  std::vector<SliceId> out;
  for (SliceId s = 0; s < tl.slice_count(); ++s) {
    if (tl.HasFlag(s, kFlagStepMarker)) out.push_back(s);
  }
  return out;
}

TEST(Tf1Launches, KernelsLinkToTheExecutorOpOfTheirNodeName) {
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(dir, testing::Tf1TimelineTrace());
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_TRUE(CheckTimelineInvariants(*tl).ok()) << CheckTimelineInvariants(*tl);
  // The copy at 1185 is named after the MatMul that issued it; the edge
  // copies come from send/recv, which the timeline does not record.
  EXPECT_EQ(Links(*tl), (std::vector<std::string>{"MatMul@1060 <- MatMul@1005",
                                                  "MatMul@1185 <- MatMul@1005",
                                                  "add@1170 <- add@1009",
                                                  "edge_1_x@1010 <- none",
                                                  "edge_2_add@1200 <- none"}));
  // The GPU's ops are dispatch (no launch calls), the CPU device's are not.
  const SliceColumns& c = tl->slices();
  for (SliceId s = 0; s < c.size(); ++s) {
    if (c.kind[s] != EventKind::kCpuOp) continue;
    const bool on_gpu = NodeOf(*tl, s) != "_SOURCE" && NodeOf(*tl, s) != "loss/Mean";
    EXPECT_EQ(tl->HasFlag(s, kFlagDeviceOpDispatch), on_gpu) << NodeOf(*tl, s);
    EXPECT_FALSE(tl->HasFlag(s, kFlagLaunch)) << NodeOf(*tl, s);
  }
  // One session.run: its span is step 0.
  std::vector<SliceId> steps = StepMarkers(*tl);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(tl->str(c.name[steps[0]]), "ProfilerStep#0");
  EXPECT_EQ(c.ts_ns[steps[0]], 1'000'000);
  EXPECT_EQ(c.end_ns(steps[0]), 1'300'000);
  EXPECT_EQ(tl->diagnostics().Count("tf1_linked_by_node_name"), 3);
}

TEST(Tf1Launches, ConcatenatedRunsLinkToTheirOwnRunAndMakeNoStep) {
  TempDir dir;
  absl::StatusOr<Timeline> tl =
      ParseText(dir, testing::Tf1SessionRunTrace(2, 80, 10, 0, /*runs=*/2));
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_TRUE(CheckTimelineInvariants(*tl).ok()) << CheckTimelineInvariants(*tl);
  // Run 2 starts at 1000 + 5 + 2 * 82 + 100 = 1269.
  EXPECT_EQ(Links(*tl), (std::vector<std::string>{"dense_0/MatMul@1080 <- dense_0/MatMul@1005",
                                                  "dense_0/MatMul@1349 <- dense_0/MatMul@1274",
                                                  "dense_1/MatMul@1162 <- dense_1/MatMul@1087",
                                                  "dense_1/MatMul@1431 <- dense_1/MatMul@1356"}));
  EXPECT_TRUE(StepMarkers(*tl).empty());
  EXPECT_EQ(tl->diagnostics().Count("tf1_one_run_step"), 0);
}

TEST(Tf1Launches, NoLinkToAnOpThatStartsAfterTheKernel) {
  const std::string gpu = "/device:GPU:0";
  const std::string job = "/job:localhost/replica:0/task:0/device:GPU:0 Compute";
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(
      dir, testing::ChromeTrace({testing::ProcessName(1, gpu + "/stream:7 Compute"),
                                 testing::ProcessName(2, job)},
                                {testing::TfOp(1, 1000, 50, "MatMul", "m"),
                                 testing::TfOp(2, 1010, 5, "MatMul", "m"),
                                 testing::TfOp(1, 1100, 50, "Relu", "r")}));
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(Links(*tl), (std::vector<std::string>{"m@1000 <- none", "r@1100 <- none"}));
  // No _SOURCE: a fragment of a run, not known to be one step.
  EXPECT_TRUE(StepMarkers(*tl).empty());
}

TEST(Tf1Launches, NodeNamesOfOtherTracesAreNotKept) {
  // A "name" arg of an event outside category "Op" costs nothing.
  TempDir dir;
  absl::StatusOr<Timeline> tl = ParseText(
      dir, R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1,
                "tid": 1, "ts": 10, "dur": 5, "args": {"name": "x"}}]})");
  ASSERT_TRUE(tl.ok()) << tl.status();
  ASSERT_EQ(tl->slice_count(), 1u);
  EXPECT_EQ(tl->FindArg(0, "name"), nullptr);
}

}  // namespace
}  // namespace tracelint
