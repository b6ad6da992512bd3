#include "analyzer/report/html_report.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/roofline.h"
#include "analyzer/analysis/device_activity.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/memory_usage.h"
#include "analyzer/analysis/step_phase.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/base/escape.h"
#include "analyzer/model/accelerator.h"
#include "analyzer/report/display_names.h"
#include "analyzer/report/html_charts.h"
#include "analyzer/report/roofline_report.h"
#include "analyzer/report/html_style.h"
#include "analyzer/report/html_timeline.h"
#include "analyzer/report/report_data.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

using html::CategoryLabel;

std::string E(std::string_view s) { return EscapeHtml(s); }

// Escaped text whose `backtick spans` (code in a fix or a message) become
// <code>; an unpaired backtick stays as it is.
// A range of durations ("2.0 us-364.0 us") never breaks at its hyphen: the
// hyphen between a unit or digit and a digit becomes a non-breaking one.
std::string KeepRangesWhole(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    bool range = s[i] == '-' && i > 0 && i + 1 < s.size() &&
                 std::isdigit(static_cast<unsigned char>(s[i + 1])) &&
                 (std::isdigit(static_cast<unsigned char>(s[i - 1])) ||
                  (i >= 2 && s[i - 1] == 's' &&
                   (s[i - 2] == 'u' || s[i - 2] == 'm' || s[i - 2] == 'n' || s[i - 2] == ' ')));
    out += range ? std::string("\u2011") : std::string(1, s[i]);
  }
  return out;
}

std::string WithCode(std::string_view s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    size_t open = s.find('`', i);
    size_t close = open == std::string_view::npos ? open : s.find('`', open + 1);
    if (close == std::string_view::npos) {
      out += E(s.substr(i));
      break;
    }
    out += E(s.substr(i, open - i)) + "<code>" + E(s.substr(open + 1, close - open - 1)) +
           "</code>";
    i = close + 1;
  }
  return out;
}
std::string Dur(TimeNs ns) { return FormatDurationNs(ns); }
std::string Pct(double share) { return fmt::format("{:.1f}%", 100 * share); }
std::string OptPct(const std::optional<double>& share) {
  return share.has_value() ? Pct(*share) : std::string("n/a");
}

// What bounds the run: the shared verdict (docs/design/contract.md, "The verdict line"),
// so this page says what text, Markdown, SARIF and JSON say; then the top
// finding, which is where a reader goes next.
std::string VerdictHtml(const ReportInput& in) {
  Verdict verdict = in.summary().verdict;
  std::string out = "<b>" + E(verdict.line) + "</b>";
  if (std::string unowned = UnownedBoundNote(in); !unowned.empty()) {
    out += "<br><span class=\"note\">(" + E(unowned) + ")</span>";
  }
  if (!verdict.judgeable && in.summary().no_rank_has_steady_step) {
    const std::string_view advice =
        in.records.empty() ? ProfileAfterWarmupAdvice(JobProfile{})
                            : ProfileAfterWarmupAdvice(in.records.front()->job_profile);
    out += "<br>Its one-time costs are among the findings. Profile after warm-up: <code>" +
           E(advice) + "</code>.";
  }
  if (in.findings.empty()) {
    out += in.not_judged.empty() ? "<br>No findings: nothing in the analysed steps wastes GPU "
                                   "time beyond the rules' thresholds."
                                 : "<br>No findings; some rules could not judge this trace "
                                   "(below).";
    return out;
  }
  const Finding& f = in.findings.front();
  std::string cost = f.one_time_ns > 0 && f.recoverable_ns_per_step == 0
                         ? fmt::format("one-time cost {}", Dur(f.one_time_ns))
                         : fmt::format("up to {}/step, {} of step time",
                                       Dur(f.recoverable_ns_per_step), Pct(f.recoverable_share));
  return out + fmt::format("<br><span class=\"note\">Top finding: <a href=\"#finding-1\">{}"
                           "</a> ({}: {})</span>",
                           E(f.title), E(f.rule_id), cost);
}

