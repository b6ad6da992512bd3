#ifndef TRACELINT_ANALYZER_REPORT_HTML_CHARTS_H_
#define TRACELINT_ANALYZER_REPORT_HTML_CHARTS_H_

// The HTML report's charts as inline SVG: no script, so a page opened from a
// CI artifact or a mail attachment renders the same everywhere and prints.
// Hover texts are SVG <title> elements (the browser's own tooltip). Every
// string from the trace goes through EscapeHtml.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis/memory_usage.h"
#include "analyzer/analysis/outlier_steps.h"
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/report/report.h"

namespace tracelint::html {

// Colours of the step breakdown categories (StepCategory order).
std::string_view CategoryColor(int category);
std::string_view CategoryLabel(int category);

// Chart geometry in SVG user units; the SVG scales to the page width.
inline constexpr double kChartWidth = 960;

// Per-step charts draw at most this many bars or points: a longer run is
// drawn in slots of consecutive steps (their means, the slowest step named),
// so the page stays small however many steps the trace holds.
inline constexpr size_t kMaxChartSlots = 200;

// `<svg class="chart" id=...>` with the viewBox of a chart `width` x
// `height` units; `label` (escaped here) is its accessible name.
std::string OpenSvg(std::string_view id, double height, std::string_view label,
                    double width = kChartWidth);

// One bar of a per-step breakdown chart.
struct BreakdownBar {
  int64_t number = -1;  // the step number shown under the bar
  TimeNs step_ns = 0;
  bool outlier = false;  // an outlier step (analysis/outlier_steps.h)
  std::array<TimeNs, kStepCategoryCount> breakdown_ns{};
};

// Stacked bars of the step breakdown, one per step (per slot of steps past
// kMaxChartSlots), scaled to `max_ns` (0: the tallest bar; two charts side
// by side pass the same scale); an outlier step (the slowest of a slot
// holding one) gets a red marker on its bar. `width` in SVG units: a
// chart shown at half the page width passes about half, so its text stays
// the size of the other charts'. Empty without bars.
std::string BreakdownBarChart(std::string_view id, std::string_view label,
                              const std::vector<BreakdownBar>& bars, TimeNs max_ns = 0,
                              double width = kChartWidth);

// Stacked bars of the step breakdown of summary device `device_pos`, one bar
// per analysed step; the rank's outlier steps (indices into m.steps) get a
// red marker. Empty without steps. `id_suffix` keeps the ids of several
// ranks' charts apart ("-r1").
std::string StepBreakdownChart(const StepMetrics& m, const OutlierSteps& outliers,
                               size_t device_pos, std::string_view accelerator,
                               std::string_view id_suffix = "");

// GPU (TPU, ...) utilization per step, one line per device. Empty without
// steps.
std::string UtilizationChart(const StepMetrics& m, std::string_view accelerator,
                             std::string_view id_suffix = "");

// For several ranks: per rank, the mean step, GPU idle, communication and
// communication wait per step, side by side. Empty for one rank.
std::string RankChart(const ReportInput& in);

// The legend of the breakdown categories (HTML).
std::string CategoryLegend();

// The allocator's totals on one device over the window (memory_usage.h):
// allocated and reserved as step lines, the device's memory as a dashed
// line when it is within reach of the curves. Empty without a curve.
std::string MemoryChart(const DeviceMemoryUsage& m, std::string_view accelerator,
                        std::string_view id_suffix = "");

// A kernel or op name for a table cell: escaped; a short one never broken
// (no "host_sil ent"), a long one breakable only after its separators
// (::, _, ., commas, brackets), never inside a word.
inline constexpr size_t kUnbrokenNameChars = 32;
std::string BreakableName(std::string_view name);

// An escaped path whose lines may break after each '/' (a long trace path
// in a narrow window), never inside a folder's name.
inline std::string BreakablePath(std::string_view escaped) {
  std::string out;
  for (char c : escaped) {
    out += c;
    if (c == '/') out += "<wbr>";
  }
  return out;
}

}  // namespace tracelint::html

#endif  // TRACELINT_ANALYZER_REPORT_HTML_CHARTS_H_
