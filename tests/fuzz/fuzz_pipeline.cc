#include "tests/fuzz/fuzz_pipeline.h"

#include <cmath>
#include <memory>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "analyzer/model/timeline_invariants.h"
#include "analyzer/report/report.h"
#include "fmt/format.h"
#include "parsers/format_registry.h"
#include "rules/all_rules.h"
#include "tests/fuzz/mem_file.h"

namespace tracelint::fuzz {

const RuleRegistry& AllRules() {
  // Rules are stateless (Check is const): one registry serves every run.
  static const RuleRegistry* registry = [] {
    auto* r = new RuleRegistry();
    RegisterAllRules(*r);
    return r;
  }();
  return *registry;
}

std::string RunPipelineOnBytes(const uint8_t* data, size_t size) {
  MemFile file(data, size);
  if (!file.ok()) return "memfd_create failed";
  ParseOptions options;
  options.threads = 2;
  options.split_bytes = 4096;  // exercise the part splitting and merge
  absl::StatusOr<Timeline> tl = ParseTraceFile(file.path(), options);
  if (!tl.ok()) {
    if (tl.status().message().empty()) return "error without a message";
    return "";
  }
  if (absl::Status s = CheckTimelineInvariants(*tl); !s.ok()) {
    return fmt::format("invariants: {}", std::string(s.message()));
  }
  AnalysisContext context(*tl);
  std::vector<AnalysisContext*> ranks = {&context};
  absl::StatusOr<EngineResult> result = RunRules(AllRules(), EngineOptions(), ranks);
  if (!result.ok()) return fmt::format("engine: {}", std::string(result.status().message()));
  double share_sum = 0;
  for (const Finding& f : result->findings) {
    if (!std::isfinite(f.recoverable_share) || f.recoverable_share < 0 ||
        f.recoverable_share > 1) {
      return fmt::format("{}: recoverable share {}", f.rule_id, f.recoverable_share);
    }
    share_sum += f.recoverable_share;
  }
  // The engine's own slack (engine.cc, kShareSlack): shares are rounded
  // quotients, and a sum 5e-8 past the step is rounding, not a claim.
  if (share_sum > 1.0 + 1e-6) return fmt::format("findings claim {} of the step", share_sum);
  ReportInput input;
  input.ranks = {&*tl};
  input.contexts = {&context};
  AttachRecords(input);
  input.findings = result->findings;
  input.not_judged = result->not_judged;
  if (RenderTextReport(input).empty() || RenderJsonReport(input).empty()) return "empty report";
  return "";
}

}  // namespace tracelint::fuzz
