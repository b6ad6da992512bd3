// The terminal report: header, metrics, top kernels/ops, HTA breakdown,
// import diagnostics, then the ranked findings and a one-line summary.

#include <algorithm>
#include <string>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/step_phase.h"
#include "analyzer/model/accelerator.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/base/escape.h"
#include "analyzer/report/report.h"
#include "analyzer/report/report_data.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

constexpr size_t kNameWidth = 90;  // longer kernel names are cut in the text report
constexpr std::string_view kCategoryLabels[kStepCategoryCount] = {
    "Kernel", "Memcpy", "Memset", "Communication", "Runtime", "DataLoader", "CPU Exec", "Other"};

std::string Pct(double share) { return fmt::format("{:.1f}%", 100 * share); }
std::string OptPct(const std::optional<double>& share) {
  return share.has_value() ? Pct(*share) : std::string("n/a");
}
std::string Dur(TimeNs ns) { return FormatDurationNs(ns); }

// Trace names and paths are hostile input: shown with control characters as
// visible escapes and invalid UTF-8 replaced, so none can forge report lines.
std::string T(std::string_view s) { return EscapeTerminal(s); }

std::string Cut(std::string_view s, size_t width = kNameWidth) {
  std::string e = T(s);
  if (e.size() <= width) return e;
  return std::string(TruncateUtf8(e, width - 3)) + "...";
}

void Section(std::string& out, std::string_view title) {
  out += fmt::format("\n== {} ==\n", title);
}

// "GPU 0", "TPU 2", "MTIA 17"; "host" for -1.
std::string AccelLabel(int device, std::string_view accelerator) {
  return device < 0 ? std::string("host") : fmt::format("{} {}", accelerator, device);
}

std::string DeviceLine(const DeviceInfo& d, std::string_view accelerator) {
  std::string line = fmt::format("{} {} {}", accelerator, d.id, d.name.empty() ? "(unnamed)" : T(d.name));
  if (d.compute_major >= 0) line += fmt::format(", CC {}.{}", d.compute_major, d.compute_minor);
  if (d.sm_count > 0) line += fmt::format(", {} SMs", d.sm_count);
  if (d.total_memory_bytes > 0) {
    line += fmt::format(", {:.1f} GiB", static_cast<double>(d.total_memory_bytes) / (1 << 30));
  }
  return line;
}

std::string StepRange(const StepSet& s) {
  if (s.steps.empty()) return "none";
  if (!s.from_markers) return "1 window (no step markers)";
  std::string range = s.steps.size() == 1
                          ? fmt::format("ProfilerStep#{}", s.steps.front().number)
                          : fmt::format("ProfilerStep#{}..#{}", s.steps.front().number,
                                        s.steps.back().number);
  std::string line = fmt::format("{} analysed ({})", s.steps.size(), range);
  if (s.dropped_incomplete > 0) {
    line += fmt::format(", {} incomplete dropped", s.dropped_incomplete);
  }
  return line;
}

bool NoRankHasSteadyStep(const ReportInput& in) {
  if (in.contexts.empty()) return false;
  return std::all_of(in.contexts.begin(), in.contexts.end(),
                     [](AnalysisContext* c) { return c->step_phase().NoSteadyStep(); });
}

void Header(std::string& out, const ReportInput& in) {
  out += "tracelint report\n";
  if (NoRankHasSteadyStep(in)) {
    out += "NOT JUDGEABLE: no steady step. The profiled window is warm-up, capture or compile "
           "only, so no per-step claim is made; its one-time costs are listed below. Profile "
           "after warm-up: torch.profiler.schedule(wait=1, warmup=2, active=3).\n";
  }
  out += fmt::format("Trace:      {}\n", T(in.input_path));
  if (in.ranks.empty()) return;
  const RunMetadata& md0 = in.ranks.front()->metadata();
  out += fmt::format("Format:     {}\n", md0.format.empty() ? "unknown" : T(md0.format));
  std::string fw = md0.framework.empty() ? "unknown" : T(md0.framework);
  if (!md0.framework_version.empty()) fw += " " + T(md0.framework_version);
  out += fmt::format("Framework:  {}\n", fw);
  std::string ranks = fmt::format("{} loaded", in.ranks.size());
  if (md0.world_size > 0) ranks += fmt::format(", world size {}", md0.world_size);
  if (!md0.backend.empty()) ranks += fmt::format(", backend {}", T(md0.backend));
  out += fmt::format("Ranks:      {}\n", ranks);
  for (size_t i = 0; i < in.ranks.size(); ++i) {
    const Timeline& tl = *in.ranks[i];
    int rank = RankOf(tl, i);
    std::string prefix = in.ranks.size() > 1 ? fmt::format("rank {}: ", rank) : "";
    if (tl.metadata().devices.empty()) {
      out += fmt::format("Devices:    {}no device properties in the trace\n", prefix);
    }
    for (const DeviceInfo& d : tl.metadata().devices) {
      out += fmt::format("Devices:    {}{}\n", prefix, DeviceLine(d, AcceleratorName(tl.metadata())));
    }
    if (i < in.contexts.size()) {
      const StepSet& steps = in.contexts[i]->steps();
      const StepPhaseSet& phase = in.contexts[i]->step_phase();
      std::string range = StepRange(in.contexts[i]->all_steps());
      if (!phase.AllSteady()) {
        range += fmt::format("; {} steady", phase.steady_count);
      }
      out += fmt::format("Steps:      {}{}\n", prefix, range);
      if (!phase.costs.empty()) {
        std::vector<std::string> costs;
        for (const OneTimeCost& c : phase.costs) {
          costs.push_back(fmt::format("{} {}", OneTimeKindLabel(c.kind), Dur(c.total_ns)));
        }
        out += fmt::format("One-time:   {}{}\n", prefix, fmt::join(costs, ", "));
      }
      for (const std::string& note : steps.notes) {
        out += fmt::format("  note: {}{}\n", prefix, T(note));
      }
    }
    if (tl.metadata().truncated) {
      out += fmt::format("  note: {}input ends early at byte {}; {} events read\n", prefix,
                         tl.metadata().truncated_at_byte, tl.metadata().events_read);
    }
  }
}

