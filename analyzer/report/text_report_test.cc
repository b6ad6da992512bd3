// Golden tests of the text report's layout (docs/output-formats.md, "Text"):
// generated runs (one rank, eight ranks, 1,000 steps, no findings, not
// judgeable) written as Kineto JSON, parsed and analysed as users' traces
// are, rendered at 80 and 200 columns and compared with
// testdata/report/<case>.<width>.txt.
//
// TRACELINT_REGENERATE_TESTDATA=1 rewrites the expected files.

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "analyzer/report/report.h"
#include "analyzer/report/text_layout.h"
#include "tests/support/scenario.h"
#include "tests/support/test_files.h"
#include "tests/support/training_run.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "parsers/format_registry.h"
#include "rules/all_rules.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::SourceDir;
using testing::DeviceSpec;
using testing::Scenario;
using testing::TrainingRun;

bool Regenerate() {
  const char* r = std::getenv("TRACELINT_REGENERATE_TESTDATA");
  return r != nullptr && std::string(r) == "1";
}

// A per-process directory: tests of several build trees run at once.
fs::path FreshTempDir() {
  std::string pattern = (fs::path(::testing::TempDir()) / "tl_text_report_XXXXXX").string();
  char* made = ::mkdtemp(pattern.data());
  EXPECT_NE(made, nullptr);
  return made ? fs::path(made) : fs::path(::testing::TempDir());
}

// One run analysed as `tracelint analyze` would: files parsed, steps, rules.
struct Analysed {
  fs::path dir;
  std::vector<std::unique_ptr<Timeline>> timelines;
  std::vector<std::unique_ptr<AnalysisContext>> contexts;
  ReportInput input;
  ~Analysed() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

std::unique_ptr<Analysed> Analyse(const std::vector<Scenario>& ranks) {
  auto a = std::make_unique<Analysed>();
  a->dir = FreshTempDir();
  for (size_t r = 0; r < ranks.size(); ++r) {
    absl::StatusOr<std::string> json = ranks[r].ToKinetoJson();
    EXPECT_TRUE(json.ok()) << json.status();
    if (!json.ok()) return a;
    fs::path file = a->dir / fmt::format("host{}.{}.pt.trace.json", r / 8, 1000 + r);
    std::ofstream(file, std::ios::binary) << *json;
    absl::StatusOr<Timeline> tl = ParseTraceFile(file.string(), ParseOptions());
    EXPECT_TRUE(tl.ok()) << tl.status();
    if (!tl.ok()) return a;
    a->timelines.push_back(std::make_unique<Timeline>(std::move(*tl)));
    a->contexts.push_back(std::make_unique<AnalysisContext>(*a->timelines.back()));
    a->input.ranks.push_back(a->timelines.back().get());
    a->input.contexts.push_back(a->contexts.back().get());
  }
  RuleRegistry registry;
  RegisterAllRules(registry);
  absl::StatusOr<EngineResult> result = RunRules(registry, EngineOptions(), a->input.contexts);
  EXPECT_TRUE(result.ok()) << result.status();
  if (result.ok()) {
    a->input.findings = std::move(result->findings);
    a->input.not_judged = std::move(result->not_judged);
  }
  AttachRecords(a->input);
  // A fixed name, so the golden files do not depend on the temp directory;
  // rank files show by their names (not under this label).
  a->input.input_path = "run";
  return a;
}

// One rank, 12 steps: a data loader stall, a warm-up first step (context
// creation), one slow step.
std::vector<Scenario> OneRank() {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 12; ++k) {
    s.BeginStep(k);
    if (k == 1) s.HostCall("cudaFree", 300 * kNsPerMs);
    s.DataLoaderNext((k == 7 ? 30 : 6) * kNsPerMs);
    s.BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", 8 * kNsPerMs).End();
    s.CopyH2D(64 << 20, 2 * kNsPerMs, MemorySpace::kPageable);
    s.OpKernels("aten::add", "vectorized_elementwise_kernel", 4, 200 * kNsPerUs, 20 * kNsPerUs);
    s.Item().EndStep();
  }
  return {s};
}

// Eight ranks of one job; rank 5 waits for its data loader.
std::vector<Scenario> EightRanks() {
  std::vector<Scenario> ranks;
  for (int r = 0; r < 8; ++r) {
    TrainingRun run;
    run.steps = 8;
    run.seed = 100 + r;
    run.rank = r;
    run.world_size = 8;
    run.data_loader_ns = r == 5 ? 6 * kNsPerMs : 0;
    ranks.push_back(testing::MakeTrainingRun(run));
  }
  return ranks;
}

