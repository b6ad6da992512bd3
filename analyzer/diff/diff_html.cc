#include "analyzer/diff/diff_html.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "analyzer/analysis/outlier_steps.h"
#include "analyzer/base/escape.h"
#include "analyzer/diff/diff_format.h"
#include "analyzer/report/display_names.h"
#include "analyzer/diff/diff_report.h"
#include "analyzer/report/html_charts.h"
#include "analyzer/report/html_style.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

using diff_format::CountFindings;
using diff_format::Delta;
using diff_format::FindingCounts;
using diff_format::FindingName;
using diff_format::FindingTimes;
using diff_format::GateLine;
using diff_format::MetricLabel;
using diff_format::NoiseVerdict;
using diff_format::PValue;
using diff_format::ShiftCell;
using diff_format::Shown;
using diff_format::SignedDur;
using diff_format::TooFewLine;
using diff_format::Value;

// The side-by-side charts each get half the page: half the units keep
// their text the size of the full-width charts' text.
constexpr double kHalfChartWidth = html::kChartWidth / 2;

constexpr std::string_view kWorse = "#c0392b";
constexpr std::string_view kBetter = "#59a14f";
constexpr std::string_view kNeutral = "#7f8c8d";

std::string E(std::string_view s) { return EscapeHtml(s); }
std::string Dur(TimeNs ns) { return FormatDurationNs(ns); }

// Where the comparison is drawn: its own page (sections are h2, ids bare)
// or inside an analyze page (sections one level down under the page's
// "Against the baseline", ids prefixed so none repeats the page's own).
struct Frame {
  std::string_view id_prefix;
  int section_level = 2;  // h2 on its own page

  std::string Id(std::string_view id) const { return fmt::format("{}{}", id_prefix, id); }
  // A section heading (sub = 0) or one below it (sub = 1).
  std::string Heading(int sub, std::string_view id, std::string_view text) const {
    int level = section_level + sub;
    return id.empty() ? fmt::format("<h{0}>{1}</h{0}>\n", level, text)
                      : fmt::format("<h{0} id=\"{1}\">{2}</h{0}>\n", level, Id(id), text);
  }
};

// Which way a metric moved, for colour only: beyond noise and up is worse
// for times; for GPU utilization up is better.
std::string_view Direction(const MetricDiff& m) {
  const SampleComparison& c = m.comparison;
  if (!c.beyond_noise || c.shift.estimate == 0) return kNeutral;
  bool up = c.shift.estimate > 0;
  return up != m.is_share ? kWorse : kBetter;
}

void Header(std::string& out, const RunDiff& d) {
  const SampleComparison& step = d.step_time().comparison;
  for (const std::string& w : d.warnings) {
    out += fmt::format("<p class=\"verdict worse\"><b>Warning:</b> {}; the comparison may mean "
                       "little</p>\n",
                       E(w));
  }
  out += "<table class=\"meta\">";
  out += fmt::format("<tr><td>Base</td><td><code>{}</code> (rank {}, {} steady steps)</td></tr>",
                     html::BreakablePath(E(d.base_label)), d.base_rank, step.n_base);
  out += fmt::format("<tr><td>New</td><td><code>{}</code> (rank {}, {} steady steps)</td></tr>",
                     html::BreakablePath(E(d.new_label)), d.new_rank, step.n_new);
  out += fmt::format("<tr><td>Compared</td><td>{}</td></tr>", E(diff_format::RanksLine(d)));
  out += fmt::format(
      "<tr><td>Noise</td><td>steady steps as independent samples: two-sided Mann-Whitney U at "
      "alpha {}, Hodges\u2011Lehmann shift with its 95% interval; at least {} steady steps on each "
      "side to judge</td></tr>",
      kNoiseAlpha, kMinSamplesToJudgeNoise);
  out += "</table>\n";
}

