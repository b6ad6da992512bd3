#include "rules/comm_late_rank.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/cross_rank.h"
#include "analyzer/base/time.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "tests/support/scenario.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rules/comm_clustered_allreduce.h"
#include "tests/support/rule_test_util.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using rules2_test::Describe;
using testing::DeviceSpec;
using testing::kComputeStream;
using testing::Scenario;
using testing::StreamRef;

constexpr char kTcGemm[] = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn";
constexpr int64_t kMiB = 1 << 20;
constexpr StreamRef kCompute{0, kComputeStream};
constexpr TimeNs kTransferNs = 4 * kNsPerMs;

// What one rank does before each step's all-reduce.
struct RankWork {
  TimeNs loader_ns = 500 * kNsPerUs;  // DataLoader __next__
  TimeNs host_ns = 0;                 // a host op with no launches
  TimeNs compute_ns = 10 * kNsPerMs;  // one GEMM
  bool training = false;              // half of it in backward
  int64_t allreduce_bytes = 64 * kMiB;
  TimeNs work_ns() const { return loader_ns + host_ns + compute_ns; }
};

// One rank of `works.size()` in data-parallel training: the step's
// all-reduce lasts the transfer plus the wait for the slowest rank, as NCCL
// kernels do (each rank is generated alone; durations are what matches).
Scenario RankScenario(size_t rank, const std::vector<RankWork>& works) {
  TimeNs slowest_ns = 0;
  for (const RankWork& w : works) slowest_ns = std::max(slowest_ns, w.work_ns());
  const RankWork& w = works[rank];
  Scenario s;
  s.Device(DeviceSpec::A100()).Distributed(static_cast<int>(rank), static_cast<int>(works.size()));
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k);
    s.DataLoaderNext(w.loader_ns);
    if (w.host_ns > 0) s.HostOp("aten::allclose", w.host_ns);
    if (w.training) {
      s.BeginOp("aten::mm").Kernel(kTcGemm, w.compute_ns / 2).End();
      s.BeginBackward("MmBackward0").BeginOp("aten::mm").Kernel(kTcGemm, w.compute_ns / 2).End().End();
    } else {
      s.BeginOp("aten::mm").Kernel(kTcGemm, w.compute_ns).End();
    }
    s.AllReduce(w.allreduce_bytes, kTransferNs + slowest_ns - w.work_ns(), kCompute);
    s.Sync().EndStep();
  }
  return s;
}

struct RunResult {
  std::vector<Timeline> timelines;
  std::vector<Finding> findings;
  std::vector<RuleOutcome> not_judged;
};

RunResult Analyse(const std::vector<RankWork>& works, std::vector<std::string> overrides = {}) {
  RunResult run;
  for (size_t r = 0; r < works.size(); ++r) {
    absl::StatusOr<Timeline> tl = RankScenario(r, works).BuildTimeline();
    EXPECT_TRUE(tl.ok()) << tl.status();
    run.timelines.push_back(tl.ok() ? std::move(*tl) : Timeline());
  }
  RuleRegistry registry;
  registry.Register("comm-clustered-allreduce", std::make_unique<CommClusteredAllreduceRule>());
  std::vector<AnalysisContext> contexts;
  contexts.reserve(run.timelines.size());
  for (const Timeline& tl : run.timelines) contexts.emplace_back(tl);
  std::vector<AnalysisContext*> ranks;
  for (AnalysisContext& c : contexts) ranks.push_back(&c);
  EngineOptions options;
  options.set_overrides = std::move(overrides);
  absl::StatusOr<EngineResult> result = RunRules(registry, options, ranks);
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return run;
  for (const std::string& w : result->warnings) ADD_FAILURE() << "engine warning: " << w;
  run.findings = result->findings;
  run.not_judged = result->not_judged;
  return run;
}

const Finding* Cause(const RunResult& run, const std::string& cause) {
  for (const Finding& f : run.findings) {
    if (f.cause == cause) return &f;
  }
  return nullptr;
}

const Evidence* Line(const Finding& f, const std::string& prefix) {
  for (const Evidence& e : f.evidence) {
    if (e.text.starts_with(prefix)) return &e;
  }
  return nullptr;
}

// Rank 1 runs a 12 ms GEMM where rank 0 runs 10 ms: rank 0 waits 2 ms in
// every all-reduce.
std::vector<RankWork> ComputeStraggler(TimeNs extra_ns = 2 * kNsPerMs) {
  std::vector<RankWork> works(2);
  works[1].compute_ns += extra_ns;
  return works;
}

