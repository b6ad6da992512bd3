#include "analyzer/engine/engine.h"

#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/trace_integrity.h"
#include "analyzer/engine/ranking.h"
#include "analyzer/model/timeline_builder.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A rule whose outcome per rank is scripted by the test. It reads the rank
// index from the timeline's metadata, which the test sets.
class ScriptedRule : public Rule {
 public:
  using Script = std::function<RuleOutcome(int rank, const RuleOptions&)>;
  explicit ScriptedRule(Script script) : script_(std::move(script)) {}
  std::string_view summary() const override { return "scripted"; }
  std::vector<RuleOptionSpec> options() const override {
    return {{"Scale", 1, "factor", "multiplies the finding", 0, 10}};
  }
  RuleOutcome Check(AnalysisContext& ctx, const RuleOptions& options) const override {
    return script_(ctx.timeline().metadata().rank, options);
  }

 private:
  Script script_;
};

Finding MakeFinding(std::string cause, TimeNs ns, double share,
                    FindingSeverity sev = FindingSeverity::kMedium) {
  Finding f;
  f.rule_id = "typed-by-rule";  // the engine must overwrite this
  f.cause = std::move(cause);
  f.recoverable_ns_per_step = ns;
  f.recoverable_share = share;
  f.severity = sev;
  f.title = "t";
  return f;
}

class EngineTest : public ::testing::Test {
 protected:
  void MakeRanks(int n) {
    for (int i = 0; i < n; ++i) {
      // Metadata is only writable through the builder.
      TimelineBuilder b;
      b.metadata().rank = i;
      // Enough events not to be a fragment, whose findings the engine
      // withholds (trace_integrity.h): these tests script the findings.
      TrackId host = b.GetTrack(TrackKind::kHostThread, 1, 1);
      for (int e = 0; e < 2 * kFragmentMinEvents; ++e) {
        SliceSpec op;
        op.track = host;
        op.ts_ns = e * kNsPerUs;
        op.dur_ns = kNsPerUs / 2;
        op.name = b.Intern("aten::add");
        op.kind = EventKind::kCpuOp;
        b.AddSlice(op);
      }
      timelines_.push_back(*std::move(b).Finalize());
    }
    for (Timeline& tl : timelines_) {
      contexts_.push_back(std::make_unique<AnalysisContext>(tl));
      ptrs_.push_back(contexts_.back().get());
    }
  }
  std::vector<Timeline> timelines_;
  std::vector<std::unique_ptr<AnalysisContext>> contexts_;
  std::vector<AnalysisContext*> ptrs_;
};

TEST_F(EngineTest, StampsIdsMergesRanksAtTheWorstAndRanks) {
  MakeRanks(3);
  RuleRegistry reg;
  reg.Register("alpha-rule", std::make_unique<ScriptedRule>([](int rank, const RuleOptions& o) {
    RuleOutcome out;
    // Rank 1 is the worst: 30 ms vs 10 ms.
    TimeNs ns = static_cast<TimeNs>((rank == 1 ? 30 : 10) * kNsPerMs * o.Get("Scale"));
    out.findings.push_back(MakeFinding("data_loader", ns, 0.3));
    return out;
  }));
  reg.Register("beta-rule", std::make_unique<ScriptedRule>([](int rank, const RuleOptions&) {
    RuleOutcome out;
    if (rank == 2) out.findings.push_back(MakeFinding("host_side_op", 50 * kNsPerMs, 0.5));
    return out;
  }));
  absl::StatusOr<EngineResult> result = RunRules(reg, {}, ptrs_);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->findings.size(), 2u);
  const Finding& first = result->findings[0];
  EXPECT_EQ(first.rule_id, "beta-rule");
  EXPECT_EQ(first.location.rank, 2);
  EXPECT_THAT(first.per_rank, ElementsAre("rank 0: below threshold", "rank 1: below threshold",
                                          HasSubstr("rank 2: 50")));
  const Finding& second = result->findings[1];
  EXPECT_EQ(second.rule_id, "alpha-rule");
  EXPECT_EQ(second.location.rank, 1);
  EXPECT_EQ(second.recoverable_ns_per_step, 30 * kNsPerMs);
  EXPECT_EQ(second.per_rank.size(), 3u);
  EXPECT_TRUE(result->warnings.empty());
}

