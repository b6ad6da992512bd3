// The HTML report as a browser shows it: headless Chromium opens the page of
// a corpus trace, of a trace with hostile names and the diff page of two
// corpus runs; a small check script (added to a copy of the page, never to
// the report) writes what rendered into the DOM, and --dump-dom hands it
// back. Screenshots, and the corpus pages printed to PDF, go to the build
// directory. Without Chromium the tests skip with the reason, except under
// CI=true, where they fail (docs/design/contract.md, "Dependencies: build vs test").

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <unistd.h>
#include <string>
#include <vector>

#include "cli/analyze_command.h"
#include "cli/diff_command.h"
#include "cli/exit_codes.h"
#include "analyzer/report/html_report.h"
#include "tests/support/report_fixture.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "simdjson.h"
#include "tests/support/test_files.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using testing::CorpusDir;

fs::path BinaryDir() {
  const char* dir = std::getenv("TRACELINT_BINARY_DIR");
  return dir ? fs::path(dir) : fs::path(::testing::TempDir());
}
bool InCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

std::optional<std::string> FindChromium() {
  if (const char* env = std::getenv("TRACELINT_CHROMIUM"); env != nullptr && *env != '\0') {
    return std::string(env);
  }
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
      fs::path candidate = fs::path(dir) / name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
  }
  return std::nullopt;
}

#define REQUIRE_CHROMIUM(var)                                                            \
  std::optional<std::string> var = FindChromium();                                       \
  if (!var.has_value()) {                                                                \
    if (InCi()) FAIL() << "chromium not found (CI=true: run scripts/setup.sh --test)";   \
    GTEST_SKIP() << "chromium not found on PATH (scripts/setup.sh --test installs it)"; \
  }

std::string Run(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 65536> buf;
  for (size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0;) out.append(buf.data(), n);
  ::pclose(pipe);
  return out;
}

std::string ChromiumCommand(const std::string& chromium, const fs::path& profile_dir) {
  return fmt::format(
      "timeout 120 '{}' --headless --no-sandbox --disable-gpu --disable-dev-shm-usage "
      "--no-first-run --no-default-browser-check --user-data-dir='{}' --hide-scrollbars ",
      chromium, profile_dir.string());
}

constexpr char kErrorHook[] =
    "<script>window.__tlErrors=[];window.addEventListener('error',function(e){"
    "window.__tlErrors.push(String(e.message));});</script>";
