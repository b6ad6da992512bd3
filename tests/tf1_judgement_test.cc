// TensorFlow 1 timelines judged end to end (issue 28, point 2): the
// executor's ops are the host evidence, linked to their kernels by node name
// (parsers/kineto/chrome_tf1_launches.h), so a step bound by the executor's
// per-op dispatch reads as host-bound with TF1 advice instead of "cannot be
// tied to launches", and a GPU-bound one as GPU compute.

#include <string>

#include "analyzer/report/report_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parsers/kineto/chrome_test_traces.h"
#include "tests/support/kineto_test_util.h"
#include "tests/support/ranking.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using testing::RankAll;
using testing::RankedTrace;
using testing::VerdictOf;
using testing::FindingOf;

RankedTrace Judge(const std::string& text) {
  testing::TempDir dir;
  return RankAll(testing::ParseText(dir, text));
}

TEST(Tf1Judgement, ExecutorDispatchAboveTheLaunchGapIsHostWorkWithXlaAdvice) {
  RankedTrace r = Judge(testing::Tf1SessionRunTrace(40, 80, 10));
  EXPECT_EQ(r.ranking,
            "integrity trusted\n"
            "gpu-idle-gaps other_host_work measured 88%\n");
  const Finding* f = FindingOf(r, "gpu-idle-gaps", "other_host_work");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->fix, HasSubstr("TensorFlow executor dispatches the graph's GPU ops"));
  EXPECT_THAT(f->fix, HasSubstr("global_jit_level"));
  EXPECT_EQ(VerdictOf(r).bound, "host") << VerdictOf(r).line;
}

TEST(Tf1Judgement, ShortGapsInsideTheDispatchAreLaunchOverhead) {
  RankedTrace r = Judge(testing::Tf1SessionRunTrace(40, 45, 10));
  const Finding* f = FindingOf(r, "gpu-idle-gaps", "launch_overhead");
  ASSERT_NE(f, nullptr) << r.ranking;
  EXPECT_THAT(f->fix, HasSubstr("global_jit_level"));
  EXPECT_EQ(FindingOf(r, "gpu-idle-gaps", "other_host_work"), nullptr) << r.ranking;
  EXPECT_EQ(VerdictOf(r).bound, "host") << VerdictOf(r).line;
}

TEST(Tf1Judgement, ABusyGpuIsGpuComputeWithNoIdleFinding) {
  RankedTrace r = Judge(testing::Tf1SessionRunTrace(40, 20, 200));
  EXPECT_EQ(r.ranking, "integrity trusted\n");
  EXPECT_EQ(VerdictOf(r).bound, "gpu compute") << VerdictOf(r).line;
}

TEST(Tf1Judgement, IteratorGetNextOnTheCpuDeviceIsTheInputPipeline) {
  RankedTrace r = Judge(testing::Tf1SessionRunTrace(40, 20, 30, 3000));
  const Finding* f = FindingOf(r, "gpu-idle-gaps", "data_loader");
  ASSERT_NE(f, nullptr) << r.ranking;
  EXPECT_THAT(f->fix, HasSubstr("tf.data"));
  EXPECT_EQ(FindingOf(r, "host-side-ops", "host_side_op"), nullptr) << r.ranking;
  EXPECT_EQ(VerdictOf(r).bound, "input") << VerdictOf(r).line;
}

}  // namespace
}  // namespace tracelint
