#include "cli/analyze_command.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/exit_codes.h"
#include "tests/support/cli_run.h"
#include "tests/support/report_fixture.h"
#include "tests/support/test_files.h"
#include "fmt/format.h"
#include "tests/support/four_rank_job.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/gen_kineto/byte_sink.h"
#include "tools/gen_kineto/kineto_generator.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using Result = testing::CommandResult;
using testing::Analyze;
using testing::FreshDir;
using testing::ReadFile;
using testing::SourceDir;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(AnalyzeCommand, ExampleRunRanksTheDataLoaderFirst) {
  AnalyzeArgs args;
  args.path = SourceDir() + "/testdata/example";
  Result r = Analyze(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("gpu-idle-gaps"));
  EXPECT_THAT(r.out, HasSubstr("num_workers"));
}

TEST(AnalyzeCommand, JsonFormatCarriesSchemaVersionAndFindings) {
  AnalyzeArgs args;
  args.path = SourceDir() + "/testdata/example";
  args.format = "json";
  Result r = Analyze(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"schema_version\": 1"));
  EXPECT_THAT(r.out, HasSubstr("\"rule_id\": \"gpu-idle-gaps\""));
}

// TensorFlow's Chrome JSON names its GPU tracks by process name, not by
// Kineto category: the report has device activity, counted once, and says
// which framework and format it read (testdata/chrome, docs/input-formats.md).
TEST(AnalyzeCommand, TensorFlowTimelineHasItsGpuWork) {
  AnalyzeArgs args;
  args.path = SourceDir() + "/testdata/chrome/tf1_timeline.json";
  args.verbose = true;
  // A 14-event fragment: read, but too small to judge.
  Result r = Analyze(args);
  ASSERT_EQ(r.code, kExitNotJudgeable) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("no GPU activity")));
  EXPECT_THAT(r.out, HasSubstr("Format:    chrome-json"));
  EXPECT_THAT(r.out, HasSubstr("Framework: TensorFlow"));
  // 175 us of per-stream work in the 300 us window, not the repeats' 350 us.
  EXPECT_THAT(r.out, HasSubstr("58.3%"));
  EXPECT_THAT(r.out, HasSubstr("chrome_repeated_device_tracks"));

  args.path = SourceDir() + "/testdata/chrome/generic_cpu.json";
  r = Analyze(args);
  ASSERT_EQ(r.code, kExitNotJudgeable) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Framework: unknown"));
  EXPECT_THAT(r.out, Not(HasSubstr("PyTorch")));
  EXPECT_THAT(r.out, Not(HasSubstr("torch")));
}

TEST(AnalyzeCommand, MissingPathIsUnreadable) {
  AnalyzeArgs args;
  args.path = "/nonexistent/tracelint/trace.json";
  Result r = Analyze(args);
  EXPECT_EQ(r.code, kExitUnreadable);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/tracelint/trace.json"));
}

TEST(AnalyzeCommand, NonTraceFileIsOneLineErrorNamingTheFile) {
  fs::path dir = FreshDir("nontrace");
  fs::path file = dir / "notes.json";
  std::ofstream(file) << "{\"hello\": [1, 2, 3]}";
  AnalyzeArgs args;
  args.path = file.string();
  Result r = Analyze(args);
  EXPECT_EQ(r.code, kExitUnreadable);
  EXPECT_THAT(r.err, HasSubstr(file.string()));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(AnalyzeCommand, TruncatedTraceIsAnalysedWithExit4AndByteOffset) {
  std::string whole = ReadFile(SourceDir() + "/testdata/rules/dataloader_starvation.json");
  ASSERT_GT(whole.size(), 1000u);
  fs::path dir = FreshDir("truncated");
  fs::path file = dir / "cut.json";
  std::ofstream(file, std::ios::binary) << whole.substr(0, whole.size() * 2 / 3);
  AnalyzeArgs args;
  args.path = file.string();
  Result r = Analyze(args);
  EXPECT_EQ(r.code, kExitDamaged) << r.err;
  EXPECT_THAT(r.err, HasSubstr("byte"));
  EXPECT_THAT(r.err, HasSubstr(file.string()));
  // The report says so too, not "trusted": the steps past the cut are gone.
  EXPECT_THAT(r.out, HasSubstr("Trace integrity: limited: the file is cut short at byte"));
  EXPECT_THAT(r.out, Not(HasSubstr("Trace integrity: trusted")));
}

TEST(AnalyzeCommand, RankThatCannotBeReadIsExit4AndNamed) {
  fs::path dir = FreshDir("badrank");
  fs::copy_file(SourceDir() + "/testdata/rules/healthy.json", dir / "rank0.json");
  std::string whole = ReadFile(SourceDir() + "/testdata/rules/healthy.json");
  // A profiler-named gzip file whose stream is garbage from its first
  // block: unreadable, and not to be dropped silently.
  std::ofstream(dir / "rank1.pt.trace.json.gz", std::ios::binary) << std::string("\x1f\x8b\x08\x00", 4)
                                                         << std::string(64, '\xff');
  AnalyzeArgs args;
  args.path = dir.string();
  Result r = Analyze(args);
  EXPECT_EQ(r.code, kExitDamaged) << r.err;
  EXPECT_THAT(r.err, HasSubstr("rank1.pt.trace.json.gz"));
  EXPECT_THAT(r.out, HasSubstr("No findings."));
}

TEST(AnalyzeCommand, RefusesToWriteIntoTheTraceDirectory) {
  fs::path dir = FreshDir("nowrite");
  fs::copy_file(SourceDir() + "/testdata/rules/healthy.json", dir / "rank0.json");
  AnalyzeArgs args;
  args.path = dir.string();
  args.output = (dir / "report.txt").string();
  Result r = Analyze(args);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_FALSE(fs::exists(dir / "report.txt"));
}

TEST(AnalyzeCommand, WritesTheReportElsewhere) {
  fs::path dir = FreshDir("writeok");
  fs::path out_dir = FreshDir("writeok_out");
  fs::copy_file(SourceDir() + "/testdata/rules/healthy.json", dir / "rank0.json");
  AnalyzeArgs args;
  args.path = dir.string();
  args.output = (out_dir / "report.txt").string();
  Result r = Analyze(args);
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(ReadFile(args.output), HasSubstr("No findings."));
}

TEST(AnalyzeCommand, BadRuleOptionIsAUsageError) {
  AnalyzeArgs args;
  args.path = SourceDir() + "/testdata/example";
  args.engine.set_overrides = {"gpu-idle-gaps.NoSuchOption=3"};
  Result r = Analyze(args);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_THAT(r.err, HasSubstr("NoSuchOption"));
}

TEST(AnalyzeCommand, RuleSelectionDropsOtherRules) {
  AnalyzeArgs args;
  args.path = SourceDir() + "/testdata/example";
  args.engine.rules_glob = "-*,tensor-*";
  Result r = Analyze(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("[gpu-idle-gaps]")));
}