// What a reader would look at, with its rendered size.
constexpr char kCheckScript[] = R"js(<script>(function(){
  function box(sel){var e=document.querySelector(sel);if(!e)return [0,0];
    var b=e.getBoundingClientRect();return [Math.round(b.width),Math.round(b.height)];}
  var r={};
  r.errors=window.__tlErrors;
  r.findings=document.querySelectorAll('details.finding').length;
  r.open_finding=box('details.finding[open]');
  r.verdict=box('#verdict');
  r.charts=document.querySelectorAll('svg.chart').length;
  r.breakdown=box('#breakdown-0');
  r.breakdown_rects=document.querySelectorAll('#breakdown-0 rect').length;
  r.utilization=box('#utilization');
  r.timeline=box('#timeline');
  r.memory_r0=box('#memory-0-r0');
  r.memory_r1=box('#memory-0-r1');
  r.memory_lines=document.querySelectorAll('svg[id^="memory-"] polyline').length;
  r.timeline_rects=document.querySelectorAll('#timeline rect').length;
  r.families=box('#families');
  r.family_rects=document.querySelectorAll('#families rect').length;
  r.roofline=box('#roofline');
  r.roofline_points=document.querySelectorAll('#roofline circle').length;
  r.roofline_roofs=document.querySelectorAll('#roofline polyline').length;
  r.roofline_rows=document.querySelectorAll('table.roofline tr').length;
  r.kernels_rows=document.querySelectorAll('table.kernels tr').length;
  r.shift=box('#shift');
  r.steps_base=box('#steps-base');
  r.steps_new=box('#steps-new');
  r.mean_breakdown=box('#mean-breakdown');
  r.steps_base_rects=document.querySelectorAll('#steps-base rect').length;
  r.steps_new_rects=document.querySelectorAll('#steps-new rect').length;
  function top(sel){var e=document.querySelector(sel);
    return e?Math.round(e.getBoundingClientRect().top):-1;}
  r.steps_tops=[top('#steps-base'),top('#steps-new')];
  r.baseline_verdict=box('#baseline-verdict');
  r.baseline_steps_tops=[top('#baseline-steps-base'),top('#baseline-steps-new')];
  r.baseline_steps_base_rects=document.querySelectorAll('#baseline-steps-base rect').length;
  var seen={};r.duplicate_ids=[];
  document.querySelectorAll('[id]').forEach(function(e){
    if(seen[e.id])r.duplicate_ids.push(e.id);seen[e.id]=1;});
  r.metrics_diff_rows=document.querySelectorAll('table.metrics-diff tr').length;
  r.findings_diff_rows=document.querySelectorAll('table.findings-diff tr').length;
  r.images=document.querySelectorAll('img').length;
  // The Ranks chart's legend entries (the "\u25a0 name" texts) as painted.
  r.rank_legend_fills=[];
  document.querySelectorAll('svg#ranks text').forEach(function(t){
    if(t.textContent.charAt(0)==='\u25a0')r.rank_legend_fills.push(getComputedStyle(t).fill);});
  // Words (4 to 30 characters) a line break cut in two: "host_sil ent".
  r.broken_words=[];
  var walker=document.createTreeWalker(document.body,NodeFilter.SHOW_TEXT);
  for(var n=walker.nextNode();n;n=walker.nextNode()){
    if(n.parentNode.closest('svg,pre,script,style,#tl-check'))continue;
    var re=/\S+/g,m;
    while((m=re.exec(n.textContent))){
      if(m[0].length<4||m[0].length>30)continue;
      var rg=document.createRange();rg.setStart(n,m.index);rg.setEnd(n,m.index+m[0].length);
      var tops={},k=0,rs=rg.getClientRects();
      for(var i=0;i<rs.length;i++){if(rs[i].width>0&&!tops[Math.round(rs[i].top)]){
        tops[Math.round(rs[i].top)]=1;k++;}}
      if(k>1&&r.broken_words.length<20)r.broken_words.push(m[0]);}}
  // The smallest chart label as rendered (font size x the chart's scale).
  r.min_chart_font_px=1000;
  document.querySelectorAll('svg.chart').forEach(function(svg){
    var vb=svg.viewBox.baseVal;if(!vb||!vb.width)return;
    var scale=svg.getBoundingClientRect().width/vb.width;if(!scale)return;
    svg.querySelectorAll('text').forEach(function(t){
      var px=parseFloat(getComputedStyle(t).fontSize)*scale;
      if(px<r.min_chart_font_px)r.min_chart_font_px=px;});});
  r.scroll_width=document.documentElement.scrollWidth;
  r.window_width=window.innerWidth;
  r.title=document.title;
  r.text=document.body.textContent;
  var pre=document.createElement('pre');pre.id='tl-check';
  pre.textContent=JSON.stringify(r);document.body.appendChild(pre);
})();</script>)js";

