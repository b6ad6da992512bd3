#include "cli/rules_command.h"

#include <sstream>

#include "cli/exit_codes.h"
#include "cli/rule_docs.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(RulesCommand, RuleIdShowsItsDocPage) {
  RulesArgs args;
  args.id = "gpu-idle-gaps";
  std::ostringstream out, err;
  EXPECT_EQ(RunRulesCommand(args, out, err), kExitOk) << err.str();
  EXPECT_THAT(out.str(), StartsWith("# gpu-idle-gaps"));
}

TEST(RulesCommand, EveryRegisteredRuleHasAPage) {
  std::ostringstream list, err;
  ASSERT_EQ(RunRulesCommand(RulesArgs(), list, err), kExitOk);
  ASSERT_FALSE(RuleDocPages().empty());
  for (const auto& [id, page] : RuleDocPages()) {
    EXPECT_THAT(list.str(), HasSubstr(std::string(id))) << "page without a rule: " << id;
  }
}

TEST(RulesCommand, UnknownRuleIdSuggestsTheClosest) {
  RulesArgs args;
  args.id = "gpu-idle-gap";
  std::ostringstream out, err;
  EXPECT_EQ(RunRulesCommand(args, out, err), kExitUsage);
  EXPECT_EQ(err.str(), "tracelint: unknown rule 'gpu-idle-gap'; did you mean 'gpu-idle-gaps'?\n");
}

}  // namespace
}  // namespace tracelint
