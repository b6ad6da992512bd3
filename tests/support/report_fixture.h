#ifndef TRACELINT_TESTS_SUPPORT_REPORT_FIXTURE_H_
#define TRACELINT_TESTS_SUPPORT_REPORT_FIXTURE_H_

// Tests of the HTML and annotate reporters: a Scenario written as Kineto
// JSON, parsed and analysed as a user's trace is, into a ReportInput.

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "analyzer/report/report.h"
#include "tests/support/scenario.h"
#include "gtest/gtest.h"
#include "parsers/format_registry.h"
#include "rules/all_rules.h"

namespace tracelint::report_fixture {

// A data-loader-bound run: `steps` steps, the step `slow_step` (if >= 0)
// with a four times longer data loader wait; kernel and op names as given.
inline testing::Scenario LoaderBound(int steps, int slow_step, const std::string& kernel,
                                     const std::string& op) {
  testing::Scenario s;
  s.Device(testing::DeviceSpec::A100());
  for (int k = 0; k < steps; ++k) {
    s.BeginStep(k + 1).DataLoaderNext((k == slow_step ? 32 : 8) * kNsPerMs);
    s.BeginOp(op).Kernel(kernel, 2 * kNsPerMs).End();
    s.CopyH2D(64 << 20, 3 * kNsPerMs, MemorySpace::kPageable);
    s.OpKernels("aten::add", "vectorized_elementwise_kernel", 4, 200 * kNsPerUs, 20 * kNsPerUs);
    s.Sync().EndStep();
  }
  return s;
}

struct Analysed {
  std::filesystem::path trace_path;
  std::vector<std::unique_ptr<Timeline>> timelines;
  std::vector<std::unique_ptr<AnalysisContext>> contexts;
  ReportInput input;
};

// Writes each scenario (one per rank) to `dir` and analyses them as one run.
// `edit` (when given) changes each rank's JSON text before it is written.
inline std::unique_ptr<Analysed> Analyse(
    const std::vector<testing::Scenario>& ranks, const std::string& name,
    const std::function<std::string(std::string)>& edit = nullptr) {
  auto a = std::make_unique<Analysed>();
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / ("tl_report_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  a->trace_path = dir;
  for (size_t r = 0; r < ranks.size(); ++r) {
    absl::StatusOr<std::string> json = ranks[r].ToKinetoJson();
    EXPECT_TRUE(json.ok()) << json.status();
    if (!json.ok()) return a;
    std::filesystem::path file = dir / ("rank" + std::to_string(r) + ".pt.trace.json");
    std::ofstream(file, std::ios::binary) << (edit ? edit(*json) : *json);
    absl::StatusOr<Timeline> tl = ParseTraceFile(file.string(), ParseOptions());
    EXPECT_TRUE(tl.ok()) << tl.status();
    if (!tl.ok()) return a;
    a->timelines.push_back(std::make_unique<Timeline>(std::move(*tl)));
    a->contexts.push_back(std::make_unique<AnalysisContext>(*a->timelines.back()));
    a->input.ranks.push_back(a->timelines.back().get());
    a->input.contexts.push_back(a->contexts.back().get());
  }
  RuleRegistry registry;
  RegisterAllRules(registry);
  absl::StatusOr<EngineResult> result = RunRules(registry, EngineOptions(), a->input.contexts);
  EXPECT_TRUE(result.ok()) << result.status();
  if (result.ok()) {
    a->input.findings = std::move(result->findings);
    a->input.not_judged = std::move(result->not_judged);
  }
  AttachRecords(a->input);
  a->input.input_path = dir.string();
  return a;
}

inline size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t p = haystack.find(needle); p != std::string::npos; p = haystack.find(needle, p + 1)) {
    ++n;
  }
  return n;
}

}  // namespace tracelint::report_fixture

#endif  // TRACELINT_TESTS_SUPPORT_REPORT_FIXTURE_H_