// Renders `html` in Chromium and returns the check script's findings as
// JSON text (empty when Chromium produced none), plus a screenshot and,
// with `pdf`, the page printed to PDF (the print stylesheet).
std::string RenderAndCheck(const std::string& chromium, const std::string& html,
                           const std::string& name, bool pdf = false, int width = 1280) {
  fs::path dir = BinaryDir() / "html_report";
  fs::create_directories(dir);
  fs::path page = dir / (name + ".html");
  std::ofstream(page, std::ios::binary) << html;
  std::string checked = html;
  size_t head = checked.find("<head>");
  if (head != std::string::npos) checked.insert(head + 6, kErrorHook);
  size_t body_end = checked.rfind("</body>");
  if (body_end != std::string::npos) checked.insert(body_end, kCheckScript);
  fs::path checked_page = dir / (name + ".checked.html");
  std::ofstream(checked_page, std::ios::binary) << checked;

  std::string base = ChromiumCommand(chromium, dir / (name + ".profile"));
  std::string dom = Run(base + fmt::format("--window-size={},3200 --virtual-time-budget=5000 "
                                           "--dump-dom 'file://{}' 2>/dev/null",
                                           width, fs::absolute(checked_page).string()));
  Run(base + fmt::format("--window-size={},3200 --screenshot='{}' 'file://{}' >/dev/null 2>&1",
                         width, (dir / (name + ".png")).string(), fs::absolute(page).string()));
  if (pdf) {
    Run(base + fmt::format("--no-pdf-header-footer --print-to-pdf='{}' 'file://{}' "
                           ">/dev/null 2>&1",
                           (dir / (name + ".pdf")).string(), fs::absolute(page).string()));
  }
  size_t start = dom.find("<pre id=\"tl-check\">");
  if (start == std::string::npos) return "";
  start += 19;
  size_t end = dom.find("</pre>", start);
  std::string json = dom.substr(start, end - start);
  // Undo the DOM serializer's text escapes.
  for (auto [from, to] : {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&nbsp;", "\xC2\xA0"},
                          {"&amp;", "&"}}) {
    for (size_t p = json.find(from); p != std::string::npos; p = json.find(from, p + 1)) {
      json.replace(p, std::string_view(from).size(), to);
    }
  }
  return json;
}

TEST(HtmlChromium, CorpusTracePageRendersFindingsChartsAndTimeline) {
  fs::path trace = CorpusDir() / "pytorch__kineto/tb_plugin/samples/"
                                 "resnet50_profiler_api_num_workers_0/worker0.pt.trace.json.gz";
  if (!fs::exists(trace)) GTEST_SKIP() << "corpus not found at " << CorpusDir();
  REQUIRE_CHROMIUM(chromium);
  AnalyzeArgs args;
  args.path = trace.string();
  args.format = "html";
  std::ostringstream out, err;
  ASSERT_EQ(RunAnalyze(args, out, err), kExitOk) << err.str();
  std::string json = RenderAndCheck(*chromium, out.str(), "resnet50_num_workers_0", true);
  ASSERT_FALSE(json.empty()) << "chromium printed no check results";
  simdjson::dom::parser parser;
  simdjson::dom::element r;
  ASSERT_EQ(parser.parse(json).get(r), simdjson::SUCCESS) << json.substr(0, 300);
  EXPECT_EQ(r["errors"].get_array().size(), 0u) << simdjson::minify(r["errors"]);
  EXPECT_GE(r["findings"].get_int64().value(), 1);
  EXPECT_GE(r["charts"].get_int64().value(), 3);
  for (const char* box : {"open_finding", "verdict", "breakdown", "utilization", "timeline"}) {
    simdjson::dom::array wh = r[box].get_array();
    EXPECT_GT(wh.at(0).get_int64().value(), 100) << box;
    EXPECT_GT(wh.at(1).get_int64().value(), 20) << box;
  }
  EXPECT_GT(r["breakdown_rects"].get_int64().value(), 6);
  EXPECT_GT(r["timeline_rects"].get_int64().value(), 50);
  EXPECT_GT(r["kernels_rows"].get_int64().value(), 5);
  std::string_view text = r["text"].get_string();
  EXPECT_NE(text.find("waiting for the DataLoader"), std::string_view::npos);
  EXPECT_TRUE(fs::exists(BinaryDir() / "html_report" / "resnet50_num_workers_0.png"));
  // The print stylesheet gives a PDF (findings expanded, charts unsplit).
  fs::path pdf = BinaryDir() / "html_report" / "resnet50_num_workers_0.pdf";
  ASSERT_TRUE(fs::exists(pdf));
  std::ifstream in(pdf, std::ios::binary);
  std::string magic(5, '\0');
  in.read(magic.data(), 5);
  EXPECT_EQ(magic, "%PDF-");
  EXPECT_GT(fs::file_size(pdf), 20u * 1024);
}

