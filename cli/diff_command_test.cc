#include "cli/diff_command.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/analyze_command.h"
#include "cli/exit_codes.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_files.h"
#include "tests/support/training_run.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

// `tracelint diff` end to end on generated pairs of runs: the same step
// program with seeded run-to-run noise, differing by one cause or by noise
// only.

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using Result = testing::CommandResult;
using testing::Diff;
using testing::FreshDir;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::TrainingRun;

// Writes the run as a trace file in its own directory; returns the file.
std::string WriteRun(const fs::path& dir, const std::string& name, const TrainingRun& run) {
  fs::create_directories(dir / name);
  fs::path file = dir / name / "worker0.pt.trace.json";
  std::ofstream(file) << testing::TrainingRunJson(run);
  return file.string();
}

DiffArgs Args(std::string base, std::string next, std::string format = "text") {
  DiffArgs a;
  a.base = std::move(base);
  a.next = std::move(next);
  a.format = std::move(format);
  return a;
}

TEST(DiffCommand, RealRegressionTripsTheGate) {
  fs::path dir = FreshDir("regression");
  TrainingRun base;
  TrainingRun slower = base;
  slower.seed = 2;
  slower.gemm_ns = base.gemm_ns * 13 / 10;  // +30% on the main kernel: ~+25% step
  DiffArgs args = Args(WriteRun(dir, "base", base), WriteRun(dir, "new", slower), "json");
  args.fail_on_regression_pct = 10;
  Result r = Diff(args);
  EXPECT_EQ(r.code, kExitFindingsGate) << r.err << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"tripped\": true"));
  EXPECT_THAT(r.out, HasSubstr("\"name\": \"ampere_sgemm_128x64_nn\""));
  args.format = "text";
  r = Diff(args);
  EXPECT_THAT(r.out, HasSubstr("beyond noise"));
  EXPECT_THAT(r.out, HasSubstr("TRIPPED"));
}

