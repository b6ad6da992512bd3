#ifndef TRACELINT_ANALYZER_REPORT_DIFF_REPORT_H_
#define TRACELINT_ANALYZER_REPORT_DIFF_REPORT_H_

#include <string>

#include "analyzer/report/diff.h"
#include "analyzer/report/json_writer.h"

namespace tracelint {

// The diff JSON's "schema_version"; bump it with diff.schema.json.
inline constexpr int kDiffSchemaVersion = 1;

std::string RenderDiffText(const RunDiff& diff);
std::string RenderDiffMarkdown(const RunDiff& diff);
// Described by analyzer/report/diff.schema.json.
std::string RenderDiffJson(const RunDiff& diff);
// The same object as RenderDiffJson, written into a larger document (the
// analyze report's "baseline_diff").
void WriteDiffJson(JsonWriter& w, const RunDiff& diff);

// One line: "step time +12.3% (95% interval +10.1% .. +14.0%), beyond noise".
std::string StepTimeVerdict(const RunDiff& diff);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_REPORT_DIFF_REPORT_H_
