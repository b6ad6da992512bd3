#ifndef TRACELINT_ANALYZER_BATCH_BATCH_TABLE_H_
#define TRACELINT_ANALYZER_BATCH_BATCH_TABLE_H_

// `tracelint batch`: one row per run, rendered as a text table, Markdown (a
// PR comment), CSV or JSON (batch.schema.json), with the fleet sections
// (groups, trend) that batch_fleet.h computes.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis/fleet.h"
#include "analyzer/base/time.h"
#include "analyzer/report/report.h"

namespace tracelint {

// The batch JSON's "schema_version"; bump it with batch.schema.json.
inline constexpr int kBatchSchemaVersion = 1;

// "GPU util" when every analysed row is a GPU run ("TPU util" for TPUs),
// "util" over a mix: the utilization column's header.
std::string UtilizationHeader(const std::vector<BatchRow>& rows);

// The row of an analysed run (status kOk; the caller sets damage).
BatchRow SummarizeRunForBatch(const ReportInput& input);

// The batch output formats, registered here once: --format's choices and
// help are built from this table.
struct BatchFormat {
  std::string_view name;
  std::string_view help;
  std::string (*render)(const BatchTable& table);  // nullptr: written by the command (jsonl)
};
const std::vector<BatchFormat>& BatchFormats();
std::vector<std::string> BatchFormatNames();

// `format`: a BatchFormats() name with a render function.
std::string RenderBatch(const BatchTable& table, std::string_view format);
// Runs in the order given, no fleet sections.
std::string RenderBatch(const std::vector<BatchRow>& rows, std::string_view format);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_BATCH_BATCH_TABLE_H_