void Header(std::string& out, const ReportInput& in) {
  out += "<table class=\"meta\">";
  auto row = [&](std::string_view key, const std::string& value_html) {
    out += fmt::format("<tr><td>{}</td><td>{}</td></tr>", key, value_html);
  };
  row("Trace", "<code>" + html::BreakablePath(E(in.input_path)) + "</code>");
  if (!in.span_note.empty()) row("Span", E(in.span_note));
  if (!in.config_note.empty()) row("Config in effect", E(in.config_note));
  if (!in.records.empty()) {
    const RunMetadata& md = in.records.front()->metadata;
    std::string fw = md.framework.empty() ? "unknown" : md.framework;
    if (!md.framework_version.empty()) fw += " " + md.framework_version;
    row("Format", E(md.format.empty() ? "unknown" : md.format) + ", " + E(fw));
    std::string ranks = fmt::format("{} loaded", in.records.size());
    if (md.world_size > 0) ranks += fmt::format(", world size {}", md.world_size);
    if (!md.backend.empty()) ranks += ", backend " + E(md.backend);
    row("Ranks", ranks);
    // Only devices with activity: a trace lists every device of the host
    // (docs/html-report.md, "Header"), and "8 GPUs" of which 1 ran reads as
    // an 8-GPU job.
    std::string devices;
    int listed = 0, shown = 0;
    for (size_t i = 0; i < in.records.size(); ++i) {
      const std::string_view accelerator = AcceleratorName(in.records[i]->metadata);
      const std::set<int> active(in.records[i]->active_devices.begin(),
                                 in.records[i]->active_devices.end());
      for (const DeviceInfo& d : in.records[i]->metadata.devices) {
        ++listed;
        if (!active.empty() && !active.contains(d.id)) continue;
        ++shown;
        if (!devices.empty()) devices += "<br>";
        if (in.records.size() > 1) devices += fmt::format("rank {}: ", RankOf(*in.records[i], i));
        // "GPU 0: NVIDIA H100 80GB HBM3, 79.2 GiB", "TPU 0: TPU v5 lite".
        devices += fmt::format("{}: {}", E(DeviceLabel(d.id, accelerator)),
                               E(!d.name.empty()     ? d.name
                                 : d.vendor.empty() ? std::string("(unnamed)")
                                                    : d.vendor + " (unnamed)"));
        if (std::string arch = DeviceArchitecture(d); !arch.empty()) devices += ", " + E(arch);
        if (d.total_memory_bytes > 0) devices += ", " + E(MemoryBytes(d.total_memory_bytes));
      }
    }
    if (shown < listed) {
      devices += fmt::format("<br><span class=\"note\">{} of {} listed device{} with activity; "
                             "the others did no work in the trace</span>",
                             shown, listed, listed == 1 ? "" : "s");
    }
    row("Devices", devices.empty() ? "no device properties in the trace" : devices);
  }
  out += "</table>\n";
}

