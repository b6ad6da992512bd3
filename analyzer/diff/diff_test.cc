#include "analyzer/analysis/run_diff.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_split.h"
#include "analyzer/analysis/analysis_context.h"
#include "analyzer/base/escape.h"
#include "analyzer/engine/fingerprint.h"
#include "analyzer/diff/diff_html.h"
#include "analyzer/diff/diff_input.h"
#include "analyzer/diff/diff_report.h"
#include "tests/support/schema_check.h"
#include "tests/support/training_run.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Finding MakeFinding(std::string cause, TimeNs recoverable_ns) {
  Finding f;
  f.rule_id = "gpu-idle-gaps";
  f.cause = std::move(cause);
  f.recoverable_ns_per_step = recoverable_ns;
  f.recoverable_share = 0.1;
  f.title = "GPU idle";
  f.location.rank = 0;
  f.location.top_items.push_back({"aten::mm", 1, 1, ""});
  f.fingerprint = FindingFingerprint(f);
  return f;
}

void ExpectSameRun(const DiffRun& a, const DiffRun& b) {
  EXPECT_EQ(a.judgeable, b.judgeable);
  EXPECT_EQ(a.verdict_line, b.verdict_line);
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (size_t i = 0; i < a.ranks.size(); ++i) {
    const DiffRank& x = a.ranks[i];
    const DiffRank& y = b.ranks[i];
    EXPECT_EQ(x.rank, y.rank);
    EXPECT_EQ(x.accelerator, y.accelerator);
    EXPECT_EQ(x.peak_allocated_bytes, y.peak_allocated_bytes);
    EXPECT_EQ(x.device_memory_bytes, y.device_memory_bytes);
    EXPECT_EQ(x.analysed_steps, y.analysed_steps);
    ASSERT_EQ(x.steady_steps.size(), y.steady_steps.size());
    for (size_t s = 0; s < x.steady_steps.size(); ++s) {
      EXPECT_EQ(x.steady_steps[s].number, y.steady_steps[s].number);
      EXPECT_EQ(x.steady_steps[s].step_ns, y.steady_steps[s].step_ns);
      EXPECT_EQ(x.steady_steps[s].gpu_utilization, y.steady_steps[s].gpu_utilization);
      EXPECT_EQ(x.steady_steps[s].breakdown_ns, y.steady_steps[s].breakdown_ns);
    }
    ASSERT_EQ(x.kernels.size(), y.kernels.size());
    for (size_t k = 0; k < x.kernels.size(); ++k) {
      EXPECT_EQ(x.kernels[k].name, y.kernels[k].name);
      EXPECT_EQ(x.kernels[k].total_ns, y.kernels[k].total_ns);
      EXPECT_EQ(x.kernels[k].count, y.kernels[k].count);
    }
    ASSERT_EQ(x.ops.size(), y.ops.size());
    for (size_t k = 0; k < x.ops.size(); ++k) {
      EXPECT_EQ(x.ops[k].name, y.ops[k].name);
      EXPECT_EQ(x.ops[k].total_ns, y.ops[k].total_ns);
    }
  }
  ASSERT_EQ(a.findings.size(), b.findings.size());
  for (size_t i = 0; i < a.findings.size(); ++i) {
    EXPECT_EQ(a.findings[i].fingerprint, b.findings[i].fingerprint);
    EXPECT_EQ(a.findings[i].recoverable_ns_per_step, b.findings[i].recoverable_ns_per_step);
    EXPECT_EQ(a.findings[i].recoverable_ns_steps, b.findings[i].recoverable_ns_steps);
    EXPECT_EQ(a.findings[i].severity, b.findings[i].severity);
  }
}