// A scripted rule whose cross-rank hook moves half of its merged finding to
// a new cause located at rank 0 and records how often it ran.
class CrossRankRule : public ScriptedRule {
 public:
  CrossRankRule(Script script, int* calls) : ScriptedRule(std::move(script)), calls_(calls) {}
  std::vector<Finding> CrossRankFindings(const std::vector<const RankCrossData*>& ranks,
                                         const std::vector<int>& rank_names,
                                         const RuleOptions& options,
                                         std::vector<Finding> merged) const override {
    ++*calls_;
    std::vector<Finding> out;
    for (Finding& f : merged) {
      Finding moved = MakeFinding("whole_run", f.recoverable_ns_per_step / 2,
                                  f.recoverable_share / 2, FindingSeverity::kLow);
      moved.location.rank = rank_names[0];
      f.recoverable_ns_per_step -= moved.recoverable_ns_per_step;
      f.recoverable_share -= moved.recoverable_share;
      out.push_back(std::move(f));
      out.push_back(std::move(moved));
    }
    return out;
  }

 private:
  int* calls_;
};

// Every rank finds 40 ms of data loading.
std::unique_ptr<Rule> MakeCrossRankRule(int* calls) {
  return std::make_unique<CrossRankRule>(
      [](int, const RuleOptions&) {
        RuleOutcome out;
        out.findings.push_back(MakeFinding("data_loader", 40 * kNsPerMs, 0.4));
        return out;
      },
      calls);
}

TEST_F(EngineTest, CrossRankFindingsAreStampedRatedAndOnlyAskedOfSeveralRanks) {
  int calls = 0;
  RuleRegistry reg;
  reg.Register("alpha-rule", MakeCrossRankRule(&calls));
  MakeRanks(2);
  absl::StatusOr<EngineResult> result = RunRules(reg, {}, ptrs_);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(calls, 1);
  ASSERT_EQ(result->findings.size(), 2u);
  for (const Finding& f : result->findings) {
    EXPECT_EQ(f.rule_id, "alpha-rule");
    EXPECT_EQ(f.recoverable_ns_per_step, 20 * kNsPerMs);
    // Severity is the engine's, from the share, whatever the hook said.
    EXPECT_EQ(f.severity, FindingSeverity::kHigh) << f.cause;
    EXPECT_FALSE(f.fingerprint.empty());
  }
  EXPECT_NE(result->findings[0].fingerprint, result->findings[1].fingerprint);
  EXPECT_TRUE(result->warnings.empty());

  // One rank: the hook is not asked.
  std::vector<AnalysisContext*> one{ptrs_[0]};
  result = RunRules(reg, {}, one);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(calls, 1);
  ASSERT_EQ(result->findings.size(), 1u);
  EXPECT_EQ(result->findings[0].recoverable_ns_per_step, 40 * kNsPerMs);
}

TEST_F(EngineTest, ACrossRankFindingIsWithheldWhenAnyRankIsAFragment) {
  int calls = 0;
  RuleRegistry reg;
  reg.Register("alpha-rule", MakeCrossRankRule(&calls));
  TimelineBuilder b;
  b.metadata().rank = 1;
  timelines_.reserve(2);
  timelines_.push_back(*std::move(b).Finalize());  // no events: a fragment
  MakeRanks(1);  // rank 0, and a context for each timeline
  absl::StatusOr<EngineResult> result = RunRules(reg, {}, ptrs_);
  ASSERT_TRUE(result.ok()) << result.status();
  for (const Finding& f : result->findings) EXPECT_NE(f.cause, "whole_run");
  bool listed = false;
  for (const RuleOutcome& o : result->not_judged) {
    listed |= o.not_judged_reason.starts_with("whole_run withheld: rank 1: ");
  }
  EXPECT_TRUE(listed);
}

