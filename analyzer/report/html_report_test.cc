#include "analyzer/report/html_report.h"

#include <string>

#include "analyzer/analysis/step_phase.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/base/escape.h"
#include "analyzer/report/html_charts.h"
#include "analyzer/report/html_style.h"
#include "analyzer/report/report_data.h"
#include "tests/support/report_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using report_fixture::Analyse;
using report_fixture::Count;
using report_fixture::LoaderBound;

constexpr char kHostileKernel[] = "<script>document.title='pwned'</script>\"k'&\nnext";
constexpr char kHostileOp[] = "aten::</title><img src=x onerror=alert(1)>";

TEST(HtmlReport, HasVerdictFindingsChartsTablesAndTimeline) {
  auto a = Analyse({LoaderBound(6, -1, "ampere_sgemm_128x64_nn", "aten::mm")}, "complete");
  ASSERT_FALSE(a->input.findings.empty());
  std::string page = RenderHtmlReport(a->input);
  EXPECT_THAT(page, HasSubstr("id=\"verdict\""));
  EXPECT_EQ(Count(page, "<details class=\"finding\""), a->input.findings.size());
  EXPECT_THAT(page, HasSubstr("<div class=\"fix\">"));
  EXPECT_THAT(page, HasSubstr("id=\"breakdown-0\""));
  EXPECT_THAT(page, HasSubstr("id=\"utilization\""));
  EXPECT_THAT(page, HasSubstr("id=\"timeline\""));
  EXPECT_THAT(page, HasSubstr("class=\"data kernels\""));
  EXPECT_THAT(page, HasSubstr("class=\"data ops\""));
  EXPECT_THAT(page, HasSubstr("ampere_sgemm_128x64_nn"));
  // The timeline draws the device stream, the idle lane and the host thread.
  EXPECT_THAT(page, HasSubstr("GPU 0 idle (by cause)"));
  EXPECT_THAT(page, HasSubstr("data_loader"));
  // One rank: no per-rank chart.
  EXPECT_THAT(page, Not(HasSubstr("id=\"ranks\"")));
}

TEST(HtmlReport, IsSelfContained) {
  auto a = Analyse({LoaderBound(4, -1, "k", "aten::mm")}, "self_contained");
  std::string page = RenderHtmlReport(a->input);
  for (const char* external : {"http://", "https://", "<script", "<link", "@import", "url(",
                               "<iframe", "src="}) {
    EXPECT_THAT(page, Not(HasSubstr(external))) << external;
  }
  EXPECT_THAT(page, HasSubstr("<meta charset=\"utf-8\">"));
}

TEST(HtmlReport, HostileNamesAreText) {
  auto a = Analyse({LoaderBound(4, -1, kHostileKernel, kHostileOp)}, "hostile");
  ASSERT_FALSE(a->input.findings.empty());
  a->input.findings.front().title = "<script>alert('title')</script>";
  a->input.findings.front().fix = "use \"x\" & 'y' <b>now</b>";
  a->input.input_path = "/runs/<script>alert(2)</script>";
  std::string page = RenderHtmlReport(a->input);
  EXPECT_THAT(page, Not(HasSubstr("<script")));
  EXPECT_THAT(page, Not(HasSubstr("<img")));
  EXPECT_THAT(page, Not(HasSubstr("<b>now")));
  EXPECT_THAT(page, HasSubstr("&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;"
                              "&quot;k&#39;&amp;\nnext"));
  // Table cells break long names only at <wbr> (docs/html-report.md): the
  // escaped text is whole between them.
  std::string plain = page;
  for (size_t at = plain.find("<wbr>"); at != std::string::npos; at = plain.find("<wbr>", at)) {
    plain.erase(at, 5);
  }
  EXPECT_THAT(plain, HasSubstr("aten::&lt;/title&gt;&lt;img src=x onerror=alert(1)&gt;"));
  EXPECT_THAT(page, HasSubstr("use &quot;x&quot; &amp; &#39;y&#39; &lt;b&gt;now&lt;/b&gt;"));
}

TEST(HtmlReport, OutlierStepIsMarkedOnlyWhenThereIsOne) {
  auto even = Analyse({LoaderBound(6, -1, "k", "aten::mm")}, "even");
  EXPECT_THAT(RenderHtmlReport(even->input), Not(HasSubstr("class=\"outlier-mark\"")));
  auto slow = Analyse({LoaderBound(6, 3, "k", "aten::mm")}, "outlier");
  std::string page = RenderHtmlReport(slow->input);
  EXPECT_EQ(Count(page, "class=\"outlier-mark\""), 1u);
  EXPECT_THAT(page, HasSubstr("step #4 took"));
  // The outlier leaves every saving and its idle is not attributed: the
  // timeline draws the longest judged step and names the outlier.
  EXPECT_THAT(page, Not(HasSubstr("aria-label=\"timeline of step 4\"")));
  EXPECT_THAT(page, HasSubstr("the longest steady step that is not an outlier (outlier step #4: "
                              "left out of every saving, marked in the step chart)"));
}

