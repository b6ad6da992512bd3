#include "analyzer/report/html_charts.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <vector>

#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/base/escape.h"
#include "analyzer/report/report_data.h"
#include "fmt/format.h"

namespace tracelint::html {
namespace {

constexpr std::string_view kCategoryColors[] = {"#4e79a7", "#f28e2b", "#edc948", "#b07aa1",
                                                "#e15759", "#ff9da7", "#9c755f", "#bab0ac"};
constexpr std::string_view kCategoryLabels[] = {"Kernel",  "Memcpy",     "Memset",   "Communication",
                                                "Runtime", "DataLoader", "CPU Exec", "Other"};
static_assert(std::size(kCategoryColors) == kStepCategoryCount);
static_assert(std::size(kCategoryLabels) == kStepCategoryCount);
constexpr std::array<std::string_view, 6> kLineColors = {"#4e79a7", "#e15759", "#59a14f",
                                                         "#f28e2b", "#b07aa1", "#76b7b2"};

constexpr double kWidth = kChartWidth;
constexpr double kLeft = 70;
constexpr double kRight = 16;
constexpr double kTop = 18;
constexpr double kBottom = 34;

std::string Dur(TimeNs ns) { return FormatDurationNs(ns); }

// Horizontal grid lines with labels at 0, 1/2 and the maximum.
std::string YAxis(double plot_h, const std::array<std::string, 3>& labels,
                  double width = kWidth) {
  std::string out;
  for (int i = 0; i < 3; ++i) {
    double y = kTop + plot_h - plot_h * i / 2.0;
    out += fmt::format(
        "<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>"
        "<text class=\"axis\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
        kLeft, width - kRight, y, y, kLeft - 6, y + 4, labels[i]);
  }
  return out;
}

// Consecutive steps [begin, end) drawn as one bar or point.
struct Slot {
  size_t begin = 0;
  size_t end = 0;
};

std::vector<Slot> Slots(size_t n) {
  const size_t per_slot = std::max<size_t>(1, (n + kMaxChartSlots - 1) / kMaxChartSlots);
  std::vector<Slot> slots;
  for (size_t b = 0; b < n; b += per_slot) slots.push_back({b, std::min(n, b + per_slot)});
  return slots;
}

// "step #7", or "steps #7-#12 (mean of 6)" for a slot of several.
std::string SlotName(const std::vector<int64_t>& numbers, const Slot& slot) {
  if (slot.end - slot.begin == 1) return fmt::format("step #{}", numbers[slot.begin]);
  return fmt::format("steps #{}-#{} (mean of {})", numbers[slot.begin], numbers[slot.end - 1],
                     slot.end - slot.begin);
}

TimeNs MedianStepNs(const std::vector<BreakdownBar>& bars) {
  std::vector<TimeNs> d;
  for (const BreakdownBar& b : bars) d.push_back(b.step_ns);
  if (d.empty()) return 0;
  std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
  return d[d.size() / 2];
}

// Every k-th slot's first step number under the bars, so labels never overlap.
std::string StepLabels(const std::vector<int64_t>& numbers, const std::vector<Slot>& slots,
                       double plot_w, double y) {
  std::string out;
  size_t n = slots.size();
  size_t every = std::max<size_t>(1, (n * 40 + static_cast<size_t>(plot_w) - 1) /
                                         static_cast<size_t>(plot_w));
  for (size_t i = 0; i < n; i += every) {
    double x = kLeft + plot_w * (i + 0.5) / n;
    out += fmt::format("<text class=\"axis\" x=\"{:.1f}\" y=\"{:.1f}\" "
                       "text-anchor=\"middle\">#{}</text>",
                       x, y, numbers[slots[i].begin]);
  }
  return out + "\n";
}

std::vector<int64_t> StepNumbers(const StepMetrics& m) {
  std::vector<int64_t> numbers;
  for (const StepRow& r : m.steps) numbers.push_back(r.number);
  return numbers;
}

}  // namespace

std::string OpenSvg(std::string_view id, double height, std::string_view label, double width) {
  return fmt::format(
      "<svg class=\"chart\" id=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"{}\" preserveAspectRatio=\"xMinYMin meet\">\n",
      EscapeHtml(id), width, height, EscapeHtml(label));
}

std::string BreakableName(std::string_view name) {
  if (name.size() <= kUnbrokenNameChars) {
    return "<span class=\"nw\">" + EscapeHtml(name) + "</span>";
  }
  // Breaks go after separators; a part holding a hyphen is kept in one
  // nowrap span, since browsers also break at hyphens ("tensor-" alone
  // reads as a word).
  std::string out;
  size_t start = 0;
  auto flush = [&](size_t end) {
    std::string_view part = name.substr(start, end - start);
    if (part.find('-') != std::string_view::npos) {
      out += "<span class=\"nw\">" + EscapeHtml(part) + "</span>";
    } else {
      out += EscapeHtml(part);
    }
    start = end;
  };
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const char next = i + 1 < name.size() ? name[i + 1] : '\0';
    // After a separator, not between two of them ("::" stays whole).
    if ((c == ':' || c == '_' || c == '.' || c == ',' || c == '<' || c == '(' || c == '/' ||
         c == ' ') &&
        next != c && next != '\0') {
      flush(i + 1);
      out += "<wbr>";
    }
  }
  flush(name.size());
  return out;
}

