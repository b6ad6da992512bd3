#ifndef TRACELINT_ANALYZER_REPORT_DIFF_INPUT_H_
#define TRACELINT_ANALYZER_REPORT_DIFF_INPUT_H_

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
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/base/time.h"
#include "analyzer/report/report.h"

namespace tracelint {

// One step of the rank's primary device (the one with the most kernel busy
// time; a rank's steps are the same on all its devices, its utilization and
// breakdown are not).
struct DiffStep {
  int64_t number = -1;
  TimeNs step_ns = 0;
  double gpu_utilization = 0;
  std::array<TimeNs, kStepCategoryCount> breakdown_ns{};
};

// A kernel or op and its device time over the analysed steps.
struct DiffNamedTime {
  std::string name;
  int64_t count = 0;
  TimeNs total_ns = 0;
};

struct DiffRank {
  int rank = 0;
  std::string accelerator = "GPU";  // "TPU", "MTIA": what the labels call the device
  int64_t analysed_steps = 0;  // divides kernel and op times into per-step values
  // The largest allocated peak of the rank's devices and that device's
  // memory (analysis/memory_usage.h); -1 when not recorded or unknown.
  int64_t peak_allocated_bytes = -1;
  int64_t device_memory_bytes = -1;
  std::vector<DiffStep> steady_steps;
  std::vector<DiffNamedTime> kernels;
  std::vector<DiffNamedTime> ops;
};

struct DiffFinding {
  std::string fingerprint;
  std::string rule_id;
  std::string cause;
  std::string title;
  std::string severity;
  int rank = -1;
  TimeNs recoverable_ns_per_step = 0;
  // Per steady step (Finding::recoverable_ns_steps); empty when the rule
  // gives only the mean, or the report predates the field.
  std::vector<TimeNs> recoverable_ns_steps;
  double recoverable_share = 0;
  TimeNs one_time_ns = 0;
};

struct DiffRun {
  std::string label;  // the path given on the command line
  // The run's verdict (report_data.h): a run analyze cannot judge (a
  // fragment, no device activity) makes a diff with it exit 5 as well.
  bool judgeable = true;
  std::string verdict_line;
  std::vector<DiffRank> ranks;
  std::vector<DiffFinding> findings;  // ranked, as the report lists them
};

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

#endif  // TRACELINT_ANALYZER_REPORT_DIFF_INPUT_H_
