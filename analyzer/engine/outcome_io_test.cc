#include "analyzer/engine/outcome_io.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;

std::vector<RuleOutcome> Sample() {
  RuleOutcome fired;
  fired.rule_id = "gpu-idle-gaps";
  Finding& f = fired.findings.emplace_back();
  f.rule_id = "gpu-idle-gaps";
  f.cause = "data_loader";
  f.severity = FindingSeverity::kHigh;
  f.recoverable_ns_per_step = 12'345'678;
  f.recoverable_ns_steps = {1, 2, 3};
  // Raw and unclamped: the report rounds shares, the merge must not see that.
  f.recoverable_share = 1.0000000000000002;
  f.confidence = Confidence::kModelled;
  f.title = "GPU idle";
  f.message = "line one\nline \"two\"";
  f.evidence.push_back({"idle 38%", 0.38, 0.1, "share"});
  f.location.rank = 3;
  f.location.first_step = 2;
  f.location.last_step = 7;
  f.location.track = "stream 7";
  f.location.start_ns = -5;
  f.location.end_ns = 1;
  f.location.top_items.push_back({"aten::mm", 42, 3, "bf16"});
  f.location.python_stack = {"train.py(10): step"};
  f.fix = "prefetch";
  f.per_rank = {"rank 3: 12 ms"};
  f.rank_values.push_back({3, true, 7, 0.25});
  f.one_time_ns = 9;
  f.outlier_step_ns = 11;
  f.outlier_steps = {5};
  f.fingerprint = "abc";
  RuleOutcome not_judged;
  not_judged.rule_id = "kernel-efficiency";
  not_judged.applicable = false;
  not_judged.not_judged_reason = "no roofline";
  return {fired, not_judged};
}

TEST(OutcomeIo, OutcomesReadBackUnchanged) {
  std::vector<RuleOutcome> in = Sample();
  std::string json = RuleOutcomesToJson(in);
  absl::StatusOr<std::vector<RuleOutcome>> out = RuleOutcomesFromJson(json);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(RuleOutcomesToJson(*out), json);
  ASSERT_EQ(out->size(), 2u);
  const Finding& f = (*out)[0].findings.at(0);
  EXPECT_EQ(f.recoverable_share, in[0].findings[0].recoverable_share);
  EXPECT_EQ(f.message, in[0].findings[0].message);
  EXPECT_EQ(f.severity, FindingSeverity::kHigh);
  EXPECT_EQ(f.confidence, Confidence::kModelled);
  EXPECT_EQ(f.location.top_items.at(0).detail, "bf16");
  EXPECT_EQ(f.rank_values.at(0).recoverable_share, 0.25);
  EXPECT_FALSE((*out)[1].applicable);
  EXPECT_EQ((*out)[1].not_judged_reason, "no roofline");
}

TEST(OutcomeIo, DamageIsAnErrorNamingTheField) {
  std::string json = RuleOutcomesToJson(Sample());
  std::string bad = json;
  bad.replace(bad.find("\"severity\": 2"), 13, "\"severity\": 3");
  EXPECT_THAT(RuleOutcomesFromJson(bad).status().message(),
              HasSubstr("outcomes[0].findings.severity: out of range"));
  EXPECT_THAT(RuleOutcomesFromJson("{}").status().message(), HasSubstr("not an array"));
  EXPECT_THAT(RuleOutcomesFromJson("[1]").status().message(), HasSubstr("not an object"));
}

}  // namespace
}  // namespace tracelint
