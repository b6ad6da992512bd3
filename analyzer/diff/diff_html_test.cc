#include "analyzer/diff/diff_html.h"

#include <string>
#include <vector>

#include "analyzer/base/escape.h"
#include "analyzer/diff/diff_report.h"
#include "tests/support/report_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using report_fixture::Count;

constexpr char kHostileKernel[] = "<img src=x onerror=alert(1)>\"k'&";
constexpr char kHostileLabel[] = "/runs/<script>alert(2)</script>";

// One rank of `steps` steady steps of about `step_ns` (a little seeded
// jitter, so the samples are not all ties), `loader_ns` of it waiting for data.
DiffRun MakeRun(std::string label, int steps, TimeNs step_ns, TimeNs loader_ns,
                std::vector<DiffFinding> findings, std::string kernel = kHostileKernel) {
  DiffRun run;
  run.label = std::move(label);
  DiffRank rank;
  rank.rank = 0;
  rank.analysed_steps = steps;
  for (int k = 0; k < steps; ++k) {
    DiffStep s;
    s.number = k + 1;
    s.step_ns = step_ns + (k * 37 % 11) * 50 * kNsPerUs;
    s.breakdown_ns[static_cast<int>(StepCategory::kDataLoader)] = loader_ns;
    s.breakdown_ns[static_cast<int>(StepCategory::kKernel)] = s.step_ns - loader_ns;
    s.gpu_utilization = static_cast<double>(s.step_ns - loader_ns) / s.step_ns;
    rank.steady_steps.push_back(s);
  }
  TimeNs kernel_ns = step_ns - loader_ns;
  rank.kernels = {{kernel, steps, kernel_ns * steps}, {"steady_kernel", steps, steps}};
  rank.ops = {{"aten::mm", steps, kernel_ns * steps}};
  run.ranks.push_back(std::move(rank));
  run.findings = std::move(findings);
  return run;
}

DiffFinding LoaderFinding(TimeNs ns) {
  DiffFinding f;
  f.fingerprint = "f00d";
  f.rule_id = "gpu-idle-gaps";
  f.cause = "data_loader";
  f.title = "GPU idle <waiting> for the DataLoader";
  f.severity = "high";
  f.recoverable_ns_per_step = ns;
  f.recoverable_share = 0.3;
  return f;
}

RunDiff Compute(const DiffRun& base, const DiffRun& next) {
  absl::StatusOr<RunDiff> d = ComputeRunDiff(base, next, DiffOptions());
  EXPECT_TRUE(d.ok()) << d.status();
  return d.ok() ? *d : RunDiff();
}

TEST(DiffHtml, HasVerdictMetricsChartsFindingsAndTables) {
  RunDiff d = Compute(MakeRun("base", 8, 100 * kNsPerMs, 30 * kNsPerMs,
                              {LoaderFinding(30 * kNsPerMs)}),
                      MakeRun("new", 8, 60 * kNsPerMs, 0, {}));
  ASSERT_TRUE(d.judged);
  std::string page = RenderDiffHtml(d);
  // The verdict is the words every diff format prints, marked as an improvement.
  EXPECT_THAT(page, HasSubstr("<div class=\"verdict better\" id=\"verdict\"><b>" +
                              EscapeHtml(StepTimeVerdict(d)) + "</b>"));
  EXPECT_THAT(page, HasSubstr("beyond noise"));
  EXPECT_THAT(page, Not(HasSubstr("id=\"too-few-steps\"")));
  // One row per metric, with medians, p10/p90 and the interval.
  EXPECT_EQ(Count(page, "<tr><td class=\"name metric\">"), d.metrics.size());
  EXPECT_THAT(page, HasSubstr("<td class=\"name metric\">step time</td><td>"));
  EXPECT_THAT(page, HasSubstr("breakdown.data_loader"));
  EXPECT_THAT(page, HasSubstr("class=\"ci\""));  // intervals drawn
  for (const char* id : {"id=\"shift\"", "id=\"steps-base\"", "id=\"steps-new\"",
                         "id=\"mean-breakdown\"", "class=\"data findings-diff\"",
                         "class=\"data kernels-diff\"", "class=\"data ops-diff\""}) {
    EXPECT_THAT(page, HasSubstr(id)) << id;
  }
  // Eight bars a side, each with its kernel and (base only) data loader part.
  EXPECT_THAT(page, HasSubstr("step #8: DataLoader 30.000 ms (29.9% of 100.300 ms)"));
  EXPECT_THAT(page, HasSubstr("<span class=\"dbar down\" style=\"width:80px\">"));
  EXPECT_EQ(Count(page, "<g class=\"bar"), 16u);
  EXPECT_THAT(page, HasSubstr("<span class=\"chg chg-removed\">removed</span>"));
  EXPECT_THAT(page, HasSubstr("1 removed, 0 changed"));
  EXPECT_THAT(page, HasSubstr("GPU idle &lt;waiting&gt; for the DataLoader"));
}

TEST(DiffHtml, IsSelfContained) {
  RunDiff d = Compute(MakeRun("a", 6, 10 * kNsPerMs, kNsPerMs, {}, "gemm"),
                      MakeRun("b", 6, 12 * kNsPerMs, kNsPerMs, {}, "gemm"));
  std::string page = RenderDiffHtml(d);
  for (const char* external : {"http://", "https://", "<script", "<link", "@import", "url(",
                               "<iframe", "src="}) {
    EXPECT_THAT(page, Not(HasSubstr(external))) << external;
  }
  EXPECT_THAT(page, HasSubstr("<meta charset=\"utf-8\">"));
  EXPECT_THAT(page, HasSubstr("class=\"verdict worse\""));
  EXPECT_EQ(page, RenderDiffHtml(d)) << "deterministic";
}

