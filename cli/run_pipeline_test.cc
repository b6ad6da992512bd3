#include "cli/run_pipeline.h"

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>
#include <unistd.h>

#include "tests/support/four_rank_job.h"
#include "analyzer/report/report.h"
#include "tests/support/test_files.h"
#include "gtest/gtest.h"
#include "rules/all_rules.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using testing::SourceDir;

fs::path FourRanks() {
  fs::path dir = fs::path(::testing::TempDir()) /
                 ("tracelint_pipeline_four_ranks_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  WriteFourRankJob(dir);
  return dir;
}

std::string JsonReport(const std::string& path, const std::vector<const Timeline*>& ranks,
                       const std::vector<AnalysisContext*>& contexts, EngineResult result) {
  ReportInput input;
  input.input_path = path;
  input.ranks = ranks;
  input.contexts = contexts;
  input.findings = std::move(result.findings);
  input.not_judged = std::move(result.not_judged);
  return RenderJsonReport(input);
}

// A multi-rank run frees each rank's events once it is analysed; the report
// must be the one a run that keeps every event gives.
TEST(RunPipeline, FreeingAnalysedRanksChangesNothing) {
  fs::path dir = FourRanks();
  RuleRegistry registry;
  RegisterAllRules(registry);
  absl::StatusOr<PreparedRules> rules = PrepareRules(registry, EngineOptions{});
  ASSERT_TRUE(rules.ok()) << rules.status();

  absl::StatusOr<AnalyzedRun> analyzed = AnalyzeRunAt(dir.string(), registry, *rules, {});
  ASSERT_TRUE(analyzed.ok()) << analyzed.status();
  ASSERT_EQ(analyzed->run.ranks.size(), 4u);
  std::vector<const Timeline*> released;
  for (const std::unique_ptr<Timeline>& tl : analyzed->run.ranks) {
    EXPECT_TRUE(tl->events_released());
    EXPECT_EQ(tl->slice_count(), 0u);
    released.push_back(tl.get());
  }
  std::string from_pipeline = JsonReport(dir.string(), released, analyzed->ContextPointers(),
                                         std::move(analyzed->engine));

  absl::StatusOr<Discovery> discovery = DiscoverTraces(dir.string(), {});
  ASSERT_TRUE(discovery.ok()) << discovery.status();
  absl::StatusOr<tracelint::Run> run = LoadRun(*discovery, LoadOptions{});
  ASSERT_TRUE(run.ok()) << run.status();
  std::vector<std::unique_ptr<AnalysisContext>> contexts;
  std::vector<AnalysisContext*> context_ptrs;
  std::vector<const Timeline*> kept;
  for (const std::unique_ptr<Timeline>& tl : run->ranks) {
    ASSERT_GT(tl->slice_count(), 0u);
    contexts.push_back(std::make_unique<AnalysisContext>(*tl));
    context_ptrs.push_back(contexts.back().get());
    kept.push_back(tl.get());
  }
  absl::StatusOr<EngineResult> result = RunRules(registry, EngineOptions{}, context_ptrs);
  ASSERT_TRUE(result.ok()) << result.status();
  std::string from_kept_events =
      JsonReport(dir.string(), kept, context_ptrs, std::move(*result));
  EXPECT_EQ(from_pipeline, from_kept_events);
  // The comparison covers the cross-rank evidence, computed after the
  // events were freed.
  EXPECT_NE(from_pipeline.find("Collectives "), std::string::npos);
}

TEST(RunPipeline, ASingleRankKeepsItsEvents) {
  RuleRegistry registry;
  RegisterAllRules(registry);
  absl::StatusOr<PreparedRules> rules = PrepareRules(registry, EngineOptions{});
  ASSERT_TRUE(rules.ok()) << rules.status();
  absl::StatusOr<AnalyzedRun> analyzed = AnalyzeRunAt(
      SourceDir() + "/testdata/rules/dataloader_starvation.json", registry, *rules, {});
  ASSERT_TRUE(analyzed.ok()) << analyzed.status();
  ASSERT_EQ(analyzed->run.ranks.size(), 1u);
  EXPECT_FALSE(analyzed->run.ranks[0]->events_released());
  EXPECT_GT(analyzed->run.ranks[0]->slice_count(), 0u);
}

}  // namespace
}  // namespace tracelint