TEST_F(EngineTest, OptionsSelectionAndNotJudged) {
  MakeRanks(2);
  RuleRegistry reg;
  reg.Register("alpha-rule", std::make_unique<ScriptedRule>([](int, const RuleOptions& o) {
    RuleOutcome out;
    out.findings.push_back(
        MakeFinding("x", static_cast<TimeNs>(kNsPerMs * o.Get("Scale")), 0.01));
    return out;
  }));
  reg.Register("gamma-rule", std::make_unique<ScriptedRule>([](int, const RuleOptions&) {
    RuleOutcome out;
    out.applicable = false;
    out.not_judged_reason = "no device properties";
    return out;
  }));
  EngineOptions opts;
  opts.set_overrides = {"alpha-rule.Scale=3"};
  absl::StatusOr<EngineResult> result = RunRules(reg, opts, ptrs_);
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->findings.size(), 1u);
  EXPECT_EQ(result->findings[0].recoverable_ns_per_step, 3 * kNsPerMs);
  // Two ranks, one reason: said once.
  ASSERT_EQ(result->not_judged.size(), 1u);
  EXPECT_EQ(result->not_judged[0].rule_id, "gamma-rule");
  EXPECT_FALSE(result->not_judged[0].applicable);

  opts.rules_glob = "-*,gamma-*";
  result = RunRules(reg, opts, ptrs_);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->findings.empty());

  opts.set_overrides = {"alpha-rule.Scale=11"};
  EXPECT_TRUE(absl::IsInvalidArgument(PrepareRules(reg, opts).status()));
  EXPECT_FALSE(RunRules(reg, opts, ptrs_).ok());
  opts.set_overrides.clear();
  opts.rules_glob = "delta-*";
  EXPECT_TRUE(absl::IsInvalidArgument(PrepareRules(reg, opts).status()));
  opts.rules_glob = "*";
  opts.config_path = "/nonexistent/config.toml";
  EXPECT_FALSE(PrepareRules(reg, opts).status().ok());
}

// Two findings that together claim 130% of the step.
void RegisterOverclaimingRules(RuleRegistry& reg) {
  reg.Register("alpha-rule", std::make_unique<ScriptedRule>([](int, const RuleOptions&) {
    RuleOutcome out;
    Finding f = MakeFinding("a", 7 * kNsPerMs, 0.7);
    f.confidence = Confidence::kMeasured;
    out.findings.push_back(f);
    return out;
  }));
  reg.Register("beta-rule", std::make_unique<ScriptedRule>([](int, const RuleOptions&) {
    RuleOutcome out;
    out.findings.push_back(MakeFinding("b", 6 * kNsPerMs, 0.6));
    return out;
  }));
}

// Release behaviour: the run goes on with the savings scaled to the step.
class ReleaseInvariants : public EngineTest {
 protected:
  void SetUp() override {
    const char* strict = std::getenv("TRACELINT_STRICT_INVARIANTS");
    if (strict != nullptr) saved_ = strict;
    unsetenv("TRACELINT_STRICT_INVARIANTS");
  }
  void TearDown() override {
    if (saved_) setenv("TRACELINT_STRICT_INVARIANTS", saved_->c_str(), 1);
  }
  std::optional<std::string> saved_;
};

TEST_F(ReleaseInvariants, FindingsOverTheStepAreScaledDownAndMarkedInferred) {
  MakeRanks(1);
  RuleRegistry reg;
  RegisterOverclaimingRules(reg);
  absl::StatusOr<EngineResult> result = RunRules(reg, {}, ptrs_);
  ASSERT_TRUE(result.ok());
  EXPECT_THAT(result->warnings, ElementsAre(HasSubstr("130.0% of the step")));
  double share = 0;
  TimeNs ns = 0;
  for (const Finding& f : result->findings) {
    share += f.recoverable_share;
    ns += f.recoverable_ns_per_step;
    EXPECT_EQ(f.confidence, Confidence::kInferred);
  }
  EXPECT_LE(share, 1.0 + 1e-9);
  EXPECT_LE(ns, 10 * kNsPerMs);  // the step the shares imply
}

TEST_F(EngineTest, FindingsOverTheStepFailLoudlyUnderStrictInvariants) {
  MakeRanks(1);
  RuleRegistry reg;
  RegisterOverclaimingRules(reg);
  setenv("TRACELINT_STRICT_INVARIANTS", "1", 1);
  EXPECT_DEATH((void)RunRules(reg, {}, ptrs_), "invariant broken.*130.0% of the step");
}

