#ifndef TRACELINT_ANALYZER_DIFF_DIFF_INPUT_H_
#define TRACELINT_ANALYZER_DIFF_DIFF_INPUT_H_

// What `tracelint diff` compares of one run, built either from a fresh
// analysis or from a saved JSON report (--format json), so both inputs give
// the same numbers: the steady steps' values, all kernels and ops, and the
// findings by fingerprint.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/analysis/run_diff.h"
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/base/time.h"
#include "analyzer/report/report.h"

namespace tracelint {

// The steps every per-step statistic of a diff uses: the rows of the step
// metrics, i.e. the steps AnalysisContext::steps() holds, which are the
// steady ones only (warm-up, capture and compile steps are left out;
// docs/steady-state.md). A rank with none gives no sample, and the diff
// refuses to compare it (exit 5) rather than compare empty samples. If
// steadiness ever becomes a flag on StepRow instead, filter here (and only
// here).
std::vector<const StepRow*> SteadyStepSamples(const StepMetrics& metrics);

DiffRun DiffRunFromAnalysis(const ReportInput& input);

// Reads a report written by RenderJsonReport. Errors: not JSON, not a
// tracelint report, or a schema_version this build does not read.
absl::StatusOr<DiffRun> DiffRunFromJsonReport(std::string_view json, std::string label);

// True when `path` is a file that starts like a tracelint JSON report (its
// first bytes name the tool), as opposed to a trace.
bool IsJsonReportFile(const std::string& path);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_DIFF_DIFF_INPUT_H_