void FindingDetails(std::string& out, const ReportInput& in, const Finding& f, int index) {
  std::string_view sev = FindingSeverityName(f.severity);
  std::string id = f.cause.empty() ? E(f.rule_id) : fmt::format("{} ({})", E(f.rule_id), E(f.cause));
  std::string cost = f.one_time_ns > 0 && f.recoverable_ns_per_step == 0
                         ? fmt::format("one-time {}", Dur(f.one_time_ns))
                         : fmt::format("up to {}/step ({} of step)", Dur(f.recoverable_ns_per_step),
                                       Pct(f.recoverable_share));
  out += fmt::format(
      "<details class=\"finding\" id=\"finding-{}\"{}><summary><span class=\"sev sev-{}\">{}</span>"
      "<b>{}. {}</b> &mdash; {}, confidence {} <span class=\"note nw\">[{}]</span></summary>\n",
      index, index == 1 ? " open" : "", sev, sev, index, E(f.title), cost,
      ConfidenceName(f.confidence), id);
  if (!f.message.empty()) out += "<p>" + KeepRangesWhole(WithCode(f.message)) + "</p>\n";
  if (!f.evidence.empty()) {
    out += "<ul class=\"evidence\">";
    for (const Evidence& e : f.evidence) out += "<li>" + WithCode(e.text) + "</li>";
    out += "</ul>\n";
  }
  const FindingLocation& l = f.location;
  std::string where;
  auto add = [&](const std::string& part) { where += (where.empty() ? "" : ", ") + part; };
  if (l.rank >= 0) add(fmt::format("rank {}", l.rank));
  if (l.first_step >= 0) {
    add(l.last_step > l.first_step ? fmt::format("steps {}-{}", l.first_step, l.last_step)
                                   : fmt::format("step {}", l.first_step));
  }
  if (!l.track.empty()) add(E(l.track));
  if (l.end_ns > l.start_ns) {
    TimeNs origin = 0;
    for (const RankRecord* rec : in.records) {
      if (rec->metadata.rank == l.rank || in.records.size() == 1) origin = rec->bounds.first;
    }
    add(fmt::format("time {} from the trace start",
                    FormatOffsetRangeNs(l.start_ns - origin, l.end_ns - origin)));
  }
  if (!where.empty()) out += "<p><b>Where:</b> " + where + "</p>\n";
  if (!l.top_items.empty()) {
    out += "<table class=\"data\"><tr><th>total</th><th>count</th><th class=\"name\">name</th>"
           "<th class=\"name\">detail</th></tr>";
    for (const TopItem& t : l.top_items) {
      out += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"name\">{}</td>"
                         "<td class=\"name\">{}</td></tr>",
                         Dur(t.total_ns), t.count, html::BreakableName(ShortKernelName(t.name)),
                         E(CompactDetail(t.detail)));
    }
    out += "</table>\n";
  }
  if (!l.python_stack.empty()) {
    out += "<p><b>Python stack</b> (innermost last):</p><pre class=\"stack\">";
    for (const std::string& frame : l.python_stack) out += E(frame) + "\n";
    out += "</pre>\n";
  }
  if (!f.per_rank.empty()) {
    out += "<ul class=\"per-rank\">";
    for (const std::string& r : f.per_rank) out += "<li>" + E(r) + "</li>";
    out += "</ul>\n";
  }
  if (!f.fix.empty()) out += "<div class=\"fix\"><b>Fix:</b> " + WithCode(f.fix) + "</div>\n";
  out += "</details>\n";
}

void Findings(std::string& out, const ReportInput& in) {
  out += "<h2 id=\"findings\">Findings, ranked by recoverable step time</h2>\n";
  // A run with no steady step has no step time to recover: its one-time
  // costs are listed, with no "up to 0% of step time".
  if (in.summary().no_rank_has_steady_step) {
    out += fmt::format("<p class=\"summary\">Not judgeable: no steady step, so no per-step "
                       "saving is claimed; {} one-time cost{} below.</p>\n",
                       in.findings.size(), in.findings.size() == 1 ? "" : "s");
  } else {
    out += fmt::format("<p class=\"summary\">{}</p>\n", E(SummarizeFindings(in.findings).line));
  }
  int index = 0;
  for (const Finding& f : in.findings) FindingDetails(out, in, f, ++index);
  if (!in.not_judged.empty()) {
    out += "<h3>Could not judge</h3><ul class=\"not-judged\">";
    for (const NotJudgedGroup& g : GroupNotJudged(in.not_judged)) {
      std::vector<std::string> ids;
      for (const std::string& id : g.rule_ids) ids.push_back("<code>" + E(id) + "</code>");
      out += fmt::format("<li>{}: {}</li>", fmt::join(ids, ", "), E(g.reason));
    }
    out += "</ul>\n";
  }
}

