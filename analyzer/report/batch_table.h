#ifndef TRACELINT_ANALYZER_REPORT_BATCH_TABLE_H_
#define TRACELINT_ANALYZER_REPORT_BATCH_TABLE_H_

// `tracelint batch`: one row per run, rendered as a text table, Markdown (a
// PR comment), CSV or JSON (batch.schema.json).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/base/time.h"
#include "analyzer/report/report.h"

namespace tracelint {

// The batch JSON's "schema_version"; bump it with batch.schema.json.
inline constexpr int kBatchSchemaVersion = 1;

enum class BatchStatus { kOk, kDamaged, kError };
std::string_view BatchStatusName(BatchStatus status);  // "ok", "damaged", "error"

struct BatchRow {
  std::string run;  // the path analysed
  BatchStatus status = BatchStatus::kOk;
  std::string error;  // why the run is damaged or could not be read
  int ranks = 0;
  // The slowest rank (largest mean step) sets the pace of a synchronous
  // run, so its steps stand for the run.
  int64_t steps = 0;
  TimeNs mean_step_ns = 0;
  // Mean over ranks and their devices with GPU activity of the TensorBoard
  // plugin's GPU utilization (report.schema.json gpu_utilization); none
  // when no rank has device activity.
  std::optional<double> gpu_utilization;
  int findings = 0;
  TimeNs recoverable_ns_per_step = 0;  // sum over findings (SummarizeFindings)
  double recoverable_share = 0;        // of the mean step, capped at 1
  std::string top_finding;             // "rule-id/cause" of the top-ranked finding
  TimeNs top_ns_per_step = 0;
  double top_share = 0;
};

// The row of an analysed run (status kOk; the caller sets damage).
BatchRow SummarizeRunForBatch(const ReportInput& input);

// Runs in the order given. `format`: text, markdown, csv or json.
std::string RenderBatch(const std::vector<BatchRow>& rows, std::string_view format);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_REPORT_BATCH_TABLE_H_