TEST(DiffCommand, RunToRunNoiseDoesNotFire) {
  fs::path dir = FreshDir("noise");
  TrainingRun base;
  TrainingRun again = base;
  again.seed = 7;  // same code, other noise
  DiffArgs args = Args(WriteRun(dir, "base", base), WriteRun(dir, "new", again));
  args.fail_on_regression_pct = 2;
  Result r = Diff(args);
  EXPECT_EQ(r.code, kExitOk) << r.err << r.out;
  EXPECT_THAT(r.out, HasSubstr("not tripped"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("step time [^\n]*within noise"));
}

TEST(DiffCommand, FixedBottleneckRemovesTheFindingAndImprovesBeyondNoise) {
  fs::path dir = FreshDir("fixed");
  TrainingRun starved;
  starved.data_loader_ns = 6 * kNsPerMs;  // the GPU waits for every batch
  TrainingRun fixed;
  fixed.seed = 3;
  DiffArgs args = Args(WriteRun(dir, "base", starved), WriteRun(dir, "new", fixed), "json");
  args.fail_on_regression_pct = 0;
  Result r = Diff(args);
  EXPECT_EQ(r.code, kExitOk) << r.err << r.out;
  EXPECT_THAT(r.out, ::testing::ContainsRegex(
                         "\"change\": \"removed\",\\s*\"fingerprint\": \"[0-9a-f]+\",\\s*"
                         "\"base\": \\{\\s*\"rule_id\": \"gpu-idle-gaps\",\\s*\"cause\": "
                         "\"data_loader\""));
  args.format = "text";
  r = Diff(args);
  EXPECT_THAT(r.out, ::testing::ContainsRegex("step time -[0-9.]+% [^\n]*beyond noise"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("breakdown.data_loader [^\n]*beyond noise"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("removed +gpu-idle-gaps / data_loader"));
  // The HTML page says the same: faster beyond noise, the finding removed.
  args.format = "html";
  r = Diff(args);
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("<div class=\"verdict better\" id=\"verdict\">"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex(
                         "chg-removed\">removed</span></td><td class=\"name\"><code>"
                         "<span class=\"nw\">gpu-idle-gaps / data_loader</span></code>"));
}

TEST(DiffCommand, TooFewStepsSaysSoAndCannotGate) {
  fs::path dir = FreshDir("few");
  TrainingRun base;
  base.steps = 3;
  TrainingRun slower = base;
  slower.gemm_ns *= 2;
  DiffArgs args = Args(WriteRun(dir, "base", base), WriteRun(dir, "new", slower));
  Result r = Diff(args);
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("too few steps to judge noise"));
  EXPECT_THAT(r.out, Not(HasSubstr("beyond noise")));
  args.fail_on_regression_pct = 5;
  r = Diff(args);
  EXPECT_EQ(r.code, kExitNotJudgeable);
  EXPECT_THAT(r.err, HasSubstr("too few steady steps"));
}

TEST(DiffCommand, ReportsOfTheSameTraceDiffToNothing) {
  fs::path dir = FreshDir("same");
  std::string trace = WriteRun(dir, "run", {});
  std::vector<std::string> reports;
  for (int i = 0; i < 2; ++i) {
    AnalyzeArgs a;
    a.path = trace;
    a.format = "json";
    a.top_n = 1;  // the display cut must not matter
    a.output = (dir / ("report" + std::to_string(i) + ".json")).string();
    std::ostringstream out, err;
    ASSERT_EQ(RunAnalyze(a, out, err), kExitOk) << err.str();
    reports.push_back(a.output);
  }
  DiffArgs args = Args(reports[0], reports[1], "json");
  args.fail_on_regression_pct = 0;
  Result r = Diff(args);
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"empty\": true"));
  EXPECT_THAT(r.out, Not(HasSubstr("\"change\": \"added\"")));
  EXPECT_THAT(r.out, Not(HasSubstr("\"change\": \"removed\"")));
  EXPECT_THAT(r.out, Not(HasSubstr("\"change\": \"changed\"")));
  EXPECT_THAT(r.out, HasSubstr("\"kernels\": []"));
  // A report and the trace it came from compare the same way.
  Result mixed = Diff(Args(reports[0], trace, "json"));
  EXPECT_THAT(mixed.out, HasSubstr("\"empty\": true"));
}

std::string SaveReport(const fs::path& dir, const std::string& trace, const std::string& name) {
  AnalyzeArgs a;
  a.path = trace;
  a.format = "json";
  a.output = (dir / name).string();
  std::ostringstream out, err;
  RunAnalyze(a, out, err);
  return a.output;
}

// docs/design/contract.md "diff": a finding is changed when its per-step recoverable
// time moved beyond the Mann-Whitney test, from traces and from saved
// reports alike (the reports carry every steady step's value).
TEST(DiffCommand, FindingChangedByItsPerStepValuesFromTracesOrReports) {
  fs::path dir = FreshDir("finding_test");
  TrainingRun base;
  base.data_loader_ns = 6 * kNsPerMs;
  TrainingRun worse = base;
  worse.seed = 5;
  worse.data_loader_ns = 7 * kNsPerMs;  // +17%: under the 20% rule, far beyond 2% noise
  TrainingRun same = base;
  same.seed = 9;  // other noise only
  std::string base_trace = WriteRun(dir, "base", base);
  std::string worse_trace = WriteRun(dir, "worse", worse);
  std::string same_trace = WriteRun(dir, "same", same);
  const std::string changed =
      "\"change\": \"changed\",\\s*\"fingerprint\": \"[0-9a-f]+\",\\s*\"base\": \\{\\s*"
      "\"rule_id\": \"gpu-idle-gaps\",\\s*\"cause\": \"data_loader\"";
  for (bool from_reports : {false, true}) {
    SCOPED_TRACE(from_reports ? "reports" : "traces");
    std::string b = from_reports ? SaveReport(dir, base_trace, "base.json") : base_trace;
    std::string w = from_reports ? SaveReport(dir, worse_trace, "worse.json") : worse_trace;
    std::string s = from_reports ? SaveReport(dir, same_trace, "same.json") : same_trace;
    Result r = Diff(Args(b, w, "json"));
    EXPECT_EQ(r.code, kExitOk) << r.err;
    EXPECT_THAT(r.out, ::testing::ContainsRegex(changed));
    EXPECT_THAT(r.out, HasSubstr("\"judged_by\": \"test\""));
    r = Diff(Args(b, w));
    EXPECT_THAT(r.out, HasSubstr("judged by: per-step shift +"));
    r = Diff(Args(b, s, "json"));
    EXPECT_EQ(r.code, kExitOk) << r.err;
    EXPECT_THAT(r.out, Not(HasSubstr("\"change\": \"changed\""))) << r.out;
    EXPECT_THAT(r.out, HasSubstr("\"change\": \"unchanged\""));
  }
}