TEST(DiffHtml, HostileNamesAreText) {
  DiffFinding f = LoaderFinding(kNsPerMs);
  f.title = "<script>alert('title')</script>";
  f.cause = "<b>cause</b>";
  RunDiff d = Compute(MakeRun(kHostileLabel, 6, 10 * kNsPerMs, kNsPerMs, {}),
                      MakeRun("new&<>", 6, 20 * kNsPerMs, kNsPerMs, {f}));
  std::string page = RenderDiffHtml(d);
  EXPECT_THAT(page, Not(HasSubstr("<script")));
  EXPECT_THAT(page, Not(HasSubstr("<img")));
  EXPECT_THAT(page, Not(HasSubstr("<b>cause")));
  EXPECT_THAT(page, HasSubstr("/runs/&lt;script&gt;alert(2)&lt;/script&gt;"));
  EXPECT_THAT(page, HasSubstr("&lt;img src=x onerror=alert(1)&gt;&quot;k&#39;&amp;"));
  EXPECT_THAT(page, HasSubstr("&lt;script&gt;alert(&#39;title&#39;)&lt;/script&gt;"));
  EXPECT_THAT(page, HasSubstr("<code>new&amp;&lt;&gt;</code>"));
}

TEST(DiffHtml, TooFewStepsSaysSoAndClaimsNothing) {
  RunDiff d = Compute(MakeRun("base", 3, 10 * kNsPerMs, kNsPerMs, {}),
                      MakeRun("new", 4, 20 * kNsPerMs, kNsPerMs, {}));
  ASSERT_FALSE(d.judged);
  std::string page = RenderDiffHtml(d);
  EXPECT_THAT(page, HasSubstr("id=\"too-few-steps\">too few steps to judge noise (3 and 4 "
                              "steady steps; 5 needed on each side)"));
  EXPECT_THAT(page, HasSubstr("class=\"verdict\" id=\"verdict\""));  // neither worse nor better
  EXPECT_THAT(page, Not(HasSubstr("beyond noise")));
  EXPECT_THAT(page, Not(HasSubstr("within noise")));
  EXPECT_THAT(page, Not(HasSubstr("class=\"ci\"")));  // no interval drawn
  EXPECT_EQ(Count(page, ">too few steps</td>"), d.metrics.size());
  EXPECT_THAT(page, HasSubstr("(medians)"));
}

TEST(DiffHtml, SameRunDiffsToNothing) {
  DiffRun run = MakeRun("run", 6, 10 * kNsPerMs, kNsPerMs, {LoaderFinding(kNsPerMs)});
  RunDiff d = Compute(run, run);
  ASSERT_TRUE(d.empty());
  std::string page = RenderDiffHtml(d);
  EXPECT_THAT(page, HasSubstr("No difference beyond noise"));
  EXPECT_THAT(page, HasSubstr("<span class=\"chg chg-unchanged\">unchanged</span>"));
  EXPECT_EQ(Count(page, "No change in device time per step."), 2u);
}

// analyze --baseline --format html: the same comparison as a section of
// the analyze page, one heading level down and with ids of its own, so the
// page's #verdict and #findings still name the page's.
TEST(DiffHtml, SectionForTheAnalyzePageHasItsOwnIds) {
  RunDiff d = Compute(MakeRun("base", 8, 100 * kNsPerMs, 30 * kNsPerMs,
                              {LoaderFinding(30 * kNsPerMs)}),
                      MakeRun("new", 8, 60 * kNsPerMs, 0, {}));
  std::string section = RenderDiffHtmlSection(d);
  EXPECT_EQ(section.rfind("<h2 id=\"baseline\">Against the baseline</h2>\n", 0), 0u) << section;
  for (const char* page_only : {"<html", "<body", "<style", "<h2 id=\"metrics\"",
                                "id=\"verdict\"", "id=\"findings\"", "id=\"shift\""}) {
    EXPECT_THAT(section, Not(HasSubstr(page_only))) << page_only;
  }
  EXPECT_EQ(Count(section, "<h2"), 1u);
  EXPECT_THAT(section, HasSubstr("<div class=\"verdict better\" id=\"baseline-verdict\"><b>" +
                                 EscapeHtml(StepTimeVerdict(d)) + "</b>"));
  for (const char* id : {"<h3 id=\"baseline-metrics\">Metrics per steady step</h3>",
                         "<h3 id=\"baseline-findings\">Findings</h3>", "id=\"baseline-shift\"",
                         "id=\"baseline-steps-base\"", "id=\"baseline-steps-new\"",
                         "id=\"baseline-mean-breakdown\"", "<h4>Base (rank 0)</h4>",
                         "<h4>Kernels (device time per step)</h4>"}) {
    EXPECT_THAT(section, HasSubstr(id)) << id;
  }
  // The sections hold the same numbers as the diff's own page.
  std::string page = RenderDiffHtml(d);
  EXPECT_EQ(Count(section, "<tr><td class=\"name metric\">"),
            Count(page, "<tr><td class=\"name metric\">"));
  EXPECT_EQ(Count(section, "<g class=\"bar"), Count(page, "<g class=\"bar"));
}

}  // namespace
}  // namespace tracelint
