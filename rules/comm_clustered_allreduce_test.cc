#include "rules/comm_clustered_allreduce.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "tests/support/scenario.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/rule_test_util.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using rules2_test::ExpectWithin;
using rules2_test::Options;
using rules2_test::RunOn;
using testing::DeviceSpec;
using testing::kAutogradTid;
using testing::kCommStream;
using testing::kComputeStream;
using testing::kMainTid;
using testing::Scenario;
using testing::ShapeArgs;
using testing::StreamRef;

constexpr char kTcGemm[] = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn";
constexpr int64_t kMiB = 1 << 20;
constexpr StreamRef kComm{0, kCommStream};
constexpr StreamRef kCompute{0, kComputeStream};

testing::ScenarioArgs Bf16Mm() {
  return ShapeArgs("[[256, 4096], [4096, 4096]]", R"(["c10::BFloat16", "c10::BFloat16"])");
}

void Forward(Scenario& s, int count, TimeNs dur_ns) {
  for (int i = 0; i < count; ++i) s.BeginOp("aten::mm", Bf16Mm()).Kernel(kTcGemm, dur_ns).End();
}

// `count` backward GEMMs launched from the autograd thread, as autograd does.
void Backward(Scenario& s, int count, TimeNs dur_ns) {
  for (int i = 0; i < count; ++i) {
    s.BeginBackward("MmBackward0").BeginOp("aten::mm", Bf16Mm()).Kernel(kTcGemm, dur_ns).End().End();
  }
}

Timeline Build(const Scenario& s) {
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  EXPECT_TRUE(tl.ok()) << tl.status();
  return tl.ok() ? std::move(*tl) : Timeline();
}

// Case study: a manual all_reduce of all 100 MiB of gradients after
// backward() returns. 18 ms of communication run after 20 ms of backward with
// nothing to overlap. DDP's 25 MiB buckets would leave one bucket (a quarter,
// 4.5 ms) exposed, so the trace was built to lose 13.5 ms per step. Second,
// smaller problem: three float32 GEMMs (3 x 2 ms) on CUDA cores, 3 ms per step
// for tensor-cores-idle.
Scenario BigAllReduceAfterBackward(bool correlated = true) {
  Scenario s;
  if (!correlated) s.WithoutCorrelation();
  s.Device(DeviceSpec::A100()).Distributed(0, 8);
  for (int k = 0; k < 4; ++k) {
    s.OnThread(kMainTid).BeginStep(k);
    Forward(s, 10, 1 * kNsPerMs);
    for (int i = 0; i < 3; ++i) {
      s.BeginOp("aten::addmm", ShapeArgs("[[4096], [256, 4096], [4096, 4096]]",
                                         R"(["float", "float", "float"])"))
          .Kernel("ampere_sgemm_128x64_tn", 2 * kNsPerMs)
          .End();
    }
    s.OnThread(kAutogradTid).At(s.now(kMainTid));
    Backward(s, 20, 1 * kNsPerMs);
    s.OnThread(kMainTid).At(s.now(kAutogradTid));
    s.StreamWait(kComm, kCompute).AllReduce(100 * kMiB, 18 * kNsPerMs).Sync(kComm).EndStep();
  }
  return s;
}

// DDP done right: four 25 MiB buckets, each all-reduced from the autograd
// thread while the next bucket's backward runs; only the last one is exposed.
Scenario DdpOverlapped() {
  Scenario s;
  s.Device(DeviceSpec::A100()).Distributed(0, 8);
  for (int k = 0; k < 3; ++k) {
    s.OnThread(kMainTid).BeginStep(k);
    Forward(s, 10, 1 * kNsPerMs);
    s.OnThread(kAutogradTid).At(s.now(kMainTid));
    for (int bucket = 0; bucket < 4; ++bucket) {
      Backward(s, 5, 1 * kNsPerMs);
      s.StreamWait(kComm, kCompute).AllReduce(25 * kMiB, 4 * kNsPerMs);
    }
    s.OnThread(kMainTid).At(s.now(kAutogradTid)).Sync(kComm).EndStep();
  }
  return s;
}

