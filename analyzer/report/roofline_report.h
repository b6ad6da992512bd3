#ifndef TRACELINT_ANALYZER_REPORT_ROOFLINE_REPORT_H_
#define TRACELINT_ANALYZER_REPORT_ROOFLINE_REPORT_H_

// The roofline (analysis/roofline.h) in each format: JSON's ranks[].roofline,
// the text report's "Where the device time goes" block, the HTML report's
// family bar and roofline chart. One function per block, so the reporters
// call them in one line each.

#include <string>
#include <string_view>

#include "analyzer/analysis/roofline.h"
#include "analyzer/report/json_writer.h"

namespace tracelint {

// The value of ranks[].roofline (report.schema.json, $defs/roofline).
void WriteRooflineJson(JsonWriter& w, const RankRoofline& r);

// The text block, without its heading; "" when the rank has no device time.
// `width` is the terminal width (0: no limit), `verbose` shows every family.
std::string RooflineTextBlock(const RankRoofline& r, size_t width, bool verbose);

namespace html {
// Stacked bars of device time per kernel family, one per analysed step.
std::string FamilyBarChart(const RankRoofline& r, std::string_view id_suffix);
// Log-log roofline of the top ops: achieved TFLOP/s against FLOP per byte,
// under the device's compute and bandwidth roofs. Empty without a peak or
// without a modelled op.
std::string RooflineChart(const RankRoofline& r, std::string_view id_suffix);
// Both charts with their headings and a table of the families (HTML).
std::string RooflineSection(const RankRoofline& r, std::string_view id_suffix);
}  // namespace html

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_REPORT_ROOFLINE_REPORT_H_