std::string_view CategoryColor(int category) { return kCategoryColors[category]; }
std::string_view CategoryLabel(int category) { return kCategoryLabels[category]; }

std::string CategoryLegend() {
  std::string out = "<div class=\"legend\">";
  for (int c = 0; c < kStepCategoryCount; ++c) {
    out += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", kCategoryColors[c],
                       kCategoryLabels[c]);
  }
  out += "<span><i class=\"outlier-key\"></i>outlier step (slower than the median by more "
         "than 10% and 3 MADs)</span>";
  return out + "</div>\n";
}

std::string BreakdownBarChart(std::string_view id, std::string_view label,
                              const std::vector<BreakdownBar>& bars, TimeNs max_ns,
                              double width) {
  if (bars.empty()) return "";
  const double height = 240;
  const double plot_h = height - kTop - kBottom;
  const double plot_w = width - kLeft - kRight;
  std::vector<int64_t> numbers;
  for (const BreakdownBar& b : bars) numbers.push_back(b.number);
  // Each slot's mean breakdown and its slowest step.
  struct Drawn {
    TimeNs step_ns = 0;
    std::array<TimeNs, kStepCategoryCount> breakdown_ns{};
    size_t slowest = 0;
    bool outlier = false;
  };
  const std::vector<Slot> slots = Slots(bars.size());
  std::vector<Drawn> drawn;
  TimeNs tallest_ns = 1;
  for (const Slot& slot : slots) {
    Drawn d;
    d.slowest = slot.begin;
    const TimeNs count = static_cast<TimeNs>(slot.end - slot.begin);
    for (size_t i = slot.begin; i < slot.end; ++i) {
      d.step_ns += bars[i].step_ns;
      for (int c = 0; c < kStepCategoryCount; ++c) d.breakdown_ns[c] += bars[i].breakdown_ns[c];
      if (bars[i].step_ns > bars[d.slowest].step_ns) d.slowest = i;
      d.outlier = d.outlier || bars[i].outlier;
    }
    d.step_ns /= count;
    for (TimeNs& v : d.breakdown_ns) v /= count;
    tallest_ns = std::max(tallest_ns, d.step_ns);
    drawn.push_back(d);
  }
  if (max_ns <= 0) max_ns = tallest_ns;
  const TimeNs median_ns = MedianStepNs(bars);
  std::string out = OpenSvg(id, height, label, width);
  out += YAxis(plot_h, {"0", Dur(max_ns / 2), Dur(max_ns)}, width);
  const size_t n = slots.size();
  const double slot_w = plot_w / n;
  const double bar_w = std::max(0.5, slot_w * 0.8);
  for (size_t i = 0; i < n; ++i) {
    const Drawn& d = drawn[i];
    const std::string name = SlotName(numbers, slots[i]);
    const BreakdownBar& slowest = bars[d.slowest];
    const double x = kLeft + slot_w * i + (slot_w - bar_w) / 2;
    const bool outlier = d.outlier && median_ns > 0;
    out += fmt::format("<g class=\"bar{}\">", outlier ? " outlier" : "");
    double y = kTop + plot_h;
    for (int c = 0; c < kStepCategoryCount; ++c) {
      TimeNs v = d.breakdown_ns[c];
      if (v <= 0) continue;
      double h = plot_h * static_cast<double>(v) / max_ns;
      y -= h;
      out += fmt::format(
          "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\">"
          "<title>{}: {} {} ({:.1f}% of {})</title></rect>",
          x, y, bar_w, h, kCategoryColors[c], name, kCategoryLabels[c], Dur(v),
          100.0 * v / std::max<TimeNs>(1, d.step_ns), Dur(d.step_ns));
    }
    if (outlier) {
      double top = kTop + plot_h - plot_h * static_cast<double>(d.step_ns) / max_ns;
      out += fmt::format(
          "<path class=\"outlier-mark\" d=\"M{:.2f} {:.2f} l-5 -9 h10 z\">"
          "<title>step #{} took {}, {:.1f}x the median step ({})</title></path>",
          x + bar_w / 2, top - 1, slowest.number, Dur(slowest.step_ns),
          static_cast<double>(slowest.step_ns) / median_ns, Dur(median_ns));
    }
    out += "</g>\n";
  }
  out += StepLabels(numbers, slots, plot_w, height - 12);
  return out + "</svg>\n";
}

