#include "analyzer/analysis/rank_record.h"

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/device_activity.h"
#include "gtest/gtest.h"
#include "tests/support/analysed.h"
#include "tests/support/scenario.h"

namespace tracelint {
namespace {

using testing::Analyse;
using testing::Scenario;

constexpr TimeNs kMs = kNsPerMs;

// Eight data-loader-bound steps; step 5 waits four times longer (an outlier).
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

TEST(RankRecord, CopiesWhatTheReportsReadAndOutlivesTheEvents) {
  auto a = Analyse(LoaderBound());
  AnalysisContext& ctx = *a->ctx;
  RankRecord r = MakeRankRecord(ctx);
  EXPECT_EQ(r.bounds, ctx.timeline().Bounds());
  EXPECT_EQ(r.steps.steps.size(), 7u);         // the outlier left out
  EXPECT_EQ(r.steady_steps.steps.size(), 8u);  // kept in the steady view
  EXPECT_EQ(r.all_steps.steps.size(), ctx.all_steps().steps.size());
  ASSERT_EQ(r.outlier_steps.indices.size(), 1u);
  EXPECT_EQ(r.step_metrics.mean_step_ns, ctx.step_metrics().mean_step_ns);
  EXPECT_EQ(r.steady_step_metrics().step_count, 8);
  EXPECT_EQ(r.all_step_metrics().step_count, ctx.all_step_metrics().step_count);
  EXPECT_FALSE(r.step_metrics.top_kernels.empty());
  EXPECT_EQ(r.active_devices.size(), ctx.device_activity().size());
  EXPECT_EQ(r.summary.step_count, 7);
  // The idle totals, not the pieces (one per gap): only the HTML timeline
  // draws those, from the context.
  EXPECT_FALSE(ctx.idle_attribution().pieces.empty());
  EXPECT_TRUE(r.idle_attribution.pieces.empty());
  EXPECT_EQ(r.idle_attribution.total_ns, ctx.idle_attribution().total_ns);
  EXPECT_EQ(r.idle_attribution.per_step_ns, ctx.idle_attribution().per_step_ns);
  EXPECT_EQ(r.cross_rank.step_count, 7);
  EXPECT_GT(r.cross_rank.data_loader_ns, 0);
  // The summary takes its position from the run; a rank the metadata does
  // not name is named by it.
  RankSummary at3 = SummarizeRecord(r, 3);
  EXPECT_EQ(at3.position, 3);
  EXPECT_EQ(at3.rank, r.metadata.rank >= 0 ? r.metadata.rank : 3);
}

TEST(RankRecord, HoldsTheOtherStepMetricsViewsOnlyWhereTheirStepsDiffer) {
  // The outlier (step 5) is in the steady view, not in the judged steps.
  auto outlier = Analyse(LoaderBound());
  RankRecord r = MakeRankRecord(*outlier->ctx);
  ASSERT_TRUE(r.own_steady_step_metrics.has_value());
  EXPECT_EQ(r.steady_step_metrics().step_count, 8);
  EXPECT_EQ(r.step_metrics.step_count, 7);

  // Eight equal steps: every view is the judged one, held once.
  Scenario even;
  even.Device(testing::DeviceSpec::A100());
  for (int k = 1; k <= 8; ++k) {
    even.BeginStep(k).DataLoaderNext(8 * kMs);
    even.BeginOp("aten::mm").Kernel("ampere_bf16_s16816gemm_bf16_128x128", 4 * kMs).End();
    even.Sync().EndStep();
  }
  auto a = Analyse(even);
  RankRecord same = MakeRankRecord(*a->ctx);
  EXPECT_EQ(a->ctx->outlier_steps().indices.size(), 0u);
  EXPECT_FALSE(same.own_steady_step_metrics.has_value());
  EXPECT_EQ(&same.steady_step_metrics(), &same.step_metrics);
  // The context computes the all-steps view on its own: the same figures.
  const StepMetrics& all = a->ctx->all_step_metrics();
  ASSERT_FALSE(same.own_all_step_metrics.has_value());
  EXPECT_EQ(all.step_count, same.step_metrics.step_count);
  EXPECT_EQ(all.total_step_ns, same.step_metrics.total_step_ns);
  EXPECT_EQ(all.total_kernel_ns, same.step_metrics.total_kernel_ns);
  ASSERT_EQ(all.steps.size(), same.step_metrics.steps.size());
  for (size_t i = 0; i < all.steps.size(); ++i) {
    EXPECT_EQ(all.steps[i].start_ns, same.step_metrics.steps[i].start_ns);
    EXPECT_EQ(all.steps[i].end_ns, same.step_metrics.steps[i].end_ns);
  }
}

TEST(RankRecord, CrossRankDataOnlyWhenAskedFor) {
  auto a = Analyse(LoaderBound());
  RankRecord r = MakeRankRecord(*a->ctx, /*cross_rank=*/false);
  EXPECT_EQ(r.cross_rank.step_count, 0);
  EXPECT_EQ(r.cross_rank.data_loader_ns, 0);
  EXPECT_EQ(r.summary.step_count, 7);
}

}  // namespace
}  // namespace tracelint
