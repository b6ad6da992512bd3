#include "parsers/run_groups.h"

#include <cstdlib>
#include <filesystem>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/test_files.h"
#include "parsers/kineto/kineto_stamp.h"
#include "parsers/format_registry.h"
#include "parsers/load_run.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using testing::CorpusDir;
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

// A trace laid out as TraceLens's H100 traces are (and as Kineto writes
// its own): the harness's "metadata" first, then traceEvents, then Kineto's
// keys, baseTimeNanoseconds last. Timestamps (us) are relative to it.
std::string TailKeyedTrace(double first_us, bool with_base_time, std::string distributed = "",
                           int pad_events = 0) {
  std::string events;
  for (int i = 0; i < pad_events; ++i) {
    events += fmt::format(
        R"(,{{"ph": "X", "cat": "cpu_op", "name": "aten::pad_{}", "pid": 1, "tid": 1, "ts": {:.3f}, "dur": 1}})",
        i, first_us + 100 + i);
    events += "\n";
  }
  std::string out = fmt::format(
      R"({{
  "metadata": {{"timestamp": 1752839462.7, "experiment": {{"repo_id": "some/model"}}}},
  "traceEvents": [
{{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": {:.3f}, "dur": 50, "args": {{"External id": 1}}}},
{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": {:.3f}, "dur": 5, "args": {{"correlation": 7, "External id": 1}}}},
{{"ph": "X", "cat": "kernel", "name": "sm90_gemm", "pid": 0, "tid": 7, "ts": {:.3f}, "dur": 30, "args": {{"device": 0, "stream": 7, "correlation": 7, "External id": 1}}}}
{}  ],
  "schemaVersion": 1,
  "deviceProperties": [{{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912, "computeMajor": 9, "computeMinor": 0, "numSms": 132}}],
  {}"traceName": "/tmp/file.json",
  "displayTimeUnit": "ms"{}
}})",
      first_us, first_us + 10, first_us + 20, events,
      distributed.empty() ? std::string() : "\"distributedInfo\": " + distributed + ",\n  ",
      with_base_time ? ",\n  \"baseTimeNanoseconds\": 1751410836000000000" : "");
  return out;
}

// The three unrelated H100 traces (issue 11): one base time, first events
// hours and minutes apart. Parsed or read cheaply, they are three runs.
TEST(RunGroupsFiles, BaseTimeAfterTheEventsSeparatesUnrelatedTraces) {
  testing::TempDir dir;
  std::vector<std::string> paths = {
      dir.Write("qwen.json.gz", testing::Gzip(TailKeyedTrace(1428625731456.483, true, "", 2000))),
      dir.Write("bert.json.gz", testing::Gzip(TailKeyedTrace(1419247332500.684, true, "", 2000))),
      dir.Write("owl.json", TailKeyedTrace(1419116104507.840, true, "", 2000))};
  std::vector<RunFileFacts> parsed, cheap;
  for (const std::string& path : paths) {
    absl::StatusOr<Timeline> tl = ParseTraceFile(path, {});
    ASSERT_TRUE(tl.ok()) << tl.status();
    // When the parser's first read ends before the stamp, the events are
    // converted without it and stay relative; the stamp still dates the file.
    EXPECT_EQ(tl->metadata().late_base_time_ns + tl->metadata().base_time_ns,
              1751410836000000000);
    EXPECT_TRUE(IsWallClock(FactsOf(*tl).start_ns));
    parsed.push_back(FactsOf(*tl));
    absl::StatusOr<RunFileFacts> f = ReadRunFileFacts(path, {});
    ASSERT_TRUE(f.ok()) << f.status();
    cheap.push_back(*f);
  }
  RunGrouping by_parse = GroupIntoRuns(parsed);
  RunGrouping by_stamp = GroupIntoRuns(cheap);
  EXPECT_EQ(by_parse.runs.size(), 3u) << DescribeRuns(parsed, by_parse);
  EXPECT_EQ(DescribeRuns(parsed, by_parse), DescribeRuns(cheap, by_stamp));
  // owl first, then bert 131 s later, then qwen.
  EXPECT_EQ(DescribeRuns(cheap, by_stamp),
            "run 1: started 2025-07-18 09:12:32 UTC, 1 file, PyTorch\n"
            "  " + paths[2] + "\n"
            "run 2: started 2025-07-18 09:14:43 UTC, 1 file, PyTorch\n"
            "  " + paths[1] + "\n"
            "run 3: started 2025-07-18 11:51:01 UTC, 1 file, PyTorch\n"
            "  " + paths[0] + "\n");
  ASSERT_FALSE(by_stamp.reasons.empty());
  EXPECT_THAT(by_stamp.reasons[0], HasSubstr("captured at different times"));
}

TEST(RunGroupsFiles, WithoutTheBaseTimeNothingSeparatesThem) {
  // The cause: relative times alone do not date a capture.
  testing::TempDir dir;
  std::vector<RunFileFacts> files;
  for (double us : {1428625731456.483, 1419116104507.840}) {
    absl::StatusOr<RunFileFacts> f = ReadRunFileFacts(
        dir.Write(fmt::format("t{}.json", files.size()), TailKeyedTrace(us, false)), {});
    ASSERT_TRUE(f.ok()) << f.status();
    files.push_back(*f);
  }
  EXPECT_EQ(GroupIntoRuns(files).runs.size(), 1u);
}

TEST(RunGroupsFiles, RanksNamedAfterTheEventsAreOneRun) {
  testing::TempDir dir;
  std::vector<RunFileFacts> files;
  for (int rank : {1, 0}) {
    std::string trace = TailKeyedTrace(
        1419116104507.840 + rank * 1e6, true,
        fmt::format(R"({{"backend": "nccl", "rank": {}, "world_size": 2}})", rank));
    absl::StatusOr<RunFileFacts> f =
        ReadRunFileFacts(dir.Write(fmt::format("r{}.json.gz", rank), testing::Gzip(trace)), {});
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_EQ(f->rank, rank);
    EXPECT_EQ(f->world_size, 2);
    files.push_back(*f);
  }
  RunGrouping g = GroupIntoRuns(files);
  ASSERT_EQ(g.runs.size(), 1u) << DescribeRuns(files, g);
  EXPECT_THAT(DescribeRuns(files, g), HasSubstr("r0.json.gz (rank 0 of 2)"));
}

TEST(RunGroupsFiles, LargePlainJsonIsReadFromItsHeadAndTail) {
  // Past the full-scan size only the head and the last bytes are read; the
  // keys after the events still come from the tail.
  testing::TempDir dir;
  int pad = static_cast<int>(kKinetoFullScanBytes / 80);
  std::string path = dir.Write(
      "big.json", TailKeyedTrace(1419116104507.840, true,
                                 R"({"backend": "nccl", "rank": 3, "world_size": 4})", pad));
  ASSERT_GT(fs::file_size(path), kKinetoFullScanBytes);
  absl::StatusOr<KinetoStamp> stamp = ReadKinetoStamp(path);
  ASSERT_TRUE(stamp.ok()) << stamp.status();
  EXPECT_TRUE(stamp->tail_read);
  EXPECT_EQ(stamp->metadata.late_base_time_ns, 1751410836000000000);
  EXPECT_EQ(stamp->metadata.rank, 3);
  EXPECT_EQ(stamp->metadata.world_size, 4);
  ASSERT_EQ(stamp->metadata.devices.size(), 1u);
  EXPECT_EQ(stamp->metadata.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_NEAR(static_cast<double>(stamp->first_event_ns), 1419116104507840.0, 1000.0);
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

