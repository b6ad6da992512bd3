#ifndef TRACELINT_ANALYZER_REPORT_HTML_CHARTS_H_
#define TRACELINT_ANALYZER_REPORT_HTML_CHARTS_H_

// The HTML report's charts as inline SVG: no script, so a page opened from a
// CI artifact or a mail attachment renders the same everywhere and prints.
// Hover texts are SVG <title> elements (the browser's own tooltip). Every
// string from the trace goes through EscapeHtml.

#include <string>
#include <string_view>

#include "analyzer/analysis/step_metrics.h"
#include "analyzer/report/report.h"

namespace tracelint::html {

// Colours of the step breakdown categories (StepCategory order).
std::string_view CategoryColor(int category);
std::string_view CategoryLabel(int category);

// A step is an outlier when it is this many times the median step or more.
inline constexpr double kOutlierFactor = 1.5;

// Stacked bars of the step breakdown of summary device `device_pos`, one bar
// per analysed step; outlier steps get a red marker. Empty without steps.
std::string StepBreakdownChart(const StepMetrics& m, size_t device_pos);

// GPU utilization per step, one line per device. Empty without steps.
std::string UtilizationChart(const StepMetrics& m);

// For several ranks: per rank, the mean step, GPU idle, communication and
// communication wait per step, side by side. Empty for one rank.
std::string RankChart(const ReportInput& in);

// The legend of the breakdown categories (HTML).
std::string CategoryLegend();

}  // namespace tracelint::html

#endif  // TRACELINT_ANALYZER_REPORT_HTML_CHARTS_H_
