// `analyze` for code review (issue 10): Markdown and SARIF outputs, the
// provenance block, the findings gate and the not-judgeable exit code, end
// to end through RunAnalyze.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli/analyze_command.h"
#include "cli/exit_codes.h"
#include "tests/support/cli_run.h"
#include "tests/support/schema_check.h"
#include "tests/support/scenario.h"
#include "tests/support/test_files.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using Result = testing::CommandResult;
using testing::Analyze;
using testing::FreshDir;
using testing::SourceDir;
using testing::WriteFile;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::Scenario;

AnalyzeArgs Example(std::string format = "text") {
  AnalyzeArgs args;
  args.path = SourceDir() + "/testdata/example";
  args.format = std::move(format);
  return args;
}

// Under CI=true a validation that cannot run is a failure (docs/design/contract.md).
// The SARIF schema lives in ../shared beside the checkout, like the corpus.
void ExpectValid(const fs::path& schema, const std::string& json_path) {
  if (!fs::exists(schema)) GTEST_SKIP() << schema << " not found (../shared absent)";
  std::string why;
  testing::SchemaCheck check = testing::ValidateJsonAgainst(schema, json_path, why);
  if (check == testing::SchemaCheck::kSkipped) {
    const char* ci = std::getenv("CI");
    if (ci != nullptr && std::string(ci) == "true") FAIL() << why << " (CI=true)";
    GTEST_SKIP() << why;
  }
  EXPECT_EQ(check, testing::SchemaCheck::kValid) << why;
}

// GitHub's rules for code scanning and the SARIF spec's, offline: npm's
// @microsoft/sarif-multitool (a self-contained binary), installed once per
// machine into the user's cache, with retries. Its directory, or "" with
// `why` when npm cannot fetch it.
std::string SarifMultitool(std::string& why) {
  const char* cache = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  fs::path dir = cache != nullptr && *cache != '\0' ? fs::path(cache)
                 : home != nullptr                  ? fs::path(home) / ".cache"
                                                    : fs::path(::testing::TempDir());
  dir /= "tracelint-tests/sarif-multitool";
  fs::path tool = dir / "node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool";
  if (!fs::exists(tool)) {
    if (std::system("command -v npm >/dev/null 2>&1") != 0) {
      why = "npm not found (setup.sh --test installs it)";
      return "";
    }
    fs::create_directories(dir);
    std::string install = fmt::format(
        "for i in 1 2 3; do npm install --prefix '{}' --no-audit --no-fund --loglevel=error "
        "@microsoft/sarif-multitool@5 >/dev/null 2>&1 && exit 0; sleep $i; done; exit 1",
        dir.string());
    if (std::system(install.c_str()) != 0 || !fs::exists(tool)) {
      why = "npm could not install @microsoft/sarif-multitool (registry unreachable?)";
      return "";
    }
  }
  // npm leaves install scripts (its chmod) unrun by default.
  fs::permissions(tool, fs::perms::owner_exec, fs::perm_options::add);
  return (dir / "node_modules/@microsoft/sarif-multitool-linux").string();
}

// Skips visibly, or fails under CI=true (docs/design/contract.md, "Dependencies").
void SkipOrFail(const std::string& why) {
  const char* ci = std::getenv("CI");
  if (ci != nullptr && std::string(ci) == "true") FAIL() << why << " (CI=true)";
  GTEST_SKIP() << why;
}

// The SARIF 2.1.0 schema: ../shared's copy beside the checkout, else the one
// sarif-multitool ships.
fs::path SarifSchema() {
  fs::path shared = fs::path(SourceDir()) / ".." / "shared" / "schemas" / "sarif-schema-2.1.0.json";
  if (fs::exists(shared)) return shared;
  std::string why;
  std::string tool = SarifMultitool(why);
  return tool.empty() ? shared : fs::path(tool) / "sarif-2.1.0.json";
}

