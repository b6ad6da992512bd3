#ifndef TRACELINT_RULES_RULE_TEST_UTIL_H_
#define TRACELINT_RULES_RULE_TEST_UTIL_H_

// Test-only helpers for the gpu-idle-gaps and host-side-ops tests.

#include <cmath>
#include <map>
#include <memory>
#include <string>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/engine/rule.h"
#include "analyzer/testing/scenario.h"
#include "gtest/gtest.h"

namespace tracelint::rule_test {

inline RuleOptions OptionsOf(const Rule& rule, std::map<std::string, double> overrides = {}) {
  std::map<std::string, double> values;
  for (const RuleOptionSpec& spec : rule.options()) values[spec.name] = spec.default_value;
  for (const auto& [name, value] : overrides) {
    EXPECT_TRUE(values.contains(name)) << "undeclared option " << name;
    values[name] = value;
  }
  return RuleOptions(std::move(values));
}

// Runs a rule on a scenario and checks what every outcome must satisfy.
inline RuleOutcome RunRule(const Rule& rule, const testing::Scenario& s,
                       std::map<std::string, double> overrides = {}) {
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  EXPECT_TRUE(tl.ok()) << tl.status();
  AnalysisContext ctx(*tl);
  RuleOutcome out = rule.Check(ctx, OptionsOf(rule, std::move(overrides)));
  EXPECT_TRUE(out.applicable || !out.not_judged_reason.empty());
  EXPECT_TRUE(out.applicable || out.findings.empty());
  for (const Finding& f : out.findings) {
    EXPECT_TRUE(f.rule_id.empty()) << "rules never stamp their id";
    EXPECT_GE(f.recoverable_ns_per_step, 0);
    EXPECT_TRUE(std::isfinite(f.recoverable_share));
    EXPECT_GE(f.recoverable_share, 0);
    EXPECT_LE(f.recoverable_share, 1);
    EXPECT_FALSE(f.title.empty());
    EXPECT_FALSE(f.fix.empty());
    EXPECT_FALSE(f.cause.empty());
    for (const Evidence& e : f.evidence) {
      EXPECT_TRUE(std::isfinite(e.value)) << e.text;
      EXPECT_TRUE(std::isfinite(e.threshold)) << e.text;
    }
  }
  return out;
}

inline const Finding* FindCause(const RuleOutcome& out, std::string_view cause) {
  for (const Finding& f : out.findings) {
    if (f.cause == cause) return &f;
  }
  return nullptr;
}

}  // namespace tracelint::rule_test

#endif  // TRACELINT_RULES_RULE_TEST_UTIL_H_
