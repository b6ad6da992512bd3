#include "analyzer/analysis/rank_record_io.h"

#include <cmath>
#include <limits>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/base/time_limits.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/analysed.h"
#include "tests/support/scenario.h"

namespace tracelint {
namespace {

using testing::Analyse;
using testing::Scenario;
using ::testing::HasSubstr;

constexpr TimeNs kMs = kNsPerMs;

// Steps with a data loader stall, an outlier, memory events, copies and an
// all-reduce: most of a record's structs hold something.
Scenario Busy() {
  Scenario s;
  s.Device(testing::DeviceSpec::A100()).Distributed(3, 8);
  for (int k = 1; k <= 8; ++k) {
    s.BeginStep(k).DataLoaderNext((k == 5 ? 32 : 8) * kMs);
    s.Allocate(int64_t{1} << 30).Reserve(int64_t{2} << 30);
    s.CopyH2D(16 << 20, 2 * kMs, MemorySpace::kPageable);
    s.BeginOp("aten::mm").Kernel("ampere_bf16_s16816gemm_bf16_128x128", 4 * kMs).End();
    s.AllReduce(8 << 20, 3 * kMs, {0, testing::kComputeStream});
    s.Sync().EndStep();
  }
  return s;
}

TEST(RankRecordIo, ARecordReadsBackToTheSameRecord) {
  auto a = Analyse(Busy());
  RankRecord record = MakeRankRecord(*a->ctx);
  ASSERT_FALSE(record.memory_usage.devices.empty());
  ASSERT_TRUE(record.own_steady_step_metrics.has_value());  // the outlier
  ASSERT_FALSE(record.cross_rank.collectives.durations_ns.empty());
  std::string json = RankRecordToJson(record);
  absl::StatusOr<RankRecord> back = RankRecordFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  // Written again, byte for byte: every field survived (a field the writer
  // skips would be written as its default the second time only if the
  // first writing skipped it too, so compare values that matter as well).
  EXPECT_EQ(RankRecordToJson(*back), json);
  EXPECT_EQ(back->metadata.rank, 3);
  EXPECT_EQ(back->bounds, record.bounds);
  EXPECT_EQ(back->steps.steps.size(), record.steps.steps.size());
  EXPECT_EQ(back->summary.mean_step_ns, record.summary.mean_step_ns);
  EXPECT_EQ(back->steady_step_metrics().step_count, record.steady_step_metrics().step_count);
  EXPECT_EQ(back->memory_usage.devices[0].curve.size(), record.memory_usage.devices[0].curve.size());
  EXPECT_EQ(back->cross_rank.collectives.durations_ns, record.cross_rank.collectives.durations_ns);
}

TEST(RankRecordIo, EdgeValuesSurvive) {
  RankRecord r;
  r.metadata.source_path = "run/r\xff\xfe.json";  // not UTF-8
  r.metadata.truncated_at_byte = -kMaxTraceTimeNs;  // the range a timeline's times lie in
  r.metadata.events_read = kMaxTraceTimeNs;
  r.roofline.step_ns = std::numeric_limits<double>::infinity();
  r.roofline.busy_ns_per_step = -std::numeric_limits<double>::infinity();
  r.roofline.mfu_peak_tflops = std::numeric_limits<double>::quiet_NaN();
  r.roofline.matrix_modelled_share = 0.1 + 0.2;  // not a short decimal
  r.roofline.mfu = std::nullopt;
  r.step_metrics.summary.push_back(DeviceMetrics{});
  r.step_metrics.summary[0].est_sm_efficiency = 5e-324;  // the smallest subnormal
  r.steps.steps.push_back(Step{});
  r.steps.steps[0].marker = kNoIndex;
  absl::StatusOr<RankRecord> back = RankRecordFromJson(RankRecordToJson(r));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->metadata.source_path, r.metadata.source_path);
  EXPECT_EQ(back->metadata.truncated_at_byte, r.metadata.truncated_at_byte);
  EXPECT_EQ(back->metadata.events_read, r.metadata.events_read);
  EXPECT_EQ(back->roofline.step_ns, r.roofline.step_ns);
  EXPECT_EQ(back->roofline.busy_ns_per_step, r.roofline.busy_ns_per_step);
  EXPECT_TRUE(std::isnan(back->roofline.mfu_peak_tflops));
  EXPECT_EQ(back->roofline.matrix_modelled_share, r.roofline.matrix_modelled_share);
  EXPECT_FALSE(back->roofline.mfu.has_value());
  EXPECT_EQ(back->step_metrics.summary[0].est_sm_efficiency, 5e-324);
  EXPECT_FALSE(back->step_metrics.summary[0].tensor_core_kernel_share.has_value());
  EXPECT_EQ(back->steps.steps[0].marker, kNoIndex);
}

TEST(RankRecordIo, DamageIsAnErrorNamingTheField) {
  std::string json = RankRecordToJson(RankRecord{});
  auto with = [&](std::string_view from, std::string_view to) {
    std::string s = json;
    size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  absl::StatusOr<RankRecord> r = RankRecordFromJson(with("\"world_size\": -1", "\"world_size\": \"x\""));
  EXPECT_THAT(r.status().message(), HasSubstr("record.metadata.world_size: not an integer"));
  r = RankRecordFromJson(with("\"source\": 1", "\"source\": 7"));  // StepSource has 3 values
  EXPECT_THAT(r.status().message(), HasSubstr("record.steps.source: out of range"));
  r = RankRecordFromJson(with("\"rank\": -1", "\"rank\": 99999999999"));  // past an int
  EXPECT_THAT(r.status().message(), HasSubstr("record.metadata.rank: out of range"));
  r = RankRecordFromJson(with("\"events_read\": 0", "\"events_read\": 4611686018427387904"));
  EXPECT_THAT(r.status().message(), HasSubstr("record.metadata.events_read: out of range"));
  r = RankRecordFromJson(with("\"bounds\": [0,0]", "\"bounds\": [0]"));
  EXPECT_THAT(r.status().message(), HasSubstr("record.bounds: not a pair"));
  r = RankRecordFromJson(with("\"metadata\": {", "\"metadata_\": {"));
  EXPECT_THAT(r.status().message(), HasSubstr("record.metadata: missing"));
  EXPECT_FALSE(RankRecordFromJson(json.substr(0, json.size() / 2)).ok());
  // Well-formed, but an index past its vector: what no writer makes.
  RankRecord r0;
  r0.outlier_steps.indices = {0};
  EXPECT_THAT(RankRecordFromJson(RankRecordToJson(r0)).status().message(),
              HasSubstr("outlier_steps: not an index of steady_steps"));
  RankRecord r1;
  r1.all_steps.steps.resize(2);
  r1.step_phase.phases = {StepPhase::kSteady};
  EXPECT_THAT(RankRecordFromJson(RankRecordToJson(r1)).status().message(),
              HasSubstr("not one phase per step"));
  EXPECT_FALSE(RankRecordFromJson("[1, 2]").ok());
}

}  // namespace
}  // namespace tracelint