// One column per device; rows are the metrics (means over the steps).
void MetricsTable(std::string& out, const StepMetrics& m, std::string_view accelerator) {
  if (m.summary.empty() || m.step_count == 0) {
    out += "no analysed steps\n";
    return;
  }
  out += fmt::format("{:<28}", "");
  for (const DeviceMetrics& d : m.summary) {
    out += fmt::format("{:>18}", AccelLabel(d.device, accelerator));
  }
  out += "\n";
  auto row = [&](std::string_view label, auto value_of) {
    out += fmt::format("{:<28}", label);
    for (const DeviceMetrics& d : m.summary) out += fmt::format("{:>18}", value_of(d));
    out += "\n";
  };
  row("Step time (mean)", [&](const DeviceMetrics&) { return Dur(m.mean_step_ns); });
  row("GPU utilization", [](const DeviceMetrics& d) { return Pct(d.gpu_utilization); });
  row("Busy incl. copies", [](const DeviceMetrics& d) { return Pct(d.busy_including_copies); });
  row("Est. SM efficiency", [](const DeviceMetrics& d) { return OptPct(d.est_sm_efficiency); });
  // Say how much kernel time the estimate rests on when it is not all of it.
  bool partial_dims = false;
  for (const DeviceMetrics& d : m.summary) {
    partial_dims = partial_dims || d.sm_efficiency_coverage.value_or(1) < 0.9995;
  }
  if (partial_dims) {
    row("  kernel time with dims",
        [](const DeviceMetrics& d) { return OptPct(d.sm_efficiency_coverage); });
  }
  row("Est. achieved occupancy",
      [](const DeviceMetrics& d) { return OptPct(d.est_achieved_occupancy); });
  row("Tensor Core kernel share",
      [](const DeviceMetrics& d) { return OptPct(d.tensor_core_kernel_share); });
  out += "Step breakdown (mean per step, priority order):\n";
  std::vector<std::array<TimeNs, kStepCategoryCount>> means;
  for (const DeviceMetrics& d : m.summary) means.push_back(MeanBreakdownNs(d, m.step_count));
  for (int c = 0; c < kStepCategoryCount; ++c) {
    out += fmt::format("  {:<26}", kCategoryLabels[c]);
    for (size_t i = 0; i < m.summary.size(); ++i) {
      double share = m.mean_step_ns > 0 ? static_cast<double>(means[i][c]) / m.mean_step_ns : 0;
      out += fmt::format("{:>18}", fmt::format("{} {}", Dur(means[i][c]), Pct(share)));
    }
    out += "\n";
  }
}

void PerStepTable(std::string& out, const StepMetrics& m, std::string_view accelerator) {
  if (m.steps.size() < 2) return;
  out += fmt::format("Per step:\n  {:<8}{:<8}{:>12}{:>10}{:>14}{:>12}\n", "step", "device", "time",
                     "GPU util", "busy+copies", "SM eff.");
  for (const StepRow& row : m.steps) {
    for (const DeviceMetrics& d : row.devices) {
      out += fmt::format("  {:<8}{:<8}{:>12}{:>10}{:>14}{:>12}\n", fmt::format("#{}", row.number),
                         AccelLabel(d.device, accelerator), Dur(d.step_ns), Pct(d.gpu_utilization),
                         Pct(d.busy_including_copies), OptPct(d.est_sm_efficiency));
    }
  }
}

