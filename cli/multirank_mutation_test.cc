// Hostile numbers in a multi-rank run: the rank files of testdata's
// late-rank runs with their durations and timestamps replaced, in a fixed
// seeded way, by zeros, negatives, large multiples and near-limit values
// (each still valid JSON), then analysed together as one run, reports
// included. The byte-level mutation replay (tests/fuzz) sees one file at a
// time; this is the path that matches collectives across ranks
// (comm-clustered-allreduce's late_rank). Under the sanitizer build it
// found integer overflows in sums of overlapping huge durations.

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>
#include <unistd.h>

#include "cli/run_pipeline.h"
#include "analyzer/report/report.h"
#include "tests/support/test_files.h"
#include "gtest/gtest.h"
#include "rules/all_rules.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::SourceDir;

// Replaces the number after some `"dur":` / `"ts":` keys.
std::string MutateNumbers(const std::string& json, std::mt19937& rng) {
  static const char* kValues[] = {"0", "-5", "1e15", "4e15", "999999999999999", "0.0001"};
  std::string out;
  size_t at = 0;
  while (true) {
    size_t key = json.find("\"dur\":", at);
    size_t ts = json.find("\"ts\":", at);
    size_t hit = std::min(key, ts);
    if (hit == std::string::npos) break;
    size_t value = json.find(':', hit) + 1;
    while (value < json.size() && json[value] == ' ') ++value;
    size_t end = value;
    while (end < json.size() && (std::isdigit(static_cast<unsigned char>(json[end])) ||
                                 json[end] == '.' || json[end] == '-' || json[end] == 'e' ||
                                 json[end] == 'E' || json[end] == '+')) {
      ++end;
    }
    out.append(json, at, value - at);
    if (end > value && rng() % 6 == 0) {
      out += kValues[rng() % (sizeof(kValues) / sizeof(kValues[0]))];
    } else {
      out.append(json, value, end - value);
    }
    at = end;
  }
  out.append(json, at, std::string::npos);
  return out;
}

TEST(MultiRankMutation, HostileNumbersInEveryRankAreHandled) {
  const fs::path testdata = fs::path(SourceDir()) / "testdata" / "rules2";
  RuleRegistry registry;
  RegisterAllRules(registry);
  absl::StatusOr<PreparedRules> rules = PrepareRules(registry, EngineOptions{});
  ASSERT_TRUE(rules.ok()) << rules.status();
  const fs::path dir = fs::path(::testing::TempDir()) /
                       ("tracelint_multirank_mutation_" + std::to_string(::getpid()));
  int analysed = 0, runs = 0;
  for (const char* seed_run : {"late_rank_compute", "late_rank_just_above"}) {
    std::vector<std::string> ranks;
    for (const char* file : {"rank0.json", "rank1.json"}) {
      ranks.push_back(ReadFile(testdata / seed_run / file));
      ASSERT_FALSE(ranks.back().empty()) << testdata / seed_run / file;
    }
    for (uint32_t seed = 1; seed <= 12; ++seed) {
      std::mt19937 rng(seed);
      fs::remove_all(dir);
      fs::create_directories(dir);
      for (size_t r = 0; r < ranks.size(); ++r) {
        std::ofstream(dir / ("rank" + std::to_string(r) + ".json")) << MutateNumbers(ranks[r], rng);
      }
      ++runs;
      absl::StatusOr<AnalyzedRun> run = AnalyzeRunAt(dir.string(), registry, *rules, {});
      if (!run.ok()) {
        EXPECT_FALSE(run.status().message().empty()) << seed_run << " seed " << seed;
        continue;
      }
      ++analysed;
      for (const Finding& f : run->engine.findings) {
        EXPECT_TRUE(std::isfinite(f.recoverable_share) && f.recoverable_share >= 0 &&
                    f.recoverable_share <= 1)
            << seed_run << " seed " << seed << " " << f.rule_id << "/" << f.cause;
        EXPECT_GE(f.recoverable_ns_per_step, 0) << seed_run << " seed " << seed;
      }
      std::vector<const Timeline*> timelines;
      for (const auto& tl : run->run.ranks) timelines.push_back(tl.get());
      ReportInput input;
      input.input_path = dir.string();
      input.ranks = timelines;
      input.contexts = run->ContextPointers();
      input.records = run->RecordPointers();
      input.findings = run->engine.findings;
      input.not_judged = run->engine.not_judged;
      EXPECT_FALSE(RenderTextReport(input).empty());
      EXPECT_FALSE(RenderJsonReport(input).empty());
    }
  }
  fs::remove_all(dir);
  // Most variants still parse: the test must reach the analysis, not only
  // the parser's rejections.
  EXPECT_GT(analysed, runs / 2) << analysed << " of " << runs << " variants analysed";
  std::printf("multi-rank mutation: %d of %d variants analysed\n", analysed, runs);
}

}  // namespace
}  // namespace tracelint
