#include "analyzer/report/html_charts.h"

#include <algorithm>
#include <array>
#include <vector>

#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/base/escape.h"
#include "analyzer/report/report_data.h"
#include "fmt/format.h"

namespace tracelint::html {
namespace {

constexpr std::array<std::string_view, kStepCategoryCount> kCategoryColors = {
    "#4e79a7", "#f28e2b", "#edc948", "#b07aa1", "#e15759", "#ff9da7", "#9c755f", "#bab0ac"};
constexpr std::array<std::string_view, kStepCategoryCount> kCategoryLabels = {
    "Kernel", "Memcpy", "Memset", "Communication", "Runtime", "DataLoader", "CPU Exec", "Other"};
constexpr std::array<std::string_view, 6> kLineColors = {"#4e79a7", "#e15759", "#59a14f",
                                                         "#f28e2b", "#b07aa1", "#76b7b2"};

// Chart geometry in SVG user units; the SVG scales to the page width.
constexpr double kWidth = 960;
constexpr double kLeft = 70;
constexpr double kRight = 16;
constexpr double kTop = 18;
constexpr double kBottom = 34;

std::string Dur(TimeNs ns) { return FormatDurationNs(ns); }

std::string OpenSvg(std::string_view id, double height, std::string_view label) {
  return fmt::format(
      "<svg class=\"chart\" id=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"{}\" preserveAspectRatio=\"xMinYMin meet\">\n",
      id, kWidth, height, EscapeHtml(label));
}

// Horizontal grid lines with labels at 0, 1/2 and the maximum.
std::string YAxis(double plot_h, const std::array<std::string, 3>& labels) {
  std::string out;
  for (int i = 0; i < 3; ++i) {
    double y = kTop + plot_h - plot_h * i / 2.0;
    out += fmt::format(
        "<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>"
        "<text class=\"axis\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
        kLeft, kWidth - kRight, y, y, kLeft - 6, y + 4, labels[i]);
  }
  return out;
}

TimeNs MedianStepNs(const StepMetrics& m) {
  std::vector<TimeNs> d;
  for (const StepRow& r : m.steps) d.push_back(r.end_ns - r.start_ns);
  if (d.empty()) return 0;
  std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
  return d[d.size() / 2];
}

// Every k-th step number under the bars, so labels never overlap.
std::string StepLabels(const StepMetrics& m, double plot_w, double y) {
  std::string out;
  size_t n = m.steps.size();
  size_t every = std::max<size_t>(1, (n * 40 + static_cast<size_t>(plot_w) - 1) /
                                         static_cast<size_t>(plot_w));
  for (size_t i = 0; i < n; i += every) {
    double x = kLeft + plot_w * (i + 0.5) / n;
    out += fmt::format("<text class=\"axis\" x=\"{:.1f}\" y=\"{:.1f}\" "
                       "text-anchor=\"middle\">#{}</text>",
                       x, y, m.steps[i].number);
  }
  return out + "\n";
}

}  // namespace

std::string_view CategoryColor(int category) { return kCategoryColors[category]; }
std::string_view CategoryLabel(int category) { return kCategoryLabels[category]; }

std::string CategoryLegend() {
  std::string out = "<div class=\"legend\">";
  for (int c = 0; c < kStepCategoryCount; ++c) {
    out += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", kCategoryColors[c],
                       kCategoryLabels[c]);
  }
  out += "<span><i class=\"outlier-key\"></i>outlier step (&ge; 1.5&times; median)</span>";
  return out + "</div>\n";
}

std::string StepBreakdownChart(const StepMetrics& m, size_t device_pos) {
  if (m.steps.empty()) return "";
  const double height = 240;
  const double plot_h = height - kTop - kBottom;
  const double plot_w = kWidth - kLeft - kRight;
  TimeNs max_ns = 1;
  for (const StepRow& r : m.steps) max_ns = std::max(max_ns, r.end_ns - r.start_ns);
  TimeNs median_ns = MedianStepNs(m);
  int device = device_pos < m.summary.size() ? m.summary[device_pos].device : -1;
  std::string out = OpenSvg(fmt::format("breakdown-{}", device_pos), height,
                            fmt::format("step breakdown per step, {}", DeviceLabel(device)));
  out += YAxis(plot_h, {"0", Dur(max_ns / 2), Dur(max_ns)});
  size_t n = m.steps.size();
  double slot = plot_w / n;
  double bar_w = std::max(0.5, slot * 0.8);
  for (size_t i = 0; i < n; ++i) {
    const StepRow& row = m.steps[i];
    const DeviceMetrics* d = nullptr;
    for (const DeviceMetrics& dm : row.devices) {
      if (dm.device == device) d = &dm;
    }
    TimeNs step_ns = row.end_ns - row.start_ns;
    double x = kLeft + slot * i + (slot - bar_w) / 2;
    bool outlier = median_ns > 0 && step_ns >= kOutlierFactor * median_ns;
    out += fmt::format("<g class=\"bar{}\">", outlier ? " outlier" : "");
    double y = kTop + plot_h;
    if (d != nullptr) {
      for (int c = 0; c < kStepCategoryCount; ++c) {
        TimeNs v = d->breakdown_ns[c];
        if (v <= 0) continue;
        double h = plot_h * static_cast<double>(v) / max_ns;
        y -= h;
        out += fmt::format(
            "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\">"
            "<title>step #{}: {} {} ({:.1f}% of {})</title></rect>",
            x, y, bar_w, h, kCategoryColors[c], row.number, kCategoryLabels[c], Dur(v),
            100.0 * v / std::max<TimeNs>(1, step_ns), Dur(step_ns));
      }
    }
    if (outlier) {
      double top = kTop + plot_h - plot_h * static_cast<double>(step_ns) / max_ns;
      out += fmt::format(
          "<path class=\"outlier-mark\" d=\"M{:.2f} {:.2f} l-5 -9 h10 z\">"
          "<title>step #{} took {}, {:.1f}x the median step ({})</title></path>",
          x + bar_w / 2, top - 1, row.number, Dur(step_ns),
          static_cast<double>(step_ns) / median_ns, Dur(median_ns));
    }
    out += "</g>\n";
  }
  out += StepLabels(m, plot_w, height - 12);
  return out + "</svg>\n";
}

