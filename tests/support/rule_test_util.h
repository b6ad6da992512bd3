#ifndef TRACELINT_TESTS_SUPPORT_RULE_TEST_UTIL_H_
#define TRACELINT_TESTS_SUPPORT_RULE_TEST_UTIL_H_

// What rule tests share: a rule run on a scenario or timeline with its
// declared options, the checks every outcome must pass, the whole ranking
// through the engine, and the rules2 testdata comparison.

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "analyzer/engine/rule.h"
#include "tests/support/scenario.h"
#include "gtest/gtest.h"
#include "rules/all_rules.h"

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

// Every number a rule emits is finite and every share within [0, 1].
inline void ExpectSane(const RuleOutcome& outcome) {
  EXPECT_TRUE(outcome.applicable || !outcome.not_judged_reason.empty());
  EXPECT_TRUE(outcome.applicable || outcome.findings.empty());
  for (const Finding& f : outcome.findings) {
    EXPECT_TRUE(f.rule_id.empty()) << "rules never stamp their id";
    EXPECT_EQ(f.severity, Finding().severity) << "the engine is the only writer of severity";
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
}

// Runs a rule on a scenario and checks what every outcome must satisfy.
inline RuleOutcome RunRule(const Rule& rule, const testing::Scenario& s,
                           std::map<std::string, double> overrides = {}) {
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  EXPECT_TRUE(tl.ok()) << tl.status();
  AnalysisContext ctx(*tl);
  RuleOutcome out = rule.Check(ctx, OptionsOf(rule, std::move(overrides)));
  ExpectSane(out);
  return out;
}

// The rule's declared defaults, with `overrides` applied (rules2 tests' name).
inline RuleOptions Options(const Rule& rule, std::map<std::string, double> overrides = {}) {
  return OptionsOf(rule, std::move(overrides));
}

inline const Finding* FindCause(const RuleOutcome& out, std::string_view cause) {
  for (const Finding& f : out.findings) {
    if (f.cause == cause) return &f;
  }
  return nullptr;
}

inline RuleOutcome RunOn(const Rule& rule, const Timeline& tl, const RuleOptions& options) {
  AnalysisContext ctx(tl);
  RuleOutcome outcome = rule.Check(ctx, options);
  ExpectSane(outcome);
  // TRACELINT_PRINT_FINDINGS=1 shows what the rule wrote (for the doc pages).
  if (std::getenv("TRACELINT_PRINT_FINDINGS") != nullptr) {
    for (const Finding& f : outcome.findings) {
      std::cerr << "[" << FindingSeverityName(f.severity) << "] (" << f.cause << ") " << f.title
                << "\n  " << f.message << "\n";
      for (const TopItem& t : f.location.top_items) {
        std::cerr << "  top: " << t.name << "  " << t.detail << "\n";
      }
      std::cerr << "  fix: " << f.fix << "\n";
    }
    if (!outcome.applicable) std::cerr << "not judged: " << outcome.not_judged_reason << "\n";
  }
  return outcome;
}

// All registered rules through the engine, ranked: what a user sees.
inline std::vector<Finding> RankedFindings(const Timeline& tl) {
  RuleRegistry registry;
  RegisterAllRules(registry);
  AnalysisContext ctx(tl);
  std::vector<AnalysisContext*> ranks = {&ctx};
  absl::StatusOr<EngineResult> result = RunRules(registry, EngineOptions{}, ranks);
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return {};
  for (const std::string& w : result->warnings) ADD_FAILURE() << "engine warning: " << w;
  return result->findings;
}

// "rule/cause" per finding, in rank order: the ranking tests assert whole.
inline std::vector<std::string> RankingOf(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const Finding& f : findings) out.push_back(f.rule_id + "/" + f.cause);
  return out;
}

inline std::string Describe(const std::vector<Finding>& findings) {
  std::string out;
  for (const Finding& f : findings) {
    out += f.rule_id + " (" + f.cause + "): " + std::to_string(f.recoverable_ns_per_step) +
           " ns/step\n";
  }
  return out;
}

// Expected value within a relative tolerance (the 5% for case studies).
inline void ExpectWithin(double actual, double expected, double rel, const std::string& what) {
  EXPECT_NEAR(actual, expected, std::abs(expected) * rel) << what;
}

// testdata/rules2/<name>: the checked-in Kineto JSON must be what the
// scenario generates, so the file and the test describe the same trace.
// TRACELINT_REGENERATE_TESTDATA=1 rewrites it.
inline void ExpectTestdataMatches(const testing::Scenario& s, const std::string& name) {
  absl::StatusOr<std::string> json = s.ToKinetoJson();
  ASSERT_TRUE(json.ok()) << json.status();
  const char* root = std::getenv("TRACELINT_SOURCE_DIR");
  if (root == nullptr) GTEST_SKIP() << "TRACELINT_SOURCE_DIR not set (run under ctest)";
  const std::string path = std::string(root) + "/testdata/rules2/" + name;
  const char* regenerate = std::getenv("TRACELINT_REGENERATE_TESTDATA");
  if (regenerate != nullptr && std::string(regenerate) == "1") {
    std::ofstream out(path, std::ios::binary);
    out << *json;
    ASSERT_TRUE(out.good()) << "cannot write " << path;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << "missing " << path
                         << " (regenerate with TRACELINT_REGENERATE_TESTDATA=1)";
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_TRUE(text.str() == *json) << path << " is stale; regenerate with "
                                   << "TRACELINT_REGENERATE_TESTDATA=1";
}

}  // namespace tracelint::rule_test

namespace tracelint {
// The behaviour-per-file rule tests (testdata/rules2) use this name.
namespace rules2_test = rule_test;
}  // namespace tracelint

#endif  // TRACELINT_TESTS_SUPPORT_RULE_TEST_UTIL_H_
