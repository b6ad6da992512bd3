#include "analyzer/engine/registry.h"

#include "gtest/gtest.h"

namespace tracelint {
namespace {

class NoopRule : public Rule {
 public:
  std::string_view summary() const override { return "does nothing"; }
  std::vector<RuleOptionSpec> options() const override { return {}; }
  RuleOutcome Check(AnalysisContext&, const RuleOptions&) const override { return {}; }
};

TEST(RuleIdTest, FamilyNameForm) {
  EXPECT_TRUE(IsValidRuleId("gpu-idle-gaps"));
  EXPECT_TRUE(IsValidRuleId("h2d-copy-dominance"));
  EXPECT_FALSE(IsValidRuleId("gpu"));
  EXPECT_FALSE(IsValidRuleId("GPU-idle"));
  EXPECT_FALSE(IsValidRuleId("gpu--idle"));
  EXPECT_FALSE(IsValidRuleId("-gpu-idle"));
  EXPECT_FALSE(IsValidRuleId("gpu-idle-"));
  EXPECT_FALSE(IsValidRuleId("2gpu-idle"));
  EXPECT_FALSE(IsValidRuleId("gpu_idle"));
  EXPECT_FALSE(IsValidRuleId(""));
}

TEST(RuleRegistryTest, SortedByIdAndFindable) {
  RuleRegistry r;
  r.Register("zeta-rule", std::make_unique<NoopRule>());
  r.Register("alpha-rule", std::make_unique<NoopRule>());
  ASSERT_TRUE(r.status().ok());
  ASSERT_EQ(r.rules().size(), 2u);
  EXPECT_EQ(r.rules()[0].id, "alpha-rule");
  EXPECT_EQ(r.rules()[1].id, "zeta-rule");
  EXPECT_NE(r.Find("zeta-rule"), nullptr);
  EXPECT_EQ(r.Find("beta-rule"), nullptr);
}

TEST(RuleRegistryTest, DuplicateBadIdAndNullAreKeptAsError) {
  RuleRegistry dup;
  dup.Register("alpha-rule", std::make_unique<NoopRule>());
  dup.Register("alpha-rule", std::make_unique<NoopRule>());
  EXPECT_FALSE(dup.status().ok());
  EXPECT_EQ(dup.rules().size(), 1u);

  RuleRegistry bad;
  bad.Register("Alpha", std::make_unique<NoopRule>());
  EXPECT_FALSE(bad.status().ok());
  EXPECT_TRUE(bad.rules().empty());

  RuleRegistry null;
  null.Register("alpha-rule", nullptr);
  EXPECT_FALSE(null.status().ok());
}

}  // namespace
}  // namespace tracelint
