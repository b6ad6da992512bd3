#ifndef TRACELINT_ANALYZER_DIFF_DIFF_REPORT_H_
#define TRACELINT_ANALYZER_DIFF_DIFF_REPORT_H_

#include <string>

#include "analyzer/analysis/run_diff.h"
#include "analyzer/report/json_writer.h"

namespace tracelint {

// The diff JSON's "schema_version"; bump it with diff.schema.json.
inline constexpr int kDiffSchemaVersion = 1;

// `width_columns`: the terminal's width (0: no limit). Under the full
// table's width (kDiffFullWidth) the metric table keeps the medians, the
// shift and the verdict (JSON and --width 0 keep everything), findings
// take two lines and names are cut to fit.
inline constexpr int kDiffFullWidth = 170;
std::string RenderDiffText(const RunDiff& diff, int width_columns = 0);
std::string RenderDiffMarkdown(const RunDiff& diff);
// Described by analyzer/diff/diff.schema.json.
std::string RenderDiffJson(const RunDiff& diff);
// The same object as RenderDiffJson, written into a larger document (the
// analyze report's "baseline_diff").
void WriteDiffJson(JsonWriter& w, const RunDiff& diff);

// One line: "step time +12.3% (95% interval +10.1% .. +14.0%), beyond noise".
std::string StepTimeVerdict(const RunDiff& diff);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_DIFF_DIFF_REPORT_H_
