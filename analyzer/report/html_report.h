#ifndef TRACELINT_ANALYZER_REPORT_HTML_REPORT_H_
#define TRACELINT_ANALYZER_REPORT_HTML_REPORT_H_

#include <string>

#include "analyzer/report/report.h"

namespace tracelint {

// One self-contained HTML page (inline CSS and SVG, no script, no external
// resource): verdict, ranked findings (expandable to evidence and fix), the
// step breakdown and GPU utilization per step, a per-rank chart for
// multi-rank runs, the top kernels and ops, and the timeline of the worst
// step. A reporter beside text and JSON over the same ReportInput; every
// string from the trace is escaped.
std::string RenderHtmlReport(const ReportInput& input);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_REPORT_HTML_REPORT_H_