TEST(HtmlReport, TimelineMergesSlicesNarrowerThanAPixel) {
  testing::Scenario s;
  s.Device(testing::DeviceSpec::A100());
  for (int k = 0; k < 3; ++k) {
    s.BeginStep(k + 1).DataLoaderNext(5 * kNsPerMs);
    s.OpKernels("aten::add", "tiny_kernel", 3000, 2 * kNsPerUs, 1 * kNsPerUs);
    s.Sync().EndStep();
  }
  auto a = Analyse({s}, "many_slices");
  std::string page = RenderHtmlReport(a->input);
  EXPECT_THAT(page, HasSubstr("slices merged at this zoom"));
  // 3000 kernels, ops, launches and idle gaps in the step: about 2 MB unmerged.
  EXPECT_LT(page.size(), 400u * 1024) << page.size();
}

// A 1 GB trace holds thousands of steps: the per-step charts draw slots of
// consecutive steps (their means) so the page does not grow with the run.
TEST(HtmlCharts, LongRunsAreDrawnInSlotsOfSteps) {
  std::vector<html::BreakdownBar> bars;
  for (int i = 0; i < 1000; ++i) {
    html::BreakdownBar bar;
    bar.number = i + 1;
    bar.step_ns = (i == 500 ? 40 : 10) * kNsPerMs;
    bar.outlier = i == 500;  // the caller marks outliers (analysis/outlier_steps.h)
    bar.breakdown_ns[static_cast<int>(StepCategory::kKernel)] = bar.step_ns;
    bars.push_back(bar);
  }
  std::string svg = html::BreakdownBarChart("long", "long run", bars);
  EXPECT_EQ(Count(svg, "<g class=\"bar"), html::kMaxChartSlots);
  EXPECT_THAT(svg, HasSubstr("<title>steps #1-#5 (mean of 5): Kernel 10.000 ms"));
  // The slot holding the slow step is marked, and the mark names the step.
  EXPECT_EQ(Count(svg, "class=\"outlier-mark\""), 1u);
  EXPECT_THAT(svg, HasSubstr("step #501 took 40.000 ms"));
  EXPECT_LT(svg.size(), 64u * 1024) << svg.size();
}

TEST(HtmlReport, SeveralRanksGetTheRankChart) {
  testing::Scenario r0 = LoaderBound(4, -1, "k", "aten::mm");
  r0.Distributed(0, 2);
  testing::Scenario r1 = LoaderBound(4, 2, "k", "aten::mm");
  r1.Distributed(1, 2);
  auto a = Analyse({r0, r1}, "ranks");
  std::string page = RenderHtmlReport(a->input);
  EXPECT_THAT(page, HasSubstr("id=\"ranks\""));
  EXPECT_THAT(page, HasSubstr("rank 1: communication wait"));
  // The worst step is drawn from the slower rank.
  EXPECT_THAT(page, HasSubstr("rank 1, step #3"));
}

TEST(HtmlReport, VerdictIsTheOneEveryFormatPrints) {
  auto a = Analyse({LoaderBound(6, -1, "k", "aten::mm")}, "verdict");
  Verdict verdict = a->input.summary().verdict;
  ASSERT_TRUE(verdict.judgeable);
  std::string page = RenderHtmlReport(a->input);
  EXPECT_THAT(page, HasSubstr("<div class=\"verdict\" id=\"verdict\"><b>" +
                              EscapeHtml(verdict.line) + "</b>"));
  EXPECT_THAT(page, HasSubstr("Verdict: input (rank 0: data loader idle"));
  // The top finding follows as where to look next.
  EXPECT_THAT(page, HasSubstr("Top finding: <a href=\"#finding-1\">"));
}

// A first step with one-time start-up work is the longest, but not steady:
// the timeline draws the worst steady step and says which steps it left out.
TEST(HtmlReport, TimelineDrawsTheWorstSteadyStep) {
  testing::Scenario s;
  s.Device(testing::DeviceSpec::A100());
  for (int k = 0; k < 2; ++k) {
    s.BeginStep(k + 1);
    if (k == 0) s.HostCall("cudaDeviceGetStreamPriorityRange", 800 * kNsPerMs);
    s.DataLoaderNext(8 * kNsPerMs);
    s.BeginOp("aten::mm").Kernel("k", 2 * kNsPerMs).End();
    s.Sync().EndStep();
  }
  auto a = Analyse({s}, "warmup_first");
  ASSERT_EQ(a->contexts[0]->steps().steps.size(), 1u) << "step 1 should be warm-up";
  std::string page = RenderHtmlReport(a->input);
  EXPECT_THAT(page, HasSubstr("aria-label=\"timeline of step 2\""));
  EXPECT_THAT(page, HasSubstr("the longest steady step (not drawn, as not steady: "
                              "ProfilerStep#1 (warm-up))"));
}

