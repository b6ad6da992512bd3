#include "analyzer/engine/options.h"

#include <algorithm>
#include <cstdlib>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;

class TwoOptionRule : public Rule {
 public:
  std::string_view summary() const override { return "a rule with two options"; }
  std::vector<RuleOptionSpec> options() const override {
    return {{"MinShare", 0.1, "share", "fires at this share of the step", 0, 1},
            {"MinSelfNs", 100000, "ns", "shortest op reported", 0, 1e12}};
  }
  RuleOutcome Check(AnalysisContext&, const RuleOptions&) const override { return {}; }
};

RuleRegistry OneRule() {
  RuleRegistry r;
  r.Register("demo-rule", std::make_unique<TwoOptionRule>());
  return r;
}

TEST(ParseSetOverrideTest, Forms) {
  absl::StatusOr<OptionOverride> o = ParseSetOverride("demo-rule.MinShare=0.25");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->rule_id, "demo-rule");
  EXPECT_EQ(o->option, "MinShare");
  EXPECT_DOUBLE_EQ(o->value, 0.25);
  EXPECT_DOUBLE_EQ(ParseSetOverride("demo-rule.MinSelfNs=200_000")->value, 200000);
  EXPECT_FALSE(ParseSetOverride("demo-rule.MinShare").ok());
  EXPECT_FALSE(ParseSetOverride("MinShare=1").ok());
  EXPECT_FALSE(ParseSetOverride("demo-rule.=1").ok());
  EXPECT_FALSE(ParseSetOverride("demo-rule.MinShare=abc").ok());
  EXPECT_FALSE(ParseSetOverride("demo-rule.MinShare=1.5x").ok());
  EXPECT_FALSE(ParseSetOverride("demo-rule.MinShare=nan").ok());
}

TEST(ResolveOptionsTest, DefaultsThenOverridesInOrder) {
  RuleRegistry r = OneRule();
  auto resolved = ResolveOptions(r, {{"demo-rule", "MinShare", 0.3, "cfg"},
                                     {"demo-rule", "MinShare", 0.4, "--set"}});
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_DOUBLE_EQ(resolved->at("demo-rule").Get("MinShare"), 0.4);
  EXPECT_DOUBLE_EQ(resolved->at("demo-rule").Get("MinSelfNs"), 100000);
}

TEST(ResolveOptionsTest, UnknownOrOutOfRangeIsInvalidArgument) {
  RuleRegistry r = OneRule();
  absl::Status unknown_rule = ResolveOptions(r, {{"nope-rule", "MinShare", 0.3, "--set"}}).status();
  EXPECT_TRUE(absl::IsInvalidArgument(unknown_rule));
  absl::Status unknown_option =
      ResolveOptions(r, {{"demo-rule", "MaxShare", 0.3, "--set"}}).status();
  EXPECT_TRUE(absl::IsInvalidArgument(unknown_option));
  EXPECT_THAT(std::string(unknown_option.message()), HasSubstr("MinShare, MinSelfNs"));
  absl::Status range = ResolveOptions(r, {{"demo-rule", "MinShare", 1.5, "--set"}}).status();
  EXPECT_TRUE(absl::IsInvalidArgument(range));
  EXPECT_THAT(std::string(range.message()), HasSubstr("outside [0, 1]"));
}

TEST(ConfigTextTest, JsonAndTomlGiveTheSameOverrides) {
  auto json = ParseConfigText(R"({"demo-rule": {"MinShare": 0.2, "MinSelfNs": 5000}})",
                              ConfigFormat::kJson, "c.json");
  auto toml = ParseConfigText("[\"demo-rule\"]\nMinShare = 0.2\nMinSelfNs = 5000\n",
                              ConfigFormat::kToml, "c.toml");
  ASSERT_TRUE(json.ok()) << json.status();
  ASSERT_TRUE(toml.ok()) << toml.status();
  ASSERT_EQ(json->size(), 2u);
  ASSERT_EQ(toml->size(), 2u);
  // toml++ iterates keys sorted, JSON in file order; the set is what counts.
  auto by_name = [](const OptionOverride& a, const OptionOverride& b) {
    return a.option < b.option;
  };
  std::sort(json->begin(), json->end(), by_name);
  std::sort(toml->begin(), toml->end(), by_name);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ((*json)[i].rule_id, (*toml)[i].rule_id);
    EXPECT_EQ((*json)[i].option, (*toml)[i].option);
    EXPECT_DOUBLE_EQ((*json)[i].value, (*toml)[i].value);
  }
}

TEST(ConfigTextTest, MalformedConfigsAreErrors) {
  EXPECT_FALSE(ParseConfigText("{", ConfigFormat::kJson, "c.json").ok());
  EXPECT_FALSE(ParseConfigText("[1]", ConfigFormat::kJson, "c.json").ok());
  EXPECT_FALSE(ParseConfigText(R"({"demo-rule": 3})", ConfigFormat::kJson, "c.json").ok());
  EXPECT_FALSE(
      ParseConfigText(R"({"demo-rule": {"MinShare": "x"}})", ConfigFormat::kJson, "c").ok());
  EXPECT_FALSE(ParseConfigText("[demo\n", ConfigFormat::kToml, "c.toml").ok());
  EXPECT_FALSE(ParseConfigText("MinShare = 1\n", ConfigFormat::kToml, "c.toml").ok());
  EXPECT_FALSE(
      ParseConfigText("[\"demo-rule\"]\nMinShare = \"x\"\n", ConfigFormat::kToml, "c").ok());
  EXPECT_FALSE(LoadConfigFile("/nonexistent/tracelint.toml").ok());
}

TEST(DumpConfigTest, ReadsBackAsTheDefaults) {
  RuleRegistry r = OneRule();
  std::string dump = DumpConfig(r);
  EXPECT_THAT(dump, HasSubstr("[\"demo-rule\"]"));
  EXPECT_THAT(dump, HasSubstr("MinShare = 0.1"));
  EXPECT_THAT(dump, HasSubstr("shortest op reported"));
  auto back = ParseConfigText(dump, ConfigFormat::kToml, "dump");
  ASSERT_TRUE(back.ok()) << back.status();
  auto resolved = ResolveOptions(r, *back);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_DOUBLE_EQ(resolved->at("demo-rule").Get("MinSelfNs"), 100000);
  EXPECT_EQ(ListRules(r), "demo-rule  a rule with two options\n");
}

// A rule that reads an option it never declared fails its test loudly
// instead of silently reading 0 (ctest sets TRACELINT_STRICT_INVARIANTS).
TEST(RuleOptionsTest, AnUndeclaredNameAbortsUnderStrictInvariants) {
  RuleOptions options({{"MinIdleShare", 0.1}});
  EXPECT_DOUBLE_EQ(options.Get("MinIdleShare"), 0.1);
  if (std::getenv("TRACELINT_STRICT_INVARIANTS") == nullptr) {
    GTEST_SKIP() << "TRACELINT_STRICT_INVARIANTS is not set (ctest sets it)";
  }
  EXPECT_DEATH(options.Get("MinIdleShar"), "option 'MinIdleShar', which it does not declare");
}

}  // namespace
}  // namespace tracelint