TEST(DiffInput, JsonReportReadsBackAsTheAnalysisWhateverTheTopN) {
  testing::Scenario run = testing::MakeTrainingRun({});
  run.Allocate(int64_t{3} << 30);  // the allocator's peak travels too
  absl::StatusOr<Timeline> tl = run.BuildTimeline();
  ASSERT_TRUE(tl.ok()) << tl.status();
  AnalysisContext ctx(*tl);
  ReportInput input;
  input.input_path = "run";
  input.ranks = {&*tl};
  input.contexts = {&ctx};
  AttachRecords(input);
  input.findings = {MakeFinding("data_loader", 3 * kNsPerMs),
                    MakeFinding("host_side_op", 2 * kNsPerMs)};
  // One finding measured step by step, one that gives only its mean.
  input.findings[0].recoverable_ns_steps = {2 * kNsPerMs, 3 * kNsPerMs, 4 * kNsPerMs,
                                            3 * kNsPerMs, 3 * kNsPerMs};
  input.options.top_n = 1;  // the display cut must not reach the diff data
  DiffRun live = DiffRunFromAnalysis(input);
  ASSERT_EQ(live.findings.size(), 2u);
  EXPECT_EQ(live.findings[0].recoverable_ns_steps.size(), 5u);
  EXPECT_TRUE(live.findings[1].recoverable_ns_steps.empty());
  ASSERT_EQ(live.ranks.size(), 1u);
  EXPECT_EQ(live.ranks[0].steady_steps.size(), 12u);
  EXPECT_GE(live.ranks[0].kernels.size(), 2u);
  EXPECT_GE(live.ranks[0].ops.size(), 2u);
  EXPECT_EQ(live.ranks[0].peak_allocated_bytes, int64_t{3} << 30);
  absl::StatusOr<DiffRun> read = DiffRunFromJsonReport(RenderJsonReport(input), "run.json");
  ASSERT_TRUE(read.ok()) << read.status();
  ExpectSameRun(live, *read);
}

TEST(DiffInput, RejectsWhatIsNotAFullReport) {
  EXPECT_FALSE(DiffRunFromJsonReport("[1, 2]", "x").ok());
  EXPECT_FALSE(DiffRunFromJsonReport("{\"tool\": \"other\"}", "x").ok());
  absl::StatusOr<DiffRun> old = DiffRunFromJsonReport(
      R"({"schema_version": 1, "tool": "tracelint", "ranks": [{"rank": 0, "steps": {"count": 0},
          "summary": [], "per_step": []}], "findings": []})",
      "old.json");
  ASSERT_FALSE(old.ok());
  EXPECT_THAT(old.status().message(), HasSubstr("'kernels'"));
  EXPECT_THAT(old.status().message(), HasSubstr("old.json"));
}

// A run of one rank whose steps take the given times (ns).
DiffRun OneRankRun(std::string label, const std::vector<TimeNs>& steps_ns, int rank = 0) {
  DiffRun run;
  run.label = std::move(label);
  DiffRank r;
  r.rank = rank;
  r.analysed_steps = static_cast<int64_t>(steps_ns.size());
  for (size_t i = 0; i < steps_ns.size(); ++i) {
    DiffStep s;
    s.number = static_cast<int64_t>(i);
    s.step_ns = steps_ns[i];
    s.gpu_utilization = 0.5;
    s.breakdown_ns[0] = steps_ns[i];
    r.steady_steps.push_back(s);
  }
  run.ranks.push_back(r);
  return run;
}

std::vector<TimeNs> Steps(TimeNs base_ns, int n, TimeNs spread_ns) {
  std::vector<TimeNs> v;
  for (int i = 0; i < n; ++i) v.push_back(base_ns + (i % 5) * spread_ns);
  return v;
}

DiffFinding Found(std::string fingerprint, TimeNs ns) {
  DiffFinding f;
  f.fingerprint = fingerprint;
  f.rule_id = "gpu-idle-gaps";
  f.cause = fingerprint;
  f.severity = "low";
  f.recoverable_ns_per_step = ns;
  return f;
}

TEST(ComputeRunDiff, FindingsAddedRemovedChangedByFingerprint) {
  DiffRun base = OneRankRun("a", Steps(100 * kNsPerMs, 10, 10 * kNsPerUs));
  DiffRun next = OneRankRun("b", Steps(100 * kNsPerMs, 10, 10 * kNsPerUs));
  base.findings = {Found("same", 10 * kNsPerMs), Found("moved", 5 * kNsPerMs),
                   Found("gone", kNsPerMs)};
  next.findings = {Found("same", 10 * kNsPerMs), Found("moved", 8 * kNsPerMs),
                   Found("new", 2 * kNsPerMs)};
  absl::StatusOr<RunDiff> d = ComputeRunDiff(base, next, {});
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->findings.size(), 4u);
  EXPECT_EQ(d->findings[0].kind, FindingChangeKind::kAdded);
  EXPECT_EQ(d->findings[0].next.fingerprint, "new");
  EXPECT_EQ(d->findings[1].kind, FindingChangeKind::kRemoved);
  EXPECT_EQ(d->findings[1].base.fingerprint, "gone");
  EXPECT_EQ(d->findings[2].kind, FindingChangeKind::kChanged);
  EXPECT_EQ(d->findings[2].delta_ns_per_step, 3 * kNsPerMs);
  EXPECT_EQ(d->findings[3].kind, FindingChangeKind::kUnchanged);
  EXPECT_FALSE(d->empty());
}