// 1,000 steps with run-to-run noise and three slow ones.
std::vector<Scenario> ThousandSteps() {
  Scenario s;
  s.Device(DeviceSpec::H100());
  for (int k = 1; k <= 1000; ++k) {
    s.BeginStep(k);
    s.DataLoaderNext((k == 250 || k == 500 || k == 750 ? 12 : 1) * kNsPerMs +
                     (k * 7919 % 100) * kNsPerUs);
    s.BeginOp("aten::mm").Kernel("sm90_xmma_gemm_bf16bf16_bf16f32", 4 * kNsPerMs).End();
    s.Sync().EndStep();
  }
  return {s};
}

// The GPU busy all step with Tensor Core GEMMs: nothing to find.
std::vector<Scenario> NoFindings() {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 6; ++k) {
    s.BeginStep(k);
    s.BeginOp("aten::mm").Kernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn", 8 * kNsPerMs);
    s.End();
    s.BeginOp("aten::relu").Kernel("vectorized_elementwise_kernel", kNsPerMs).End();
    s.EndStep();
  }
  return {s};
}

// A window of start-up only: no steady step (exit 5).
std::vector<Scenario> NotJudgeable() {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.HostCall("cudaDeviceGetStreamPriorityRange", 2 * kNsPerS);
  s.BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", 100 * kNsPerUs).End();
  return {s};
}

struct Case {
  std::string name;
  std::vector<Scenario> (*make)();
};

class TextGolden : public ::testing::TestWithParam<Case> {};

TEST_P(TextGolden, MatchesAt80And200Columns) {
  std::unique_ptr<Analysed> a = GetParam().make != nullptr ? Analyse(GetParam().make()) : nullptr;
  ASSERT_NE(a, nullptr);
  ASSERT_FALSE(a->input.ranks.empty());
  for (int width : {80, 200}) {
    a->input.options.text.width_columns = width;
    std::string text = RenderTextReport(a->input);
    // Every line fits; nothing is coloured unless asked.
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      EXPECT_LE(text::Width(line), static_cast<size_t>(width)) << line;
    }
    EXPECT_EQ(text.find('\033'), std::string::npos);
    fs::path golden = fs::path(SourceDir()) / "testdata" / "report" /
                      fmt::format("{}.{}.txt", GetParam().name, width);
    if (Regenerate()) {
      fs::create_directories(golden.parent_path());
      std::ofstream(golden, std::ios::binary | std::ios::trunc) << text;
      continue;
    }
    EXPECT_EQ(text, ReadFile(golden))
        << golden << " differs; TRACELINT_REGENERATE_TESTDATA=1 rewrites it after review";
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, TextGolden,
                         ::testing::Values(Case{"one_rank", OneRank},
                                           Case{"eight_ranks", EightRanks},
                                           Case{"thousand_steps", ThousandSteps},
                                           Case{"no_findings", NoFindings},
                                           Case{"not_judgeable", NotJudgeable}),
                         [](const auto& info) { return info.param.name; });

TEST(TextReport, FindingsComeFirstAndOneLineEach) {
  std::unique_ptr<Analysed> a = Analyse(OneRank());
  a->input.options.text.width_columns = 80;
  std::string text = RenderTextReport(a->input);
  ASSERT_FALSE(a->input.findings.empty());
  size_t verdict = text.find("Verdict: ");
  size_t integrity = text.find("Trace integrity: ");
  size_t first = text.find(fmt::format("\n 1 {}", FindingSeverityName(a->input.findings[0].severity)));
  size_t metrics = text.find("== Metrics ==");
  EXPECT_LT(verdict, integrity);
  EXPECT_LT(integrity, first);
  EXPECT_LT(first, metrics);
  EXPECT_NE(metrics, std::string::npos);
  // The finding's line is the whole summary of it: rule, time, share.
  std::string line = text.substr(first + 1, text.find('\n', first + 1) - first - 1);
  EXPECT_NE(line.find(a->input.findings[0].rule_id), std::string::npos) << line;
  EXPECT_NE(line.find("%"), std::string::npos) << line;
  EXPECT_NE(text.find("docs/glossary.md"), std::string::npos);
}