// A run whose every step is warm-up or start-up has nothing steady to
// compare: diff says so and exits 5, from a trace or a saved report.
TEST(DiffCommand, RunWithoutASteadyStepIsReportedNotCompared) {
  fs::path dir = FreshDir("no_steady");
  testing::Scenario startup;
  startup.Device(testing::DeviceSpec::A100());
  startup.HostCall("cudaDeviceGetStreamPriorityRange", 2 * kNsPerS);
  startup.BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", 100 * kNsPerUs).End();
  fs::create_directories(dir / "startup");
  std::string startup_trace = (dir / "startup" / "worker0.pt.trace.json").string();
  std::ofstream(startup_trace) << startup.ToKinetoJson().value();
  std::string good_trace = WriteRun(dir, "good", {});
  for (bool from_report : {false, true}) {
    SCOPED_TRACE(from_report ? "report" : "trace");
    std::string input =
        from_report ? SaveReport(dir, startup_trace, "startup.json") : startup_trace;
    for (const auto& [b, n] : {std::pair{input, good_trace}, std::pair{good_trace, input}}) {
      Result r = Diff(Args(b, n));
      EXPECT_EQ(r.code, kExitNotJudgeable) << r.err << r.out;
      EXPECT_THAT(r.err, HasSubstr("no steady step to compare"));
      EXPECT_THAT(r.err, HasSubstr(input));
      EXPECT_EQ(r.out, "");  // no comparison is printed as if it were one
    }
  }
}

TEST(DiffCommand, AFragmentIsComparedButNeverASilentPass) {
  // A handful of events without step markers: analyze calls it not
  // judgeable (exit 5); a diff with it prints the comparison and exits 5
  // too, from the trace or from its saved report.
  fs::path dir = FreshDir("fragment");
  testing::Scenario tiny;
  tiny.Device(testing::DeviceSpec::A100());
  for (int i = 0; i < 3; ++i) {
    tiny.BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", 100 * kNsPerUs).End();
  }
  fs::create_directories(dir / "tiny");
  std::string trace = (dir / "tiny" / "worker0.pt.trace.json").string();
  std::ofstream(trace) << tiny.ToKinetoJson().value();
  for (bool from_report : {false, true}) {
    SCOPED_TRACE(from_report ? "report" : "trace");
    std::string input = from_report ? SaveReport(dir, trace, "tiny.json") : trace;
    Result r = Diff(Args(input, input));
    EXPECT_EQ(r.code, kExitNotJudgeable) << r.err;
    EXPECT_THAT(r.err, HasSubstr(input + ": Verdict: not judgeable (only "));
    EXPECT_THAT(r.out, HasSubstr("step time"));
  }
}