// A finding measured step by step: its per-step values and their mean.
DiffFinding FoundPerStep(std::string fingerprint, std::vector<TimeNs> values_ns) {
  TimeNs sum_ns = 0;
  for (TimeNs v : values_ns) sum_ns += v;
  DiffFinding f = Found(std::move(fingerprint),
                        values_ns.empty() ? 0 : sum_ns / static_cast<TimeNs>(values_ns.size()));
  f.recoverable_ns_steps = std::move(values_ns);
  return f;
}

std::vector<TimeNs> Ms(std::initializer_list<double> ms) {
  std::vector<TimeNs> v;
  for (double x : ms) v.push_back(static_cast<TimeNs>(x * kNsPerMs));
  return v;
}

TEST(ComputeRunDiff, FindingWhosePerStepCostShiftsBeyondNoiseIsChanged) {
  // +1 ms on every step (+10%): below the 20% rule, but far beyond the
  // steps' own spread, so the test calls it.
  DiffRun base = OneRankRun("a", Steps(100 * kNsPerMs, 10, kNsPerMs));
  DiffRun next = OneRankRun("b", Steps(100 * kNsPerMs, 10, kNsPerMs));
  base.findings = {FoundPerStep("f", Ms({10, 10.1, 9.9, 10.2, 9.8, 10, 10.1, 9.9, 10, 10}))};
  next.findings = {FoundPerStep("f", Ms({11, 11.1, 10.9, 11.2, 10.8, 11, 11.1, 10.9, 11, 11}))};
  absl::StatusOr<RunDiff> d = ComputeRunDiff(base, next, {});
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->findings.size(), 1u);
  const FindingChange& c = d->findings[0];
  EXPECT_EQ(c.kind, FindingChangeKind::kChanged);
  EXPECT_EQ(c.judged_by, FindingJudgedBy::kTest);
  EXPECT_LT(c.comparison.test.p_value, kNoiseAlpha);
  EXPECT_NEAR(c.comparison.shift.estimate, kNsPerMs, 1e-6);
  EXPECT_GT(c.comparison.shift.low, 0);
  std::string text = RenderDiffText(*d);
  EXPECT_THAT(text, HasSubstr("judged by: per-step shift +1.000 ms"));
  EXPECT_THAT(RenderDiffMarkdown(*d), HasSubstr("per-step shift"));
  EXPECT_THAT(RenderDiffJson(*d), HasSubstr("\"judged_by\": \"test\""));
}

// On an 80-column terminal the diff fits it (run paths aside, which stay
// whole): the medians, shift and verdict, findings on two lines; the full
// table, with spreads, intervals and p-values, when there is no limit.
TEST(RenderDiffText, FitsANarrowTerminal) {
  DiffRun base = OneRankRun("a", Steps(100 * kNsPerMs, 10, kNsPerMs));
  DiffRun next = OneRankRun("b", Steps(110 * kNsPerMs, 10, kNsPerMs));
  base.findings = {FoundPerStep("f", Ms({10, 10.1, 9.9, 10.2, 9.8, 10, 10.1, 9.9, 10, 10}))};
  next.findings = {FoundPerStep("f", Ms({11, 11.1, 10.9, 11.2, 10.8, 11, 11.1, 10.9, 11, 11}))};
  absl::StatusOr<RunDiff> d = ComputeRunDiff(base, next, {});
  ASSERT_TRUE(d.ok()) << d.status();
  std::string narrow = RenderDiffText(*d, 80);
  std::istringstream lines(narrow);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("Base: ") || line.starts_with("New: ")) continue;
    EXPECT_LE(line.size(), 80u) << line;
  }
  EXPECT_THAT(narrow, HasSubstr("median base  median new        shift  verdict"));
  EXPECT_THAT(narrow, HasSubstr("judged by: per-step shift +1.000 ms"));
  EXPECT_THAT(narrow, HasSubstr("--width 0"));
  EXPECT_THAT(narrow, Not(HasSubstr("p10 .. p90 base")));
  std::string wide = RenderDiffText(*d, 0);
  EXPECT_THAT(wide, HasSubstr("p10 .. p90 base"));
  EXPECT_EQ(wide, RenderDiffText(*d, kDiffFullWidth));
}