TEST(CommLateRankTest, SlowerComputeRankIsLateAndTakesTheWaitingFromExposedComm) {
  const RunResult run = Analyse(ComputeStraggler());
  ASSERT_EQ(run.findings.size(), 2u) << Describe(run.findings);
  const Finding* late = Cause(run, "late_rank");
  const Finding* comm = Cause(run, "exposed_communication");
  ASSERT_NE(late, nullptr);
  ASSERT_NE(comm, nullptr);
  EXPECT_EQ(late->rule_id, "comm-clustered-allreduce");
  EXPECT_EQ(late->location.rank, 1);
  EXPECT_EQ(late->location.first_step, 1);
  EXPECT_EQ(late->location.last_step, 4);
  EXPECT_EQ(late->recoverable_ns_per_step, 2 * kNsPerMs);
  EXPECT_EQ(late->confidence, Confidence::kMeasured);
  EXPECT_FALSE(late->fingerprint.empty());
  EXPECT_THAT(late->title, HasSubstr("wait for rank 1"));
  EXPECT_THAT(late->message, HasSubstr("Rank 1 arrives last at 4 of 4 matched collectives"));
  EXPECT_THAT(late->message, HasSubstr("it runs longer GPU compute"));
  EXPECT_THAT(late->fix, HasSubstr("more GPU compute per step"));
  const Evidence* vs = Line(*late, "Rank 1 against the median");
  ASSERT_NE(vs, nullptr);
  EXPECT_THAT(vs->text, HasSubstr("compute +2.000 ms"));
  ASSERT_EQ(late->per_rank.size(), 2u);
  EXPECT_EQ(late->per_rank[0], "rank 0: waits 2.000 ms per step in collectives");
  EXPECT_EQ(late->per_rank[1], "rank 1: waits 0 ns per step in collectives");

  // Rank 0's exposed all-reduce alone claims 6 ms; the 2 ms of waiting move
  // to late_rank, so the two never claim more than rank 0 measured.
  const std::vector<RankWork> works = ComputeStraggler();
  absl::StatusOr<Timeline> r0 = RankScenario(0, works).BuildTimeline();
  ASSERT_TRUE(r0.ok());
  CommClusteredAllreduceRule rule;
  RuleOutcome alone = rules2_test::RunOn(rule, *r0, rules2_test::Options(rule));
  ASSERT_EQ(alone.findings.size(), 1u);
  EXPECT_EQ(comm->recoverable_ns_per_step + late->recoverable_ns_per_step,
            alone.findings[0].recoverable_ns_per_step);
  const Evidence* moved = Line(*comm, "2.000 ms per step of it is waiting for rank 1");
  EXPECT_NE(moved, nullptr);
  // The per-rank lines agree with the finding after the move, not before.
  ASSERT_EQ(comm->per_rank.size(), 2u);
  EXPECT_EQ(comm->per_rank[0],
            fmt::format("rank 0: {} ({:.1f}% of step)",
                        FormatDurationNs(comm->recoverable_ns_per_step),
                        comm->recoverable_share * 100));
  ASSERT_EQ(comm->rank_values.size(), 2u);
  for (const RankValue& v : comm->rank_values) {
    if (v.fired) {
      EXPECT_LE(v.recoverable_ns_per_step, comm->recoverable_ns_per_step);
    }
  }
}

TEST(CommLateRankTest, TrainingWithOneUnhideableAllReduceStillShowsTheLateRank) {
  // One all-reduce of one bucket after backward cannot be hidden, so the
  // rule's own finding has nothing to claim; the 2 ms rank 0 waits in it
  // for rank 1 are still the job's to win.
  std::vector<RankWork> works = ComputeStraggler();
  for (RankWork& w : works) {
    w.training = true;
    w.allreduce_bytes = 16 * kMiB;
  }
  const RunResult run = Analyse(works);
  ASSERT_EQ(run.findings.size(), 1u) << Describe(run.findings);
  EXPECT_EQ(run.findings[0].cause, "late_rank");
  EXPECT_EQ(run.findings[0].recoverable_ns_per_step, 2 * kNsPerMs);
  EXPECT_THAT(run.findings[0].fix, HasSubstr("pack or bucket sequences by length"));
}

TEST(CommLateRankTest, SlowerInputNamesTheDataLoader) {
  std::vector<RankWork> works(2);
  works[1].loader_ns = 3 * kNsPerMs;
  const RunResult run = Analyse(works);
  const Finding* late = Cause(run, "late_rank");
  ASSERT_NE(late, nullptr) << Describe(run.findings);
  EXPECT_EQ(late->location.rank, 1);
  EXPECT_THAT(late->message, HasSubstr("it waits longer for its input"));
  EXPECT_THAT(late->fix, HasSubstr("num_workers"));
}