std::string StepBreakdownChart(const StepMetrics& m, const OutlierSteps& outliers,
                               size_t device_pos, std::string_view accelerator,
                               std::string_view id_suffix) {
  int device = device_pos < m.summary.size() ? m.summary[device_pos].device : -1;
  std::vector<BreakdownBar> bars;
  for (size_t i = 0; i < m.steps.size(); ++i) {
    const StepRow& row = m.steps[i];
    BreakdownBar bar;
    bar.number = row.number;
    bar.step_ns = row.end_ns - row.start_ns;
    bar.outlier = outliers.Contains(i);
    for (const DeviceMetrics& dm : row.devices) {
      if (dm.device == device) bar.breakdown_ns = dm.breakdown_ns;
    }
    bars.push_back(bar);
  }
  return BreakdownBarChart(fmt::format("breakdown-{}{}", device_pos, id_suffix),
                           fmt::format("step breakdown per step, {}", DeviceLabel(device, accelerator)),
                           bars);
}

std::string UtilizationChart(const StepMetrics& m, std::string_view accelerator,
                             std::string_view id_suffix) {
  if (m.steps.empty() || m.summary.empty()) return "";
  const double height = 200;
  const double plot_h = height - kTop - kBottom;
  const double plot_w = kWidth - kLeft - kRight;
  std::string out = OpenSvg(fmt::format("utilization{}", id_suffix), height,
                            fmt::format("{} utilization per step and device", accelerator));
  out += YAxis(plot_h, {"0%", "50%", "100%"});
  const std::vector<int64_t> numbers = StepNumbers(m);
  const std::vector<Slot> slots = Slots(m.steps.size());
  const size_t n = slots.size();
  for (size_t dpos = 0; dpos < m.summary.size(); ++dpos) {
    int device = m.summary[dpos].device;
    std::string_view color = kLineColors[dpos % kLineColors.size()];
    std::string points;
    std::string dots;
    for (size_t i = 0; i < n; ++i) {
      // The slot's mean over the steps where the device has metrics.
      double utilization = 0, busy = 0;
      int count = 0;
      for (size_t s = slots[i].begin; s < slots[i].end; ++s) {
        for (const DeviceMetrics& d : m.steps[s].devices) {
          if (d.device != device) continue;
          utilization += d.gpu_utilization;
          busy += d.busy_including_copies;
          ++count;
        }
      }
      if (count == 0) continue;
      utilization /= count;
      busy /= count;
      double x = kLeft + plot_w * (i + 0.5) / n;
      double y = kTop + plot_h * (1 - std::clamp(utilization, 0.0, 1.0));
      points += fmt::format("{:.1f},{:.1f} ", x, y);
      dots += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\"><title>{}, {}: "
          "{} utilization {:.1f}%, busy incl. copies {:.1f}%</title></circle>",
          x, y, n > 60 ? 1.5 : 3, color, DeviceLabel(device, accelerator),
          SlotName(numbers, slots[i]), accelerator, 100 * utilization, 100 * busy);
    }
    out += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
                       "points=\"{}\"/>{}\n",
                       color, points, dots);
    out += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" fill=\"{}\">&#9632; {}</text>\n",
                       kLeft + 8 + 80 * dpos, kTop - 4, color, DeviceLabel(device, accelerator));
  }
  out += StepLabels(numbers, slots, plot_w, height - 12);
  return out + "</svg>\n";
}