TEST(ComputeRunDiff, FindingWithNoisyButSameValuesIsUnchanged) {
  // The same spread of values, one outlier step: the mean moves by 36%
  // (the 20% rule would call it changed), the distribution does not.
  DiffRun base = OneRankRun("a", Steps(100 * kNsPerMs, 10, kNsPerMs));
  DiffRun next = OneRankRun("b", Steps(100 * kNsPerMs, 10, kNsPerMs));
  base.findings = {FoundPerStep("f", Ms({2, 4, 6, 8, 10, 12, 14, 16, 18, 20}))};
  next.findings = {FoundPerStep("f", Ms({18, 2, 16, 4, 14, 6, 12, 8, 10, 60}))};
  absl::StatusOr<RunDiff> d = ComputeRunDiff(base, next, {});
  ASSERT_TRUE(d.ok()) << d.status();
  const FindingChange& c = d->findings[0];
  EXPECT_GT(c.delta_ns_per_step, 3 * kNsPerMs);
  EXPECT_EQ(c.judged_by, FindingJudgedBy::kTest);
  EXPECT_GE(c.comparison.test.p_value, kNoiseAlpha);
  EXPECT_EQ(c.kind, FindingChangeKind::kUnchanged);
}

TEST(ComputeRunDiff, FindingWithTooFewStepsUsesTheTwentyPercentRule) {
  // Per-step values, but only 3 steps a side: no test, the 20% rule.
  DiffRun base = OneRankRun("a", Steps(100 * kNsPerMs, 10, kNsPerMs));
  DiffRun next = OneRankRun("b", Steps(100 * kNsPerMs, 10, kNsPerMs));
  base.findings = {FoundPerStep("small", Ms({10, 10, 10})), FoundPerStep("big", Ms({10, 10, 10}))};
  next.findings = {FoundPerStep("small", Ms({11.5, 11.5, 11.5})),
                   FoundPerStep("big", Ms({12.5, 12.5, 12.5}))};
  absl::StatusOr<RunDiff> d = ComputeRunDiff(base, next, {});
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->findings.size(), 2u);
  EXPECT_EQ(d->findings[0].base.fingerprint, "big");  // +25%
  EXPECT_EQ(d->findings[0].kind, FindingChangeKind::kChanged);
  EXPECT_EQ(d->findings[0].judged_by, FindingJudgedBy::kTooFewSteps);
  EXPECT_EQ(d->findings[1].kind, FindingChangeKind::kUnchanged);  // +15%
  EXPECT_EQ(d->findings[1].judged_by, FindingJudgedBy::kTooFewSteps);
  EXPECT_THAT(RenderDiffText(*d),
              HasSubstr("judged by: too few steps to judge noise (3 and 3): moved more than 20%"));
}

TEST(ComputeRunDiff, FindingWithOnlyAMeanSaysSoAndUsesTheTwentyPercentRule) {
  DiffRun base = OneRankRun("a", Steps(100 * kNsPerMs, 10, kNsPerMs));
  DiffRun next = OneRankRun("b", Steps(100 * kNsPerMs, 10, kNsPerMs));
  // One side measured step by step, the other (an older report) not.
  base.findings = {Found("f", 10 * kNsPerMs)};
  next.findings = {FoundPerStep("f", Ms({13, 13, 13, 13, 13, 13}))};
  absl::StatusOr<RunDiff> d = ComputeRunDiff(base, next, {});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->findings[0].kind, FindingChangeKind::kChanged);
  EXPECT_EQ(d->findings[0].judged_by, FindingJudgedBy::kMeanOnly);
  EXPECT_THAT(RenderDiffText(*d), HasSubstr("rule gives only a mean, no per-step values"));
  EXPECT_THAT(RenderDiffJson(*d), HasSubstr("\"judged_by\": \"mean-only\""));
}

TEST(ComputeRunDiff, TooFewStepsComparesMediansAndUsesTheTwentyPercentRule) {
  DiffRun base = OneRankRun("a", {100 * kNsPerMs, 101 * kNsPerMs, 102 * kNsPerMs});
  DiffRun next = OneRankRun("b", {150 * kNsPerMs, 151 * kNsPerMs, 152 * kNsPerMs});
  base.findings = {Found("small", 10 * kNsPerMs), Found("big", 10 * kNsPerMs)};
  next.findings = {Found("small", 11500 * kNsPerUs), Found("big", 12500 * kNsPerUs)};
  DiffOptions options;
  options.fail_on_regression_pct = 5;
  absl::StatusOr<RunDiff> d = ComputeRunDiff(base, next, options);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->judged);
  EXPECT_FALSE(d->step_time().comparison.beyond_noise);
  EXPECT_NEAR(d->step_change_pct, 100.0 * 50 / 101, 1e-9);
  EXPECT_FALSE(d->gate_evaluated);
  EXPECT_FALSE(d->gate_tripped);
  EXPECT_EQ(d->findings[0].kind, FindingChangeKind::kChanged);  // big: +25%
  EXPECT_EQ(d->findings[0].base.fingerprint, "big");
  EXPECT_EQ(d->findings[1].kind, FindingChangeKind::kUnchanged);  // small: +15%
  EXPECT_EQ(d->findings[0].judged_by, FindingJudgedBy::kMeanOnly);
  std::string text = RenderDiffText(*d);
  EXPECT_THAT(text, HasSubstr("too few steps to judge noise"));
  EXPECT_THAT(text, HasSubstr("not evaluated"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("beyond noise")));
}