void VerdictBlock(std::string& out, const RunDiff& d, const Frame& f) {
  const MetricDiff& step = d.step_time();
  std::string_view color = Direction(step);
  std::string_view kind = color == kWorse ? " worse" : color == kBetter ? " better" : "";
  out += fmt::format("<div class=\"verdict{}\" id=\"{}\"><b>{}</b>", kind, f.Id("verdict"),
                     E(StepTimeVerdict(d)));
  if (std::string gate = GateLine(d); !gate.empty()) out += "<br>" + E(gate);
  if (d.empty()) {
    out += "<br>No difference beyond noise: no metric, finding, kernel or op moved.";
  }
  out += "</div>\n";
  if (!d.judged) {
    out += fmt::format("<p class=\"note\" id=\"{}\">{}.</p>\n", f.Id("too-few-steps"),
                       E(TooFewLine(d)));
  }
}

// A value that never breaks inside: cells wrap only between values.
std::string Nw(const std::string& s) { return "<span class=\"nw\">" + s + "</span>"; }

std::string RangeHtml(const MetricDiff& m, double low, double high) {
  return Nw(Value(m, low)) + " .. " + Nw(Value(m, high));
}

// ShiftCell's words, breakable between the values only.
std::string ShiftHtml(const MetricDiff& m) {
  const SampleComparison& c = m.comparison;
  if (!c.judged) return Nw(Delta(m, c.median_new - c.median_base)) + " (medians)";
  return fmt::format("{} [{} .. {}]", Nw(Delta(m, c.shift.estimate)), Nw(Delta(m, c.shift.low)),
                     Nw(Delta(m, c.shift.high)));
}

void MetricsTable(std::string& out, const RunDiff& d, const Frame& f) {
  out += f.Heading(0, "metrics", "Metrics per steady step");
  out += "<table class=\"data metrics-diff\"><tr><th class=\"name\">metric</th>"
         "<th>median base</th><th>p10 .. p90 base</th><th>median new</th>"
         "<th>p10 .. p90 new</th><th>shift [95% interval]</th><th>p</th><th>verdict</th></tr>\n";
  for (const MetricDiff& m : d.metrics) {
    const SampleComparison& c = m.comparison;
    out += fmt::format(
        "<tr><td class=\"name metric\">{}</td><td>{}</td><td class=\"wrap\">{}</td>"
        "<td>{}</td><td class=\"wrap\">{}</td><td class=\"wrap\">{}</td><td>{}</td>"
        "<td style=\"color:{}\">{}</td></tr>\n",
        E(MetricLabel(m, d.accelerator)), Value(m, c.median_base), RangeHtml(m, c.p10_base, c.p90_base),
        Value(m, c.median_new), RangeHtml(m, c.p10_new, c.p90_new), ShiftHtml(m), PValue(c),
        Direction(m), NoiseVerdict(c));
  }
  out += "</table>\n";
  if (std::string memory = diff_format::PeakMemoryLine(d.peak_memory); !memory.empty()) {
    out += "<p class=\"note\">" + E(memory) + "</p>\n";
  }
}

