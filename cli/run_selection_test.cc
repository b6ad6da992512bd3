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

// docs/design/contract.md, "One run per `analyze`": a folder of several
// experiments (TensorBoard run folders) is refused with the list and how to
// pick, never one of them picked by name (exit 0, said on the last lines).
TEST(RunSelection, AFolderOfSeveralRunFoldersIsRefusedWithTheList) {
  fs::path dir = FreshDir("run_folders");
  for (const char* name : {"exp_a", "exp_b", "exp_c"}) {
    fs::create_directories(dir / name);
    Write(dir / name / "worker0.pt.trace.json", Json(Job(-1, -1)));
  }
  AnalyzeArgs args;
  args.path = dir.string();
  Result r = Analyze(args);
  EXPECT_EQ(r.code, kExitUsage) << r.out;
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("holds 3 runs, not one"));
  EXPECT_THAT(r.err, HasSubstr("run 1 (--run exp_a): started"));
  EXPECT_THAT(r.err, HasSubstr((dir / "exp_c" / "worker0.pt.trace.json").string()));
  EXPECT_THAT(r.err, HasSubstr("pick one: --run NAME for one of the TensorBoard runs above "
                               "(exp_a, exp_b, exp_c), or `tracelint batch"));
  args.list = true;
  r = Analyze(args);
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("run 3 (--run exp_c)"));
  args.list = false;
  args.run = "exp_b";
  args.format = "json";
  r = Analyze(args);
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("exp_b"));
  EXPECT_THAT(r.out, Not(HasSubstr("exp_a")));
  args.format = "text";
  // batch analyses each.
  BatchArgs batch;
  batch.paths = {dir.string()};
  batch.format = "csv";
  std::ostringstream out, err;
  EXPECT_EQ(RunBatch(batch, out, err), kExitOk) << err.str();
  EXPECT_THAT(out.str(), HasSubstr((dir / "exp_a").string() + ","));
  EXPECT_THAT(out.str(), HasSubstr((dir / "exp_c").string() + ","));
}

// docs/design/contract.md, "Newest span": several spans of one
// tensorboard_trace_handler directory: the newest, named under the title
// line and on stderr (not as a warning at the end).
TEST(RunSelection, TheNewestSpanIsNamedInTheHeaderAndOnStderr) {
  fs::path dir = FreshDir("spans");
  Write(dir / "worker0.1700000000000.pt.trace.json", Json(Job(-1, -1)));
  Write(dir / "worker0.1700000900000.pt.trace.json", Json(Job(-1, -1)));
  AnalyzeArgs args;
  args.path = dir.string();
  Result r = Analyze(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  std::string second_line = r.out.substr(r.out.find('\n') + 1);
  EXPECT_TRUE(second_line.starts_with(
      "Span: 1700000900000, the newest of 2 profiling spans; --span to choose another"))
      << r.out.substr(0, 300);
  EXPECT_THAT(r.err, HasSubstr("tracelint: note: " + dir.string() +
                               ": 2 profiling spans; analysing the newest (1700000900000)"));
  args.format = "markdown";
  r = Analyze(args);
  EXPECT_THAT(r.out, HasSubstr("Span: 1700000900000, the newest of 2 profiling spans"));
}

// --list and the --span error name the same spans in the same words, the
// span of files without a stamp included, and --span picks it.
TEST(RunSelection, ListAndTheSpanErrorNameTheSameSpans) {
  fs::path dir = FreshDir("span_names");
  Write(dir / "worker0.pt.trace.json", Json(Job(-1, -1)));
  Write(dir / "worker0.1700000000000.pt.trace.json", Json(Job(-1, -1)));
  Write(dir / "worker0.1700000900000.pt.trace.json", Json(Job(-1, -1)));
  const std::string names = "unstamped, 1700000000000, 1700000900000";
  AnalyzeArgs args;
  args.path = dir.string();
  args.list = true;
  Result r = Analyze(args);
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("profiling spans, oldest first: " + names + "\n"));
  args.list = false;
  args.span = "1234";
  r = Analyze(args);
  EXPECT_EQ(r.code, kExitUnreadable);
  EXPECT_THAT(r.err, HasSubstr("no profiling span '1234' (spans here, oldest first: " + names +
                               ")"));
  args.span = "unstamped";
  args.format = "json";
  r = Analyze(args);
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("worker0.pt.trace.json\""));
  EXPECT_THAT(r.out, Not(HasSubstr("worker0.1700000900000")));
}