void MetricsTable(std::string& out, const StepMetrics& m, std::string_view accelerator) {
  out += "<table class=\"data metrics\"><tr><th class=\"name\"></th>";
  for (const DeviceMetrics& d : m.summary) out += "<th>" + DeviceLabel(d.device, accelerator) + "</th>";
  out += "</tr>\n";
  auto row = [&](std::string_view label, auto value_of) {
    out += fmt::format("<tr><td class=\"name\">{}</td>", label);
    for (const DeviceMetrics& d : m.summary) out += "<td>" + value_of(d) + "</td>";
    out += "</tr>\n";
  };
  row("Step time (mean)", [&](const DeviceMetrics&) { return Dur(m.mean_step_ns); });
  // The host column (no device activity) has no device to be busy.
  row(fmt::format("{} utilization", accelerator), [](const DeviceMetrics& d) {
    return d.device < 0 ? std::string("n/a") : Pct(d.gpu_utilization);
  });
  row("Busy incl. copies", [](const DeviceMetrics& d) {
    return d.device < 0 ? std::string("n/a") : Pct(d.busy_including_copies);
  });
  // An estimate no device has (a TPU has no SMs) would be a row of n/a.
  auto estimate_row = [&](std::string_view label, std::optional<double> DeviceMetrics::*field) {
    if (std::any_of(m.summary.begin(), m.summary.end(),
                    [&](const DeviceMetrics& d) { return (d.*field).has_value(); })) {
      row(label, [&](const DeviceMetrics& d) { return OptPct(d.*field); });
    }
  };
  estimate_row("Est. SM efficiency", &DeviceMetrics::est_sm_efficiency);
  estimate_row("Est. achieved occupancy", &DeviceMetrics::est_achieved_occupancy);
  estimate_row("Tensor Core kernel share", &DeviceMetrics::tensor_core_kernel_share);
  for (int c = 0; c < kStepCategoryCount; ++c) {
    row(fmt::format("&nbsp;&nbsp;{} (mean/step)", CategoryLabel(c)), [&](const DeviceMetrics& d) {
      return Dur(MeanBreakdownNs(d, m.step_count)[c]);
    });
  }
  out += "</table>\n";
}

std::string ShareCell(double share) {
  return fmt::format("<td><span class=\"share\" style=\"width:{:.0f}px\"></span>{}</td>",
                     std::clamp(share, 0.0, 1.0) * 80, Pct(share));
}

void TopTables(std::string& out, const StepMetrics& m, int top_n, std::string_view accelerator) {
  size_t n = static_cast<size_t>(std::max(0, top_n));
  if (m.top_kernels.empty()) {
    out += "<p class=\"note\">No kernels in the analysed steps.</p>\n";
    return;
  }
  out += fmt::format("<h3>Top {} kernels by device time</h3>\n", std::min(n, m.top_kernels.size()));
  out += "<table class=\"data kernels\"><tr><th>total</th><th>count</th><th>mean</th><th>share</th>"
         "<th>family</th><th>TC</th><th class=\"name\">kernel</th></tr>\n";
  for (size_t i = 0; i < std::min(n, m.top_kernels.size()); ++i) {
    const KernelStat& k = m.top_kernels[i];
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td>{}<td>{}</td><td>{}</td>"
                       "<td class=\"name\">{}</td></tr>\n",
                       Dur(k.total_ns), k.count, Dur(k.mean_ns), ShareCell(k.share),
                       DeviceFamilyName(k.kernel_class.device_family),
                       TensorCoreCell(k.kernel_class.tc, accelerator),
                       html::BreakableName(ShortKernelName(k.name)));
  }
  out += "</table>\n";
  out += fmt::format("<h3>Top {} ops by device time</h3>\n", std::min(n, m.top_ops.size()));
  out += "<table class=\"data ops\"><tr><th>device</th><th>calls</th><th>kernels</th>"
         "<th>per call</th><th>share</th><th class=\"name\">op</th></tr>\n";
  for (size_t i = 0; i < std::min(n, m.top_ops.size()); ++i) {
    const OpStat& o = m.top_ops[i];
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}"
                       "<td class=\"name\">{}</td></tr>\n",
                       Dur(o.device_ns), o.count, o.kernel_count, Dur(o.mean_device_ns),
                       ShareCell(o.share), html::BreakableName(o.name));
  }
  out += "</table>\n";
}