// The time metrics' shifts as intervals around zero (a forest plot): what
// moved, by how much, and whether the interval leaves zero. Without enough
// steps, the median difference as a hollow dot and no interval.
std::string ShiftChart(const RunDiff& d, const Frame& f) {
  std::vector<const MetricDiff*> rows;
  double scale = 1;
  for (const MetricDiff& m : d.metrics) {
    const SampleComparison& c = m.comparison;
    if (m.is_share) continue;  // another unit: in the table only
    bool present = c.median_base != 0 || c.median_new != 0 || c.p90_base != 0 || c.p90_new != 0;
    if (!present && m.name != "step_time") continue;
    rows.push_back(&m);
    if (c.judged) {
      for (double v : {c.shift.low, c.shift.high, c.shift.estimate}) {
        scale = std::max(scale, std::fabs(v));
      }
    } else {
      scale = std::max(scale, std::fabs(c.median_new - c.median_base));
    }
  }
  constexpr double kLabelW = 170, kValueW = 250, kTop = 14, kRowH = 22;
  const double x0 = kLabelW, x1 = html::kChartWidth - kValueW;
  const double zero = (x0 + x1) / 2;
  auto x_of = [&](double v) { return zero + v / scale * (x1 - x0) / 2; };
  const double height = kTop + rows.size() * kRowH + 26;
  std::string out = html::OpenSvg(f.Id("shift"), height, "change of each time metric per step");
  out += fmt::format("<line class=\"grid\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" "
                     "y2=\"{2:.1f}\" stroke-dasharray=\"3 2\"/>\n",
                     zero, kTop - 6, height - 22);
  for (size_t i = 0; i < rows.size(); ++i) {
    const MetricDiff& m = *rows[i];
    const SampleComparison& c = m.comparison;
    const double y = kTop + i * kRowH + kRowH / 2;
    std::string_view color = Direction(m);
    std::string tip = fmt::format("{}: median {} -> {}, shift {}, p {}, {}", MetricLabel(m, d.accelerator),
                                  Value(m, c.median_base), Value(m, c.median_new), ShiftCell(m),
                                  PValue(c), NoiseVerdict(c));
    out += fmt::format("<g class=\"shift-row\"><title>{}</title>"
                       "<text class=\"axis\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>"
                       "<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>",
                       E(tip), x0 - 8, y + 4, E(MetricLabel(m, d.accelerator)), x0, x1, y + kRowH / 2,
                       y + kRowH / 2);
    if (c.judged) {
      double a = x_of(c.shift.low), b = x_of(c.shift.high);
      out += fmt::format(
          "<line class=\"ci\" x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" "
          "stroke=\"{3}\" "
          "stroke-width=\"2.5\"/><line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{4:.1f}\" "
          "y2=\"{5:.1f}\" stroke=\"{3}\"/><line x1=\"{1:.1f}\" x2=\"{1:.1f}\" y1=\"{4:.1f}\" "
          "y2=\"{5:.1f}\" stroke=\"{3}\"/><circle cx=\"{6:.1f}\" cy=\"{2:.1f}\" r=\"4.5\" "
          "fill=\"{3}\"/>",
          a, b, y, color, y - 5, y + 5, x_of(c.shift.estimate));
    } else {
      out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4.5\" fill=\"#fff\" "
                         "stroke=\"{}\" stroke-width=\"1.8\"/>",
                         x_of(c.median_new - c.median_base), y, color);
    }
    // The estimate and the verdict only: the interval is in the table and the tooltip.
    std::string value = c.judged ? Delta(m, c.shift.estimate)
                                 : Delta(m, c.median_new - c.median_base) + " (medians)";
    out += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{:.1f}\">{} &middot; {}</text></g>\n",
                       x1 + 10, y + 4, E(value), NoiseVerdict(c));
  }
  const double axis_y = height - 8;
  for (double v : {-scale, 0.0, scale}) {
    out += fmt::format("<text class=\"axis\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\">{}"
                       "</text>",
                       x_of(v), axis_y, v < 0 ? "start" : v > 0 ? "end" : "middle",
                       v == 0 ? std::string("0") : SignedDur(v));
  }
  return out + "\n</svg>\n";
}

std::vector<html::BreakdownBar> Bars(const std::vector<DiffStep>& steps) {
  std::vector<TimeNs> step_ns;
  for (const DiffStep& s : steps) step_ns.push_back(s.step_ns);
  const OutlierSteps outliers = FindOutlierSteps(step_ns);
  std::vector<html::BreakdownBar> bars;
  for (size_t i = 0; i < steps.size(); ++i) {
    bars.push_back({steps[i].number, steps[i].step_ns, outliers.Contains(i), steps[i].breakdown_ns});
  }
  return bars;
}

