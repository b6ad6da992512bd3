#include "cli/run_selection.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/analyze_command.h"
#include "cli/batch_command.h"
#include "cli/exit_codes.h"
#include "tests/support/cli_run.h"
#include "tests/support/scenario.h"
#include "tests/support/test_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/scenario_xspace.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using Result = testing::CommandResult;
using testing::Analyze;
using testing::FreshDir;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::DeviceSpec;
using testing::Scenario;

Scenario Job(int rank, int world_size) {
  Scenario s;
  s.Device(DeviceSpec::A100()).Distributed(rank, world_size);
  for (int k = 0; k < 3; ++k) {
    s.BeginStep(k).DataLoaderNext(2 * kNsPerMs).Kernel("ampere_sgemm_128x64_nn", kNsPerMs)
        .Sync().EndStep();
  }
  return s;
}

std::string Json(const Scenario& s) {
  absl::StatusOr<std::string> json = s.ToKinetoJson();
  EXPECT_TRUE(json.ok()) << json.status();
  return json.value_or("");
}

std::string Write(const fs::path& path, const std::string& data) {
  std::ofstream(path, std::ios::binary) << data;
  return path.string();
}

TEST(RunSelection, TwoUnrelatedSingleRankTracesInOneDirectoryAreRefusedWithTheList) {
  fs::path dir = FreshDir("unrelated");
  Write(dir / "a.json", Json(Job(0, 1)));
  Write(dir / "b.json", Json(Job(0, 1)));
  AnalyzeArgs args;
  args.path = dir.string();
  Result r = Analyze(args);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("holds 2 runs, not one"));
  EXPECT_THAT(r.err, HasSubstr("both are rank 0"));
  EXPECT_THAT(r.err, HasSubstr("run 1: started relative"));
  EXPECT_THAT(r.err, HasSubstr("a.json (rank 0 of 1)"));
  EXPECT_THAT(r.err, HasSubstr("run 2: started"));
  EXPECT_THAT(r.err, HasSubstr("tracelint batch"));

  args.list = true;
  r = Analyze(args);
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("run 1: started"));
  EXPECT_THAT(r.out, HasSubstr("run 2: started"));

  // Named on the command line, they are refused the same way; one alone is fine.
  args = AnalyzeArgs();
  args.path = (dir / "a.json").string();
  args.more_paths = {(dir / "b.json").string()};
  EXPECT_EQ(Analyze(args).code, kExitUsage);
  args.more_paths.clear();
  EXPECT_EQ(Analyze(args).code, kExitOk);
}

TEST(RunSelection, BatchListsEachRunOfADirectoryHoldingSeveral) {
  fs::path dir = FreshDir("batch");
  Write(dir / "a.json", Json(Job(0, 1)));
  Write(dir / "b.json", Json(Job(0, 1)));
  BatchArgs args;
  args.paths = {dir.string()};
  args.format = "csv";
  std::ostringstream out, err;
  EXPECT_EQ(RunBatch(args, out, err), kExitOk) << err.str();
  EXPECT_THAT(out.str(), HasSubstr(dir.string() + " (run 1: a.json)"));
  EXPECT_THAT(out.str(), HasSubstr(dir.string() + " (run 2: b.json)"));
  EXPECT_THAT(err.str(), HasSubstr("holds 2 runs; one row each"));
}

TEST(RunSelection, FilesNamedOnTheCommandLineAreTheRanksOfOneRun) {
  fs::path dir = FreshDir("ranks");
  AnalyzeArgs args;
  args.path = Write(dir / "r1.json", Json(Job(1, 2)));
  args.more_paths = {Write(dir / "r0.json", Json(Job(0, 2)))};
  args.format = "json";
  Result r = Analyze(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"per_rank\""));
  args.list = true;
  r = Analyze(args);
  EXPECT_EQ(r.code, kExitOk);
  EXPECT_THAT(r.out, HasSubstr("run 1: started relative (+1.000000 s), 2 files, PyTorch\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("run 2")));
}

TEST(RunSelection, KinetoFileAndXSpaceFileAreTwoRuns) {
  fs::path dir = FreshDir("formats");
  Scenario s = Job(-1, -1);
  Write(dir / "rank0.json", Json(s));
  absl::StatusOr<std::string> xspace = testing::ScenarioToXSpace(s);
  ASSERT_TRUE(xspace.ok()) << xspace.status();
  Write(dir / "host.xplane.pb", *xspace);
  AnalyzeArgs args;
  args.path = dir.string();
  Result r = Analyze(args);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_THAT(r.err, HasSubstr("never one run"));
}

TEST(RunSelection, DirectoryAmongSeveralPathsIsAUsageError) {
  fs::path dir = FreshDir("mixed");
  AnalyzeArgs args;
  args.path = Write(dir / "r0.json", Json(Job(0, 2)));
  args.more_paths = {dir.string()};
  Result r = Analyze(args);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_THAT(r.err, HasSubstr("must all be trace files"));
}

TEST(RunSelection, TraceOnStdinIsAnalysedLikeTheFile) {
  fs::path dir = FreshDir("stdin");
  std::string json = Json(Job(0, 1));
  AnalyzeArgs from_file;
  from_file.path = Write(dir / "t.json", json);
  from_file.format = "json";
  Result file = Analyze(from_file);
  ASSERT_EQ(file.code, kExitOk) << file.err;

  std::istringstream in(json);
  AnalyzeArgs from_stdin = from_file;
  from_stdin.path = "-";
  from_stdin.in = &in;
  Result piped = Analyze(from_stdin);
  ASSERT_EQ(piped.code, kExitOk) << piped.err;
  EXPECT_THAT(piped.out, HasSubstr("\"input_path\": \"-\""));

  std::istringstream empty("");
  from_stdin.in = &empty;
  Result nothing = Analyze(from_stdin);
  EXPECT_EQ(nothing.code, kExitUnreadable);
  EXPECT_THAT(nothing.err, HasSubstr("empty input on stdin"));
}

}  // namespace
}  // namespace tracelint