TEST(HtmlReport, NoSteadyStepIsDrawnMarkedNotRepresentative) {
  testing::Scenario s;
  s.Device(testing::DeviceSpec::A100());
  s.HostCall("cudaDeviceGetStreamPriorityRange", 2 * kNsPerS);
  s.BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", 100 * kNsPerUs).End();
  auto a = Analyse({s}, "warmup_only");
  ASSERT_TRUE(a->contexts[0]->step_phase().NoSteadyStep());
  std::string page = RenderHtmlReport(a->input);
  // The timeline stays (what ran), marked as no steady step.
  EXPECT_THAT(page, HasSubstr("id=\"timeline\""));
  EXPECT_THAT(page, HasSubstr("id=\"no-steady-step\">No steady step to draw: every step is "
                              "warm-up, capture or compile (the window (warm-up))"));
  EXPECT_THAT(page, HasSubstr("the longest one is drawn below as what ran, not as "
                              "representative"));
  EXPECT_THAT(page, HasSubstr("Verdict: not judgeable (no steady step"));
}

TEST(HtmlReport, RunWithoutStepsSaysSo) {
  ReportInput empty;
  empty.input_path = "/nowhere";
  std::string page = RenderHtmlReport(empty);
  EXPECT_THAT(page, HasSubstr("No step to draw."));
  EXPECT_THAT(page, HasSubstr("no findings"));
}

// A page that cannot judge says so (no "up to 0% of step time", no "mean
// over 0 steps"), still describes the run over every step, and shows code in
// fixes as code, not backticks.
TEST(HtmlReport, NotJudgeablePageSaysSoAndKeepsItsTables) {
  testing::Scenario s;
  s.Device(testing::DeviceSpec::A100());
  s.HostCall("cudaDeviceGetStreamPriorityRange", 2 * kNsPerS);
  s.BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", 100 * kNsPerUs).End();
  auto a = Analyse({s}, "not_judgeable_page");
  ASSERT_FALSE(a->input.findings.empty());
  std::string page = RenderHtmlReport(a->input);
  EXPECT_THAT(page, Not(HasSubstr("of step time recoverable")));
  EXPECT_THAT(page, Not(HasSubstr("mean over 0 step")));
  EXPECT_THAT(page, HasSubstr("Not judgeable: no steady step, so no per-step saving is claimed"));
  EXPECT_THAT(page, HasSubstr("no steady step; all 1 step, for description only"));
  EXPECT_THAT(page, HasSubstr("class=\"data kernels\""));
  EXPECT_THAT(page, HasSubstr("<code>torch.profiler.schedule(wait=1, warmup=2, active=3)</code>"));
  EXPECT_THAT(page, Not(HasSubstr("`torch.profiler.schedule")));
}

// The Ranks chart's legend shows each series' colour: a style, which the
// axis class's grey fill cannot override (a fill attribute would lose).
TEST(HtmlReport, RanksLegendKeepsTheSeriesColours) {
  auto a = Analyse({LoaderBound(4, -1, "k", "aten::mm"), LoaderBound(4, 1, "k", "aten::mm")},
                   "ranks_legend");
  std::string chart = html::RankChart(a->input);
  for (const char* color : {"#4e79a7", "#bab0ac", "#b07aa1", "#e15759"}) {
    EXPECT_THAT(chart, HasSubstr(std::string("style=\"fill:") + color + "\">&#9632;")) << color;
  }
  EXPECT_THAT(chart, Not(HasSubstr("\" fill=\"#4e79a7\">&#9632;")));
}

// Names break at their separators only; short ones never.
TEST(HtmlCharts, NamesNeverBreakInsideAWord) {
  EXPECT_EQ(html::BreakableName("gpu-idle-gaps / host_silent"),
            "<span class=\"nw\">gpu-idle-gaps / host_silent</span>");
  EXPECT_EQ(html::BreakableName("void at::native::vectorized_elementwise_kernel<4>"),
            "void <wbr>at::<wbr>native::<wbr>vectorized_<wbr>elementwise_<wbr>kernel&lt;<wbr>"
            "4&gt;");
  EXPECT_THAT(std::string(html::kStyle), Not(HasSubstr("break-all")));
}

// The header lists the devices that did work, and how many were listed.
TEST(HtmlReport, HeaderShowsOnlyDevicesWithActivity) {
  testing::Scenario s = LoaderBound(3, -1, "k", "aten::mm");
  for (int id = 1; id < 8; ++id) s.Device(testing::DeviceSpec::A100(id));
  auto a = Analyse({s}, "devices_header");
  std::string page = RenderHtmlReport(a->input);
  EXPECT_THAT(page, HasSubstr("GPU 0: NVIDIA A100"));
  EXPECT_THAT(page, Not(HasSubstr("GPU 7: NVIDIA A100")));
  EXPECT_THAT(page, HasSubstr("1 of 8 listed devices with activity"));
}

}  // namespace
}  // namespace tracelint