// Mean breakdown per step of each run, one stacked bar each, one scale.
std::string MeanBreakdownChart(const RunDiff& d, const Frame& f) {
  struct Row {
    std::string_view label;
    std::array<TimeNs, kStepCategoryCount> ns{};
    TimeNs total_ns = 0;
  };
  std::array<Row, 2> rows = {Row{"base", {}, 0}, Row{"new", {}, 0}};
  const std::vector<DiffStep>* steps[2] = {&d.base_steps, &d.new_steps};
  TimeNs max_ns = 1;
  for (int r = 0; r < 2; ++r) {
    if (steps[r]->empty()) continue;
    const TimeNs n = static_cast<TimeNs>(steps[r]->size());
    for (int c = 0; c < kStepCategoryCount; ++c) {
      TimeNs sum = 0;
      for (const DiffStep& s : *steps[r]) sum += s.breakdown_ns[c];
      rows[r].ns[c] = sum / n;
      rows[r].total_ns += rows[r].ns[c];
    }
    max_ns = std::max(max_ns, rows[r].total_ns);
  }
  constexpr double kLeft = 70, kTop = 10, kRowH = 34, kBarH = 22;
  const double plot_w = html::kChartWidth - kLeft - 110;
  const double height = kTop + 2 * kRowH + 6;
  std::string out =
      html::OpenSvg(f.Id("mean-breakdown"), height, "mean step breakdown, base and new");
  for (int r = 0; r < 2; ++r) {
    const double y = kTop + r * kRowH;
    out += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>",
                       kLeft - 8, y + kBarH / 2 + 4, rows[r].label);
    double x = kLeft;
    for (int c = 0; c < kStepCategoryCount; ++c) {
      TimeNs v = rows[r].ns[c];
      if (v <= 0) continue;
      double w = plot_w * static_cast<double>(v) / max_ns;
      out += fmt::format(
          "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\">"
          "<title>{}: {} {} per step ({:.1f}% of {})</title></rect>",
          x, y, std::max(0.4, w), kBarH, html::CategoryColor(c), rows[r].label,
          html::CategoryLabel(c), Dur(v), 100.0 * v / std::max<TimeNs>(1, rows[r].total_ns),
          Dur(rows[r].total_ns));
      x += w;
    }
    out += fmt::format("<text class=\"axis\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", x + 6,
                       y + kBarH / 2 + 4, Dur(rows[r].total_ns));
  }
  return out + "</svg>\n";
}

void StepCharts(std::string& out, const RunDiff& d, const Frame& f) {
  out += f.Heading(0, "steps", "Steady steps side by side");
  out += "<p class=\"note\">Each bar is one steady step of the compared rank's primary device, "
         "stacked by breakdown category; both charts share one scale, so equal heights are "
         "equal times. Hover for values.</p>\n";
  TimeNs max_ns = 1;
  for (const auto* steps : {&d.base_steps, &d.new_steps}) {
    for (const DiffStep& s : *steps) max_ns = std::max(max_ns, s.step_ns);
  }
  out += "<div class=\"pair\">";
  out += fmt::format("<div>{}{}</div>",
                     f.Heading(1, "", fmt::format("Base (rank {})", d.base_rank)),
                     html::BreakdownBarChart(f.Id("steps-base"), "steady steps of the base run",
                                             Bars(d.base_steps), max_ns, kHalfChartWidth));
  out += fmt::format("<div>{}{}</div>",
                     f.Heading(1, "", fmt::format("New (rank {})", d.new_rank)),
                     html::BreakdownBarChart(f.Id("steps-new"), "steady steps of the new run",
                                             Bars(d.new_steps), max_ns, kHalfChartWidth));
  out += "</div>\n" + html::CategoryLegend();
  out += f.Heading(1, "", "Mean breakdown per step") + MeanBreakdownChart(d, f);
}

void FindingsTable(std::string& out, const RunDiff& d, const Frame& f) {
  FindingCounts n = CountFindings(d);
  out += f.Heading(0, "findings", "Findings");
  out += fmt::format("<p class=\"summary\">{} added, {} removed, {} changed, {} unchanged "
                     "<span class=\"note\">(matched by fingerprint; changed: its recoverable time "
                     "moved by more than the step-time test resolves, or by more than {:.0f}% "
                     "with too few steps)</span></p>\n",
                     n.added, n.removed, n.changed, n.unchanged,
                     100 * kFindingChangeShareWithoutNoise);
  if (d.findings.empty()) {
    out += "<p class=\"note\">Neither run has findings.</p>\n";
    return;
  }
  out += "<table class=\"data findings-diff\"><tr><th class=\"name\">change</th>"
         "<th class=\"name\">finding</th><th>severity</th><th>recoverable</th>"
         "<th class=\"name\">title</th></tr>\n";
  for (const FindingChange& c : d.findings) {
    const DiffFinding& f = Shown(c);
    std::string_view kind = FindingChangeName(c.kind);
    std::string severity =
        c.kind == FindingChangeKind::kChanged && c.base.severity != c.next.severity
            ? fmt::format("{} &rarr; {}", E(c.base.severity), E(c.next.severity))
            : E(f.severity);
    out += fmt::format(
        "<tr class=\"{0}\"><td class=\"name\"><span class=\"chg chg-{0}\">{0}</span></td>"
        "<td class=\"name\"><code>{1}</code></td><td>{2}</td><td>{3}</td>"
        "<td class=\"name\">{4}</td></tr>\n",
        kind, html::BreakableName(FindingName(c)), severity,
        c.kind == FindingChangeKind::kChanged
            ? fmt::format("{}<br><small>judged by: {}</small>", E(FindingTimes(c)),
                          E(diff_format::FindingBasis(c)))
            : E(FindingTimes(c)),
        E(f.title));
  }
  out += "</table>\n";
}

