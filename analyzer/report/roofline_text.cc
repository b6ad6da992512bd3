// The text report's "Where the device time goes" block (docs/roofline.md):
// device time per kernel family, each family's rate against the device's
// roofline, the modelled FLOP utilization and the largest gap to the roof.

#include <algorithm>
#include <string>
#include <vector>

#include "analyzer/base/escape.h"
#include "analyzer/report/roofline_report.h"
#include "analyzer/report/text_layout.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

using text::Dur;
using text::Pct;
using text::Table;
using text::Wrap;

// Families shown without -v; the rest are summed in one line.
constexpr size_t kFamilyRows = 8;
constexpr size_t kOpNameColumns = 60;

std::string Rate(double v) {
  if (v <= 0) return "-";
  return v >= 100 ? fmt::format("{:.0f}", v) : v >= 1 ? fmt::format("{:.1f}", v)
                                                      : fmt::format("{:.2f}", v);
}

std::string PeakLine(const RankRoofline& r) {
  // The reason quotes the trace's device name: escaped like every name.
  if (r.device.empty()) return fmt::format("No roofline: {}.", EscapeTerminal(r.no_peak_reason));
  std::string line = fmt::format("Peaks: {} ({} figures", r.device, r.peak_kind);
  if (!r.device_in_trace.empty() && r.device_in_trace != r.device) {
    line += fmt::format("; the trace says \"{}\"", EscapeTerminal(r.device_in_trace));
  }
  return line + "); efficiency = roofline time at the work's intensity / measured time.";
}

// The op furthest from its roof, by the time it would save at the roof.
const RooflineOp* LargestGap(const RankRoofline& r) {
  const RooflineOp* best = nullptr;
  double best_gap = 0;
  for (const RooflineOp& o : r.top_ops) {
    if (o.efficiency < 0 || o.efficiency >= 1) continue;
    const double gap = o.device_ns_per_step * (1 - o.efficiency);
    if (gap > best_gap) {
      best_gap = gap;
      best = &o;
    }
  }
  return best;
}

}  // namespace

std::string RooflineTextBlock(const RankRoofline& r, size_t width, bool verbose) {
  std::string out;
  if (r.families.empty() || r.busy_ns_per_step <= 0) return out;
  out += Wrap(fmt::format("Device time per kernel family, mean per step over {} step{} ({} "
                          "busy{}):",
                          r.steps, r.steps == 1 ? "" : "s",
                          Dur(SaturatingNsFromDouble(r.busy_ns_per_step)),
                          r.devices > 1 ? fmt::format(" on {} devices", r.devices) : ""),
              width, "", "  ");
  Table t({"family", "time", "step", "TFLOP/s", "TB/s", "bound", "efficiency", "modelled"},
          {false, true, true, true, true, false, true, true});
  double rest_ns = 0, rest_share = 0;
  size_t rest = 0;
  for (size_t i = 0; i < r.families.size(); ++i) {
    const RooflineFamily& f = r.families[i];
    if (!verbose && i >= kFamilyRows) {
      rest_ns += f.device_ns_per_step;
      rest_share += f.share_of_step;
      ++rest;
      continue;
    }
    const bool modelled = f.modelled_share > 0;
    t.AddRow({FamilyLabel(f), Dur(SaturatingNsFromDouble(f.device_ns_per_step)),
              Pct(f.share_of_step),
              modelled && f.flops_per_step > 0 ? Rate(f.achieved_tflops) : "-",
              modelled && f.bytes_per_step > 0 ? Rate(f.achieved_tbps) : "-",
              f.bound.empty() ? "-" : f.bound,
              f.efficiency >= 0 ? Pct(f.efficiency) : "-",
              f.compute ? Pct(f.modelled_share) : "-"});
  }
  if (rest > 0) {
    t.AddRow({fmt::format("{} more (-v)", rest), Dur(SaturatingNsFromDouble(rest_ns)),
              Pct(rest_share), "", "", "", "", ""});
  }
  out += t.Render(width);
  out += Wrap(PeakLine(r), width, "  ", "    ");
  if (r.mfu.has_value()) {
    out += Wrap(fmt::format("Modelled FLOP utilization (includes recompute): {} of the {} "
                            "datasheet peak ({} TFLOP/s)",
                            Pct(*r.mfu), r.mfu_dtype, Rate(r.mfu_peak_tflops)),
                width, "  ", "    ");
  }
  if (const RooflineOp* gap = LargestGap(r)) {
    std::string what = EscapeTerminal(gap->name);
    if (!gap->params.empty()) what += " " + gap->params;
    out += Wrap(fmt::format("Largest gap to the roofline: {} at {} of its roof ({}-bound, {} "
                            "per step)",
                            text::Fit(what, kOpNameColumns), Pct(gap->efficiency), gap->bound,
                            Dur(SaturatingNsFromDouble(gap->device_ns_per_step))),
                width, "  ", "    ");
  }
  for (const std::string& note : r.notes) {
    out += Wrap("note: " + EscapeTerminal(note), width, "  ", "    ");
  }
  return out;
}

}  // namespace tracelint