std::string UtilizationChart(const StepMetrics& m) {
  if (m.steps.empty() || m.summary.empty()) return "";
  const double height = 200;
  const double plot_h = height - kTop - kBottom;
  const double plot_w = kWidth - kLeft - kRight;
  std::string out = OpenSvg("utilization", height, "GPU utilization per step and device");
  out += YAxis(plot_h, {"0%", "50%", "100%"});
  size_t n = m.steps.size();
  for (size_t dpos = 0; dpos < m.summary.size(); ++dpos) {
    int device = m.summary[dpos].device;
    std::string_view color = kLineColors[dpos % kLineColors.size()];
    std::string points;
    std::string dots;
    for (size_t i = 0; i < n; ++i) {
      for (const DeviceMetrics& d : m.steps[i].devices) {
        if (d.device != device) continue;
        double x = kLeft + plot_w * (i + 0.5) / n;
        double y = kTop + plot_h * (1 - std::clamp(d.gpu_utilization, 0.0, 1.0));
        points += fmt::format("{:.1f},{:.1f} ", x, y);
        dots += fmt::format(
            "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"><title>{}, step #{}: "
            "GPU utilization {:.1f}%, busy incl. copies {:.1f}%</title></circle>",
            x, y, color, DeviceLabel(device), m.steps[i].number, 100 * d.gpu_utilization,
            100 * d.busy_including_copies);
      }
    }
    out += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
                       "points=\"{}\"/>{}\n",
                       color, points, dots);
    out += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" fill=\"{}\">&#9632; {}</text>\n",
                       kLeft + 8 + 80 * dpos, kTop - 4, color, DeviceLabel(device));
  }
  out += StepLabels(m, plot_w, height - 12);
  return out + "</svg>\n";
}

std::string RankChart(const ReportInput& in) {
  if (in.ranks.size() < 2 || in.contexts.size() != in.ranks.size()) return "";
  struct RankRow {
    int rank = 0;
    std::array<TimeNs, 4> ns{};  // step, idle, communication, communication wait
  };
  constexpr std::array<std::string_view, 4> kSeries = {"step time", "GPU idle", "communication",
                                                       "communication wait"};
  constexpr std::array<std::string_view, 4> kSeriesColors = {"#4e79a7", "#bab0ac", "#b07aa1",
                                                             "#e15759"};
  std::vector<RankRow> rows;
  TimeNs max_ns = 1;
  for (size_t i = 0; i < in.ranks.size(); ++i) {
    const StepMetrics& m = in.contexts[i]->step_metrics();
    const IdleAttribution& idle = in.contexts[i]->idle_attribution();
    RankRow row;
    row.rank = RankOf(*in.ranks[i], i);
    if (m.step_count > 0 && !m.summary.empty()) {
      // Means per step, averaged over the rank's devices.
      TimeNs devices = static_cast<TimeNs>(m.summary.size());
      TimeNs idle_ns = 0;
      TimeNs comm_ns = 0;
      for (const DeviceMetrics& d : m.summary) {
        idle_ns += d.step_ns - d.busy_ns;
        comm_ns += d.breakdown_ns[static_cast<int>(StepCategory::kCommunication)];
      }
      row.ns[0] = m.mean_step_ns;
      row.ns[1] = idle_ns / devices / m.step_count;
      row.ns[2] = comm_ns / devices / m.step_count;
      row.ns[3] = idle.total_ns[static_cast<int>(IdleCause::kDeviceWaitCollective)] / devices /
                  m.step_count;
    }
    max_ns = std::max(max_ns, row.ns[0]);
    rows.push_back(row);
  }
  const double row_h = 4 * 11 + 10;
  const double height = kTop + rows.size() * row_h + 30;
  const double plot_w = kWidth - kLeft - kRight - 90;
  std::string out = OpenSvg("ranks", height, "per-rank step time, idle and communication");
  for (size_t s = 0; s < kSeries.size(); ++s) {
    out += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" fill=\"{}\">&#9632; {}</text>",
                       kLeft + 150 * s, kTop - 4, kSeriesColors[s], kSeries[s]);
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    double y0 = kTop + 6 + r * row_h;
    out += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">"
                       "rank {}</text>",
                       kLeft - 6, y0 + 2 * 11, rows[r].rank);
    for (size_t s = 0; s < kSeries.size(); ++s) {
      double w = plot_w * static_cast<double>(rows[r].ns[s]) / max_ns;
      double y = y0 + s * 11;
      out += fmt::format(
          "<rect x=\"{}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"9\" fill=\"{}\">"
          "<title>rank {}: {} {} per step</title></rect>"
          "<text class=\"axis\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>",
          kLeft, y, std::max(0.5, w), kSeriesColors[s], rows[r].rank, kSeries[s],
          Dur(rows[r].ns[s]), kLeft + w + 4, y + 8, Dur(rows[r].ns[s]));
    }
    out += "\n";
  }
  return out + "</svg>\n";
}

}  // namespace tracelint::html