void NamedTable(std::string& out, std::string_view id, std::string_view title,
                const std::vector<NamedDelta>& rows, const Frame& f) {
  out += f.Heading(1, "", title);
  if (rows.empty()) {
    out += "<p class=\"note\">No change in device time per step.</p>\n";
    return;
  }
  TimeNs largest = 1;
  for (const NamedDelta& r : rows) {
    largest = std::max<TimeNs>(largest, std::llabs(r.delta_ns_per_step()));
  }
  out += fmt::format("<table class=\"data {}\"><tr><th>change</th><th>base/step</th>"
                     "<th>new/step</th><th></th><th class=\"name\">name</th></tr>\n",
                     id);
  for (const NamedDelta& r : rows) {
    TimeNs delta = r.delta_ns_per_step();
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td><span class=\"dbar {}\" "
        "style=\"width:{:.0f}px\"></span></td><td class=\"name\">{}</td></tr>\n",
        SignedDur(static_cast<double>(delta)), Dur(r.base_ns_per_step), Dur(r.new_ns_per_step),
        delta > 0 ? "up" : "down", 80.0 * std::llabs(delta) / largest,
        html::BreakableName(ShortKernelName(r.name)));
  }
  out += "</table>\n";
}

// The comparison's sections, shared by its own page and the analyze page.
void DiffSections(std::string& out, const RunDiff& d, const Frame& f) {
  VerdictBlock(out, d, f);
  MetricsTable(out, d, f);
  out += f.Heading(1, "", "Change of each time metric") + "<p class=\"note\">";
  out += d.judged ? "Dot: the Hodges\u2011Lehmann shift (new - base); bar: its 95% interval. An "
                    "interval that leaves the dashed zero line is a change beyond noise (red "
                    "slower, green faster)."
                  : "Hollow dot: the difference of the medians (new - base). Too few steps to "
                    "judge noise, so no interval is drawn and nothing is claimed significant.";
  out += "</p>\n" + ShiftChart(d, f);
  StepCharts(out, d, f);
  FindingsTable(out, d, f);
  out += f.Heading(0, "kernels-ops", "Kernels and ops whose time per step changed most");
  NamedTable(out, "kernels-diff", "Kernels (device time per step)", d.kernels, f);
  NamedTable(out, "ops-diff", "Ops (device time per step)", d.ops, f);
}

}  // namespace

std::string RenderDiffHtml(const RunDiff& d) {
  std::string out;
  out.reserve(64 * 1024);
  out += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<title>tracelint diff: {} vs {}</title>\n", E(d.base_label),
                     E(d.new_label));
  out += "<style>";
  out += html::kStyle;
  out += "</style></head>\n<body>\n<h1>tracelint diff</h1>\n";
  Header(out, d);
  DiffSections(out, d, Frame{});
  out += "<p class=\"note\">Written by tracelint diff. Steady steps only (warm-up, capture and "
         "compile steps are not samples); times are device time per step.</p>\n"
         "</body></html>\n";
  return out;
}

std::string RenderDiffHtmlSection(const RunDiff& d) {
  std::string out = "<h2 id=\"baseline\">Against the baseline</h2>\n";
  Header(out, d);
  DiffSections(out, d, Frame{"baseline-", 3});
  out += "<p class=\"note\">Steady steps only (warm-up, capture and compile steps are not "
         "samples); times are device time per step.</p>\n";
  return out;
}

}  // namespace tracelint