// The summary device whose breakdown the per-step chart shows: the busiest.
size_t BusiestDevice(const StepMetrics& m) {
  size_t best = 0;
  for (size_t i = 1; i < m.summary.size(); ++i) {
    if (m.summary[i].busy_ns > m.summary[best].busy_ns) best = i;
  }
  return best;
}

// The allocator's peaks and what they mean (memory_usage.h).
void DeviceMemory(std::string& out, const RankRecord& rec, std::string_view accelerator,
                  std::string_view id_suffix) {
  const MemoryUsage& memory = rec.memory_usage;
  if (!memory.recorded()) return;
  out += "<h3>Device memory (the allocator's peaks in the trace window)</h3>\n<ul>";
  for (const DeviceMemoryUsage& m : memory.devices) {
    out += fmt::format("<li>{}: {}{}", E(DeviceLabel(m.device, accelerator)),
                       E(DescribeMemory(m)),
                       m.peak_step >= 0 ? fmt::format(", in step {}", m.peak_step) : "");
    std::string advice = MemoryAdvice(m, rec.job_profile, accelerator);
    if (!advice.empty()) out += "<br><span class=\"note\">" + E(advice) + "</span>";
    out += "</li>";
  }
  out += "</ul>\n";
  // One chart per device, for the first few: a node of eight GPUs repeats
  // one shape, and the list above names them all.
  constexpr size_t kMaxMemoryCharts = 4;
  for (size_t i = 0; i < memory.devices.size() && i < kMaxMemoryCharts; ++i) {
    out += html::MemoryChart(memory.devices[i], accelerator, id_suffix);
  }
}

void RankSection(std::string& out, const ReportInput& in, size_t i) {
  const StepMetrics& steady = in.records[i]->step_metrics;
  std::string who =
      in.records.size() > 1 ? fmt::format("rank {}, ", RankOf(*in.records[i], i)) : "";
  // No steady step: the page says so and still describes the run, over
  // every step (the TensorBoard plugin's view), never "mean over 0 steps".
  const bool descriptive = steady.step_count == 0 &&
                           in.records[i]->all_step_metrics().step_count > 0;
  const StepMetrics& m = descriptive ? in.records[i]->all_step_metrics() : steady;
  if (descriptive) {
    out += fmt::format("<h2>Step metrics ({}no steady step; all {} step{}, for description "
                       "only)</h2>\n",
                       who, m.step_count, m.step_count == 1 ? "" : "s");
    out += "<p class=\"note\">Every step is warm-up, capture or compile, so nothing below is "
           "a per-step claim and no saving is computed from it.</p>\n";
  } else {
    out += fmt::format("<h2>Step metrics ({}mean over {} step{})</h2>\n", who, m.step_count,
                       m.step_count == 1 ? "" : "s");
  }
  for (const std::string& note : in.records[i]->steps.notes) {
    out += "<p class=\"note\">" + E(note) + "</p>\n";
  }
  const std::string_view accelerator = AcceleratorName(in.records[i]->metadata);
  // Every rank has these charts: their ids carry the rank's position.
  const std::string ids = in.records.size() > 1 ? fmt::format("-r{}", i) : "";
  if (m.summary.empty() || m.step_count == 0) {
    out += "<p class=\"note\">No analysed steps.</p>\n";
    DeviceMemory(out, *in.records[i], accelerator, ids);  // the window's memory still holds
    return;
  }
  MetricsTable(out, m, accelerator);
  if (m.steps.size() > html::kMaxChartSlots) {
    out += fmt::format("<p class=\"note\">{} steps: each bar and point below is the mean of "
                       "{} consecutive steps (hover names them); a red mark flags a bar holding "
                       "an outlier step.</p>\n",
                       m.steps.size(),
                       (m.steps.size() + html::kMaxChartSlots - 1) / html::kMaxChartSlots);
  }
  size_t device_pos = BusiestDevice(m);
  out += fmt::format("<h3>Step breakdown per step ({})</h3>\n",
                     DeviceLabel(m.summary[device_pos].device, accelerator));
  // Per-step charts show every steady step, outliers flagged.
  out += html::StepBreakdownChart(in.records[i]->steady_step_metrics(),
                                  in.summary().ranks[i].outliers, device_pos, accelerator, ids);
  out += html::CategoryLegend();
  out += fmt::format("<h3>{} utilization per step and device</h3>\n", accelerator);
  out += html::UtilizationChart(m, accelerator, ids);
  DeviceMemory(out, *in.records[i], accelerator, ids);
  TopTables(out, m, in.options.top_n, accelerator);
  out += html::RooflineSection(in.records[i]->roofline, ids);
}

