// Golden tests over testdata/rules: each case-study trace -> the ranked
// findings, compared with testdata/rules/<name>.expected.txt. An unexpected
// finding, a missing one, or a saving that moved by a microsecond fails.
// The same comparison runs on the checked-in Kineto JSON through the real
// parser, so the file and the in-memory scenario stay the same trace.
//
// TRACELINT_REGENERATE_TESTDATA=1 rewrites the JSON and expected files.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "parsers/format_registry.h"
#include "rules/all_rules.h"
#include "testdata/rules/case_studies.h"

namespace tracelint {
namespace {

using case_studies::CaseStudy;

std::string SourceDir() {
  const char* root = std::getenv("TRACELINT_SOURCE_DIR");
  return root == nullptr ? std::string() : std::string(root);
}

bool Regenerate() {
  const char* r = std::getenv("TRACELINT_REGENERATE_TESTDATA");
  return r != nullptr && std::string(r) == "1";
}

absl::StatusOr<EngineResult> RunAll(const std::vector<const Timeline*>& ranks) {
  RuleRegistry registry;
  RegisterAllRules(registry);
  std::vector<std::unique_ptr<AnalysisContext>> contexts;
  std::vector<AnalysisContext*> ptrs;
  for (const Timeline* tl : ranks) {
    contexts.push_back(std::make_unique<AnalysisContext>(*tl));
    ptrs.push_back(contexts.back().get());
  }
  return RunRules(registry, EngineOptions{}, ptrs);
}

// One line per finding in rank order, then what could not be judged.
std::string Summarize(const EngineResult& r) {
  std::string out;
  for (const Finding& f : r.findings) {
    out += fmt::format("{} {} {} {}us\n", f.rule_id, f.cause, FindingSeverityName(f.severity),
                       (f.recoverable_ns_per_step + 500) / 1000);
  }
  for (const RuleOutcome& o : r.not_judged) {
    out += fmt::format("not-judged {}: {}\n", o.rule_id, o.not_judged_reason);
  }
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return in ? text.str() : std::string();
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

class GoldenTest : public ::testing::TestWithParam<CaseStudy> {};

TEST_P(GoldenTest, FindingsMatchExpectedFile) {
  const CaseStudy& c = GetParam();
  absl::StatusOr<Timeline> tl = c.scenario.BuildTimeline();
  ASSERT_TRUE(tl.ok()) << tl.status();
  absl::StatusOr<EngineResult> result = RunAll({&*tl});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->warnings.empty()) << result->warnings.front();
  double share_sum = 0;
  for (const Finding& f : result->findings) {
    EXPECT_TRUE(std::isfinite(f.recoverable_share));
    share_sum += f.recoverable_share;
  }
  EXPECT_LE(share_sum, 1.0);
  std::string actual = Summarize(*result);
  if (std::getenv("TRACELINT_PRINT_FINDINGS") != nullptr) {
    // For the doc pages' examples.
    for (const Finding& f : result->findings) {
      std::string top;
      for (const TopItem& t : f.location.top_items) {
        top += fmt::format("{}{} ({})", top.empty() ? "" : ", ", t.name, t.detail);
      }
      std::printf("[%s] %s (%s)\n  %s\n  %s\n  top: %s\n  fix: %s\n",
                  std::string(FindingSeverityName(f.severity)).c_str(), f.rule_id.c_str(),
                  f.cause.c_str(), f.title.c_str(), f.message.c_str(), top.c_str(),
                  f.fix.c_str());
      for (const Evidence& e : f.evidence) std::printf("  evidence: %s\n", e.text.c_str());
    }
  }

  std::string root = SourceDir();
  if (root.empty()) GTEST_SKIP() << "TRACELINT_SOURCE_DIR not set (run under ctest)";
  std::string stem = root + "/testdata/rules/" + c.name;
  absl::StatusOr<std::string> json = c.scenario.ToKinetoJson();
  ASSERT_TRUE(json.ok());
  if (Regenerate()) {
    WriteFile(stem + ".json", *json);
    WriteFile(stem + ".expected.txt", actual);
  }
  EXPECT_EQ(actual, ReadFile(stem + ".expected.txt"))
      << c.name << ": regenerate with TRACELINT_REGENERATE_TESTDATA=1 if intended";
  EXPECT_TRUE(ReadFile(stem + ".json") == *json)
      << stem << ".json is stale; regenerate with TRACELINT_REGENERATE_TESTDATA=1";

  // The checked-in file through the real parser gives the same findings.
  absl::StatusOr<Timeline> parsed = ParseTraceFile(stem + ".json", ParseOptions{});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  absl::StatusOr<EngineResult> from_file = RunAll({&*parsed});
  ASSERT_TRUE(from_file.ok());
  EXPECT_EQ(Summarize(*from_file), actual) << "parsed " << stem << ".json";
}

INSTANTIATE_TEST_SUITE_P(CaseStudies, GoldenTest,
                         ::testing::ValuesIn(case_studies::AllCaseStudies()),
                         [](const ::testing::TestParamInfo<CaseStudy>& info) {
                           return info.param.name;
                         });

// The case studies: the main cause ranks first, the smaller one
// right after it, each within 5% of what the trace was built to lose.
void ExpectTopTwo(const testing::Scenario& s, std::string_view first_rule,
                  std::string_view first_cause, TimeNs first_ns, std::string_view second_rule,
                  std::string_view second_cause, TimeNs second_ns) {
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  ASSERT_TRUE(tl.ok());
  absl::StatusOr<EngineResult> r = RunAll({&*tl});
  ASSERT_TRUE(r.ok());
  ASSERT_GE(r->findings.size(), 2u) << Summarize(*r);
  const Finding& a = r->findings[0];
  const Finding& b = r->findings[1];
  EXPECT_EQ(a.rule_id, first_rule);
  EXPECT_EQ(a.cause, first_cause);
  EXPECT_NEAR(a.recoverable_ns_per_step, first_ns, first_ns * 0.05);
  EXPECT_EQ(b.rule_id, second_rule);
  EXPECT_EQ(b.cause, second_cause);
  EXPECT_NEAR(b.recoverable_ns_per_step, second_ns, second_ns * 0.05);
}

TEST(CaseStudyRankingTest, DataLoaderStarvationThenItem) {
  ExpectTopTwo(case_studies::DataLoaderStarvation(), "gpu-idle-gaps", "data_loader",
               case_studies::kLoaderNs, "host-side-ops", "sync_call",
               case_studies::kAfterItemHostNs);
}

TEST(CaseStudyRankingTest, ItemInLoopThenHostOp) {
  ExpectTopTwo(case_studies::ItemInLoop(), "host-side-ops", "sync_call",
               case_studies::kLogAfterItemNs, "host-side-ops", "host_side_op",
               case_studies::kNumpyIdleNs);
}

TEST(MultiRankTest, OneFindingPerCauseAtTheWorstRank) {
  // Rank 1 loads data 1.5x slower than rank 0.
  std::vector<Timeline> timelines;
  for (int rank = 0; rank < 2; ++rank) {
    testing::Scenario s;
    s.Device(testing::DeviceSpec::A100()).Distributed(rank, 2);
    for (int k = 1; k <= 3; ++k) {
      s.BeginStep(k).DataLoaderNext((rank == 0 ? 8 : 12) * kNsPerMs);
      s.OpKernels("aten::mm", "ampere_bf16_s16816gemm_bf16_128x128", 10, kNsPerMs, 30 * kNsPerUs);
      s.Sync().EndStep();
    }
    absl::StatusOr<Timeline> tl = s.BuildTimeline();
    ASSERT_TRUE(tl.ok());
    timelines.push_back(std::move(*tl));
  }
  absl::StatusOr<EngineResult> r = RunAll({&timelines[0], &timelines[1]});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->findings.size(), 1u) << Summarize(*r);
  const Finding& f = r->findings[0];
  EXPECT_EQ(f.cause, "data_loader");
  EXPECT_EQ(f.location.rank, 1);
  EXPECT_NEAR(f.recoverable_ns_per_step, 12 * kNsPerMs, 0.05 * 12 * kNsPerMs);
  ASSERT_EQ(f.per_rank.size(), 2u);
  EXPECT_EQ(f.per_rank[0].rfind("rank 0: 8", 0), 0u) << f.per_rank[0];
  EXPECT_EQ(f.per_rank[1].rfind("rank 1: 12", 0), 0u) << f.per_rank[1];
}

}  // namespace
}  // namespace tracelint