// Validates with the schema, then with `sarif-multitool validate` (GitHub's
// and the spec's rules): no result of level "error" may remain.
void ExpectCodeScanningValid(const std::string& sarif_path) {
  ExpectValid(SarifSchema(), sarif_path);
  std::string why;
  std::string tool = SarifMultitool(why);
  if (tool.empty()) return SkipOrFail(why);
  std::string log = sarif_path + ".validation.sarif";
  fs::remove(log);
  std::string cmd = fmt::format("'{}/Sarif.Multitool' validate '{}' --rule-kind 'Gh;Sarif' "
                                "--output '{}' >'{}.txt' 2>&1",
                                tool, sarif_path, log, log);
  int rc = std::system(cmd.c_str());
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(text.empty()) << "sarif-multitool wrote no log (exit " << rc << "); see " << log
                             << ".txt";
  std::ifstream console(log + ".txt");
  std::string said((std::istreambuf_iterator<char>(console)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, Not(HasSubstr("\"level\": \"error\""))) << said;
  EXPECT_THAT(said, Not(HasSubstr(": error "))) << said;
}

// Six steps whose DataLoader wait is called from the user's src/loop.py,
// line 17, under library frames the location must skip.
std::string PythonStackTrace() {
  Scenario s;
  s.Device(testing::DeviceSpec::A100());
  for (int k = 1; k <= 6; ++k) {
    s.BeginStep(k);
    s.BeginPython("/home/alice/proj/train.py(40): <module>");
    s.BeginPython("/home/alice/proj/src/loop.py(17): train_one_epoch");
    s.BeginPython("/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py(630): "
                  "__next__");
    s.DataLoaderNext(20 * kNsPerMs);
    s.End().End();
    s.BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", 5 * kNsPerMs).End();
    s.End();
    s.Sync();
    s.EndStep();
  }
  absl::StatusOr<std::string> json = s.ToKinetoJson();
  EXPECT_TRUE(json.ok()) << json.status();
  return json.ok() ? *json : "";
}

TEST(ReviewOutputs, MarkdownHasTheVerdictTableAndEvidence) {
  Result r = Analyze(Example("markdown"));
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("**Verdict: input (rank 0: data loader idle"));
  EXPECT_THAT(r.out, HasSubstr("| # | severity | rule | recoverable / step | % of step | fix | "
                               "ops / kernels |"));
  EXPECT_THAT(r.out, HasSubstr("| 1 | high | `gpu-idle-gaps` (data\\_loader) | 12.000 ms | 48.9% |"));
  EXPECT_THAT(r.out, HasSubstr("<details><summary>1. gpu-idle-gaps:"));
  EXPECT_THAT(r.out, HasSubstr("fingerprint `"));
}

TEST(ReviewOutputs, EveryFormatPrintsTheSameVerdict) {
  for (std::string format : {"text", "json", "markdown", "sarif"}) {
    Result r = Analyze(Example(format));
    ASSERT_EQ(r.code, kExitOk) << format << ": " << r.err;
    EXPECT_THAT(r.out, HasSubstr("Verdict: input (rank 0: data loader idle, 49% of the step"))
        << format;
  }
}

TEST(ReviewOutputs, MarkdownEscapesTraceStrings) {
  fs::path dir = FreshDir("escape");
  Scenario s;
  s.Device(testing::DeviceSpec::A100());
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k).Kernel("k_small", 10 * kNsPerUs);
    s.BeginPython("evil.py(1): a|b<script>alert(1)</script>\n| x |");
    s.HostOp("aten::un|ique<img src=x>`code`", 3 * kNsPerMs).End();
    s.Kernel("k_big", 2 * kNsPerMs).Sync();
    s.EndStep();
  }
  absl::StatusOr<std::string> json = s.ToKinetoJson();
  ASSERT_TRUE(json.ok());
  WriteFile(dir / "t" / "evil.pt.trace.json", *json);
  AnalyzeArgs args;
  args.path = (dir / "t" / "evil.pt.trace.json").string();
  args.format = "markdown";
  Result r = Analyze(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  ASSERT_THAT(r.out, HasSubstr("aten::un\\|ique&lt;img src=x&gt;\\`code\\`"));
  EXPECT_THAT(r.out, Not(HasSubstr("<script>")));
  EXPECT_THAT(r.out, Not(HasSubstr("<img")));
  // Every table row keeps its 8 cell borders: no unescaped pipe inside.
  std::istringstream lines(r.out);
  std::regex unescaped_pipe(R"((^|[^\\])\|)");
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] != '|') continue;
    auto begin = std::sregex_iterator(line.begin(), line.end(), unescaped_pipe);
    EXPECT_EQ(std::distance(begin, std::sregex_iterator()), 8) << line;
  }
}