// One all-reduce of `during_ns` overlapping the second half of backward and
// one of `after_ns` after it (both 100 MiB).
Scenario TailSplit(TimeNs during_ns, TimeNs after_ns) {
  Scenario s;
  s.Device(DeviceSpec::A100()).Distributed(0, 8);
  for (int k = 0; k < 3; ++k) {
    s.OnThread(kMainTid).BeginStep(k);
    Forward(s, 10, 1 * kNsPerMs);
    s.OnThread(kAutogradTid).At(s.now(kMainTid));
    Backward(s, 5, 1 * kNsPerMs);
    s.StreamWait(kComm, kCompute).AllReduce(100 * kMiB, during_ns);
    Backward(s, 5, 1 * kNsPerMs);
    s.OnThread(kMainTid).At(s.now(kAutogradTid));
    s.StreamWait(kComm, kCompute).AllReduce(100 * kMiB, after_ns).Sync(kComm).EndStep();
  }
  return s;
}

// Forward-only (inference) with an all-reduce serialized on the compute
// stream: all of it is exposed.
Scenario ExposedForwardOnly(TimeNs coll_ns, const DeviceSpec& device = DeviceSpec::A100()) {
  Scenario s;
  s.Device(device).Distributed(0, 2);
  for (int k = 0; k < 3; ++k) {
    s.BeginStep(k);
    Forward(s, 10, 2 * kNsPerMs);
    s.AllReduce(8 * kMiB, coll_ns, kCompute).Sync().EndStep();
  }
  return s;
}

// The one finding of an outcome (a copy: outcomes are temporaries).
std::optional<Finding> Only(const RuleOutcome& outcome) {
  EXPECT_TRUE(outcome.applicable) << outcome.not_judged_reason;
  EXPECT_EQ(outcome.findings.size(), 1u);
  if (outcome.findings.empty()) return std::nullopt;
  return outcome.findings.front();
}

TEST(CommClusteredAllreduceTest, BigAllReduceAfterBackwardFires) {
  Scenario s = BigAllReduceAfterBackward();
  Timeline tl = Build(s);
  CommClusteredAllreduceRule rule;
  std::optional<Finding> f = Only(RunOn(rule, tl, Options(rule)));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->cause, "clustered_after_backward");
  ExpectWithin(f->recoverable_ns_per_step, 13.5 * kNsPerMs, 0.05, "tail minus one bucket");
  EXPECT_EQ(f->confidence, Confidence::kModelled);
  EXPECT_EQ(SeverityForShare(f->recoverable_share), FindingSeverity::kHigh);
  EXPECT_NEAR(f->evidence[0].value, 1.0, 1e-9);  // all collective time is in the tail
  EXPECT_THAT(f->message, HasSubstr("manual all_reduce"));
  EXPECT_THAT(f->fix, HasSubstr("DistributedDataParallel"));
  EXPECT_THAT(f->fix, HasSubstr("bucket_cap_mb"));
  ASSERT_FALSE(f->location.top_items.empty());
  EXPECT_EQ(f->location.top_items[0].name, "allreduce");
  EXPECT_THAT(f->location.top_items[0].detail, HasSubstr("100.0 MiB"));
  EXPECT_EQ(f->location.track, "device 0 stream 23");
  rules2_test::ExpectTestdataMatches(s, "comm_allreduce_after_backward.json");
}

TEST(CommClusteredAllreduceTest, AllReduceCaseStudyRanksCommunicationFirst) {
  Timeline tl = Build(BigAllReduceAfterBackward());
  std::vector<Finding> findings = rules2_test::RankedFindings(tl);
  ASSERT_EQ(findings.size(), 2u) << rules2_test::Describe(findings);
  EXPECT_EQ(findings[0].rule_id, "comm-clustered-allreduce");
  ExpectWithin(findings[0].recoverable_ns_per_step, 13.5 * kNsPerMs, 0.05, "tail");
  EXPECT_EQ(findings[1].rule_id, "tensor-cores-idle");
  ExpectWithin(findings[1].recoverable_ns_per_step, 3 * kNsPerMs, 0.05, "fp32 GEMMs");
}

TEST(CommClusteredAllreduceTest, DdpBucketsOverlappingBackwardDoNotFire) {
  Scenario s = DdpOverlapped();
  Timeline tl = Build(s);
  CommClusteredAllreduceRule rule;
  RuleOutcome outcome = RunOn(rule, tl, Options(rule));
  EXPECT_TRUE(outcome.applicable) << outcome.not_judged_reason;
  EXPECT_TRUE(outcome.findings.empty());
  rules2_test::ExpectTestdataMatches(s, "comm_ddp_overlapped.json");
}