TEST(ComputeRunDiff, GateTripsOnTheIntervalsLowerBound) {
  DiffRun base = OneRankRun("a", Steps(100 * kNsPerMs, 10, 100 * kNsPerUs));
  DiffRun next = OneRankRun("b", Steps(120 * kNsPerMs, 10, 100 * kNsPerUs));
  DiffOptions options;
  options.fail_on_regression_pct = 10;
  absl::StatusOr<RunDiff> d = ComputeRunDiff(base, next, options);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->judged);
  EXPECT_TRUE(d->step_time().comparison.beyond_noise);
  EXPECT_GT(d->step_change_low_pct, 19);
  EXPECT_TRUE(d->gate_evaluated);
  EXPECT_TRUE(d->gate_tripped);
  options.fail_on_regression_pct = 25;
  d = ComputeRunDiff(base, next, options);
  EXPECT_FALSE(d->gate_tripped);
  // An improvement never trips.
  options.fail_on_regression_pct = 0;
  d = ComputeRunDiff(next, base, options);
  EXPECT_FALSE(d->gate_tripped);
}

TEST(ComputeRunDiff, KernelsByLargestChangePerStep) {
  DiffRun base = OneRankRun("a", Steps(100 * kNsPerMs, 10, 0));
  DiffRun next = OneRankRun("b", Steps(100 * kNsPerMs, 5, 0));
  base.ranks[0].kernels = {{"same", 10, 10 * kNsPerMs}, {"faster", 10, 20 * kNsPerMs},
                           {"gone", 10, 10 * kNsPerMs}};
  // 5 analysed steps: per-step values double for the same totals.
  next.ranks[0].kernels = {{"same", 5, 5 * kNsPerMs}, {"faster", 5, 5 * kNsPerMs},
                           {"slower", 5, 20 * kNsPerMs}};
  DiffOptions options;
  options.top_n = 2;
  absl::StatusOr<RunDiff> d = ComputeRunDiff(base, next, options);
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->kernels.size(), 2u);
  EXPECT_EQ(d->kernels[0].name, "slower");
  EXPECT_EQ(d->kernels[0].delta_ns_per_step(), 4 * kNsPerMs);
  // "faster" (2 -> 1 ms) and "gone" (1 ms -> 0) both moved by -1 ms: by name.
  EXPECT_EQ(d->kernels[1].name, "faster");
  EXPECT_EQ(d->kernels[1].delta_ns_per_step(), -kNsPerMs);
  options.top_n = 10;
  d = ComputeRunDiff(base, next, options);
  ASSERT_EQ(d->kernels.size(), 3u);  // "same" did not move
  EXPECT_EQ(d->kernels[2].name, "gone");
  EXPECT_EQ(d->kernels[2].new_ns_per_step, 0);
}

// Kernel names, titles and paths come from the trace and the file system:
// in text no control byte reaches the terminal, in Markdown no name breaks
// its table row, and a long name is cut at a character boundary.
TEST(DiffReport, HostileNamesAreEscapedInTextAndMarkdown) {
  const std::string hostile = "k\x1b[31mRED\x07|x\r\nforged line `tick`";
  const std::string long_utf8 = std::string(76, 'a') + "\xc3\xa9\xc3\xa9\xc3\xa9";  // 82 bytes
  DiffRun base = OneRankRun("dir\x1b]0;title\x07", Steps(100 * kNsPerMs, 10, 0));
  DiffRun next = OneRankRun("b", Steps(100 * kNsPerMs, 10, 0));
  base.ranks[0].kernels = {{hostile, 10, 10 * kNsPerMs}, {long_utf8, 10, 10 * kNsPerMs}};
  next.findings = {Found("new", 5 * kNsPerMs)};
  next.findings[0].title = "op \x1b[2J\nwiped";
  absl::StatusOr<RunDiff> d = ComputeRunDiff(base, next, {});
  ASSERT_TRUE(d.ok());
  for (const std::string& out : {RenderDiffText(*d), RenderDiffMarkdown(*d)}) {
    EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
    EXPECT_EQ(out.find('\x07'), std::string::npos) << out;
    EXPECT_EQ(out.find('\r'), std::string::npos) << out;
    EXPECT_EQ(out.find("\nforged"), std::string::npos) << out;
    EXPECT_EQ(out.find("\nwiped"), std::string::npos) << out;
    EXPECT_TRUE(IsValidUtf8(out)) << out;
    // 76 'a', then whole characters only, then the ellipsis.
    EXPECT_THAT(out, HasSubstr(std::string(76, 'a') + "...")) << out;
  }
  std::string md = RenderDiffMarkdown(*d);
  std::vector<std::string> lines = absl::StrSplit(md, '\n');
  for (const std::string& line : lines) {
    if (!line.starts_with("| ") || line.find("RED") == std::string::npos) continue;
    // Five cell borders: four cells, the pipe in the name escaped.
    int borders = 0;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++borders;
    }
    EXPECT_EQ(borders, 5) << line;
  }
}