std::string MemoryChart(const DeviceMemoryUsage& m, std::string_view accelerator,
                        std::string_view id_suffix) {
  if (m.curve.empty()) return "";
  const double height = 180;
  const double plot_h = height - kTop - kBottom;
  const double plot_w = kWidth - kLeft - kRight;
  int64_t top = std::max(m.peak_allocated_bytes, m.peak_reserved_bytes);
  // The device's memory is drawn when the curves reach a quarter of it;
  // below that it would flatten them to the floor.
  const bool show_total = m.total_memory_bytes > 0 && top * 4 >= m.total_memory_bytes;
  if (show_total) top = std::max(top, m.total_memory_bytes);
  if (top <= 0) return "";
  const double max_bytes = top * 1.05;
  const std::string device = DeviceLabel(m.device, accelerator);
  std::string out = OpenSvg(fmt::format("memory-{}{}", m.device, id_suffix), height,
                            fmt::format("device memory over the trace, {}", device));
  out += YAxis(plot_h, {"0", MemoryBytes(static_cast<int64_t>(max_bytes / 2)),
                        MemoryBytes(static_cast<int64_t>(max_bytes))});
  // In doubles: the window of a hostile trace can span more than int64.
  const double t0 = static_cast<double>(m.curve.front().ts_ns);
  const double span = std::max(1.0, static_cast<double>(m.curve_end_ns) - t0);
  auto x_of = [&](TimeNs ts) {
    return kLeft + plot_w * std::clamp((static_cast<double>(ts) - t0) / span, 0.0, 1.0);
  };
  auto y_of = [&](int64_t bytes) { return kTop + plot_h * (1 - bytes / max_bytes); };
  auto line = [&](int64_t MemoryCurvePoint::*field, std::string_view color,
                  std::string_view name) {
    // A step line: each slice's value holds until the next slice starts;
    // slices of one value are one segment, so a flat curve costs little.
    std::string points;
    for (size_t i = 0; i < m.curve.size(); ++i) {
      const int64_t v = m.curve[i].*field;
      if (i > 0 && m.curve[i - 1].*field == v) continue;
      const double y = y_of(v);
      if (i > 0) points += fmt::format("{:.1f},{:.1f} ", x_of(m.curve[i].ts_ns), y_of(m.curve[i - 1].*field));
      points += fmt::format("{:.1f},{:.1f} ", x_of(m.curve[i].ts_ns), y);
    }
    points += fmt::format("{:.1f},{:.1f}", x_of(m.curve_end_ns), y_of(m.curve.back().*field));
    return fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\" "
                       "points=\"{}\"><title>{}: {} at the peak</title></polyline>\n",
                       color, points, name,
                       MemoryBytes(name == "allocated" ? m.peak_allocated_bytes
                                                       : m.peak_reserved_bytes));
  };
  if (m.peak_reserved_bytes > 0) {
    out += line(&MemoryCurvePoint::reserved_bytes, kLineColors[1], "reserved");
  }
  out += line(&MemoryCurvePoint::allocated_bytes, kLineColors[0], "allocated");
  if (show_total) {
    const double y = y_of(m.total_memory_bytes);
    out += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#4a5263\" "
                       "stroke-dasharray=\"4 3\"><title>{} memory: {}</title></line>\n",
                       kLeft, kLeft + plot_w, y, y, EscapeHtml(device),
                       MemoryBytes(m.total_memory_bytes));
  }
  // style= rather than fill=: the axis class's fill would win over it.
  out += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" style=\"fill:{}\">&#9632; allocated</text>"
                     "<text class=\"axis\" x=\"{}\" y=\"{}\" style=\"fill:{}\">&#9632; reserved</text>\n",
                     kLeft + 8, kTop - 4, kLineColors[0], kLeft + 100, kTop - 4, kLineColors[1]);
  out += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"start\">+0</text>"
                     "<text class=\"axis\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">time from "
                     "the first allocator event</text>"
                     "<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"end\">+{}</text>\n",
                     kLeft, height - 12, kLeft + plot_w / 2, height - 12, kLeft + plot_w,
                     height - 12,
                     FormatDurationNs(static_cast<TimeNs>(std::min(span, 9.0e18))));
  return out + "</svg>\n";
}

std::string RankChart(const ReportInput& in) {
  if (in.records.size() < 2) return "";
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
  for (size_t i = 0; i < in.records.size(); ++i) {
    const StepMetrics& m = in.records[i]->step_metrics;
    const IdleAttribution& idle = in.records[i]->idle_attribution;
    RankRow row;
    row.rank = RankOf(*in.records[i], i);
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
    // style= rather than fill=: the axis class's fill would win over it.
    out += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" style=\"fill:{}\">&#9632; {}</text>",
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
