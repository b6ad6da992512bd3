// The HTML report's roofline section (docs/roofline.md): a table of the
// kernel families, their device time per step as stacked bars, and a
// log-log roofline of the top ops. Inline SVG, no script (html_charts.h).

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "analyzer/base/escape.h"
#include "analyzer/base/time.h"
#include "analyzer/report/html_charts.h"
#include "analyzer/report/roofline_report.h"
#include "fmt/format.h"

namespace tracelint::html {
namespace {

constexpr double kLeft = 70;
constexpr double kRight = 16;
constexpr double kTop = 18;
constexpr double kBottom = 34;

// One colour per DeviceFamily, in its order.
constexpr std::array<std::string_view, kDeviceFamilyCount> kFamilyColors = {
    "#4e79a7", "#2f5d8a", "#59a14f", "#76b7b2", "#4f9a94", "#edc948", "#f28e2b",
    "#e15759", "#b07aa1", "#ff9da7", "#9c755f", "#8cd17d", "#bab0ac", "#d4a6c8", "#79706e"};

std::string_view FamilyColor(std::string_view family) {
  for (int f = 0; f < kDeviceFamilyCount; ++f) {
    if (DeviceFamilyName(static_cast<DeviceFamily>(f)) == family) return kFamilyColors[f];
  }
  return kFamilyColors.back();
}

std::string E(std::string_view s) { return EscapeHtml(s); }
std::string Pct(double share) { return fmt::format("{:.1f}%", 100 * share); }
std::string Rate(double v) {
  if (v <= 0) return "-";
  return v >= 100 ? fmt::format("{:.0f}", v) : v >= 1 ? fmt::format("{:.1f}", v)
                                                      : fmt::format("{:.3g}", v);
}

std::string FamilyTable(const RankRoofline& r) {
  std::string out =
      "<table class=\"data roofline\"><tr><th class=\"name\">family</th><th>time per step</th>"
      "<th>of step</th><th>TFLOP/s</th><th>TB/s</th><th>peak TFLOP/s</th><th>peak TB/s</th>"
      "<th>bound</th><th>efficiency</th><th>modelled</th></tr>\n";
  for (const RooflineFamily& f : r.families) {
    const bool modelled = f.modelled_share > 0;
    out += fmt::format(
        "<tr><td class=\"name\"><i style=\"background:{};display:inline-block;width:10px;"
        "height:10px;margin-right:5px\"></i>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "</tr>\n",
        FamilyColor(f.family), E(FamilyLabel(f)),
        FormatDurationNs(SaturatingNsFromDouble(f.device_ns_per_step)), Pct(f.share_of_step),
        modelled && f.flops_per_step > 0 ? Rate(f.achieved_tflops) : "-",
        modelled && f.bytes_per_step > 0 ? Rate(f.achieved_tbps) : "-", Rate(f.peak_tflops),
        Rate(f.peak_tbps), f.bound.empty() ? "-" : f.bound,
        f.efficiency >= 0 ? Pct(f.efficiency) : "-", f.compute ? Pct(f.modelled_share) : "-");
  }
  return out + "</table>\n";
}

double Log10(double v) { return std::log10(std::max(v, 1e-12)); }

}  // namespace

std::string FamilyBarChart(const RankRoofline& r, std::string_view id_suffix) {
  const size_t n = r.step_numbers.size();
  if (n == 0 || r.families.empty()) return "";
  const double height = 240;
  const double plot_h = height - kTop - kBottom;
  const double plot_w = kChartWidth - kLeft - kRight;
  // Slots of consecutive steps past kMaxChartSlots, as the other charts.
  const size_t per_slot = std::max<size_t>(1, (n + kMaxChartSlots - 1) / kMaxChartSlots);
  const size_t slots = (n + per_slot - 1) / per_slot;
  std::vector<double> totals(slots, 0);
  for (const RooflineFamily& f : r.families) {
    for (size_t i = 0; i < n && i < f.device_ns_steps.size(); ++i) {
      totals[i / per_slot] += f.device_ns_steps[i];
    }
  }
  double tallest = 1;
  for (size_t s = 0; s < slots; ++s) {
    const size_t count = std::min(n, (s + 1) * per_slot) - s * per_slot;
    totals[s] /= static_cast<double>(count);
    tallest = std::max(tallest, totals[s]);
  }
  std::string out = OpenSvg(fmt::format("families{}", id_suffix), height,
                            "device time per kernel family, per step");
  for (int i = 0; i < 3; ++i) {
    const double y = kTop + plot_h - plot_h * i / 2.0;
    out += fmt::format(
        "<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>"
        "<text class=\"axis\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
        kLeft, kChartWidth - kRight, y, y, kLeft - 6, y + 4,
        i == 0 ? "0" : FormatDurationNs(SaturatingNsFromDouble(tallest * i / 2)));
  }
  const double slot_w = plot_w / static_cast<double>(slots);
  const double bar_w = std::max(0.5, slot_w * 0.8);
  for (size_t s = 0; s < slots; ++s) {
    const size_t begin = s * per_slot, end = std::min(n, begin + per_slot);
    const std::string name =
        end - begin == 1 ? fmt::format("step #{}", r.step_numbers[begin])
                         : fmt::format("steps #{}-#{} (mean of {})", r.step_numbers[begin],
                                       r.step_numbers[end - 1], end - begin);
    const double x = kLeft + slot_w * static_cast<double>(s) + (slot_w - bar_w) / 2;
    double y = kTop + plot_h;
    out += "<g class=\"bar\">";
    for (const RooflineFamily& f : r.families) {
      double v = 0;
      for (size_t i = begin; i < end && i < f.device_ns_steps.size(); ++i) v += f.device_ns_steps[i];
      v /= static_cast<double>(end - begin);
      if (v <= 0) continue;
      const double h = plot_h * v / tallest;
      y -= h;
      out += fmt::format(
          "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\">"
          "<title>{}: {} {}</title></rect>",
          x, y, bar_w, h, FamilyColor(f.family), E(name), E(FamilyLabel(f)),
          FormatDurationNs(SaturatingNsFromDouble(v)));
    }
    out += "</g>\n";
  }
  return out + "</svg>\n";
}

std::string RooflineChart(const RankRoofline& r, std::string_view id_suffix) {
  if (r.device.empty()) return "";
  struct Point {
    const RooflineOp* op;
    double x, y;
  };
  std::vector<Point> points;
  double min_x = 1e30, max_x = 0, min_y = 1e30, max_y = 0;
  for (const RooflineOp& o : r.top_ops) {
    if (!o.modelled || o.intensity <= 0 || o.achieved_tflops <= 0) continue;
    points.push_back({&o, o.intensity, o.achieved_tflops});
    min_x = std::min(min_x, o.intensity);
    max_x = std::max(max_x, o.intensity);
    min_y = std::min(min_y, o.achieved_tflops);
    max_y = std::max(max_y, o.achieved_tflops);
  }
  if (points.empty()) return "";
  // The roofs: bandwidth, and each compute peak the points are judged by.
  double tbps = 0;
  std::vector<double> roofs;
  for (const RooflineOp& o : r.top_ops) {
    if (o.peak_tbps > 0) tbps = o.peak_tbps;
    if (o.peak_tflops > 0 && std::find(roofs.begin(), roofs.end(), o.peak_tflops) == roofs.end()) {
      roofs.push_back(o.peak_tflops);
    }
  }
  if (tbps <= 0) return "";
  for (double p : roofs) {
    max_y = std::max(max_y, p);
    max_x = std::max(max_x, p / tbps * 4);  // past the ridge
  }
  const double x0 = std::floor(Log10(min_x)), x1 = std::ceil(Log10(max_x));
  const double y0 = std::floor(Log10(min_y)), y1 = std::ceil(Log10(max_y) + 0.01);
  const double height = 300;
  const double plot_h = height - kTop - kBottom;
  const double plot_w = kChartWidth - kLeft - kRight;
  auto px = [&](double x) { return kLeft + plot_w * (Log10(x) - x0) / std::max(1.0, x1 - x0); };
  auto py = [&](double y) {
    return kTop + plot_h - plot_h * (Log10(y) - y0) / std::max(1.0, y1 - y0);
  };
  std::string out = OpenSvg(fmt::format("roofline{}", id_suffix), height,
                            "roofline of the top ops: achieved TFLOP/s against FLOP per byte");
  for (double e = y0; e <= y1; ++e) {
    const double y = py(std::pow(10, e));
    out += fmt::format(
        "<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>"
        "<text class=\"axis\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>\n",
        kLeft, kChartWidth - kRight, y, y, kLeft - 6, y + 4, std::pow(10, e));
  }
  for (double e = x0; e <= x1; ++e) {
    const double x = px(std::pow(10, e));
    out += fmt::format(
        "<line class=\"grid\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\"/>"
        "<text class=\"axis\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"{}\">{:g}</text>\n",
        x, x, kTop, kTop + plot_h, x, height - 18, e == x1 ? "end" : "middle", std::pow(10, e));
  }
  out += fmt::format(
      "<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">FLOP per byte "
      "(log)</text><text class=\"axis\" x=\"{}\" y=\"{}\">TFLOP/s (log)</text>\n",
      kLeft + plot_w / 2, height - 4, kLeft + 4, kTop - 6);
  // Roofs: min(peak, intensity x bandwidth), clipped to the plot.
  const double lo = std::pow(10, x0), hi = std::pow(10, x1);
  for (double peak : roofs) {
    const double ridge = peak / tbps;
    const double start_y = std::max(lo * tbps, std::pow(10, y0));
    const double start_x = start_y / tbps;
    out += fmt::format(
        "<polyline class=\"roof\" fill=\"none\" stroke=\"#1d2330\" stroke-width=\"1.5\" "
        "points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\"><title>roof: {} TB/s, {} TFLOP/s "
        "(ridge at {:.0f} FLOP/B)</title></polyline>\n",
        px(start_x), py(start_y), px(std::min(ridge, hi)), py(std::min(peak, hi * tbps)), px(hi),
        py(peak), Rate(tbps), Rate(peak), ridge);
  }
  double biggest = 0;
  for (const Point& p : points) biggest = std::max(biggest, p.op->device_ns_per_step);
  for (const Point& p : points) {
    const double radius = 3 + 7 * std::sqrt(p.op->device_ns_per_step / std::max(1.0, biggest));
    out += fmt::format(
        "<circle class=\"op\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" fill=\"{}\" "
        "fill-opacity=\"0.75\"><title>{} {}: {} TFLOP/s, {} TB/s, {:.3g} FLOP/B, {} of its roof, "
        "{} per step</title></circle>\n",
        px(p.x), py(p.y), radius, FamilyColor(p.op->family), E(p.op->name), E(p.op->params),
        Rate(p.op->achieved_tflops), Rate(p.op->achieved_tbps), p.op->intensity,
        p.op->efficiency >= 0 ? Pct(p.op->efficiency) : "n/a",
        FormatDurationNs(SaturatingNsFromDouble(p.op->device_ns_per_step)));
  }
  return out + "</svg>\n";
}

std::string RooflineSection(const RankRoofline& r, std::string_view id_suffix) {
  if (r.families.empty() || r.busy_ns_per_step <= 0) return "";
  std::string out = "<h3>Where the device time goes</h3>\n";
  out += FamilyTable(r);
  out += "<p class=\"note\">";
  out += r.device.empty()
             ? E(fmt::format("No roofline: {}.", r.no_peak_reason))
             : E(fmt::format("Peaks: {} ({} figures). Efficiency = roofline time at the work's "
                             "intensity / measured time.",
                             r.device, r.peak_kind));
  if (r.mfu.has_value()) {
    out += E(fmt::format(" Modelled FLOP utilization (includes recompute): {} of the {} "
                         "datasheet peak.",
                         Pct(*r.mfu), r.mfu_dtype));
  }
  out += "</p>\n";
  out += FamilyBarChart(r, id_suffix);
  out += "<div class=\"legend\">";
  for (const RooflineFamily& f : r.families) {
    out += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", FamilyColor(f.family),
                       E(FamilyLabel(f)));
  }
  out += "</div>\n";
  if (std::string chart = RooflineChart(r, id_suffix); !chart.empty()) {
    out += "<h3>Roofline of the top ops</h3>\n" + chart;
  }
  for (const std::string& note : r.notes) out += "<p class=\"note\">" + E(note) + "</p>\n";
  return out;
}

}  // namespace tracelint::html