TEST(ComputeRunDiff, PicksTheWorstRankOrTheOneAsked) {
  DiffRun base = OneRankRun("a", Steps(100 * kNsPerMs, 6, 0), 0);
  DiffRun slow = OneRankRun("a", Steps(130 * kNsPerMs, 6, 0), 3);
  base.ranks.push_back(slow.ranks[0]);
  DiffRun next = base;
  absl::StatusOr<RunDiff> d = ComputeRunDiff(base, next, {});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->base_rank, 3);
  DiffOptions options;
  options.rank = 0;
  d = ComputeRunDiff(base, next, options);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->base_rank, 0);
  options.rank = 5;
  d = ComputeRunDiff(base, next, options);
  EXPECT_TRUE(absl::IsInvalidArgument(d.status())) << d.status();
  DiffRun empty = OneRankRun("e", {});
  EXPECT_TRUE(absl::IsFailedPrecondition(ComputeRunDiff(empty, next, {}).status()));
}

// docs/design/contract.md, "diff: outliers, compared ranks, warnings": New's
// slowest rank and the same rank id in Base, not each run's own slowest.
TEST(ComputeRunDiff, ComparesNewsSlowestRankWithTheSameRankOfBase) {
  DiffRun base = OneRankRun("base", Steps(130 * kNsPerMs, 6, 0), 0);  // Base's slowest: 0
  base.ranks.push_back(OneRankRun("base", Steps(100 * kNsPerMs, 6, 0), 1).ranks[0]);
  DiffRun next = OneRankRun("new", Steps(100 * kNsPerMs, 6, 0), 0);
  next.ranks.push_back(OneRankRun("new", Steps(120 * kNsPerMs, 6, 0), 1).ranks[0]);  // New's: 1
  absl::StatusOr<RunDiff> d = ComputeRunDiff(base, next, {});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->new_rank, 1);
  EXPECT_EQ(d->base_rank, 1);
  EXPECT_EQ(d->rank_choice, RankChoice::kSameAsNew);
  EXPECT_THAT(RenderDiffText(*d), HasSubstr("Compared: rank 1 of New (its slowest) and the same "
                                            "rank of Base"));
  // Base without that rank: each run's slowest, and the header says why.
  DiffRun one = OneRankRun("base", Steps(100 * kNsPerMs, 6, 0), 4);
  d = ComputeRunDiff(one, next, {});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->base_rank, 4);
  EXPECT_EQ(d->rank_choice, RankChoice::kEachWorst);
  EXPECT_THAT(RenderDiffText(*d), HasSubstr("Base has no rank 1"));
}

// The headline names the outlier steps (the one definition:
// analysis/outlier_steps.h) and the change without them; the verdict stays
// on every step.
TEST(ComputeRunDiff, OutlierStepsAreNamedWithTheChangeWithoutThem) {
  DiffRun base = OneRankRun("base", {150 * kNsPerMs, 151 * kNsPerMs, 149 * kNsPerMs,
                                     150 * kNsPerMs, 152 * kNsPerMs, 148 * kNsPerMs});
  DiffRun next = OneRankRun("new", {120 * kNsPerMs, 121 * kNsPerMs, 119 * kNsPerMs,
                                    120 * kNsPerMs, 201 * kNsPerMs, 168 * kNsPerMs});
  absl::StatusOr<RunDiff> d = ComputeRunDiff(base, next, {});
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->new_outliers.size(), 2u);
  EXPECT_EQ(d->new_outliers[0].number, 4);  // slowest first
  EXPECT_EQ(d->new_outliers[1].number, 5);
  EXPECT_TRUE(d->base_outliers.empty());
  EXPECT_NEAR(d->trimmed_change_pct, -20.0, 0.5);
  EXPECT_FALSE(d->step_time().comparison.beyond_noise);  // every step tested
  const std::string verdict = StepTimeVerdict(*d);
  EXPECT_THAT(verdict, ::testing::ContainsRegex(
                           "within noise; 2 outlier steps in New \\(#4 \\+[0-9.]+ ms, #5 "
                           "\\+[0-9.]+ ms\\); without them -2[01]\\.[0-9]%"))
      << verdict;
  EXPECT_THAT(RenderDiffJson(*d), HasSubstr("\"change_without_pct\": -"));
  // Without outliers nothing is added.
  absl::StatusOr<RunDiff> plain = ComputeRunDiff(base, base, {});
  ASSERT_TRUE(plain.ok());
  EXPECT_THAT(StepTimeVerdict(*plain), Not(HasSubstr("outlier")));
}