TEST(ReviewOutputs, SarifFromAGeneratedTraceLocatesTheUserFrame) {
  fs::path dir = FreshDir("sarif_stack");
  WriteFile(dir / "traces" / "w.pt.trace.json", PythonStackTrace());
  // The checkout: the frame's host prefix /home/alice/proj is not there.
  WriteFile(dir / "repo" / "src" / "loop.py", "for batch in loader:\n");
  WriteFile(dir / "repo" / "train.py", "main()\n");
  AnalyzeArgs args;
  args.path = (dir / "traces" / "w.pt.trace.json").string();
  args.format = "sarif";
  args.source_root = (dir / "repo").string();
  args.output = (dir / "out.sarif").string();
  Result r = Analyze(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  std::ifstream in(args.output);
  std::string sarif((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(sarif, HasSubstr(R"("version": "2.1.0")"));
  EXPECT_THAT(sarif, HasSubstr(R"("uri": "src/loop.py",)"));
  EXPECT_THAT(sarif, HasSubstr(R"("uriBaseId": "SRCROOT")"));
  EXPECT_THAT(sarif, HasSubstr(R"("startLine": 17)"));
  EXPECT_THAT(sarif, HasSubstr(R"("relatedLocations")"));
  EXPECT_THAT(sarif, HasSubstr(R"("tracelint/v1": ")"));
  EXPECT_THAT(sarif, ContainsRegex(
                         R"("helpUri": "https://github.com/tracelint/tracelint/blob/([0-9a-f]{40}|main)/rules/docs/gpu-idle-gaps.md")"));
  EXPECT_THAT(sarif, Not(HasSubstr("site-packages/torch/utils/data/dataloader.py\",")));
  ExpectCodeScanningValid(args.output);
}

// docs/design/contract.md, "SARIF": a finding whose frame does not map into
// the checkout points at the anchor file (README.md by default,
// --sarif-anchor), names the trace in its message and as a related
// location, and no result carries an absolute file:// URI; helpUri is
// --docs-url/blob/--docs-ref/rules/docs/<id>.md.
TEST(ReviewOutputs, SarifWithoutAMappedFramePointsAtTheAnchor) {
  fs::path dir = FreshDir("sarif_anchor");
  WriteFile(dir / "traces" / "w.pt.trace.json", PythonStackTrace());
  WriteFile(dir / "repo" / "README.md", "# the project\n");
  WriteFile(dir / "repo" / "docs" / "perf.rst", "# performance\n");
  AnalyzeArgs args;
  args.path = (dir / "traces" / "w.pt.trace.json").string();
  args.format = "sarif";
  args.source_root = (dir / "repo").string();
  args.docs_url = "https://docs.example.com/tracelint/";
  args.docs_ref = "v1.2";
  args.output = (dir / "anchor.sarif").string();
  Result r = Analyze(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  std::ifstream in(args.output);
  std::string sarif((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string results = sarif.substr(sarif.find("\"results\""));
  EXPECT_THAT(results, Not(HasSubstr("file://")));
  EXPECT_THAT(results, HasSubstr(R"("uri": "README.md",)"));
  EXPECT_THAT(results, HasSubstr(R"("startLine": 1)"));
  EXPECT_THAT(results, HasSubstr(R"("uri": "w.pt.trace.json",)"));
  EXPECT_THAT(results, HasSubstr(R"("uriBaseId": "TRACEROOT")"));
  EXPECT_THAT(results, HasSubstr("(Trace: w.pt.trace.json, rank 0.)"));
  EXPECT_THAT(sarif, HasSubstr(
                         "https://docs.example.com/tracelint/blob/v1.2/rules/docs/gpu-idle-gaps.md"));
  ExpectCodeScanningValid(args.output);
  args.sarif_anchor = "docs/perf.rst";
  r = Analyze(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  std::ifstream again(args.output);
  sarif.assign((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
  EXPECT_THAT(sarif, HasSubstr(R"("uri": "docs/perf.rst",)"));
}

// Without an anchor file under the source root the trace itself is the
// location, still without a machine path.
TEST(ReviewOutputs, SarifWithoutAnAnchorPointsAtTheTraceByName) {
  fs::path dir = FreshDir("sarif_nosource");
  WriteFile(dir / "traces" / "w.pt.trace.json", PythonStackTrace());
  fs::create_directories(dir / "empty");
  AnalyzeArgs args;
  args.path = (dir / "traces" / "w.pt.trace.json").string();
  args.format = "sarif";
  args.source_root = (dir / "empty").string();
  Result r = Analyze(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  std::string results = r.out.substr(r.out.find("\"results\""));
  EXPECT_THAT(results, Not(HasSubstr("file://")));
  EXPECT_THAT(results, HasSubstr(R"("uri": "w.pt.trace.json",)"));
  EXPECT_THAT(results, Not(HasSubstr("startLine")));
}

TEST(ReviewOutputs, SarifOfACorpusTraceValidates) {
  fs::path corpus = fs::path(SourceDir()) / ".." / "shared" / "corpus";
  fs::path trace =
      corpus / "AMD-AGI__TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz";
  if (!fs::exists(trace)) GTEST_SKIP() << "corpus not found at " << corpus << " (../shared absent)";
  fs::path dir = FreshDir("sarif_corpus");
  AnalyzeArgs args;
  args.path = trace.string();
  args.format = "sarif";
  args.source_root = dir.string();
  args.output = (dir / "bert.sarif").string();
  Result r = Analyze(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  std::ifstream in(args.output);
  std::string sarif((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(sarif, HasSubstr(R"("ruleId": ")"));
  EXPECT_THAT(sarif, HasSubstr(R"("partialFingerprints")"));
  EXPECT_THAT(sarif.substr(sarif.find("\"results\"")), Not(HasSubstr("file://")));
  ExpectCodeScanningValid(args.output);
}

// docs/design/contract.md, "Exit codes, added": every selected rule could
// not judge and nothing was found is exit 5, not a green "No findings".
TEST(ReviewOutputs, EveryRuleUnableToJudgeIsExitFive) {
  fs::path dir = FreshDir("nothing_judged");
  // No deviceProperties, and a kernel name without an architecture prefix
  // (an "ampere_" one would prove compute capability 8.0 to
  // tensor-cores-idle): Tensor Cores and grids cannot be judged.
  Scenario s;
  for (int k = 1; k <= 5; ++k) {
    s.BeginStep(k).BeginOp("aten::mm").Kernel("gemm_f32_kernel", 5 * kNsPerMs).End();
    s.Sync().EndStep();
  }
  absl::StatusOr<std::string> json = s.ToKinetoJson();
  ASSERT_TRUE(json.ok()) << json.status();
  WriteFile(dir / "w.pt.trace.json", *json);
  AnalyzeArgs args;
  args.path = (dir / "w.pt.trace.json").string();
  args.engine.rules_glob = "-*,tensor-cores-idle,kernel-small-grids";
  args.engine.rules_given = true;
  Result r = Analyze(args);
  EXPECT_EQ(r.code, kExitNotJudgeable) << r.err << r.out;
  EXPECT_THAT(r.err, HasSubstr("nothing could be judged: every selected rule (kernel-small-grids, "
                               "tensor-cores-idle) could not judge this run"));
  // One rule that can judge (and finds nothing): a real "No findings".
  args.engine.rules_glob = "-*,tensor-cores-idle,gpu-idle-gaps";
  r = Analyze(args);
  EXPECT_EQ(r.code, kExitOk) << r.err;
}

// A verdict naming a bound that no finding owns says why.
TEST(ReviewOutputs, AVerdictWithoutItsFindingExplainsItself) {
  AnalyzeArgs args = Example();
  args.engine.rules_glob = "-*,host-side-ops";
  args.engine.rules_given = true;
  Result r = Analyze(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Verdict: input"));
  EXPECT_THAT(r.out, HasSubstr("(no finding owns this bound: gpu-idle-gaps is not selected)"));
  args.format = "markdown";
  EXPECT_THAT(Analyze(args).out, HasSubstr("no finding owns this bound"));
  // With the owner selected and firing: no note.
  EXPECT_THAT(Analyze(Example()).out, Not(HasSubstr("no finding owns")));
}

TEST(ReviewOutputs, JsonRecordsProvenance) {
  AnalyzeArgs args = Example("json");
  args.engine.rules_glob = "-*,gpu-*,host-*";
  args.engine.set_overrides = {"gpu-idle-gaps.MinIdleShare=0.2"};
  Result r = Analyze(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  std::string file = SourceDir() + "/testdata/example/worker0.1732240000000.pt.trace.json";
  EXPECT_THAT(r.out, HasSubstr(R"("tool_version": ")"));
  EXPECT_THAT(r.out, HasSubstr(R"("rules": "-*,gpu-*,host-*")"));
  EXPECT_THAT(r.out, HasSubstr(R"("gpu-idle-gaps.MinIdleShare=0.2")"));
  EXPECT_THAT(r.out, HasSubstr(R"("MinIdleShare": 0.2)"));
  EXPECT_THAT(r.out, HasSubstr(fmt::format(R"("bytes": {})", fs::file_size(file))));
  EXPECT_THAT(r.out, HasSubstr(R"("verdict": "input")"));
  fs::path dir = FreshDir("provenance");
  WriteFile(dir / "r.json", r.out);
  ExpectValid(fs::path(SourceDir()) / "analyzer/report/report.schema.json",
              (dir / "r.json").string());
}

TEST(ReviewOutputs, DashIsStdoutForEveryFormat) {
  for (std::string format : {"text", "json", "markdown", "sarif"}) {
    AnalyzeArgs args = Example(format);
    args.output = "-";
    Result r = Analyze(args);
    EXPECT_EQ(r.code, kExitOk) << format << ": " << r.err;
    EXPECT_THAT(r.out, HasSubstr("Verdict: input")) << format;
    EXPECT_FALSE(fs::exists("-"));
  }
}

TEST(ReviewOutputs, UnwritableOutputIsExit6) {
  AnalyzeArgs args = Example("markdown");
  args.output = "/nonexistent-dir/tracelint/report.md";
  Result r = Analyze(args);
  EXPECT_EQ(r.code, kExitWriteFailed);
  EXPECT_THAT(r.err, HasSubstr("cannot write"));
}

// The example has a high finding (gpu-idle-gaps, 48.9%) and a medium one
// (host-side-ops, 6.3%); rule selection leaves one or none of them.
TEST(ReviewGate, FailOnEachSeverityPresentAndAbsent) {
  struct Case {
    std::string rules;
    std::string fail_on;
    int code;
  };
  const Case cases[] = {
      {"*", "high", kExitFindingsGate},       {"*", "medium", kExitFindingsGate},
      {"*", "low", kExitFindingsGate},        {"host-*", "high", kExitOk},
      {"host-*", "medium", kExitFindingsGate}, {"host-*", "low", kExitFindingsGate},
      {"tensor-*", "high", kExitOk},          {"tensor-*", "medium", kExitOk},
      {"tensor-*", "low", kExitOk},           {"*", "", kExitOk},
  };
  for (const Case& c : cases) {
    AnalyzeArgs args = Example("json");
    args.engine.rules_glob = c.rules;
    args.fail_on = c.fail_on;
    Result r = Analyze(args);
    EXPECT_EQ(r.code, c.code) << c.rules << " --fail-on " << c.fail_on << "\n" << r.err;
    if (c.code == kExitFindingsGate) {
      EXPECT_THAT(r.err, HasSubstr("tracelint: gate:"));
    }
    // The report is written whatever the gate says.
    EXPECT_THAT(r.out, HasSubstr("\"findings\""));
  }
}

TEST(ReviewGate, LowSeverityFindingTripsOnlyFailOnLow) {
  fs::path dir = FreshDir("gate_low");
  // One .item() per step costs a little against a long step: a low finding.
  Scenario s;
  s.Device(testing::DeviceSpec::A100());
  for (int k = 1; k <= 5; ++k) {
    s.BeginStep(k).Kernel("k_big", 40 * kNsPerMs).Item();
    s.BeginOp("aten::add_").Spend(1500 * kNsPerUs).Kernel("k_small", kNsPerMs).End();
    s.Sync().EndStep();
  }
  absl::StatusOr<std::string> json = s.ToKinetoJson();
  ASSERT_TRUE(json.ok());
  WriteFile(dir / "t" / "low.pt.trace.json", *json);
  AnalyzeArgs args;
  args.path = (dir / "t" / "low.pt.trace.json").string();
  args.format = "json";
  Result r = Analyze(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  ASSERT_THAT(r.out, HasSubstr(R"("severity": "low")"));
  ASSERT_THAT(r.out, Not(HasSubstr(R"("severity": "medium")")));
  ASSERT_THAT(r.out, Not(HasSubstr(R"("severity": "high")")));
  for (auto [fail_on, code] : std::vector<std::pair<std::string, int>>{
           {"high", kExitOk}, {"medium", kExitOk}, {"low", kExitFindingsGate}}) {
    args.fail_on = fail_on;
    EXPECT_EQ(Analyze(args).code, code) << "--fail-on " << fail_on;
  }
}

TEST(ReviewGate, RecoverableShareThreshold) {
  // The example's findings recover 55% of the step in total.
  for (auto [share, code] : std::vector<std::pair<std::string, int>>{
           {"0.5", kExitFindingsGate}, {"55%", kExitFindingsGate}, {"0.56", kExitOk},
           {"1", kExitOk}}) {
    AnalyzeArgs args = Example();
    args.fail_on_recoverable = share;
    Result r = Analyze(args);
    EXPECT_EQ(r.code, code) << "--fail-on-recoverable " << share << "\n" << r.err;
  }
}

TEST(ReviewGate, BadGateValuesAreUsageErrors) {
  AnalyzeArgs args = Example();
  args.fail_on = "critical";
  EXPECT_EQ(Analyze(args).code, kExitUsage);
  args = Example();
  args.fail_on_recoverable = "1.5";
  EXPECT_EQ(Analyze(args).code, kExitUsage);
}

TEST(ReviewGate, UnjudgeableRunIsExit5NeverASilentPass) {
  // testdata/rules/cpu_only.json: host work only, no device activity.
  AnalyzeArgs args;
  args.path = SourceDir() + "/testdata/rules/cpu_only.json";
  args.format = "markdown";
  Result r = Analyze(args);
  EXPECT_EQ(r.code, kExitNotJudgeable) << r.err;
  EXPECT_THAT(r.err, HasSubstr("Verdict: not judgeable"));
  EXPECT_THAT(r.out, HasSubstr("**Verdict: not judgeable"));
  // No finding can trip a gate, and the run still does not pass.
  args.fail_on = "low";
  args.fail_on_recoverable = "0.01";
  EXPECT_EQ(Analyze(args).code, kExitNotJudgeable);
  // With no device, utilization is not a measured 0%.
  args.format = "text";
  Result text = Analyze(args);
  EXPECT_THAT(text.out, ContainsRegex("GPU utilization +n/a"));
  EXPECT_THAT(text.out, ContainsRegex("Busy incl. copies +n/a"));
  args.format = "html";
  EXPECT_THAT(Analyze(args).out, HasSubstr("GPU utilization</td><td>n/a</td>"));
}

}  // namespace
}  // namespace tracelint
