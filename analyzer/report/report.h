#ifndef TRACELINT_ANALYZER_REPORT_REPORT_H_
#define TRACELINT_ANALYZER_REPORT_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/engine/finding.h"
#include "analyzer/model/timeline.h"

namespace tracelint {

struct RunDiff;  // diff.h

// The JSON report's "schema_version"; bump it with report.schema.json.
inline constexpr int kReportSchemaVersion = 1;

struct ReportOptions {
  int top_n = 10;             // rows of the top kernels / top ops tables
  int64_t batch_size = 0;     // samples per step per rank; 0: no throughput
  double price_per_hour = 0;  // of all machines of the run; 0: no samples per dollar
};

// Everything a report shows. `ranks` and `contexts` are parallel (one
// context per rank timeline); findings arrive ranked.
struct ReportInput {
  std::string input_path;
  std::vector<const Timeline*> ranks;
  std::vector<AnalysisContext*> contexts;
  std::vector<Finding> findings;        // ranked
  std::vector<RuleOutcome> not_judged;  // rules that could not analyse
  std::vector<std::string> warnings;
  ReportOptions options;
  const RunDiff* baseline_diff = nullptr;  // analyze --baseline
};

std::string RenderTextReport(const ReportInput& input);
// Described by analyzer/report/report.schema.json.
std::string RenderJsonReport(const ReportInput& input);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_REPORT_REPORT_H_