TEST(TextReport, QuietIsTheFindingsLinesOnlyAndVerboseShowsEveryStep) {
  std::unique_ptr<Analysed> a = Analyse(ThousandSteps());
  a->input.options.text.verbosity = TextVerbosity::kQuiet;
  std::string quiet = RenderTextReport(a->input);
  size_t lines = static_cast<size_t>(std::count(quiet.begin(), quiet.end(), '\n'));
  EXPECT_EQ(lines, std::min<size_t>(a->input.findings.size(), 10)) << quiet;
  EXPECT_EQ(quiet.find("Verdict"), std::string::npos);

  a->input.options.text.verbosity = TextVerbosity::kNormal;
  std::string normal = RenderTextReport(a->input);
  EXPECT_EQ(normal.find("\n  #1  "), std::string::npos);  // a typical step is not listed
  EXPECT_NE(normal.find("\n  #500 "), std::string::npos);  // an outlier is
  EXPECT_LT(std::count(normal.begin(), normal.end(), '\n'), 150);

  a->input.options.text.all_steps = true;
  std::string all = RenderTextReport(a->input);
  EXPECT_NE(all.find("\n  #1  "), std::string::npos);
  EXPECT_GT(std::count(all.begin(), all.end(), '\n'), 1000);
  a->input.options.text.all_steps = false;
  a->input.options.text.verbosity = TextVerbosity::kVerbose;
  EXPECT_NE(RenderTextReport(a->input).find("\n  #1  "), std::string::npos);
}

TEST(TextReport, ColourOnlyWhenAsked) {
  std::unique_ptr<Analysed> a = Analyse(OneRank());
  a->input.options.text.color = true;
  std::string text = RenderTextReport(a->input);
  EXPECT_NE(text.find("\033["), std::string::npos);
  a->input.options.text.color = false;
  EXPECT_EQ(RenderTextReport(a->input).find('\033'), std::string::npos);
}

TEST(TextReport, EveryRankRowNamesItsFile) {
  std::unique_ptr<Analysed> a = Analyse(EightRanks());
  a->input.options.text.width_columns = 80;
  std::string text = RenderTextReport(a->input);
  for (size_t r = 0; r < 8; ++r) {
    std::string file = fs::path(a->input.ranks[r]->metadata().source_path).filename().string();
    EXPECT_NE(text.find(file), std::string::npos) << file << "\n" << text;
  }
  // One table, not one metrics block per rank.
  EXPECT_EQ(text.find("== Metrics: rank 0"), std::string::npos);
}