// A trace with recorded shapes on a device of the peak table: the family
// table, the stacked bar of device time per family and the log-log roofline
// of the top ops render (docs/roofline.md).
TEST(HtmlChromium, CorpusPageShowsKernelFamiliesAndTheRoofline) {
  fs::path trace = CorpusDir() / "AMD-AGI__TraceLens/tests/traces/h100/"
                                 "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz";
  if (!fs::exists(trace)) GTEST_SKIP() << "corpus not found at " << CorpusDir();
  REQUIRE_CHROMIUM(chromium);
  AnalyzeArgs args;
  args.path = trace.string();
  args.format = "html";
  std::ostringstream out, err;
  ASSERT_EQ(RunAnalyze(args, out, err), kExitOk) << err.str();
  std::string json = RenderAndCheck(*chromium, out.str(), "qwen_roofline");
  ASSERT_FALSE(json.empty()) << "chromium printed no check results";
  simdjson::dom::parser parser;
  simdjson::dom::element r;
  ASSERT_EQ(parser.parse(json).get(r), simdjson::SUCCESS) << json.substr(0, 300);
  EXPECT_EQ(r["errors"].get_array().size(), 0u) << simdjson::minify(r["errors"]);
  EXPECT_EQ(r["duplicate_ids"].get_array().size(), 0u) << simdjson::minify(r["duplicate_ids"]);
  for (const char* box : {"families", "roofline"}) {
    simdjson::dom::array wh = r[box].get_array();
    EXPECT_GT(wh.at(0).get_int64().value(), 100) << box;
    EXPECT_GT(wh.at(1).get_int64().value(), 100) << box;
  }
  // One bar (one step) stacked from the families with device time.
  EXPECT_GE(r["family_rects"].get_int64().value(), 6);
  // The GEMMs, the attention and the pointwise ops under the bf16 roof.
  EXPECT_GE(r["roofline_points"].get_int64().value(), 8);
  EXPECT_GE(r["roofline_roofs"].get_int64().value(), 1);
  EXPECT_GE(r["roofline_rows"].get_int64().value(), 7);  // header + families
  std::string_view text = r["text"].get_string();
  EXPECT_NE(text.find("Where the device time goes"), std::string_view::npos);
  EXPECT_NE(text.find("NVIDIA H100 SXM"), std::string_view::npos);
  EXPECT_NE(text.find("Modelled FLOP utilization (includes recompute)"), std::string_view::npos);
}

