#include "analyzer/analysis/run_summary.h"

#include <memory>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/run_summary_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/analysed.h"
#include "tests/support/scenario.h"

namespace tracelint {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::Scenario;

constexpr TimeNs kMs = kNsPerMs;

// A data-loader-bound run of eight steps; step 5 waits four times longer.
Scenario LoaderBound() {
  Scenario s;
  s.Device(testing::DeviceSpec::A100());
  for (int k = 1; k <= 8; ++k) {
    s.BeginStep(k).DataLoaderNext((k == 5 ? 32 : 8) * kMs);
    s.BeginOp("aten::mm").Kernel("ampere_bf16_s16816gemm_bf16_128x128", 4 * kMs).End();
    s.Sync().EndStep();
  }
  return s;
}

using testing::Analyse;
using testing::Analysed;

TEST(RunSummary, RankSummaryHoldsTheVerdictInputsAndTheOutliers) {
  auto a = Analyse(LoaderBound());
  RankSummary r = SummarizeRank(*a->ctx, 0);
  // The outlier (step 5) leaves the steady view's step count
  // (docs/design/contract.md, "Outlier steps"); the steady steps keep it.
  EXPECT_EQ(r.step_count, 7);
  EXPECT_TRUE(r.has_device);
  EXPECT_EQ(r.steady_steps.size(), 8u);
  // Step 5 is the one outlier, by the one definition (outlier_steps.h).
  ASSERT_EQ(r.outliers.indices.size(), 1u);
  EXPECT_EQ(r.steady_steps[r.outliers.indices[0]].number, 5);
  RunSummary run = SummarizeRun({r}, {});
  EXPECT_TRUE(run.verdict.judgeable);
  EXPECT_EQ(run.verdict.bound, "input");
  EXPECT_FALSE(run.throughput.has_value());
  RunSummary priced = SummarizeRun({r}, {.batch_size = 16, .price_per_hour = 4});
  ASSERT_TRUE(priced.throughput.has_value());
  EXPECT_EQ(priced.throughput->batch_size_per_rank, 16);
  EXPECT_TRUE(priced.throughput->samples_per_dollar.has_value());
}

// What a shard writes reads back as the same summary, and the run summary
// made from summaries read back is the one made here.
TEST(RunSummary, ARankSummaryRoundTripsThroughJson) {
  auto a = Analyse(LoaderBound());
  RankSummary r = SummarizeRank(*a->ctx, 3);
  std::string json = RankSummaryToJson(r);
  absl::StatusOr<RankSummary> back = RankSummaryFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(RankSummaryToJson(*back), json);
  EXPECT_EQ(back->position, 3);
  EXPECT_EQ(back->breakdown_ns, r.breakdown_ns);
  EXPECT_EQ(back->idle_ns, r.idle_ns);
  EXPECT_EQ(back->integrity.checks.size(), r.integrity.checks.size());
  EXPECT_THAT(back->outliers.indices, ElementsAre(r.outliers.indices[0]));
  RunSummary here = SummarizeRun({r}, {});
  RunSummary there = SummarizeRun({*back}, {});
  EXPECT_EQ(there.verdict.line, here.verdict.line);
  EXPECT_EQ(there.integrity.line, here.integrity.line);
}

TEST(RunSummary, ABrokenSummaryNamesTheField) {
  EXPECT_THAT(std::string(RankSummaryFromJson("[1]").status().message()),
              HasSubstr("not an object"));
  auto a = Analyse(LoaderBound());
  std::string json = RankSummaryToJson(SummarizeRank(*a->ctx, 0));
  std::string renamed = json;
  renamed.replace(renamed.find("\"data_loader\""), 13, "\"data_loaded\"");
  EXPECT_THAT(std::string(RankSummaryFromJson(renamed).status().message()),
              HasSubstr("data_loader: missing"));
  std::string bad_index = json;
  size_t at = bad_index.find("\"indices\": [");
  ASSERT_NE(at, std::string::npos);
  bad_index.insert(at + 12, "99, ");
  EXPECT_THAT(std::string(RankSummaryFromJson(bad_index).status().message()),
              HasSubstr("outliers.indices"));
  EXPECT_FALSE(RankSummaryFromJson("{\"position\": ").ok());
}

// Every key renamed in turn, and every value replaced by the wrong type, is an error that names
// a field, never a crash.
TEST(RunSummary, EveryMissingOrMistypedFieldIsAnError) {
  auto a = Analyse(LoaderBound());
  std::string json = RankSummaryToJson(SummarizeRank(*a->ctx, 0));
  size_t keys = 0;
  for (size_t at = json.find("\":"); at != std::string::npos; at = json.find("\":", at + 1)) {
    std::string renamed = json;
    renamed.insert(at, "_x");
    EXPECT_THAT(std::string(RankSummaryFromJson(renamed).status().message()),
                HasSubstr("missing"))
        << renamed.substr(at > 30 ? at - 30 : 0, 40);
    std::string retyped = json;
    size_t value = at + 3;
    size_t end = retyped.find_first_of(",}", value);
    retyped.replace(value, end - value, "{\"wrong\": []}");
    EXPECT_FALSE(RankSummaryFromJson(retyped).ok()) << retyped.substr(at > 30 ? at - 30 : 0, 60);
    ++keys;
  }
  EXPECT_GT(keys, 20u);
}

}  // namespace
}  // namespace tracelint