TEST(TextLayout, CutsAtCharacterBoundaries) {
  EXPECT_EQ(text::Fit("abcdef", 4), "abc…");
  EXPECT_EQ(text::Fit("ééééé", 3), "éé…");
  EXPECT_EQ(text::Width(text::Fit("ééééé", 3)), 3u);
  EXPECT_EQ(text::FitMiddle("rank-0001.pt.trace.json", 11), "rank-….json");
  EXPECT_EQ(text::Fit("abc", 0), "abc");
  // A shortened sentence ends at a word, without the punctuation before it;
  // with no break in the last third it is cut like Fit, still marked.
  EXPECT_EQ(text::FitAtWord("fits", 4), "fits");
  EXPECT_EQ(text::FitAtWord("pin the host buffers now", 18), "pin the host…");
  EXPECT_EQ(text::FitAtWord("a (b, cc ddddddddd", 10), "a (b, cc…");
  EXPECT_EQ(text::FitAtWord("ampere_sgemm_128x64_nn", 10), "ampere_sg…");
  EXPECT_EQ(text::FitAtWord("abéééé", 4), "abé…");
  EXPECT_EQ(text::Wrap("aa bb cc", 5, "", " "), "aa bb\n cc\n");
  EXPECT_EQ(text::Wrap("took 24.5 ms, then", 10, "", ""), "took\n24.5 ms,\nthen\n");
  EXPECT_EQ(text::Ms(24'542'000), "24.5 ms");
  EXPECT_EQ(text::Ms(613'400'000), "613 ms");
  EXPECT_EQ(text::Ms(175'000), "0.175 ms");
  EXPECT_EQ(text::Ms(9'810'000'000), "9810 ms");
  EXPECT_EQ(text::Ms(98'153'000'000), "98.2 s");
  EXPECT_EQ(text::Dur(1'960'000'000), "1.96 s");
  EXPECT_EQ(text::Dur(29'200), "29.2 us");
}

TEST(TextLayout, WideTablesSplitIntoColumnGroups) {
  text::Table t({"", "a", "b", "c"}, {false, true, true, true});
  t.AddRow({"row", "1111111111", "2222222222", "3333333333"});
  std::string narrow = t.Render(30);
  std::istringstream lines(narrow);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 30u) << narrow;
  EXPECT_NE(narrow.find("3333333333"), std::string::npos) << narrow;
  EXPECT_EQ(std::count(narrow.begin(), narrow.end(), '\n'), 5) << narrow;  // two groups
}

// The words of the user's framework and vendor (issue 30, point 7): JAX and
// TensorFlow steps are "step N" (their step ids), the no-marker note names
// the framework's own way to mark steps, AMD devices show their gfx target.
std::string TextOf(const Scenario& s) {
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  EXPECT_TRUE(tl.ok()) << tl.status();
  if (!tl.ok()) return "";
  AnalysisContext ctx(*tl);
  ReportInput in;
  in.input_path = "run";
  in.ranks = {&*tl};
  in.contexts = {&ctx};
  AttachRecords(in);
  return RenderTextReport(in);
}

TEST(TextReport, JaxAndTensorFlowStepsAreStepN) {
  for (const char* framework : {"JAX", "TensorFlow"}) {
    Scenario s;
    s.Device(DeviceSpec::A100()).Framework(framework);
    for (int k = 1; k <= 4; ++k) {
      s.BeginStep(k).Kernel("fusion_1", 5 * kNsPerMs).Sync().EndStep();
    }
    std::string text = TextOf(s);
    EXPECT_NE(text.find("4 complete (steps 1..4)"), std::string::npos) << framework << text;
    EXPECT_EQ(text.find("ProfilerStep"), std::string::npos) << framework << text;
  }
  Scenario torch;
  torch.Device(DeviceSpec::A100());
  for (int k = 1; k <= 4; ++k) torch.BeginStep(k).Kernel("k", 5 * kNsPerMs).Sync().EndStep();
  EXPECT_NE(TextOf(torch).find("(ProfilerStep#1..#4)"), std::string::npos);
}

TEST(TextReport, TheNoMarkerNoteNamesTheFrameworksWayToMarkSteps) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"JAX", "jax.profiler.StepTraceAnnotation('train', step_num=step)"},
      {"TensorFlow", "tf.profiler.experimental.Trace('train', step_num=step, _r=1)"},
      {"PyTorch", "call prof.step() once per iteration"}};
  for (const auto& [framework, hint] : cases) {
    Scenario s;
    s.Device(DeviceSpec::A100()).Framework(framework);
    for (int k = 0; k < 3; ++k) s.Kernel("fusion_1", 5 * kNsPerMs).Sync();
    std::string text = TextOf(s);
    EXPECT_NE(text.find(hint), std::string::npos) << framework << text;
  }
}

TEST(TextReport, AmdDevicesShowTheirGfxTarget) {
  DeviceSpec mi300;
  mi300.name = "AMD Instinct MI300X";
  mi300.vendor = "AMD";
  mi300.compute_major = 9;
  mi300.compute_minor = 4;
  mi300.sm_count = 304;
  mi300.total_memory_bytes = int64_t{192} << 30;
  Scenario s;
  s.Device(mi300);
  for (int k = 1; k <= 3; ++k) s.BeginStep(k).Kernel("Cijk_gemm", 5 * kNsPerMs).Sync().EndStep();
  std::string text = TextOf(s);
  EXPECT_NE(text.find("AMD Instinct MI300X, gfx942, 304 CUs"), std::string::npos) << text;
  EXPECT_EQ(text.find("CC 9.4"), std::string::npos) << text;
}

// XLA's async copy pairs on a TPU run beside compute: not exposed copies,
// so they do not make the verdict "copies", and the verdict says how much of
// the step they took. The same device time as plain copies is "copies".
TEST(TextReport, XlaAsyncCopiesAreNotExposedCopies) {
  auto run = [](bool xla_names) {
    DeviceSpec tpu;
    tpu.name = "TPU v5 lite";
    tpu.vendor = "Google";
    Scenario s;
    s.Device(tpu).Framework("JAX");
    for (int k = 1; k <= 4; ++k) {
      s.BeginStep(k).Kernel("fusion_1", 2 * kNsPerMs);
      s.CopyH2D(int64_t{64} << 20, 8 * kNsPerMs, MemorySpace::kPinned).Sync().EndStep();
    }
    if (xla_names) {
      s.Edit([](testing::ScenarioEvent& e) {
        if (e.cat == "gpu_memcpy") e.name = "copy-done.7";
        return true;
      });
    }
    return TextOf(s);
  };
  std::string xla = run(true);
  EXPECT_EQ(xla.find("Verdict: copies"), std::string::npos) << xla;
  EXPECT_NE(xla.find("XLA async copies (copy-start/copy-done, 8"), std::string::npos) << xla;
  std::string plain = run(false);
  EXPECT_NE(plain.find("Verdict: copies"), std::string::npos) << plain;
}

}  // namespace
}  // namespace tracelint