// The phases of a rank's steps that are not steady: "ProfilerStep#1
// (warm-up), ProfilerStep#2 (compile)" or "the window (warm-up)".
std::string NotSteadySteps(const RankRecord& rec) {
  const StepSet& all = rec.all_steps;
  const StepPhaseSet& phase = rec.step_phase;
  std::string out;
  for (size_t i = 0; i < all.steps.size() && i < phase.phases.size(); ++i) {
    if (phase.phases[i] == StepPhase::kSteady) continue;
    if (!out.empty()) out += ", ";
    out += fmt::format("{} ({})", StepName(all, all.steps[i].number),
                       StepPhaseName(phase.phases[i]));
  }
  return out;
}

void TimelineSection(std::string& out, const ReportInput& in) {
  out += "<h2 id=\"timeline-section\">Timeline of the worst steady step</h2>\n";
  if (!in.no_timeline_reason.empty()) {
    out += "<p class=\"note\" id=\"no-timeline\">No timeline: " + E(in.no_timeline_reason) +
           "</p>\n";
    return;
  }
  std::optional<html::WorstStep> worst = html::FindWorstStep(in);
  if (!worst.has_value() || worst->not_steady) {
    if (in.summary().no_rank_has_steady_step) {
      std::string phases;
      for (size_t i = 0; i < in.records.size(); ++i) {
        std::string who = in.records.size() > 1
                              ? fmt::format("rank {}: ", RankOf(*in.records[i], i))
                              : "";
        phases += (phases.empty() ? "" : "; ") + who + NotSteadySteps(*in.records[i]);
      }
      out += "<p class=\"note\" id=\"no-steady-step\">No steady step to draw: every step is "
             "warm-up, capture or compile (" + E(phases) + "). Such a step shows start-up, not "
             "the run: the longest one is drawn below as what ran, not as representative; "
             "<code>--annotate</code> draws the findings on the whole trace for Perfetto "
             "UI.</p>\n";
    } else if (!worst.has_value()) {
      out += "<p class=\"note\">No step to draw.</p>\n";
    }
    if (!worst.has_value()) return;
  }
  if (worst->not_steady) {
    out += html::StepTimeline(in, *worst);
    return;
  }
  const RankRecord& rec = *in.records[worst->rank_pos];
  const Step& step = rec.steps.steps[worst->step_index];
  std::string who =
      in.records.size() > 1 ? fmt::format("rank {}, ", RankOf(*in.records[worst->rank_pos],
                                                             worst->rank_pos))
                          : "";
  std::string what;
  if (HasSteps(rec.steps)) {
    std::string left_out = NotSteadySteps(rec);
    // Outlier steps leave every saving, so the idle the findings point at is
    // not attributed in them: the drawn step is the longest judged one.
    std::vector<std::string> outliers;
    for (size_t i : rec.outlier_steps.indices) {
      outliers.push_back(fmt::format("#{}", rec.steady_steps.steps[i].number));
    }
    what = fmt::format("{} ({}), the longest steady step{}{}",
                       rec.steps.source == StepSource::kInferred
                           ? fmt::format("iteration {}", step.number)
                           : fmt::format("step #{}", step.number),
                       Dur(step.duration_ns()),
                       left_out.empty() ? "" : " (not drawn, as not steady: " + E(left_out) + ")",
                       outliers.empty()
                           ? ""
                           : fmt::format(" that is not an outlier (outlier step{} {}: left out "
                                         "of every saving, marked in the step chart)",
                                         outliers.size() > 1 ? "s" : "",
                                         fmt::format("{}", fmt::join(outliers, ", "))));
  } else {
    what = fmt::format("the profiled window ({}; the trace has no step markers{})",
                       Dur(step.duration_ns()),
                       rec.step_phase.window_steady_start_ns >= 0
                           ? ", drawn from where its start-up work ends"
                           : "");
  }
  if (who.empty()) what[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(what[0])));
  out += fmt::format(
      "<p class=\"note\">{}{}. Device streams, each device's idle gaps coloured by cause, and "
      "host threads; the yellow bands are the time ranges findings point at (number = "
      "finding), copies and collectives inside them are outlined. Hover for names and "
      "times.</p>\n",
      who, what);
  out += html::StepTimeline(in, *worst);
  out += html::IdleCauseLegend(AcceleratorName(in.records[worst->rank_pos]->metadata));
}