// A TensorBoard run folder holding only the profile plugin's summaries is
// "run X has no trace", not "no trace files found".
TEST(RunSelection, ARunFolderWithOnlySummariesHasNoTrace) {
  fs::path dir = FreshDir("summaries");
  fs::path run = dir / "plugins" / "profile" / "2024_05_01_10_00_00";
  fs::create_directories(run);
  Write(run / "host.overview_page.pb", "summary");
  Write(run / "host.input_pipeline.pb", "summary");
  AnalyzeArgs args;
  args.path = dir.string();
  Result r = Analyze(args);
  EXPECT_EQ(r.code, kExitUnreadable);
  EXPECT_THAT(r.err, HasSubstr("run 2024_05_01_10_00_00 has no trace: it holds only TensorBoard "
                               "profile summaries (host.input_pipeline.pb, "
                               "host.overview_page.pb)"));
  EXPECT_THAT(r.err, Not(HasSubstr("no trace files found")));
  // Beside a run that has one: that run, and a note for the other.
  fs::path other = dir / "plugins" / "profile" / "2024_05_02_10_00_00";
  fs::create_directories(other);
  absl::StatusOr<std::string> xspace = testing::ScenarioToXSpace(Job(-1, -1));
  ASSERT_TRUE(xspace.ok()) << xspace.status();
  Write(other / "host.xplane.pb", *xspace);
  r = Analyze(args);
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("run 2024_05_01_10_00_00 has no trace"));
}

// batch: a folder that is itself a run can hold runs in its subfolders
// (mi300/ with traces of its own and mi300/<name>/ each another run); what
// it passes over it says, with why.
TEST(RunSelection, BatchFindsRunsBelowARunAndSaysWhatItSkipped) {
  fs::path dir = FreshDir("nested_runs");
  fs::create_directories(dir / "mi300" / "conv");
  Write(dir / "mi300" / "top.pt.trace.json", Json(Job(-1, -1)));
  Write(dir / "mi300" / "conv" / "w.pt.trace.json", Json(Job(-1, -1)));
  fs::create_directories(dir / "mi300" / "gemm" / "deep" / "deeper");
  Write(dir / "mi300" / "gemm" / "w.pt.trace.json", Json(Job(-1, -1)));
  Write(dir / "mi300" / "gemm" / "deep" / "deeper" / "w.pt.trace.json", Json(Job(-1, -1)));
  fs::create_directories(dir / "notes");
  Write(dir / "notes" / "config.json", "{\"lr\": 0.1}");
  BatchArgs args;
  args.paths = {dir.string()};
  args.format = "csv";
  args.max_depth = 3;
  std::ostringstream out, err;
  EXPECT_EQ(RunBatch(args, out, err), kExitOk) << err.str();
  EXPECT_THAT(out.str(), HasSubstr((dir / "mi300").string() + ","));
  EXPECT_THAT(out.str(), HasSubstr((dir / "mi300" / "conv").string() + ","));
  EXPECT_THAT(out.str(), HasSubstr((dir / "mi300" / "gemm").string() + ","));
  EXPECT_THAT(out.str(), Not(HasSubstr("deeper")));
  EXPECT_THAT(err.str(), HasSubstr((dir / "notes").string() +
                                   ": skipped: no trace among its files (config.json;"));
  EXPECT_THAT(err.str(), HasSubstr((dir / "mi300" / "gemm" / "deep").string() +
                                   ": 1 subfolder(s) not searched: deeper than --max-depth 3"));
}

}  // namespace
}  // namespace tracelint