TEST_F(ReleaseInvariants, SavingsOverTheStepAndNonFiniteNumbersAreReported) {
  MakeRanks(1);
  RuleRegistry reg;
  reg.Register("alpha-rule", std::make_unique<ScriptedRule>([](int, const RuleOptions&) {
    RuleOutcome out;
    Finding f = MakeFinding("a", kNsPerMs, 0.7);
    f.evidence.push_back({"bad", std::numeric_limits<double>::quiet_NaN(), 0.1, "share"});
    out.findings.push_back(f);
    return out;
  }));
  reg.Register("beta-rule", std::make_unique<ScriptedRule>([](int, const RuleOptions&) {
    RuleOutcome out;
    out.findings.push_back(MakeFinding("b", kNsPerMs, 0.6));
    return out;
  }));
  absl::StatusOr<EngineResult> result = RunRules(reg, {}, ptrs_);
  ASSERT_TRUE(result.ok());
  EXPECT_THAT(result->warnings, ElementsAre(HasSubstr("non-finite evidence value"),
                                            HasSubstr("130.0% of the step")));
  for (const Finding& f : result->findings) {
    for (const Evidence& e : f.evidence) EXPECT_TRUE(std::isfinite(e.value));
  }
}

TEST_F(EngineTest, SeverityComesFromTheShareNotFromTheRule) {
  MakeRanks(1);
  RuleRegistry reg;
  reg.Register("alpha-rule", std::make_unique<ScriptedRule>([](int, const RuleOptions&) {
    RuleOutcome out;
    // The rule's own severities are wrong on purpose; the engine decides.
    out.findings.push_back(MakeFinding("a", 15, 0.15, FindingSeverity::kLow));
    out.findings.push_back(MakeFinding("b", 14, 0.1499, FindingSeverity::kHigh));
    out.findings.push_back(MakeFinding("c", 5, 0.05, FindingSeverity::kHigh));
    out.findings.push_back(MakeFinding("d", 4, 0.0499, FindingSeverity::kHigh));
    Finding once = MakeFinding("e", 0, 0, FindingSeverity::kHigh);
    once.one_time_ns = kNsPerS;
    out.findings.push_back(once);
    return out;
  }));
  absl::StatusOr<EngineResult> result = RunRules(reg, {}, ptrs_);
  ASSERT_TRUE(result.ok());
  std::vector<std::string> got;
  for (const Finding& f : result->findings) {
    got.push_back(f.cause + ":" + std::string(FindingSeverityName(f.severity)));
  }
  // A one-time cost beside steady steps (the rank's window is steady) is low;
  // without them it is medium (warmup_one_time_cost_test).
  EXPECT_THAT(got, ElementsAre("a:high", "b:medium", "c:medium", "d:low", "e:low"));
}

TEST_F(EngineTest, BrokenRegistryRefusesToRun) {
  MakeRanks(1);
  RuleRegistry reg;
  reg.Register("BadId", std::make_unique<ScriptedRule>([](int, const RuleOptions&) {
    return RuleOutcome{};
  }));
  EXPECT_FALSE(RunRules(reg, {}, ptrs_).ok());
}

TEST(RankingTest, TimeThenSeverityThenIdThenStart) {
  std::vector<Finding> v;
  auto add = [&](std::string id, TimeNs ns, FindingSeverity sev, TimeNs start_ns) {
    Finding f = MakeFinding("c", ns, 0.1, sev);
    f.rule_id = std::move(id);
    f.location.start_ns = start_ns;
    v.push_back(f);
  };
  add("b-rule", 5, FindingSeverity::kLow, 0);
  add("a-rule", 5, FindingSeverity::kLow, 9);
  add("a-rule", 5, FindingSeverity::kLow, 3);
  add("z-rule", 5, FindingSeverity::kHigh, 0);
  add("y-rule", 7, FindingSeverity::kLow, 0);
  RankFindings(v);
  std::vector<std::string> order;
  for (const Finding& f : v) order.push_back(fmt::format("{}@{}", f.rule_id, f.location.start_ns));
  EXPECT_THAT(order, ElementsAre("y-rule@0", "z-rule@0", "a-rule@3", "a-rule@9", "b-rule@0"));
}

}  // namespace
}  // namespace tracelint