TEST(AnalyzeCommand, ReportIsIdenticalWhateverTheSplitAndThreads) {
  AnalyzeArgs base;
  base.path = SourceDir() + "/testdata/rules/dataloader_starvation.json";
  base.format = "json";
  Result whole = Analyze(base);
  ASSERT_EQ(whole.code, kExitOk) << whole.err;
  for (int64_t split : {int64_t{4096}, int64_t{65536}}) {
    for (int threads : {1, 2, 4}) {
      AnalyzeArgs args = base;
      args.split_bytes = split;
      args.threads = threads;
      Result r = Analyze(args);
      ASSERT_EQ(r.code, kExitOk) << r.err;
      EXPECT_EQ(r.out, whole.out) << "split " << split << " threads " << threads;
    }
  }
}

TEST(AnalyzeCommand, OneMegabyteTraceGivesTheSameReportForManySplits) {
  // A generated trace with every category (ops, launches, kernels, copies,
  // NCCL, flows, memory events), forced into hundreds of parts.
  gen::GeneratorOptions options;
  options.target_bytes = 1 << 20;
  options.seed = 7;
  gen::StringSink sink;
  ASSERT_TRUE(gen::GenerateKinetoTrace(options, sink).ok());
  fs::path dir = FreshDir("split1m");
  fs::path file = dir / "rank0.json";
  std::ofstream(file, std::ios::binary) << sink.data();
  AnalyzeArgs base;
  base.path = file.string();
  base.format = "json";
  base.threads = 1;
  base.split_bytes = int64_t{1} << 30;  // one part
  Result whole = Analyze(base);
  ASSERT_EQ(whole.code, kExitOk) << whole.err;
  for (int64_t split : {int64_t{1000}, int64_t{4096}, int64_t{100000}}) {
    for (int threads : {1, 2, 3}) {
      AnalyzeArgs args = base;
      args.split_bytes = split;
      args.threads = threads;
      Result r = Analyze(args);
      ASSERT_EQ(r.code, kExitOk) << r.err;
      EXPECT_EQ(r.out, whole.out) << "split " << split << " threads " << threads;
    }
  }
}

TEST(AnalyzeCommand, MultiRankReportIsIdenticalWhateverTheThreads) {
  // Ranks are parsed and analysed on whichever thread is free, in any order;
  // the merged report must not show it.
  fs::path dir = FreshDir("multirank");
  WriteFourRankJob(dir);
  AnalyzeArgs base;
  base.path = dir.string();
  base.format = "json";
  base.threads = 1;
  Result serial = Analyze(base);
  ASSERT_EQ(serial.code, kExitOk) << serial.err;
  EXPECT_THAT(serial.out, HasSubstr("\"per_rank\""));
  for (int threads : {0, 2, 3, 4}) {
    for (int repeat = 0; repeat < 3; ++repeat) {
      AnalyzeArgs args = base;
      args.threads = threads;
      Result r = Analyze(args);
      ASSERT_EQ(r.code, kExitOk) << r.err;
      EXPECT_EQ(r.out, serial.out) << "threads " << threads;
      EXPECT_EQ(r.err, serial.err) << "threads " << threads;
    }
  }
}