// The gate reads the untrimmed interval: Base's two slow steps keep its
// lower bound below the threshold even though New is 10% slower without them.
TEST(ComputeRunDiff, RegressionGateUsesTheUntrimmedInterval) {
  DiffRun base = OneRankRun("base", {100 * kNsPerMs, 100 * kNsPerMs, 100 * kNsPerMs,
                                     100 * kNsPerMs, 200 * kNsPerMs, 200 * kNsPerMs});
  DiffRun next = OneRankRun("new", Steps(110 * kNsPerMs, 6, 0));
  DiffOptions options;
  options.fail_on_regression_pct = 5;
  absl::StatusOr<RunDiff> d = ComputeRunDiff(base, next, options);
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->base_outliers.size(), 2u);
  EXPECT_NEAR(d->trimmed_change_pct, 10.0, 0.01);
  EXPECT_TRUE(d->gate_evaluated);
  EXPECT_LT(d->step_change_low_pct, 5);
  EXPECT_FALSE(d->gate_tripped);
}

// A warning heads the diff when the runs differ in device, world size,
// framework or op set (Jaccard < 0.5); not when they are alike.
TEST(ComputeRunDiff, WarnsWhenTheRunsDiffer) {
  DiffRun base = OneRankRun("base", Steps(100 * kNsPerMs, 6, 0));
  base.ranks[0].device_name = "NVIDIA A100-SXM4-40GB";
  base.ranks[0].world_size = 8;
  base.ranks[0].framework = "PyTorch";
  base.ranks[0].ops = {{"aten::conv2d", 1, 1}, {"aten::relu", 1, 1}, {"aten::add", 1, 1},
                       {"[no linked launch]", 1, 1}};
  DiffRun same = base;
  absl::StatusOr<RunDiff> d = ComputeRunDiff(base, same, {});
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->warnings.empty());
  DiffRun other = base;
  other.ranks[0].device_name = "NVIDIA H100 80GB HBM3";
  other.ranks[0].world_size = 16;
  other.ranks[0].framework = "JAX";
  other.ranks[0].ops = {{"aten::embedding_bag", 1, 1}, {"aten::relu", 1, 1},
                        {"fbgemm::jagged", 1, 1}, {"[no linked launch]", 1, 1}};
  d = ComputeRunDiff(base, other, {});
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->warnings.size(), 4u);
  EXPECT_THAT(d->warnings[0], HasSubstr("different devices (NVIDIA A100-SXM4-40GB and NVIDIA "
                                        "H100 80GB HBM3)"));
  EXPECT_THAT(d->warnings[1], HasSubstr("world sizes differ (8 and 16 ranks)"));
  EXPECT_THAT(d->warnings[2], HasSubstr("frameworks differ (PyTorch and JAX)"));
  EXPECT_THAT(d->warnings[3], HasSubstr("share 1 of 5 op names (Jaccard 0.20 < 0.5)"));
  EXPECT_THAT(RenderDiffText(*d), HasSubstr("WARNING: the runs ran on different devices"));
  EXPECT_THAT(RenderDiffMarkdown(*d), HasSubstr("> **Warning:** the world sizes differ"));
  // Half the names shared is Jaccard 0.5: alike enough.
  other = base;
  other.ranks[0].ops = {{"aten::conv2d", 1, 1}, {"aten::relu", 1, 1}, {"aten::mul", 1, 1}};
  d = ComputeRunDiff(base, other, {});
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->warnings.empty()) << d->warnings.front();
}

TEST(ComputeRunDiff, IdenticalRunsDiffToNothing) {
  DiffRun base = OneRankRun("a", Steps(100 * kNsPerMs, 10, kNsPerMs));
  base.findings = {Found("f", kNsPerMs)};
  base.ranks[0].kernels = {{"k", 10, 10 * kNsPerMs}};
  absl::StatusOr<RunDiff> d = ComputeRunDiff(base, base, {});
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->empty());
  EXPECT_THAT(RenderDiffText(*d), HasSubstr("No difference beyond noise"));
  EXPECT_THAT(RenderDiffMarkdown(*d), HasSubstr("No difference beyond noise"));
}