// MinTailShare = 0.5 (exposed-share check switched off): 6 of 10 ms after
// backward is above, 4 of 10 ms below.
TEST(CommClusteredAllreduceTest, TailShareJustAboveThresholdFires) {
  Scenario s = TailSplit(4 * kNsPerMs, 6 * kNsPerMs);
  rules2_test::ExpectTestdataMatches(s, "comm_tail_above.json");
  Timeline tl = Build(s);
  CommClusteredAllreduceRule rule;
  std::optional<Finding> f = Only(RunOn(rule, tl, Options(rule, {{"MinExposedShare", 1.0}})));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->cause, "clustered_after_backward");
  EXPECT_NEAR(f->evidence[0].value, 0.6, 0.01);
  // 6 ms tail minus a quarter of it (25 of 100 MiB) that bucketing leaves.
  ExpectWithin(f->recoverable_ns_per_step, 4.5 * kNsPerMs, 0.05, "hideable tail");
}

TEST(CommClusteredAllreduceTest, TailShareJustBelowThresholdDoesNotFire) {
  Scenario s = TailSplit(6 * kNsPerMs, 4 * kNsPerMs);
  rules2_test::ExpectTestdataMatches(s, "comm_tail_below.json");
  Timeline tl = Build(s);
  CommClusteredAllreduceRule rule;
  RuleOutcome outcome = RunOn(rule, tl, Options(rule, {{"MinExposedShare", 1.0}}));
  EXPECT_TRUE(outcome.applicable);
  EXPECT_TRUE(outcome.findings.empty());
  RuleOutcome lowered =
      RunOn(rule, tl, Options(rule, {{"MinExposedShare", 1.0}, {"MinTailShare", 0.35}}));
  EXPECT_EQ(lowered.findings.size(), 1u);
}

// MinExposedShare = 5%: 1.2 ms of ~21.2 ms is above, 0.9 ms of ~20.9 ms below.
TEST(CommClusteredAllreduceTest, ExposedShareJustAboveThresholdFires) {
  Scenario s = ExposedForwardOnly(1200 * kNsPerUs);
  rules2_test::ExpectTestdataMatches(s, "comm_exposed_above.json");
  Timeline tl = Build(s);
  CommClusteredAllreduceRule rule;
  std::optional<Finding> f = Only(RunOn(rule, tl, Options(rule)));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->cause, "exposed_communication");
  // One finding, one number: the share the title gives is the recoverable one.
  EXPECT_THAT(f->title, HasSubstr(fmt::format("{:.1f}%", 100 * f->recoverable_share))) << f->title;
  EXPECT_GE(f->evidence[1].value, 0.05);
  EXPECT_LT(f->evidence[1].value, 0.06);
  ExpectWithin(f->recoverable_ns_per_step, 1.2 * kNsPerMs, 0.05, "exposed communication");
  EXPECT_THAT(f->message, HasSubstr("No backward pass"));
  EXPECT_THAT(f->message, HasSubstr("the GPU also waits on collectives"));
  // On a TPU the message says so.
  DeviceSpec tpu = DeviceSpec::A100();
  tpu.name = "TPU v5 lite";
  tpu.vendor = "Google";
  Timeline on_tpu = Build(ExposedForwardOnly(1200 * kNsPerUs, tpu));
  std::optional<Finding> t = Only(RunOn(rule, on_tpu, Options(rule)));
  ASSERT_TRUE(t.has_value());
  EXPECT_THAT(t->message, HasSubstr("the TPU also waits on collectives"));
}

TEST(CommClusteredAllreduceTest, ExposedShareJustBelowThresholdDoesNotFire) {
  Scenario s = ExposedForwardOnly(900 * kNsPerUs);
  rules2_test::ExpectTestdataMatches(s, "comm_exposed_below.json");
  Timeline tl = Build(s);
  CommClusteredAllreduceRule rule;
  RuleOutcome outcome = RunOn(rule, tl, Options(rule));
  EXPECT_TRUE(outcome.applicable);
  EXPECT_TRUE(outcome.findings.empty());
  RuleOutcome lowered = RunOn(rule, tl, Options(rule, {{"MinExposedShare", 0.04}}));
  EXPECT_EQ(lowered.findings.size(), 1u);
}