// Two ranks per run: rank 1 is the slower one in both, so it is compared by
// default; --rank 0 compares the other.
TEST(DiffCommand, WorstRankByDefaultOrTheRankAsked) {
  fs::path dir = FreshDir("ranks");
  auto write_run = [&](const std::string& name, TimeNs rank1_gemm_ns, uint64_t seed) {
    fs::create_directories(dir / name);
    for (int rank = 0; rank < 2; ++rank) {
      TrainingRun r;
      r.rank = rank;
      r.world_size = 2;
      r.seed = seed + rank;
      if (rank == 1) r.gemm_ns = rank1_gemm_ns;
      std::ofstream(dir / name / ("worker" + std::to_string(rank) + ".1700000000000.pt.trace.json"))
          << testing::TrainingRunJson(r);
    }
    return (dir / name).string();
  };
  std::string base = write_run("base", 12 * kNsPerMs, 10);
  std::string next = write_run("new", 15 * kNsPerMs, 20);
  DiffArgs args = Args(base, next);
  Result r = Diff(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("(rank 1, 12 steady steps)"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("step time \\+[0-9.]+% [^\n]*beyond noise"));
  args.rank = 0;
  r = Diff(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("(rank 0, 12 steady steps)"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("step time [^\n]*within noise"));
}

// Writes several profiling spans of one tensorboard_trace_handler directory:
// worker0.<stamp>.pt.trace.json per run, the last stamp the newest.
std::string WriteSpans(const fs::path& dir, const std::string& name,
                       const std::vector<std::pair<std::string, TrainingRun>>& spans) {
  fs::create_directories(dir / name);
  for (const auto& [stamp, run] : spans) {
    std::ofstream(dir / name / ("worker0." + stamp + ".pt.trace.json"))
        << testing::TrainingRunJson(run);
  }
  return (dir / name).string();
}

// Issue 30's canonical case, generated: num_workers 0 -> 4 as directories
// holding several spans each. New's median step drops by ~40% and the
// DataLoader finding disappears, but two of its six steps are outliers, so
// the test over every step says "within noise": the headline names them and
// the change without them, and the newest span of each directory is the
// one compared (said on stderr).
TEST(DiffCommand, OutlierStepsExplainAWithinNoiseHeadline) {
  fs::path dir = FreshDir("outliers");
  TrainingRun old_span;  // an earlier experiment in the same directory
  old_span.steps = 3;
  TrainingRun starved;
  starved.steps = 6;
  starved.data_loader_ns = 6 * kNsPerMs;
  TrainingRun fixed;
  fixed.steps = 6;
  fixed.seed = 3;
  fixed.slow_steps = {{3, 9 * kNsPerMs}, {5, 12 * kNsPerMs}};
  std::string base = WriteSpans(dir, "workers0", {{"1700000000000", old_span},
                                                  {"1700000600000", starved}});
  std::string next = WriteSpans(dir, "workers4", {{"1700001000000", old_span},
                                                  {"1700001600000", fixed}});
  DiffArgs args = Args(base, next);
  args.fail_on_regression_pct = 5;
  Result r = Diff(args);
  ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
  EXPECT_THAT(r.out, ::testing::ContainsRegex(
                         "step time -[0-9.]+% \\([^\n]*\\), within noise; 2 outlier steps in "
                         "New \\(#5 \\+1[0-9]\\.[0-9]+ ms, #3 \\+[89]\\.[0-9]+ ms\\); without "
                         "them -[34][0-9]\\.[0-9]%"))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("(rank 0, 6 steady steps)"));  // the newest span, not the old
  EXPECT_THAT(r.out, ::testing::ContainsRegex("removed +gpu-idle-gaps / data_loader"));
  EXPECT_THAT(r.out, HasSubstr("--fail-on-regression 5%: not tripped"));
  EXPECT_THAT(r.err, HasSubstr("2 profiling spans; analysing the newest (1700001600000)"));
  args.format = "json";
  r = Diff(args);
  EXPECT_THAT(r.out, ::testing::ContainsRegex("\"new\": \\[\\s*\\{\\s*\"step\": 5,"));
}

// Rank 1 is New's slowest and rank 0 Base's: both sides compare rank 1, and
// the header says so (before: rank 0 of Base against rank 1 of New).
TEST(DiffCommand, ComparesTheSameRankOnBothSides) {
  fs::path dir = FreshDir("same_rank");
  auto write_run = [&](const std::string& name, int slow_rank, uint64_t seed) {
    fs::create_directories(dir / name);
    for (int rank = 0; rank < 2; ++rank) {
      TrainingRun r;
      r.rank = rank;
      r.world_size = 2;
      r.seed = seed + rank;
      if (rank == slow_rank) r.gemm_ns = 14 * kNsPerMs;
      std::ofstream(dir / name / ("worker" + std::to_string(rank) + ".1700000000000.pt.trace.json"))
          << testing::TrainingRunJson(r);
    }
    return (dir / name).string();
  };
  Result r = Diff(Args(write_run("base", 0, 10), write_run("new", 1, 20)));
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, ::testing::ContainsRegex("Base: [^\n]*base \\(rank 1,"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("New: +[^\n]*new \\(rank 1,"));
  EXPECT_THAT(r.out, HasSubstr("Compared: rank 1 of New (its slowest) and the same rank of Base"));
}

// A ResNet-like job against a different program on another device and world
// size: the diff still runs, under a warning (stdout and stderr).
TEST(DiffCommand, WarnsWhenTheRunsAreDifferentJobs) {
  fs::path dir = FreshDir("different_jobs");
  TrainingRun resnet;
  TrainingRun other;
  other.other_program = true;
  other.device = testing::DeviceSpec::H100();
  other.rank = 0;
  other.world_size = 8;
  Result r = Diff(Args(WriteRun(dir, "resnet", resnet), WriteRun(dir, "torchrec", other)));
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("WARNING: the runs ran on different devices (NVIDIA A100"));
  EXPECT_THAT(r.out, HasSubstr("WARNING: the runs share 0 of 4 op names (Jaccard 0.00 < 0.5)"));
  EXPECT_THAT(r.err, HasSubstr("tracelint: warning: the runs ran on different devices"));
  // The same program twice: no warning.
  TrainingRun again = resnet;
  again.seed = 9;
  r = Diff(Args(WriteRun(dir, "a", resnet), WriteRun(dir, "b", again)));
  EXPECT_THAT(r.out, Not(HasSubstr("WARNING")));
}