TEST(HtmlChromium, CorpusDiffPageShowsBothRunsSideBySide) {
  fs::path samples = CorpusDir() / "pytorch__kineto/tb_plugin/samples";
  fs::path w0 = samples / "resnet50_profiler_api_num_workers_0";
  fs::path w4 = samples / "resnet50_profiler_api_num_workers_4";
  if (!fs::exists(w0) || !fs::exists(w4)) GTEST_SKIP() << "corpus not found at " << samples;
  REQUIRE_CHROMIUM(chromium);
  DiffArgs args;
  args.base = w0.string();
  args.next = w4.string();
  args.format = "html";
  std::ostringstream out, err;
  ASSERT_EQ(RunDiffCommand(args, out, err), kExitOk) << err.str();
  std::string json = RenderAndCheck(*chromium, out.str(), "diff_resnet50_workers_0_vs_4", true);
  ASSERT_FALSE(json.empty()) << "chromium printed no check results";
  simdjson::dom::parser parser;
  simdjson::dom::element r;
  ASSERT_EQ(parser.parse(json).get(r), simdjson::SUCCESS) << json.substr(0, 300);
  EXPECT_EQ(r["errors"].get_array().size(), 0u) << simdjson::minify(r["errors"]);
  for (const char* box : {"verdict", "shift", "steps_base", "steps_new", "mean_breakdown"}) {
    simdjson::dom::array wh = r[box].get_array();
    EXPECT_GT(wh.at(0).get_int64().value(), 100) << box;
    EXPECT_GT(wh.at(1).get_int64().value(), 20) << box;
  }
  // Side by side: the two step charts start on one line, each half the page.
  simdjson::dom::array tops = r["steps_tops"].get_array();
  EXPECT_EQ(tops.at(0).get_int64().value(), tops.at(1).get_int64().value());
  EXPECT_LT(r["steps_base"].get_array().at(0).get_int64().value(), 700);
  EXPECT_GE(r["steps_base_rects"].get_int64().value(), 6);
  EXPECT_GE(r["steps_new_rects"].get_int64().value(), 6);
  EXPECT_EQ(r["metrics_diff_rows"].get_int64().value(), 11);  // header + 10 metrics
  EXPECT_GE(r["findings_diff_rows"].get_int64().value(), 2);
  std::string_view text = r["text"].get_string();
  EXPECT_NE(text.find("beyond noise"), std::string_view::npos);
  EXPECT_NE(text.find("removed"), std::string_view::npos);
  EXPECT_TRUE(fs::exists(BinaryDir() / "html_report" / "diff_resnet50_workers_0_vs_4.pdf"));
}

// analyze --baseline --format html: one page with the run's report and the
// comparison as its section; every id once, so every link lands.
TEST(HtmlChromium, CorpusAnalyzePageWithBaselineHoldsTheComparison) {
  fs::path samples = CorpusDir() / "pytorch__kineto/tb_plugin/samples";
  fs::path w0 = samples / "resnet50_profiler_api_num_workers_0";
  fs::path w4 = samples / "resnet50_profiler_api_num_workers_4";
  if (!fs::exists(w0) || !fs::exists(w4)) GTEST_SKIP() << "corpus not found at " << samples;
  REQUIRE_CHROMIUM(chromium);
  AnalyzeArgs args;
  args.path = w4.string();
  args.baseline = w0.string();
  args.format = "html";
  std::ostringstream out, err;
  ASSERT_EQ(RunAnalyze(args, out, err), kExitOk) << err.str();
  std::string json = RenderAndCheck(*chromium, out.str(), "analyze_resnet50_workers_4_baseline_0");
  ASSERT_FALSE(json.empty()) << "chromium printed no check results";
  simdjson::dom::parser parser;
  simdjson::dom::element r;
  ASSERT_EQ(parser.parse(json).get(r), simdjson::SUCCESS) << json.substr(0, 300);
  EXPECT_EQ(r["errors"].get_array().size(), 0u) << simdjson::minify(r["errors"]);
  EXPECT_EQ(r["duplicate_ids"].get_array().size(), 0u) << simdjson::minify(r["duplicate_ids"]);
  for (const char* box : {"verdict", "baseline_verdict", "breakdown", "timeline"}) {
    simdjson::dom::array wh = r[box].get_array();
    EXPECT_GT(wh.at(0).get_int64().value(), 100) << box;
    EXPECT_GT(wh.at(1).get_int64().value(), 20) << box;
  }
  simdjson::dom::array tops = r["baseline_steps_tops"].get_array();
  EXPECT_GT(tops.at(0).get_int64().value(), 0);
  EXPECT_EQ(tops.at(0).get_int64().value(), tops.at(1).get_int64().value());
  EXPECT_GE(r["baseline_steps_base_rects"].get_int64().value(), 6);
  EXPECT_EQ(r["metrics_diff_rows"].get_int64().value(), 11);  // header + 10 metrics
  std::string_view text = r["text"].get_string();
  EXPECT_NE(text.find("Against the baseline"), std::string_view::npos);
  EXPECT_NE(text.find("beyond noise"), std::string_view::npos);
}