void TopTables(std::string& out, const StepMetrics& m, int top_n) {
  size_t n = static_cast<size_t>(std::max(0, top_n));
  if (m.top_kernels.empty()) {
    out += "Top kernels: no kernels in the analysed steps\n";
    return;
  }
  out += fmt::format("Top {} kernels by device time ({} of kernel time in the steps):\n",
                     std::min(n, m.top_kernels.size()), Dur(m.total_kernel_ns));
  out += fmt::format("  {:>12}{:>8}{:>12}{:>8}  {:<11}{:<4} {}\n", "total", "count", "mean",
                     "share", "family", "TC", "kernel");
  for (size_t i = 0; i < std::min(n, m.top_kernels.size()); ++i) {
    const KernelStat& k = m.top_kernels[i];
    out += fmt::format("  {:>12}{:>8}{:>12}{:>8}  {:<11}{:<4} {}\n", Dur(k.total_ns), k.count,
                       Dur(k.mean_ns), Pct(k.share), KernelFamilyName(k.kernel_class.family),
                       TensorCoreUseName(k.kernel_class.tc), Cut(k.name));
  }
  out += fmt::format("Top {} ops by device time (outermost op that launched the kernels):\n",
                     std::min(n, m.top_ops.size()));
  out += fmt::format("  {:>12}{:>8}{:>9}{:>12}{:>8}  {}\n", "device", "calls", "kernels",
                     "per call", "share", "op");
  for (size_t i = 0; i < std::min(n, m.top_ops.size()); ++i) {
    const OpStat& o = m.top_ops[i];
    out += fmt::format("  {:>12}{:>8}{:>9}{:>12}{:>8}  {}\n", Dur(o.device_ns), o.count,
                       o.kernel_count, Dur(o.mean_device_ns), Pct(o.share), Cut(o.name));
  }
}

void HtaLines(std::string& out, const StepMetrics& m, std::string_view accelerator) {
  if (m.hta.empty()) return;
  out += "HTA temporal breakdown (first to last GPU activity):\n";
  int64_t excluded = 0;
  for (const HtaBreakdown& h : m.hta) excluded += h.excluded_activities;
  if (excluded > 0) {
    out += fmt::format("  (as HTA does: only GPU work launched before the last ProfilerStep "
                       "starts; {} activities left out)\n",
                       excluded);
  }
  for (const HtaBreakdown& h : m.hta) {
    TimeNs span = h.span_ns();
    auto share = [&](TimeNs v) { return span > 0 ? static_cast<double>(v) / span : 0.0; };
    out += fmt::format("  {}: span {}: idle {} ({}), compute {} ({}), non-compute {} ({})\n",
                       AccelLabel(h.device, accelerator), Dur(span), Dur(h.idle_ns), Pct(share(h.idle_ns)),
                       Dur(h.compute_ns), Pct(share(h.compute_ns)), Dur(h.non_compute_ns),
                       Pct(share(h.non_compute_ns)));
  }
}

void Diagnostics(std::string& out, const ReportInput& in) {
  Section(out, "Import diagnostics");
  bool any = false;
  for (size_t i = 0; i < in.ranks.size(); ++i) {
    std::string prefix = in.ranks.size() > 1 ? fmt::format("rank {}: ", RankOf(*in.ranks[i], i))
                                             : "";
    for (const Diagnostic& d : in.ranks[i]->diagnostics().List()) {
      any = true;
      out += fmt::format("  [{}] {}{} x{}: {}\n", SeverityName(d.severity), prefix, T(d.name), d.count,
                         T(d.description));
    }
  }
  if (!any) out += "  none\n";
  for (const std::string& w : in.warnings) out += fmt::format("  [warning] {}\n", T(w));
}

