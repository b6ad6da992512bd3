#ifndef TRACELINT_TESTS_SUPPORT_RANKING_H_
#define TRACELINT_TESTS_SUPPORT_RANKING_H_

// The whole ranking of one generated trace, as the whole-ranking tests
// assert it: every rule runs on it, as `tracelint analyze` would run them,
// so a finding that appears, vanishes, moves or claims more than the trace
// allows changes the text.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/trace_integrity.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "analyzer/report/report_data.h"
#include "tests/support/scenario.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "rules/all_rules.h"

namespace tracelint::testing {

// The run kept alive, for tests that also assert what the analyses behind
// the ranking found (steps, notes, verdict). The context points into the
// timeline, so both live on the heap and move together.
struct RankedTrace {
  std::unique_ptr<Timeline> timeline;
  std::unique_ptr<AnalysisContext> context;
  EngineResult result;
  // "integrity <verdict>", then "rule cause confidence share%" per finding
  // in rank order, then "withheld rule cause" per withheld finding; empty
  // when the trace or the engine failed (the test has failed already).
  std::string ranking;
};

// The same for a timeline parsed from a file of another format.
inline RankedTrace RankAll(absl::StatusOr<Timeline> tl) {
  RankedTrace out;
  EXPECT_TRUE(tl.ok()) << tl.status();
  if (!tl.ok()) return out;
  out.timeline = std::make_unique<Timeline>(std::move(*tl));
  out.context = std::make_unique<AnalysisContext>(*out.timeline);
  RuleRegistry registry;
  RegisterAllRules(registry);
  std::vector<AnalysisContext*> ranks = {out.context.get()};
  absl::StatusOr<EngineResult> r = RunRules(registry, EngineOptions{}, ranks);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return out;
  out.result = std::move(*r);
  EXPECT_TRUE(out.result.warnings.empty()) << out.result.warnings.front();
  out.ranking =
      fmt::format("integrity {}\n", IntegrityVerdictName(out.context->trace_integrity().verdict));
  for (const Finding& f : out.result.findings) {
    out.ranking += fmt::format("{} {} {} {:.0f}%\n", f.rule_id, f.cause,
                               ConfidenceName(f.confidence), f.recoverable_share * 100);
  }
  for (const RuleOutcome& o : out.result.not_judged) {
    size_t at = o.not_judged_reason.find(" withheld: ");
    if (at != std::string::npos) {
      out.ranking += fmt::format("withheld {} {}\n", o.rule_id, o.not_judged_reason.substr(0, at));
    }
  }
  return out;
}

inline RankedTrace RankAll(const Scenario& s) { return RankAll(s.BuildTimeline()); }

// The run's verdict as every report states it (ReportInput's summary).
inline Verdict VerdictOf(RankedTrace& r) {
  ReportInput input;
  input.ranks = {r.timeline.get()};
  input.contexts = {r.context.get()};
  AttachRecords(input);
  input.findings = r.result.findings;
  input.not_judged = r.result.not_judged;
  return input.summary().verdict;
}

// The finding of `rule` with `cause`, or nullptr.
inline const Finding* FindingOf(const RankedTrace& r, std::string_view rule,
                                std::string_view cause) {
  for (const Finding& f : r.result.findings) {
    if (f.rule_id == rule && f.cause == cause) return &f;
  }
  return nullptr;
}

inline std::string Ranking(const Scenario& s) { return RankAll(s).ranking; }

}  // namespace tracelint::testing

#endif  // TRACELINT_TESTS_SUPPORT_RANKING_H_