TEST(CommLateRankTest, HostWorkOnRankZeroNamesWhatRankZeroDoes) {
  std::vector<RankWork> works(2);
  works[0].host_ns = 3 * kNsPerMs;
  const RunResult run = Analyse(works);
  const Finding* late = Cause(run, "late_rank");
  ASSERT_NE(late, nullptr) << Describe(run.findings);
  EXPECT_EQ(late->location.rank, 0);
  EXPECT_THAT(late->message, HasSubstr("its GPU waits longer for its host"));
  EXPECT_THAT(late->fix, HasSubstr("rank 0 often does extra work"));
}

TEST(CommLateRankTest, BalancedRanksHaveNoLateRank) {
  const RunResult run = Analyse(std::vector<RankWork>(2));
  EXPECT_EQ(Cause(run, "late_rank"), nullptr) << Describe(run.findings);
  EXPECT_NE(Cause(run, "exposed_communication"), nullptr);
}

// Step ~14.5 ms + the extra compute: 0.9 ms is 5.8% of it, 0.6 ms 4.0%.
TEST(CommLateRankTest, ImbalanceJustAboveThresholdFires) {
  const RunResult run = Analyse(ComputeStraggler(900 * kNsPerUs));
  const Finding* late = Cause(run, "late_rank");
  ASSERT_NE(late, nullptr) << Describe(run.findings);
  const Evidence* imbalance = Line(*late, "Imbalance");
  ASSERT_NE(imbalance, nullptr);
  EXPECT_GE(imbalance->value, 0.05);
  EXPECT_LT(imbalance->value, 0.07);
  EXPECT_EQ(imbalance->threshold, 0.05);
}

TEST(CommLateRankTest, ImbalanceJustBelowThresholdDoesNotFire) {
  const RunResult run = Analyse(ComputeStraggler(600 * kNsPerUs));
  EXPECT_EQ(Cause(run, "late_rank"), nullptr) << Describe(run.findings);
  // The same run fires once the option is lowered below its 4% imbalance.
  const RunResult lowered =
      Analyse(ComputeStraggler(600 * kNsPerUs), {"comm-clustered-allreduce.MinLateRankShare=0.03"});
  EXPECT_NE(Cause(lowered, "late_rank"), nullptr) << Describe(lowered.findings);
}

TEST(CommLateRankTest, ASlowNodeIsALateGroupAndTheBalanceBoundApplies) {
  // Ranks 2 and 3 (one node) each run 2 ms more: the job waits for both,
  // so fixing either alone wins nothing (held up 0); evening out the work
  // saves the mean waiting, 1 ms, a modelled bound.
  std::vector<RankWork> works(4);
  works[2].compute_ns += 2 * kNsPerMs;
  works[3].compute_ns += 2 * kNsPerMs;
  const RunResult run = Analyse(works);
  const Finding* late = Cause(run, "late_rank");
  ASSERT_NE(late, nullptr) << Describe(run.findings);
  EXPECT_EQ(late->location.rank, 2);
  EXPECT_EQ(late->recoverable_ns_per_step, 1 * kNsPerMs);
  EXPECT_EQ(late->confidence, Confidence::kModelled);
  const Evidence* group = Line(*late, "Ranks arriving late together");
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->text, "Ranks arriving late together: 2, 3");
}

TEST(CommLateRankTest, OneRankHasNoLateRank) {
  std::vector<RankWork> works = ComputeStraggler();
  absl::StatusOr<Timeline> tl = RankScenario(0, works).BuildTimeline();
  ASSERT_TRUE(tl.ok());
  AnalysisContext ctx(*tl);
  std::vector<Finding> kept = SplitOutLateRank({&ctx.cross_rank_data()}, {0}, 0.05, {});
  EXPECT_TRUE(kept.empty());
}

// Testdata: a run directory per case, one file per rank.
void ExpectRunTestdata(const std::vector<RankWork>& works, const std::string& dir) {
  for (size_t r = 0; r < works.size(); ++r) {
    rules2_test::ExpectTestdataMatches(RankScenario(r, works),
                                       dir + "/rank" + std::to_string(r) + ".json");
  }
}

TEST(CommLateRankTest, TestdataMatchesTheScenarios) {
  ExpectRunTestdata(ComputeStraggler(), "late_rank_compute");
  ExpectRunTestdata(std::vector<RankWork>(2), "late_rank_balanced");
  ExpectRunTestdata(ComputeStraggler(900 * kNsPerUs), "late_rank_just_above");
  ExpectRunTestdata(ComputeStraggler(600 * kNsPerUs), "late_rank_just_below");
}

}  // namespace
}  // namespace tracelint