void Diagnostics(std::string& out, const ReportInput& in) {
  out += "<h2>Import diagnostics</h2>\n<ul class=\"diagnostics\">";
  bool any = false;
  for (size_t i = 0; i < in.records.size(); ++i) {
    std::string prefix =
        in.records.size() > 1 ? fmt::format("rank {}: ", RankOf(*in.records[i], i)) : "";
    for (const Diagnostic& d : in.records[i]->diagnostics) {
      any = true;
      out += fmt::format("<li>[{}] {}{} x{}: {}</li>", SeverityName(d.severity), prefix, E(d.name),
                         d.count, E(d.description));
    }
  }
  for (const std::string& w : in.warnings) {
    any = true;
    out += "<li>[warning] " + E(w) + "</li>";
  }
  if (!any) out += "<li>none</li>";
  out += "</ul>\n";
}

}  // namespace

std::string RenderHtmlReport(const ReportInput& in) {
  std::string out;
  out.reserve(256 * 1024);
  out += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<title>tracelint report: {}</title>\n", E(in.input_path));
  out += "<style>";
  out += html::kStyle;
  out += "</style></head>\n<body>\n<h1>tracelint report</h1>\n";
  Header(out, in);
  out += "<div class=\"verdict\" id=\"verdict\">" + VerdictHtml(in);
  if (in.baseline != nullptr) {
    out += "<br><a href=\"#baseline\">Against the baseline</a>: " + E(in.baseline->headline);
  }
  out += "</div>\n";
  Findings(out, in);
  // analyze --baseline: the comparison right after the findings it adds to.
  if (in.baseline != nullptr) out += in.baseline->html;
  if (std::string ranks = html::RankChart(in); !ranks.empty()) {
    out += "<h2>Ranks</h2>\n<p class=\"note\">Mean per step over each rank's analysed steps "
           "(idle and communication averaged over the rank's devices).</p>\n" + ranks;
  }
  TimelineSection(out, in);
  for (size_t i = 0; i < in.records.size(); ++i) RankSection(out, in, i);
  if (std::optional<Throughput> t = in.summary().throughput) {
    out += fmt::format("<h2>Throughput</h2>\n<p>samples/s: {:.1f}", t->samples_per_s);
    if (t->samples_per_dollar.has_value()) {
      out += fmt::format(", samples per dollar: {:.0f}", *t->samples_per_dollar);
    }
    out += "</p><p class=\"note\">" + E(t->assumptions) + "</p>\n";
  }
  Diagnostics(out, in);
  out += "<p class=\"note\">Written by tracelint. Every number is from the analysed steps; "
         "savings are upper bounds per step.</p>\n</body></html>\n";
  return out;
}

}  // namespace tracelint