// What a reader sees in an 800-px window (a laptop split screen): nothing
// wider than the window, no chart label under 8 px, no word broken across
// lines; and the Ranks legend in its series' colours (issue 30, point 6).
void ExpectReadable(simdjson::dom::element r, const std::string& page) {
  EXPECT_EQ(r["errors"].get_array().size(), 0u) << page;
  EXPECT_LE(r["scroll_width"].get_int64().value(), r["window_width"].get_int64().value()) << page;
  EXPECT_GE(r["min_chart_font_px"].get_double().value(), 8.0) << page;
  EXPECT_EQ(r["broken_words"].get_array().size(), 0u)
      << page << ": " << simdjson::minify(r["broken_words"]);
}

TEST(HtmlChromium, NarrowWindowKeepsLabelsReadableAndWordsWhole) {
  REQUIRE_CHROMIUM(chromium);
  // Two ranks: the Ranks chart and its legend; names long and short.
  auto a = report_fixture::Analyse(
      {report_fixture::LoaderBound(4, -1, "void at::native::vectorized_elementwise_kernel<4, "
                                          "at::native::CUDAFunctor_add<float> >(int, float*)",
                                   "aten::add"),
       report_fixture::LoaderBound(4, 1, "ampere_sgemm_128x64_nn", "aten::mm")},
      "narrow_two_ranks");
  for (int width : {800, 1280}) {
    std::string name = fmt::format("two_ranks_{}px", width);
    std::string json = RenderAndCheck(*chromium, RenderHtmlReport(a->input), name, false, width);
    ASSERT_FALSE(json.empty()) << "chromium printed no check results";
    simdjson::dom::parser parser;
    simdjson::dom::element r;
    ASSERT_EQ(parser.parse(json).get(r), simdjson::SUCCESS) << json.substr(0, 300);
    ExpectReadable(r, name);
    std::vector<std::string> fills;
    for (simdjson::dom::element f : r["rank_legend_fills"].get_array()) {
      fills.emplace_back(std::string_view(f.get_string()));
    }
    ASSERT_EQ(fills.size(), 4u) << name;
    std::sort(fills.begin(), fills.end());
    EXPECT_EQ(std::unique(fills.begin(), fills.end()), fills.end()) << "legend colours alike";
    EXPECT_EQ(std::count(fills.begin(), fills.end(), "rgb(74, 82, 99)"), 0) << "axis grey";
  }
  // The corpus page and the diff page, narrow.
  fs::path samples = CorpusDir() / "pytorch__kineto/tb_plugin/samples";
  fs::path w0 = samples / "resnet50_profiler_api_num_workers_0";
  fs::path w4 = samples / "resnet50_profiler_api_num_workers_4";
  if (!fs::exists(w0) || !fs::exists(w4)) GTEST_SKIP() << "corpus not found at " << samples;
  DiffArgs d;
  d.base = w0.string();
  d.next = w4.string();
  d.format = "html";
  std::ostringstream out, err;
  ASSERT_EQ(RunDiffCommand(d, out, err), kExitOk) << err.str();
  AnalyzeArgs a0;
  a0.path = w0.string();
  a0.format = "html";
  std::ostringstream out0, err0;
  ASSERT_EQ(RunAnalyze(a0, out0, err0), kExitOk) << err0.str();
  for (const auto& [name, html] : {std::pair<std::string, std::string>{"diff_800px", out.str()},
                                   {"resnet50_800px", out0.str()}}) {
    std::string json = RenderAndCheck(*chromium, html, name, false, 800);
    ASSERT_FALSE(json.empty()) << "chromium printed no check results";
    simdjson::dom::parser parser;
    simdjson::dom::element r;
    ASSERT_EQ(parser.parse(json).get(r), simdjson::SUCCESS) << json.substr(0, 300);
    ExpectReadable(r, name);
  }
}