// A folder of several experiments is refused as `analyze` refuses it.
TEST(DiffCommand, AFolderOfSeveralRunsIsRefused) {
  fs::path dir = FreshDir("several");
  TrainingRun a;
  TrainingRun b = a;
  b.seed = 4;
  WriteRun(dir / "exps", "exp_a", a);
  WriteRun(dir / "exps", "exp_b", b);
  Result r = Diff(Args((dir / "exps").string(), (dir / "exps" / "exp_a").string()));
  EXPECT_EQ(r.code, kExitUsage) << r.out;
  EXPECT_THAT(r.err, HasSubstr("holds 2 runs, not one"));
  EXPECT_THAT(r.err, HasSubstr("--run NAME"));
}

TEST(DiffCommand, UsageAndInputErrors) {
  fs::path dir = FreshDir("errors");
  std::string trace = WriteRun(dir, "run", {});
  DiffArgs args = Args(trace, trace, "sarif");
  EXPECT_EQ(Diff(args).code, kExitUsage);
  args = Args(trace, trace);
  args.rank = 4;
  Result r = Diff(args);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_THAT(r.err, HasSubstr("no rank 4"));
  r = Diff(Args(trace, (dir / "missing.json").string()));
  EXPECT_EQ(r.code, kExitUnreadable);
  args = Args(trace, trace);
  args.output = (dir / "run" / "diff.txt").string();  // inside a trace directory
  EXPECT_EQ(Diff(args).code, kExitUsage);
}