// The utilization row names the device the runs measured, and the
// allocator's peaks sit beside the metrics (one value per run: no test).
TEST(DiffReport, NamesTheDeviceAndComparesPeakMemory) {
  DiffRun base = OneRankRun("a", Steps(100 * kNsPerMs, 10, kNsPerMs));
  DiffRun next = OneRankRun("b", Steps(90 * kNsPerMs, 10, kNsPerMs));
  for (DiffRun* r : {&base, &next}) r->ranks[0].accelerator = "TPU";
  absl::StatusOr<RunDiff> plain = ComputeRunDiff(base, next, {});
  ASSERT_TRUE(plain.ok());
  EXPECT_THAT(RenderDiffText(*plain), HasSubstr("TPU utilization"));
  EXPECT_THAT(RenderDiffText(*plain), Not(HasSubstr("GPU utilization")));
  EXPECT_THAT(RenderDiffText(*plain), Not(HasSubstr("Peak device memory")));
  EXPECT_THAT(RenderDiffJson(*plain), HasSubstr("\"peak_memory\": {\n    \"base_bytes\": null"));

  base.ranks[0].peak_allocated_bytes = int64_t{8} << 30;
  base.ranks[0].device_memory_bytes = int64_t{16} << 30;
  next.ranks[0].peak_allocated_bytes = int64_t{10} << 30;
  next.ranks[0].device_memory_bytes = int64_t{16} << 30;
  absl::StatusOr<RunDiff> d = ComputeRunDiff(base, next, {});
  ASSERT_TRUE(d.ok());
  const std::string line =
      "Peak device memory (allocated): 8.00 GiB -> 10.00 GiB (+25.0%) of 16.00 GiB";
  EXPECT_THAT(RenderDiffText(*d), HasSubstr(line));
  EXPECT_THAT(RenderDiffMarkdown(*d), HasSubstr(EscapeMarkdownCell(line)));
  EXPECT_THAT(RenderDiffHtml(*d), HasSubstr(EscapeHtml(line)));
  // Recorded on one side only: said, not compared.
  next.ranks[0].peak_allocated_bytes = -1;
  absl::StatusOr<RunDiff> one = ComputeRunDiff(base, next, {});
  ASSERT_TRUE(one.ok());
  EXPECT_THAT(RenderDiffText(*one),
              HasSubstr("Peak device memory (allocated): 8.00 GiB -> not recorded of 16.00 GiB"));
}

TEST(DiffReport, JsonValidatesAgainstTheSchema) {
  for (bool judged : {true, false}) {
    DiffRun base = OneRankRun("a", Steps(100 * kNsPerMs, judged ? 10 : 3, kNsPerMs));
    DiffRun next = OneRankRun("b", Steps(120 * kNsPerMs, judged ? 10 : 3, kNsPerMs));
    base.findings = {Found("gone", kNsPerMs), Found("moved", kNsPerMs),
                     FoundPerStep("tested", Ms({1, 1.1, 0.9, 1, 1, 1.2}))};
    next.findings = {Found("new", kNsPerMs), Found("moved", 3 * kNsPerMs),
                     FoundPerStep("tested", Ms({2, 2.1, 1.9, 2, 2, 2.2}))};
    base.ranks[0].kernels = {{"k|x", 10, 10 * kNsPerMs}};
    if (judged) {
      base.ranks[0].peak_allocated_bytes = int64_t{8} << 30;
      next.ranks[0].peak_allocated_bytes = int64_t{9} << 30;
      next.ranks[0].device_memory_bytes = int64_t{16} << 30;
    }
    DiffOptions options;
    options.fail_on_regression_pct = 5;
    absl::StatusOr<RunDiff> d = ComputeRunDiff(base, next, options);
    ASSERT_TRUE(d.ok());
    EXPECT_THAT(RenderDiffMarkdown(*d), HasSubstr("`k\\|x`"));
    std::filesystem::path file =
        std::filesystem::path(::testing::TempDir()) /
        ("tracelint_diff_schema_test_" + std::to_string(getpid()) + ".json");
    std::ofstream(file) << RenderDiffJson(*d);
    std::string why;
    testing::SchemaCheck check = testing::ValidateJsonFile("diff.schema.json", file.string(), why);
    if (check == testing::SchemaCheck::kSkipped) GTEST_SKIP() << why;
    EXPECT_EQ(check, testing::SchemaCheck::kValid) << why;
  }
}

}  // namespace
}  // namespace tracelint