// A rank of a two-rank job whose allocator was recorded (profile_memory):
// 2 GB of weights, 500 MB of activations in each step.
testing::Scenario MemoryRank(int rank) {
  testing::Scenario s;
  s.Device(testing::DeviceSpec::A100()).Distributed(rank, 2);
  s.Allocate(int64_t{2000} << 20).Idle(kNsPerMs);
  for (int k = 0; k < 4; ++k) {
    s.BeginStep(k + 1).DataLoaderNext((4 + rank) * kNsPerMs).Allocate(int64_t{500} << 20);
    s.BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", 2 * kNsPerMs).End();
    s.Allocate(-(int64_t{500} << 20)).Sync().EndStep();
  }
  return s;
}

// Every rank gets its charts, device memory included, and no id is used
// twice on the page (the charts' ids carry the rank).
TEST(HtmlChromium, TwoRanksWithDeviceMemoryKeepTheirIdsApart) {
  REQUIRE_CHROMIUM(chromium);
  auto a = report_fixture::Analyse({MemoryRank(0), MemoryRank(1)}, "memory_two_ranks");
  ASSERT_EQ(a->input.ranks.size(), 2u);
  std::string json = RenderAndCheck(*chromium, RenderHtmlReport(a->input), "memory_two_ranks");
  ASSERT_FALSE(json.empty()) << "chromium printed no check results";
  simdjson::dom::parser parser;
  simdjson::dom::element r;
  ASSERT_EQ(parser.parse(json).get(r), simdjson::SUCCESS) << json.substr(0, 300);
  EXPECT_EQ(r["errors"].get_array().size(), 0u) << simdjson::minify(r["errors"]);
  EXPECT_EQ(r["duplicate_ids"].get_array().size(), 0u) << simdjson::minify(r["duplicate_ids"]);
  for (const char* box : {"memory_r0", "memory_r1"}) {
    simdjson::dom::array wh = r[box].get_array();
    EXPECT_GT(wh.at(0).get_int64().value(), 100) << box;
    EXPECT_GT(wh.at(1).get_int64().value(), 20) << box;
  }
  EXPECT_EQ(r["memory_lines"].get_int64().value(), 4);  // allocated and reserved, per rank
  std::string_view text = r["text"].get_string();
  EXPECT_NE(text.find("GPU 0: peak allocated 2.44 GiB (6.2% of 39.41 GiB)"),
            std::string_view::npos);
}

TEST(HtmlChromium, HostileNamesRenderAsText) {
  REQUIRE_CHROMIUM(chromium);
  const std::string kernel = "<script>document.title='pwned'</script>\"k'\nnext";
  const std::string op = "aten::</title><img src=x onerror=\"document.title='pwned'\">";
  auto a = report_fixture::Analyse({report_fixture::LoaderBound(4, -1, kernel, op)}, "chromium");
  ASSERT_FALSE(a->input.findings.empty());
  a->input.findings.front().title = "<script>document.title='pwned'</script>";
  std::string json = RenderAndCheck(*chromium, RenderHtmlReport(a->input), "hostile_names");
  ASSERT_FALSE(json.empty()) << "chromium printed no check results";
  simdjson::dom::parser parser;
  simdjson::dom::element r;
  ASSERT_EQ(parser.parse(json).get(r), simdjson::SUCCESS) << json.substr(0, 300);
  EXPECT_EQ(r["errors"].get_array().size(), 0u);
  EXPECT_EQ(r["images"].get_int64().value(), 0);
  std::string_view title = r["title"].get_string();
  EXPECT_EQ(title.find("pwned"), std::string_view::npos) << title;
  std::string_view text = r["text"].get_string();
  // The names are on the page as the trace wrote them.
  EXPECT_NE(text.find("<script>document.title='pwned'</script>\"k'\nnext"),
            std::string_view::npos);
  EXPECT_NE(text.find(op), std::string_view::npos);
}

}  // namespace
}  // namespace tracelint
