#include "parsers/run_groups.h"

#include <cstdlib>
#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parsers/load_run.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// 2024-04-03 18:51:38 UTC.
constexpr TimeNs kWallNs = 1712170298LL * kNsPerS;

RunFileFacts Kineto(std::string path, int rank, int world_size, TimeNs start_ns = kWallNs) {
  RunFileFacts f;
  f.path = std::move(path);
  f.format = "kineto-json";
  f.framework = "PyTorch";
  f.rank = rank;
  f.world_size = world_size;
  f.device_names = {"NVIDIA A100-SXM4-80GB"};
  f.start_ns = start_ns;
  f.end_ns = start_ns + 5 * kNsPerS;
  return f;
}

std::vector<std::vector<std::string>> Paths(const std::vector<RunFileFacts>& files,
                                            const RunGrouping& g) {
  std::vector<std::vector<std::string>> out;
  for (const RunGroup& run : g.runs) {
    std::vector<std::string>& paths = out.emplace_back();
    for (size_t i : run.files) paths.push_back(files[i].path);
  }
  return out;
}

TEST(RunGroups, RanksOfOneJobAreOneRunOrderedByRank) {
  std::vector<RunFileFacts> files = {Kineto("b", 1, 2, kWallNs + kNsPerMs), Kineto("a", 0, 2)};
  RunGrouping g = GroupIntoRuns(files);
  EXPECT_THAT(Paths(files, g), ElementsAre(ElementsAre("a", "b")));
  EXPECT_TRUE(g.reasons.empty());
}

TEST(RunGroups, TwoUnrelatedSingleRankTracesAreTwoRuns) {
  std::vector<RunFileFacts> files = {Kineto("x", 0, 1), Kineto("y", 0, 1)};
  RunGrouping g = GroupIntoRuns(files);
  EXPECT_THAT(Paths(files, g), ElementsAre(ElementsAre("x"), ElementsAre("y")));
  ASSERT_EQ(g.reasons.size(), 1u);
  EXPECT_THAT(g.reasons[0], HasSubstr("both are rank 0"));
}

TEST(RunGroups, DuplicateRanksAreSeparatedWithTheReason) {
  std::vector<RunFileFacts> files = {Kineto("r0", 0, 2), Kineto("r1", 1, 2),
                                     Kineto("r0-copy", 0, 2)};
  RunGrouping g = GroupIntoRuns(files);
  EXPECT_THAT(Paths(files, g), ElementsAre(ElementsAre("r0", "r1"), ElementsAre("r0-copy")));
  ASSERT_EQ(g.reasons.size(), 1u);
  EXPECT_THAT(g.reasons[0], HasSubstr("r0-copy is not a rank of the run of r0: both are rank 0"));
}

TEST(RunGroups, KinetoAndXSpaceAreNeverOneRun) {
  RunFileFacts x = Kineto("host.xplane.pb", -1, -1);
  x.format = "xspace";
  x.framework = "";  // the framework of an XSpace file may be unknown
  EXPECT_THAT(WhyNotOneRun(Kineto("k", -1, -1), x).value_or(""),
              HasSubstr("a Kineto trace and an XSpace trace are never one run"));
}

TEST(RunGroups, EachJobSignalSeparates) {
  RunFileFacts a = Kineto("a", 0, 4);
  RunFileFacts b = Kineto("b", 1, 8);
  EXPECT_THAT(WhyNotOneRun(a, b).value_or(""), HasSubstr("world sizes differ (4 and 8)"));
  b = Kineto("b", 1, 4);
  b.device_names = {"NVIDIA H100 80GB HBM3"};
  EXPECT_THAT(WhyNotOneRun(a, b).value_or(""), HasSubstr("device types differ"));
  b = Kineto("b", 1, 4, kWallNs + 3600 * kNsPerS);
  EXPECT_THAT(WhyNotOneRun(a, b).value_or(""),
              HasSubstr("captured at different times (2024-04-03 18:51:38 UTC and "
                        "2024-04-03 19:51:38 UTC)"));
  // Within the slack (staggered starts, clock skew): one job.
  b = Kineto("b", 1, 4, kWallNs + 30 * kNsPerS);
  EXPECT_EQ(WhyNotOneRun(a, b), std::nullopt);
  b.framework = "TensorFlow";
  EXPECT_THAT(WhyNotOneRun(a, b).value_or(""), HasSubstr("frameworks differ"));
}

TEST(RunGroups, RelativeTimesWithoutRanksStayTogether) {
  // Nothing tells such files apart (old traces without distributedInfo):
  // they stay the ranks of one run, as the directory says.
  std::vector<RunFileFacts> files = {Kineto("a", -1, -1, kNsPerS), Kineto("b", -1, -1, 0)};
  files[0].start_ns = kNsPerS;
  EXPECT_EQ(GroupIntoRuns(files).runs.size(), 1u);
  EXPECT_EQ(FormatStartTime(kNsPerS), "relative (+1.000000 s)");
}

TEST(RunGroups, GroupingDoesNotDependOnInputOrder) {
  std::vector<RunFileFacts> files = {Kineto("c", 0, 1, kWallNs + kNsPerS), Kineto("a", 0, 2),
                                     Kineto("b", 1, 2)};
  std::vector<RunFileFacts> reversed(files.rbegin(), files.rend());
  EXPECT_EQ(DescribeRuns(files, GroupIntoRuns(files)),
            DescribeRuns(reversed, GroupIntoRuns(reversed)));
  EXPECT_EQ(DescribeRuns(files, GroupIntoRuns(files)),
            "run 1: started 2024-04-03 18:51:38 UTC, 2 files, PyTorch\n"
            "  a (rank 0 of 2)\n"
            "  b (rank 1 of 2)\n"
            "run 2: started 2024-04-03 18:51:39 UTC, 1 file, PyTorch\n"
            "  c (rank 0 of 1)\n");
}

fs::path CorpusDir() {
  const char* root = std::getenv("TRACELINT_SOURCE_DIR");
  return fs::path(root ? root : ".") / ".." / "shared" / "corpus";
}

TEST(RunGroupsCorpus, HtaSampledRankPairIsOneRun) {
  fs::path dir = CorpusDir() / "facebookresearch__HolisticTraceAnalysis" / "tests" / "data" /
                 "trace_filter";
  if (!fs::exists(dir / "sampled_rank-0.json.gz")) {
    GTEST_SKIP() << "corpus not found at " << CorpusDir() << " (../shared absent)";
  }
  absl::StatusOr<Discovery> d = DiscoverTraces(dir.string(), {});
  ASSERT_TRUE(d.ok()) << d.status();
  absl::StatusOr<tracelint::Run> run = LoadRun(*d, {});
  ASSERT_TRUE(run.ok()) << run.status();
  std::vector<RunFileFacts> files;
  for (const auto& tl : run->ranks) files.push_back(FactsOf(*tl));
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].world_size, files[1].world_size);
  RunGrouping g = GroupIntoRuns(files);
  ASSERT_EQ(g.runs.size(), 1u) << DescribeRuns(files, g);
  EXPECT_THAT(DescribeRuns(files, g), HasSubstr("sampled_rank-0.json.gz (rank 0 of"));
  // The same file twice is not two ranks of a job.
  files.push_back(files[0]);
  EXPECT_EQ(GroupIntoRuns(files).runs.size(), 2u);
}

}  // namespace
}  // namespace tracelint

