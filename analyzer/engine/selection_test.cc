#include "analyzer/engine/selection.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using ::testing::ElementsAre;

class NoopRule : public Rule {
 public:
  std::string_view summary() const override { return "noop"; }
  std::vector<RuleOptionSpec> options() const override { return {}; }
  RuleOutcome Check(AnalysisContext&, const RuleOptions&) const override { return {}; }
};

RuleRegistry ThreeRules() {
  RuleRegistry r;
  for (const char* id : {"gpu-idle-gaps", "host-side-ops", "gpu-tiny-grids"}) {
    r.Register(id, std::make_unique<NoopRule>());
  }
  return r;
}

TEST(GlobMatchTest, StarsAndQuestionMarks) {
  EXPECT_TRUE(GlobMatch("*", "gpu-idle-gaps"));
  EXPECT_TRUE(GlobMatch("gpu-*", "gpu-idle-gaps"));
  EXPECT_TRUE(GlobMatch("*-gaps", "gpu-idle-gaps"));
  EXPECT_TRUE(GlobMatch("g?u-*-g*s", "gpu-idle-gaps"));
  EXPECT_FALSE(GlobMatch("gpu-", "gpu-idle-gaps"));
  EXPECT_FALSE(GlobMatch("host-*", "gpu-idle-gaps"));
  EXPECT_TRUE(GlobMatch("", ""));
  EXPECT_FALSE(GlobMatch("?", ""));
}

TEST(SelectRulesTest, LaterPatternsWin) {
  RuleRegistry r = ThreeRules();
  EXPECT_THAT(*SelectRules(r, "*"), ElementsAre("gpu-idle-gaps", "gpu-tiny-grids",
                                                "host-side-ops"));
  EXPECT_THAT(*SelectRules(r, "-*,gpu-*"), ElementsAre("gpu-idle-gaps", "gpu-tiny-grids"));
  EXPECT_THAT(*SelectRules(r, "gpu-*,-gpu-tiny-grids"), ElementsAre("gpu-idle-gaps"));
  EXPECT_THAT(*SelectRules(r, "-gpu-*, gpu-idle-gaps ,host-side-ops"),
              ElementsAre("gpu-idle-gaps", "host-side-ops"));
  EXPECT_THAT(*SelectRules(r, "*,-*"), ElementsAre());
}

TEST(SelectRulesTest, TyposAndEmptyAreErrors) {
  RuleRegistry r = ThreeRules();
  EXPECT_FALSE(SelectRules(r, "gpu-idel-*").ok());
  EXPECT_FALSE(SelectRules(r, "").ok());
  EXPECT_FALSE(SelectRules(r, " , ").ok());
}

}  // namespace
}  // namespace tracelint