TEST(AnalyzeBaseline, ComparesWithASavedReportAndGates) {
  fs::path dir = FreshDir("baseline");
  TrainingRun base;
  AnalyzeArgs a;
  a.path = WriteRun(dir, "base", base);
  a.format = "json";
  a.output = (dir / "base.json").string();
  std::ostringstream out, err;
  ASSERT_EQ(RunAnalyze(a, out, err), kExitOk) << err.str();

  TrainingRun slower = base;
  slower.seed = 5;
  slower.gemm_ns = base.gemm_ns * 13 / 10;
  AnalyzeArgs b;
  b.path = WriteRun(dir, "new", slower);
  b.baseline = a.output;
  b.fail_on_regression_pct = 10;
  std::ostringstream out2, err2;
  EXPECT_EQ(RunAnalyze(b, out2, err2), kExitFindingsGate) << err2.str();
  EXPECT_THAT(out2.str(), HasSubstr("== Against the baseline =="));
  EXPECT_THAT(out2.str(), HasSubstr("TRIPPED"));
  // The comparison is the CI answer: right after the title line, before the
  // run's own verdict and findings, not after the glossary pointer.
  const std::string text = out2.str();
  EXPECT_LT(text.find("== Against the baseline =="), text.find("Verdict:"));
  EXPECT_LT(text.find("TRIPPED"), text.find("Terms ("));
  EXPECT_EQ(text.find('\n') + 2, text.find("== Against the baseline =="));
  b.format = "markdown";
  std::ostringstream out7, err7;
  EXPECT_EQ(RunAnalyze(b, out7, err7), kExitFindingsGate);
  EXPECT_EQ(out7.str().find("### tracelint diff"), 0u) << out7.str().substr(0, 200);
  EXPECT_LT(out7.str().find("### tracelint diff"), out7.str().find("### tracelint: "));

  b.format = "json";
  std::ostringstream out3, err3;
  EXPECT_EQ(RunAnalyze(b, out3, err3), kExitFindingsGate);
  EXPECT_THAT(out3.str(), HasSubstr("\"baseline_diff\": {"));

  // HTML: the comparison is a section of the page, named in the verdict.
  b.format = "html";
  std::ostringstream out6, err6;
  EXPECT_EQ(RunAnalyze(b, out6, err6), kExitFindingsGate);
  EXPECT_THAT(out6.str(), HasSubstr("<a href=\"#baseline\">Against the baseline</a>: "));
  EXPECT_THAT(out6.str(), HasSubstr("<h2 id=\"baseline\">Against the baseline</h2>"));
  EXPECT_THAT(out6.str(), HasSubstr("TRIPPED"));

  AnalyzeArgs no_baseline = b;
  no_baseline.baseline.clear();
  std::ostringstream out5, err5;
  EXPECT_EQ(RunAnalyze(no_baseline, out5, err5), kExitUsage);
  EXPECT_THAT(err5.str(), HasSubstr("needs --baseline"));

  b.baseline = (dir / "nope.json").string();
  std::ostringstream out4, err4;
  EXPECT_EQ(RunAnalyze(b, out4, err4), kExitUnreadable);
  EXPECT_THAT(err4.str(), HasSubstr("--baseline"));
}

// The TensorBoard plugin's samples: the same ResNet-50 with 0 and 4
// DataLoader workers.
TEST(DiffCommand, CorpusNumWorkers0Against4) {
  const char* src = std::getenv("TRACELINT_SOURCE_DIR");
  fs::path samples = fs::path(src != nullptr ? src : ".") /
                     "../shared/corpus/pytorch__kineto/tb_plugin/samples";
  fs::path w0 = samples / "resnet50_profiler_api_num_workers_0";
  fs::path w4 = samples / "resnet50_profiler_api_num_workers_4";
  if (!fs::exists(w0) || !fs::exists(w4)) {
    GTEST_SKIP() << "corpus not found at " << samples << " (../shared/corpus beside the repo)";
  }
  Result r = Diff(Args(w0.string(), w4.string()));
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, ::testing::ContainsRegex("step time -[0-9.]+% [^\n]*beyond noise"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("removed +gpu-idle-gaps / data_loader"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("breakdown.data_loader [^\n]*beyond noise"));
}

}  // namespace
}  // namespace tracelint