TEST(AnalyzeCommand, HtmlFormatAndAnnotatedTrace) {
  fs::path dir = FreshDir("html_annotate");
  fs::path trace_dir = dir / "traces";
  fs::create_directories(trace_dir);
  // Two ranks of one job (the files must say so, or analyze refuses them).
  for (int rank = 0; rank < 2; ++rank) {
    testing::Scenario s = report_fixture::LoaderBound(3, rank, "k", "aten::mm");
    s.Distributed(rank, 2);
    absl::StatusOr<std::string> json = s.ToKinetoJson();
    ASSERT_TRUE(json.ok()) << json.status();
    std::ofstream(trace_dir / fmt::format("rank{}.pt.trace.json", rank)) << *json;
  }
  AnalyzeArgs args;
  args.path = trace_dir.string();
  args.format = "html";
  args.annotate = (dir / "annotated.json").string();
  Result r = Analyze(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("<!DOCTYPE html>"));
  // Two ranks: the per-rank chart, and a timeline although a multi-rank run
  // otherwise frees each rank's events after its analysis.
  EXPECT_THAT(r.out, HasSubstr("id=\"ranks\""));
  EXPECT_THAT(r.out, HasSubstr("id=\"timeline\""));
  std::string annotated = ReadFile(args.annotate);
  EXPECT_THAT(annotated, HasSubstr("\"tracelint (rank 0)\""));
  EXPECT_THAT(annotated, HasSubstr("\"tracelint (rank 1)\""));
}

TEST(AnalyzeCommand, SaysHowManyListedDevicesWereUsed) {
  // deviceProperties lists every GPU the process saw; one of eight ran work.
  fs::path dir = FreshDir("devices_used");
  testing::Scenario s = report_fixture::LoaderBound(3, 0, "k", "aten::mm");
  for (int id = 1; id < 8; ++id) s.Device(testing::DeviceSpec::A100(id));
  absl::StatusOr<std::string> json = s.ToKinetoJson();
  ASSERT_TRUE(json.ok()) << json.status();
  std::ofstream(dir / "rank0.pt.trace.json") << *json;
  AnalyzeArgs args;
  args.path = (dir / "rank0.pt.trace.json").string();
  Result r = Analyze(args);
  EXPECT_THAT(r.out, HasSubstr("Used:      1 of the 8 listed devices had activity in the trace"));
  // One listed, one used: no line.
  std::ofstream(dir / "one.pt.trace.json")
      << report_fixture::LoaderBound(3, 0, "k", "aten::mm").ToKinetoJson().value();
  args.path = (dir / "one.pt.trace.json").string();
  EXPECT_THAT(Analyze(args).out, Not(HasSubstr("Used:")));
}

// A host thread whose id is a pthread handle goes by the name the trace
// gives it (Kineto's "thread 140234567890123 (pt_autograd_0)" ->
// "pt_autograd_0"), not by the handle.
TEST(AnalyzeCommand, HugeThreadIdsShowTheThreadName) {
  constexpr int64_t kTid = 140234567890123;
  fs::path dir = FreshDir("thread_names");
  testing::Scenario s;
  s.Device(testing::DeviceSpec::A100()).OnThread(kTid);
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k).DataLoaderNext(8 * kNsPerMs);
    s.BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", 2 * kNsPerMs).End();
    s.Sync().EndStep();
  }
  absl::StatusOr<std::string> json = s.ToKinetoJson();
  ASSERT_TRUE(json.ok()) << json.status();
  ASSERT_NE(json->find("thread 140234567890123 (pt_autograd_0)"), std::string::npos);
  std::ofstream(dir / "rank0.pt.trace.json") << *json;
  AnalyzeArgs args;
  args.path = (dir / "rank0.pt.trace.json").string();
  Result r = Analyze(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("where: pt_autograd_0, time"));
  EXPECT_THAT(r.out, Not(HasSubstr("thread 140234567890123")));
  args.format = "markdown";
  r = Analyze(args);
  EXPECT_THAT(r.out, Not(HasSubstr("thread 140234567890123")));
}

TEST(AnalyzeCommand, AnnotateNeverWritesIntoTheTraceDirectory) {
  fs::path dir = FreshDir("annotate_inside");
  fs::copy_file(SourceDir() + "/testdata/rules/dataloader_starvation.json", dir / "rank0.json");
  AnalyzeArgs args;
  args.path = dir.string();
  args.annotate = (dir / "annotated.json").string();
  Result r = Analyze(args);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_THAT(r.err, HasSubstr("refusing to write"));
  EXPECT_FALSE(fs::exists(dir / "annotated.json"));
}

TEST(AnalyzeCommand, AnnotateWriteFailureIsExitSix) {
  AnalyzeArgs args;
  args.path = SourceDir() + "/testdata/example";
  args.annotate = "/nonexistent-dir/tracelint/annotated.json";
  Result r = Analyze(args);
  EXPECT_EQ(r.code, kExitWriteFailed);
  EXPECT_THAT(r.err, HasSubstr("--annotate"));
}

}  // namespace
}  // namespace tracelint
