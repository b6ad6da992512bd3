// Findings on the real traces in ../shared/corpus (skipped visibly when the
// corpus is absent): the known case studies rank as a user would expect, and
// no rule crashes, emits NaN, or claims more than the step on any trace.

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "analyzer/report/report.h"
#include "gtest/gtest.h"
#include "parsers/format_registry.h"
#include "rules/all_rules.h"
#include "tests/support/test_files.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using testing::CorpusDir;

struct Analysed {
  std::unique_ptr<Timeline> timeline;
  std::unique_ptr<AnalysisContext> context;
  EngineResult result;
};

Analysed AnalyseFile(const fs::path& path) {
  Analysed a;
  absl::StatusOr<Timeline> tl = ParseTraceFile(path.string(), ParseOptions());
  EXPECT_TRUE(tl.ok()) << path << ": " << tl.status();
  if (!tl.ok()) return a;
  a.timeline = std::make_unique<Timeline>(std::move(*tl));
  a.context = std::make_unique<AnalysisContext>(*a.timeline);
  RuleRegistry registry;
  RegisterAllRules(registry);
  std::vector<AnalysisContext*> ranks = {a.context.get()};
  absl::StatusOr<EngineResult> result = RunRules(registry, EngineOptions(), ranks);
  EXPECT_TRUE(result.ok()) << result.status();
  if (result.ok()) a.result = std::move(*result);
  return a;
}

#define SKIP_WITHOUT_CORPUS()                                                      \
  if (!fs::exists(CorpusDir() / "MANIFEST.tsv")) {                                 \
    GTEST_SKIP() << "corpus not found at " << CorpusDir() << " (../shared absent)"; \
  }

TEST(CorpusFindings, SingleProcessDataLoaderIsTheTopFinding) {
  SKIP_WITHOUT_CORPUS();
  Analysed a = AnalyseFile(CorpusDir() /
                           "pytorch__kineto/tb_plugin/samples/"
                           "resnet50_profiler_api_num_workers_0/worker0.pt.trace.json.gz");
  ASSERT_FALSE(a.result.findings.empty());
  const Finding& top = a.result.findings[0];
  EXPECT_EQ(top.rule_id, "gpu-idle-gaps");
  EXPECT_EQ(top.cause, "data_loader");
  EXPECT_GT(top.recoverable_share, 0.10);
}

TEST(CorpusFindings, FourWorkersDoNotStarveTheGpu) {
  SKIP_WITHOUT_CORPUS();
  Analysed a = AnalyseFile(CorpusDir() /
                           "pytorch__kineto/tb_plugin/samples/"
                           "resnet50_profiler_api_num_workers_4/worker0.pt.trace.json.gz");
  ASSERT_TRUE(a.timeline);
  if (!a.result.findings.empty()) {
    EXPECT_NE(a.result.findings[0].cause, "data_loader");
  }
  for (const Finding& f : a.result.findings) {
    if (f.cause == "data_loader") {
      EXPECT_LT(f.recoverable_share, 0.05);
    }
  }
}

TEST(CorpusFindings, EveryTraceGivesFiniteBoundedFindings) {
  SKIP_WITHOUT_CORPUS();
  std::ifstream manifest(CorpusDir() / "MANIFEST.tsv");
  std::string line;
  std::getline(manifest, line);  // header
  int analysed = 0;
  while (std::getline(manifest, line)) {
    std::string rel = line.substr(0, line.find('\t'));
    if (rel.find("corrupt") != std::string::npos) continue;
    SCOPED_TRACE(rel);
    Analysed a = AnalyseFile(CorpusDir() / rel);
    if (!a.timeline) continue;
    ++analysed;
    double share_sum = 0;
    for (const Finding& f : a.result.findings) {
      EXPECT_TRUE(std::isfinite(f.recoverable_share)) << f.rule_id;
      EXPECT_GE(f.recoverable_share, 0.0) << f.rule_id;
      EXPECT_LE(f.recoverable_share, 1.0) << f.rule_id;
      EXPECT_GE(f.recoverable_ns_per_step, 0) << f.rule_id;
      for (const Evidence& e : f.evidence) {
        EXPECT_TRUE(std::isfinite(e.value) && std::isfinite(e.threshold)) << e.text;
      }
      share_sum += f.recoverable_share;
    }
    // Idle time is charged to one cause only; the modelled Tensor Core
    // saving is busy time, disjoint from idle time.
    EXPECT_LE(share_sum, 1.0 + 1e-9);
    EXPECT_TRUE(a.result.warnings.empty()) << a.result.warnings.front();
    ReportInput input;
    input.ranks = {a.timeline.get()};
    input.contexts = {a.context.get()};
    AttachRecords(input);
    input.findings = a.result.findings;
    input.not_judged = a.result.not_judged;
    std::string json = RenderJsonReport(input);
    for (const char* bad : {": nan", ": -nan", ": inf", ": -inf", ": NaN", ": Infinity"}) {
      EXPECT_EQ(json.find(bad), std::string::npos) << bad;
    }
    EXPECT_FALSE(RenderTextReport(input).empty());
  }
  EXPECT_GT(analysed, 30);
}

}  // namespace
}  // namespace tracelint