TEST(CommClusteredAllreduceTest, WithoutCorrelationTheTailIsNotGuessed) {
  Scenario s = BigAllReduceAfterBackward(/*correlated=*/false);
  Timeline tl = Build(s);
  CommClusteredAllreduceRule rule;
  // Exposed communication is still measured; the tail is not judged.
  std::optional<Finding> f = Only(RunOn(rule, tl, Options(rule)));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->cause, "exposed_communication");
  EXPECT_THAT(f->message, HasSubstr("could not be judged"));
  // The exposed share (the worst device's) and the recoverable share differ
  // here: the title names both as what they are, and so does the message.
  const std::string recoverable = fmt::format("{:.1f}%", 100 * f->recoverable_share);
  EXPECT_THAT(f->title, HasSubstr(recoverable)) << f->title;
  if (f->title.find("recoverable") != std::string::npos) {
    EXPECT_THAT(f->title, HasSubstr("of the step is recoverable"));
    EXPECT_THAT(f->message, HasSubstr("Recoverable: " + recoverable + " of the step"));
  }
  // With the exposed check off, the rule says it could not judge.
  RuleOutcome tail_only = RunOn(rule, tl, Options(rule, {{"MinExposedShare", 1.0}}));
  EXPECT_FALSE(tail_only.applicable);
  EXPECT_THAT(tail_only.not_judged_reason, HasSubstr("missing correlation"));
}

TEST(CommClusteredAllreduceTest, SingleGpuWithoutCollectivesHasNoFinding) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginStep(0);
  Forward(s, 5, 1 * kNsPerMs);
  s.Sync().EndStep();
  Timeline tl = Build(s);
  CommClusteredAllreduceRule rule;
  RuleOutcome outcome = RunOn(rule, tl, Options(rule));
  EXPECT_TRUE(outcome.applicable);
  EXPECT_TRUE(outcome.findings.empty());
}

TEST(CommClusteredAllreduceTest, CpuOnlyTraceIsNotJudged) {
  Scenario s;
  s.BeginStep(0).HostOp("gloo:all_reduce", 2 * kNsPerMs).EndStep();
  Timeline tl = Build(s);
  CommClusteredAllreduceRule rule;
  RuleOutcome outcome = RunOn(rule, tl, Options(rule));
  EXPECT_FALSE(outcome.applicable);
  EXPECT_THAT(outcome.not_judged_reason, HasSubstr("no GPU activity"));
}

TEST(CommClusteredAllreduceTest, OldNcclKernelNamesAreCollectives) {
  // NCCL < 2.19 names (ncclKernel_*) with no Collective name args anywhere.
  Scenario s;
  s.Device(DeviceSpec::V100()).Distributed(0, 2);
  for (int k = 0; k < 2; ++k) {
    s.BeginStep(k);
    Forward(s, 10, 2 * kNsPerMs);
    testing::KernelOptions on_compute;
    s.Kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 3 * kNsPerMs, on_compute)
        .Sync()
        .EndStep();
  }
  Timeline tl = Build(s);
  CommClusteredAllreduceRule rule;
  std::optional<Finding> f = Only(RunOn(rule, tl, Options(rule)));
  ASSERT_TRUE(f.has_value());
  ASSERT_FALSE(f->location.top_items.empty());
  EXPECT_EQ(f->location.top_items[0].name, "AllReduce");
  ExpectWithin(f->recoverable_ns_per_step, 3 * kNsPerMs, 0.05, "exposed old-NCCL all-reduce");
}

// Rank `rank` of two, forward-only, each step ending in all-reduces of the
// given durations serialized on the compute stream (all exposed).
Timeline ExposedRank(int rank, const std::vector<TimeNs>& allreduce_ns) {
  Scenario s;
  s.Device(DeviceSpec::A100()).Distributed(rank, 2);
  for (int k = 0; k < 3; ++k) {
    s.BeginStep(k);
    Forward(s, 10, 2 * kNsPerMs);
    for (TimeNs ns : allreduce_ns) s.AllReduce(8 * kMiB, ns, kCompute);
    s.Sync().EndStep();
  }
  return Build(s);
}

// The engine's merged findings of this rule over two ranks, ranked.
std::vector<Finding> MergedFindings(const Timeline& r0, const Timeline& r1) {
  RuleRegistry registry;
  registry.Register("comm-clustered-allreduce", std::make_unique<CommClusteredAllreduceRule>());
  AnalysisContext c0(r0), c1(r1);
  std::vector<AnalysisContext*> ranks{&c0, &c1};
  absl::StatusOr<EngineResult> result = RunRules(registry, EngineOptions{}, ranks);
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return {};
  EXPECT_TRUE(result->warnings.empty());
  return result->findings;
}