void Findings(std::string& out, const ReportInput& in) {
  RunIntegrity integrity = SummarizeIntegrity(in);
  if (!integrity.line.empty()) out += fmt::format("\n{}\n", integrity.line);
  Section(out, "Findings (ranked by recoverable step time)");
  if (in.findings.empty()) out += "  none\n";
  int index = 0;
  size_t shown = std::min(in.findings.size(), static_cast<size_t>(std::max(1, in.options.top_n)));
  for (const Finding& f : in.findings) {
    if (static_cast<size_t>(index) == shown) break;
    ++index;
    std::string id = f.cause.empty() ? f.rule_id : fmt::format("{} ({})", f.rule_id, f.cause);
    if (f.one_time_ns > 0) {
      out += fmt::format("{}. [{}] {}: {} once (not per step), confidence {}\n", index,
                         FindingSeverityName(f.severity), id, Dur(f.one_time_ns),
                         ConfidenceName(f.confidence));
    } else {
      out += fmt::format("{}. [{}] {}: up to {}/step ({} of step), confidence {}\n", index,
                         FindingSeverityName(f.severity), id, Dur(f.recoverable_ns_per_step),
                         Pct(f.recoverable_share), ConfidenceName(f.confidence));
    }
    out += fmt::format("   {}\n", T(f.title));
    if (!f.message.empty()) out += fmt::format("   {}\n", T(f.message));
    for (const Evidence& e : f.evidence) out += fmt::format("   - {}\n", T(e.text));
    const FindingLocation& l = f.location;
    std::string where;
    if (l.rank >= 0) where += fmt::format("rank {}", l.rank);
    if (l.first_step >= 0) {
      where += fmt::format("{}step{} {}", where.empty() ? "" : ", ",
                           l.last_step > l.first_step ? "s" : "",
                           l.last_step > l.first_step
                               ? fmt::format("{}-{}", l.first_step, l.last_step)
                               : fmt::format("{}", l.first_step));
    }
    if (!l.track.empty()) where += fmt::format("{}{}", where.empty() ? "" : ", ", T(l.track));
    if (l.end_ns > l.start_ns) {
      // Times are shown from the start of the rank's trace, as timeline
      // viewers show them.
      TimeNs origin = 0;
      for (const Timeline* tl : in.ranks) {
        if (tl->metadata().rank == l.rank || in.ranks.size() == 1) origin = tl->Bounds().first;
      }
      where += fmt::format("{}time +{} .. +{}", where.empty() ? "" : ", ",
                           Dur(l.start_ns - origin), Dur(l.end_ns - origin));
    }
    if (!where.empty()) out += fmt::format("   where: {}\n", where);
    for (const TopItem& t : l.top_items) {
      out += fmt::format("     {} x{} {}{}\n", Dur(t.total_ns), t.count, Cut(t.name),
                         t.detail.empty() ? "" : fmt::format(" [{}]", T(t.detail)));
    }
    if (!l.python_stack.empty()) {
      out += "   python stack (innermost last):\n";
      for (const std::string& frame : l.python_stack) out += fmt::format("     {}\n", T(frame));
    }
    for (const std::string& r : f.per_rank) out += fmt::format("   {}\n", T(r));
    if (!f.fix.empty()) out += fmt::format("   fix: {}\n", T(f.fix));
  }
  if (shown < in.findings.size()) {
    out += fmt::format("  ({} more not shown; --top {} shows all)\n", in.findings.size() - shown,
                       in.findings.size());
  }
  if (!in.not_judged.empty()) {
    out += "Could not judge:\n";
    for (const RuleOutcome& o : in.not_judged) {
      out += fmt::format("  {}: {}\n", o.rule_id, T(o.not_judged_reason));
    }
  }
  out += fmt::format("\nSummary: {}\n", SummarizeFindings(in.findings).line);
  out += ComputeVerdict(in).line + "\n";
}

}  // namespace

std::string RenderTextReport(const ReportInput& in) {
  std::string out;
  Header(out, in);
  for (size_t i = 0; i < in.ranks.size() && i < in.contexts.size(); ++i) {
    const StepMetrics& m = in.contexts[i]->step_metrics();
    std::string who = in.ranks.size() > 1 ? fmt::format("rank {}, ", RankOf(*in.ranks[i], i)) : "";
    std::string_view accelerator = AcceleratorName(in.ranks[i]->metadata());
    const StepPhaseSet& phase = in.contexts[i]->step_phase();
    if (!phase.AllSteady()) {
      // contract.md: both views when they differ.
      const StepMetrics& all = in.contexts[i]->all_step_metrics();
      Section(out, fmt::format("Step metrics, all complete steps ({}mean over {} step{}, "
                               "the TensorBoard plugin's definition)",
                               who, all.step_count, all.step_count == 1 ? "" : "s"));
      MetricsTable(out, all, accelerator);
      who += "steady steps only, ";
    }
    Section(out, fmt::format("Step metrics ({}mean over {} step{})", who, m.step_count,
                             m.step_count == 1 ? "" : "s"));
    MetricsTable(out, m, accelerator);
    PerStepTable(out, m, accelerator);
    HtaLines(out, m, accelerator);
    TopTables(out, m, in.options.top_n);
  }
  if (std::optional<Throughput> t = ComputeThroughput(in)) {
    Section(out, "Throughput");
    out += fmt::format("  samples/s: {:.1f}\n", t->samples_per_s);
    if (t->samples_per_dollar.has_value()) {
      out += fmt::format("  samples per dollar: {:.0f}\n", *t->samples_per_dollar);
    }
    out += fmt::format("  assumptions: {}\n", t->assumptions);
  }
  Diagnostics(out, in);
  Findings(out, in);
  return out;
}

}  // namespace tracelint
