#include "cli/run_pipeline.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
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

fs::path FreshDir(const std::string& name) {
  fs::path dir = fs::path(::testing::TempDir()) /
                 ("tracelint_pipeline_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

fs::path FourRanks() {
  fs::path dir = FreshDir("four_ranks");
  WriteFourRankJob(dir);
  return dir;
}

// Two ranks of one job, eight steps each, step 5 of each three times as long
// as the others: an outlier step, so the steady view (steady_step_metrics)
// differs from the judged one.
fs::path TwoRanksWithAnOutlierStep() {
  fs::path dir = FreshDir("outlier_step");
  for (int rank = 0; rank < 2; ++rank) {
    testing::Scenario s;
    s.Device(testing::DeviceSpec::A100()).Distributed(rank, 2);
    for (int k = 0; k < 8; ++k) {
      s.BeginStep(k);
      for (int i = 0; i < 4; ++i) {
        s.BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", 2 * kNsPerMs).End();
      }
      if (k == 5) s.BeginOp("aten::conv2d").Kernel("implicit_convolve_sgemm", 16 * kNsPerMs).End();
      s.AllReduce(8 << 20, (2 + rank) * kNsPerMs, {0, testing::kComputeStream});
      s.Sync().EndStep();
    }
    absl::StatusOr<std::string> json = s.ToKinetoJson();
    EXPECT_TRUE(json.ok()) << json.status();
    std::ofstream(dir / ("rank" + std::to_string(rank) + ".json"), std::ios::binary) << *json;
  }
  return dir;
}

struct Reports {
  std::string json;
  std::string text;  // -v --steps all: every table of every rank
};

// From the pipeline's records, or (records empty) from `contexts`.
Reports RenderReports(const std::string& path, const std::vector<const Timeline*>& ranks,
                      const std::vector<AnalysisContext*>& contexts,
                      const std::vector<const RankRecord*>& records, EngineResult result) {
  ReportInput input;
  input.input_path = path;
  input.ranks = ranks;
  input.contexts = contexts;
  input.records = records;
  if (records.empty()) AttachRecords(input);
  input.findings = std::move(result.findings);
  input.not_judged = std::move(result.not_judged);
  input.options.text.verbosity = TextVerbosity::kVerbose;
  input.options.text.all_steps = true;
  return {RenderJsonReport(input), RenderTextReport(input)};
}

// A multi-rank run keeps only each rank's record (rank_record.h) once the
// rank is analysed, and frees its events and analyses; the reports must be
// the ones a run that keeps everything gives. The record is made before the
// release: an analysis asked for later would read an empty timeline (the
// steady view's per-step table and the SM efficiency column once did, and
// TRACELINT_STRICT_INVARIANTS aborts on it).
void ExpectFreeingChangesNothing(const std::string& path, size_t rank_count) {
  RuleRegistry registry;
  RegisterAllRules(registry);
  absl::StatusOr<PreparedRules> rules = PrepareRules(registry, EngineOptions{});
  ASSERT_TRUE(rules.ok()) << rules.status();

  absl::StatusOr<AnalyzedRun> analyzed = AnalyzeRunAt(path, registry, *rules, {});
  ASSERT_TRUE(analyzed.ok()) << analyzed.status();
  ASSERT_EQ(analyzed->run.ranks.size(), rank_count);
  std::vector<const Timeline*> released;
  for (const std::unique_ptr<Timeline>& tl : analyzed->run.ranks) {
    EXPECT_TRUE(tl->events_released());
    EXPECT_EQ(tl->slice_count(), 0u);
    released.push_back(tl.get());
  }
  // Nothing but the records is left of the analyses.
  EXPECT_TRUE(analyzed->contexts.empty());
  ASSERT_EQ(analyzed->records.size(), rank_count);
  Reports from_pipeline = RenderReports(path, released, analyzed->ContextPointers(),
                                        analyzed->RecordPointers(), std::move(analyzed->engine));

  absl::StatusOr<Discovery> discovery = DiscoverTraces(path, {});
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
  Reports from_kept_events = RenderReports(path, kept, context_ptrs, {}, std::move(*result));
  EXPECT_EQ(from_pipeline.json, from_kept_events.json) << path;
  EXPECT_EQ(from_pipeline.text, from_kept_events.text) << path;
  // The comparison covers the cross-rank evidence, computed after the
  // events were freed.
  EXPECT_NE(from_pipeline.text.find("Collectives "), std::string::npos) << path;
}

TEST(RunPipeline, FreeingAnalysedRanksChangesNothing) {
  ExpectFreeingChangesNothing(FourRanks().string(), 4);
}

TEST(RunPipeline, FreeingAnalysedRanksChangesNothingWithAnOutlierStep) {
  const std::string path = TwoRanksWithAnOutlierStep().string();
  ExpectFreeingChangesNothing(path, 2);
}

TEST(RunPipeline, FreeingAnalysedRanksKeepsTheSmEfficiencyOfEachStep) {
  // A late-rank test case: two ranks of compute-bound steps whose per-step
  // table has an SM efficiency column.
  const std::string path = SourceDir() + "/testdata/rules2/late_rank_compute";
  ExpectFreeingChangesNothing(path, 2);
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