// The merged finding when the ranks give exactly one.
std::optional<Finding> MergedOverRanks(const Timeline& r0, const Timeline& r1) {
  std::vector<Finding> findings = MergedFindings(r0, r1);
  EXPECT_EQ(findings.size(), 1u);
  if (findings.empty()) return std::nullopt;
  return findings.front();
}

const Evidence* CrossRankLine(const Finding& f) {
  for (const Evidence& e : f.evidence) {
    if (e.text.starts_with("Collectives ")) return &e;
  }
  return nullptr;
}

TEST(CommClusteredAllreduceTest, LateRankWaitingIsSplitFromTransfer) {
  // Rank 1 arrives 3 ms late, so rank 0 spends 7 ms in the all-reduce.
  const Timeline r0 = ExposedRank(0, {7 * kNsPerMs});
  const Timeline r1 = ExposedRank(1, {4 * kNsPerMs});
  std::vector<Finding> findings = MergedFindings(r0, r1);
  ASSERT_EQ(findings.size(), 2u) << rules2_test::Describe(findings);
  const Finding& f = findings[0].cause == "late_rank" ? findings[1] : findings[0];
  const Finding& late = findings[0].cause == "late_rank" ? findings[0] : findings[1];
  EXPECT_EQ(late.cause, "late_rank");
  EXPECT_EQ(f.location.rank, 0);
  const Evidence* line = CrossRankLine(f);
  ASSERT_NE(line, nullptr);
  EXPECT_EQ(line->text,
            fmt::format("Collectives per step on rank 0: {}, of which waiting for a late rank {} "
                        "and transfer {} (rank 1 arrives last most often)",
                        FormatDurationNs(7 * kNsPerMs), FormatDurationNs(3 * kNsPerMs),
                        FormatDurationNs(4 * kNsPerMs)));
  EXPECT_EQ(line->value, static_cast<double>(3 * kNsPerMs));
  // The waiting moves to late_rank: together the two claim what rank 0
  // measured alone, never more.
  CommClusteredAllreduceRule rule;
  std::optional<Finding> alone = Only(RunOn(rule, r0, Options(rule)));
  ASSERT_TRUE(alone.has_value());
  EXPECT_EQ(late.recoverable_ns_per_step, 3 * kNsPerMs);
  EXPECT_EQ(late.location.rank, 1);
  EXPECT_EQ(f.recoverable_ns_per_step + late.recoverable_ns_per_step,
            alone->recoverable_ns_per_step);
  EXPECT_NEAR(f.recoverable_share + late.recoverable_share, alone->recoverable_share, 1e-3);
}

TEST(CommClusteredAllreduceTest, EqualRanksHaveNoWaiting) {
  const Timeline r0 = ExposedRank(0, {5 * kNsPerMs});
  const Timeline r1 = ExposedRank(1, {5 * kNsPerMs});
  std::optional<Finding> f = MergedOverRanks(r0, r1);
  ASSERT_TRUE(f.has_value());
  const Evidence* line = CrossRankLine(*f);
  ASSERT_NE(line, nullptr);
  EXPECT_EQ(line->value, 0);
  EXPECT_THAT(line->text, HasSubstr(fmt::format("waiting for a late rank {}",
                                                FormatDurationNs(0))));
  EXPECT_THAT(line->text, HasSubstr("(no rank arrives late)"));
}

TEST(CommClusteredAllreduceTest, DifferentCollectiveCountsAreNotSplit) {
  const Timeline r0 = ExposedRank(0, {6 * kNsPerMs});
  const Timeline r1 = ExposedRank(1, {3 * kNsPerMs, 3 * kNsPerMs});
  std::optional<Finding> f = MergedOverRanks(r0, r1);
  ASSERT_TRUE(f.has_value());
  const Evidence* line = CrossRankLine(*f);
  ASSERT_NE(line, nullptr);
  EXPECT_EQ(line->text,
            "Collectives not split into waiting and transfer: collective counts differ across "
            "ranks in 3 step(s) (first: step 0: rank 0 has 1, rank 1 has 2)");
  EXPECT_EQ(line->unit, "count");
}

TEST(CommClusteredAllreduceTest, OneRankAddsNoCrossRankEvidence) {
  const Timeline r0 = ExposedRank(0, {7 * kNsPerMs});
  CommClusteredAllreduceRule rule;
  std::optional<Finding> f = Only(RunOn(rule, r0, Options(rule)));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(CrossRankLine(*f), nullptr);
}

}  // namespace
}  // namespace tracelint
