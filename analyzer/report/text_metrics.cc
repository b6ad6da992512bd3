// The text report's metrics, after the findings: run facts, one side-by-side
// table for several ranks, then the metrics of the judged rank (every rank
// with -v) with both step views when they differ (docs/design/contract.md, "Steps shown
// and steps judged"), the per-step summary and outlier steps, HTA's temporal
// breakdown, top kernels and ops, throughput and import diagnostics.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analyzer/analysis/rank_record.h"
#include "analyzer/analysis/device_activity.h"
#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/memory_usage.h"
#include "analyzer/analysis/run_summary.h"
#include "analyzer/analysis/stats.h"
#include "analyzer/analysis/roofline.h"
#include "analyzer/analysis/step_phase.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/base/strings.h"
#include "analyzer/model/accelerator.h"
#include "analyzer/report/display_names.h"
#include "analyzer/report/report_data.h"
#include "analyzer/report/roofline_report.h"
#include "analyzer/report/text_report_parts.h"
#include "fmt/format.h"

namespace tracelint::text {
namespace {

// Kernel and op names are cut to this many columns unless -v: templated
// names run to hundreds of characters.
constexpr size_t kNameColumns = 90;
constexpr size_t kSlowestShown = 3;
// "Framework: " and the value after it.
constexpr size_t kLabelColumns = 11;

constexpr std::string_view kCategoryLabels[] = {
    "Kernel", "Memcpy", "Memset", "Communication", "Runtime", "DataLoader", "CPU Exec", "Other"};
static_assert(std::size(kCategoryLabels) == kStepCategoryCount);

std::string OptPct(const std::optional<double>& share) {
  return share.has_value() ? Pct(*share) : std::string("n/a");
}

std::string DeviceLine(const DeviceInfo& d, std::string_view accelerator) {
  // "GPU NVIDIA H100", but "TPU v6 Lite" rather than "TPU TPU v6 Lite".
  std::string line;
  if (d.name.empty()) {
    // "AMD GPU (unnamed)": the vendor is known from the trace's fields.
    line = d.vendor.empty() ? fmt::format("{} (unnamed)", accelerator)
                            : fmt::format("{} {} (unnamed)", T(d.vendor), accelerator);
  } else if (StartsWithIgnoreCase(d.name, accelerator)) {
    line = T(d.name);
  } else {
    line = fmt::format("{} {}", accelerator, T(d.name));
  }
  if (std::string arch = DeviceArchitecture(d); !arch.empty()) line += ", " + arch;
  // AMD calls its multiprocessors compute units.
  if (d.sm_count > 0) line += fmt::format(", {} {}", d.sm_count, d.vendor == "AMD" ? "CUs" : "SMs");
  if (d.total_memory_bytes > 0) {
    line += fmt::format(", {:.1f} GiB", static_cast<double>(d.total_memory_bytes) / (1 << 30));
  }
  return line;
}

std::string StepRange(const StepSet& s) {
  if (s.steps.empty()) return "none";
  if (!HasSteps(s)) return "1 window (no step markers)";
  if (s.source == StepSource::kInferred) {
    std::string line = fmt::format("{} iterations (1..{}, inferred: no step markers)",
                                   s.steps.size(), s.steps.back().number);
    if (s.dropped_incomplete > 0) {
      line += fmt::format(", {} incomplete dropped", s.dropped_incomplete);
    }
    return line;
  }
  std::string range =
      StepRangeLabel(s.framework, s.steps.front().number, s.steps.back().number);
  std::string line = fmt::format("{} complete ({})", s.steps.size(), range);
  if (s.dropped_incomplete > 0) {
    line += fmt::format(", {} incomplete dropped", s.dropped_incomplete);
  }
  return line;
}

void Fact(std::string& out, std::string_view label, std::string_view value,
          const Layout& layout) {
  out += Wrap(value, layout.width, PadRight(fmt::format("{}:", label), kLabelColumns),
              std::string(kLabelColumns, ' '));
}

// Device lines, counted: "8 x GPU NVIDIA H100 80GB HBM3, CC 9.0, 132 SMs".
std::vector<std::string> DeviceSummary(const std::vector<const RankRecord*>& ranks) {
  std::vector<std::string> order;
  std::map<std::string, int> count;
  int without = 0;
  for (const RankRecord* rec : ranks) {
    if (rec->metadata.devices.empty()) ++without;
    for (const DeviceInfo& d : rec->metadata.devices) {
      std::string line = DeviceLine(d, AcceleratorName(rec->metadata));
      if (count[line]++ == 0) order.push_back(line);
    }
  }
  std::vector<std::string> out;
  for (const std::string& line : order) {
    out.push_back(count[line] > 1 ? fmt::format("{} x {}", count[line], line) : line);
  }
  if (without > 0) {
    out.push_back(ranks.size() == 1 ? std::string("no device properties in the trace")
                                    : fmt::format("{} rank{} without device properties",
                                                  without, without == 1 ? "" : "s"));
  }
  return out;
}

void RunFacts(std::string& out, const ReportInput& in, const Layout& layout) {
  const RunMetadata& md = in.records.front()->metadata;
  // A path is cut in the middle: both ends tell runs apart.
  Fact(out, "Trace",
       layout.width > kLabelColumns + 20 ? FitMiddle(T(in.input_path), layout.width - kLabelColumns)
                                         : T(in.input_path),
       layout);
  Fact(out, "Format", md.format.empty() ? "unknown" : T(md.format), layout);
  const JobProfile* job = in.records.empty() ? nullptr : &in.records.front()->job_profile;
  std::string fw = md.framework.empty() ? "unknown" : T(md.framework);
  if (md.framework.empty() && job != nullptr && job->framework_from_kernels) {
    fw = "PyTorch (inferred from at::native kernel names)";
  }
  if (!md.framework_version.empty()) fw += " " + T(md.framework_version);
  if (md.tracelint_capture) fw += "; tracelint capture (CUDA API calls and NVTX ranges only)";
  Fact(out, "Framework", fw, layout);
  // Which advice variant the findings carry: the job as the trace shows it.
  if (job != nullptr) {
    std::string kind =
        job->kind == JobKind::kTraining
            ? (job->backward_ops > 0 || job->optimizer_ops > 0
                   ? "training (backward or optimizer ops in the trace)"
                   : "training (backward-pass kernels in the trace: dgrad, wgrad, *_backward)")
        : job->kind == JobKind::kInference
            ? "inference (forward only: no backward or optimizer op in the trace)"
        : job->host_api_only
            ? "unknown (the host is recorded only as API calls, and no backward-pass kernel)"
            : "unknown (the trace does not show whether it trains)";
    if (job->llm) kind += "; LLM generation or serving names";
    Fact(out, "Job", kind, layout);
  }
  std::string ranks = fmt::format("{} loaded", in.records.size());
  if (md.world_size > 0) ranks += fmt::format(", world size {}", md.world_size);
  if (!md.backend.empty()) ranks += fmt::format(", backend {}", T(md.backend));
  Fact(out, "Ranks", ranks, layout);
  for (const std::string& d : DeviceSummary(in.records)) Fact(out, "Devices", d, layout);
  // deviceProperties lists every GPU the process could see, not the ones it
  // used: say how many had activity when that is fewer.
  size_t listed = 0, used = 0;
  for (size_t i = 0; i < in.records.size(); ++i) {
    listed += in.records[i]->metadata.devices.size();
    used += in.records[i]->active_devices.size();
  }
  if (listed > 1 && used < listed) {
    Fact(out, "Used",
         fmt::format("{} of the {} listed device{} had activity in the trace", used, listed,
                     listed == 1 ? "" : "s"),
         layout);
  }
  if (!in.provenance.config_path.empty()) Fact(out, "Config", T(in.provenance.config_path), layout);
}

// The rank's file as the user named it: relative to the input directory.
std::string RankFile(const ReportInput& in, const RankRecord& rec) {
  namespace fs = std::filesystem;
  const std::string& path = rec.metadata.source_path;
  fs::path rel = fs::path(path).lexically_relative(fs::path(in.input_path));
  std::string s = !rel.empty() && *rel.begin() != ".." && rel != "." ? rel.string()
                                                                      : fs::path(path).filename().string();
  return T(s.empty() ? path : s);
}

struct RankTotals {
  TimeNs step_ns = 0, kernel_busy_ns = 0, busy_ns = 0, comm_ns = 0;
};

RankTotals TotalsOf(const RankRecord& rec) {
  RankTotals t;
  const StepMetrics& m = rec.step_metrics;
  for (const DeviceMetrics& d : m.summary) {
    if (d.device < 0) continue;
    t.step_ns += d.step_ns;
    t.kernel_busy_ns += d.kernel_busy_ns;
    t.busy_ns += d.busy_ns;
    t.comm_ns += d.breakdown_ns[static_cast<int>(StepCategory::kCommunication)];
  }
  if (t.step_ns > 0) {
    t.comm_ns +=
        rec.idle_attribution.total_ns[static_cast<int>(IdleCause::kDeviceWaitCollective)];
  }
  return t;
}

// Several ranks: one row each, every rank traceable to its file.
void RankTable(std::string& out, const ReportInput& in, int judged_rank, const Layout& layout) {
  const std::string_view accelerator = AcceleratorName(in.records.front()->metadata);
  const std::string util = fmt::format("{} util", accelerator);
  Table table({"rank", "step time", util, "idle", "comm wait", "steps", "file"},
              {false, true, true, true, true, true, false});
  for (size_t i = 0; i < in.records.size(); ++i) {
    const RankRecord& rec = *in.records[i];
    int rank = RankOf(*in.records[i], i);
    RankTotals t = TotalsOf(rec);
    auto share = [&](TimeNs ns) {
      return t.step_ns > 0 ? Pct(static_cast<double>(ns) / static_cast<double>(t.step_ns))
                           : std::string("-");
    };
    const StepMetrics& m = rec.step_metrics;
    size_t all = rec.all_steps.steps.size();
    std::string steps = static_cast<size_t>(m.step_count) == all
                            ? fmt::format("{}", all)
                            : fmt::format("{}/{}", m.step_count, all);
    table.AddRow({fmt::format("{}{}", rank, rank == judged_rank ? "*" : ""),
                  m.step_count > 0 ? Ms(m.mean_step_ns) : std::string("-"),
                  share(t.kernel_busy_ns), share(t.step_ns - t.busy_ns), share(t.comm_ns), steps,
                  RankFile(in, *in.records[i])});
  }
  table.FitLastColumnMiddle(layout.width);
  out += table.Render(layout.width);
  out += Wrap(fmt::format("step time: mean steady step; {}: kernels; idle: no kernel, copy or "
                          "memset; comm wait: exposed collectives and waits on them; steps: "
                          "steady/complete; *: the rank the verdict judges (longest mean step).",
                          util),
              layout.width, "  ", "  ");
}

// One column per device and step view (all complete steps, steady steps).
void MetricsTable(std::string& out, const RankRecord& rec, std::string_view accelerator,
                  const Layout& layout) {
  struct Column {
    const StepMetrics* m;
    const DeviceMetrics* d;
    std::string header;
  };
  const StepPhaseSet& phase = rec.step_phase;
  const bool two_views = !phase.AllSteady();
  std::vector<std::pair<std::string, const StepMetrics*>> views;
  if (two_views) views.emplace_back("all", &rec.all_step_metrics());
  views.emplace_back(two_views ? "steady" : "", &rec.step_metrics);
  std::vector<Column> cols;
  for (const auto& [label, m] : views) {
    if (m->step_count == 0) continue;
    for (const DeviceMetrics& d : m->summary) {
      std::string h = AccelLabel(d.device, accelerator);
      cols.push_back({m, &d, label.empty() ? h : fmt::format("{} {}", h, label)});
    }
  }
  if (cols.empty()) {
    out += "no analysed steps\n";
    return;
  }
  if (two_views) {
    int64_t all = rec.all_step_metrics().step_count;
    int64_t steady = rec.step_metrics.step_count;
    out += Wrap(fmt::format("all: the {} complete step{} (the TensorBoard plugin's definition); "
                            "steady: the {} step{} every finding judges",
                            all, all == 1 ? "" : "s", steady, steady == 1 ? "" : "s"),
                layout.width, "", "  ");
  }
  std::vector<std::string> header = {""};
  for (const Column& c : cols) header.push_back(c.header);
  std::vector<bool> right(header.size(), true);
  right[0] = false;
  Table table(header, right);
  auto row = [&](std::string label, auto value_of) {
    std::vector<std::string> cells = {std::move(label)};
    for (const Column& c : cols) cells.push_back(value_of(c));
    table.AddRow(std::move(cells));
  };
  if (two_views) row("Steps", [](const Column& c) { return fmt::format("{}", c.m->step_count); });
  row("Step time (mean)", [](const Column& c) { return Ms(c.m->mean_step_ns); });
  // TensorBoard's "GPU utilization", named for the device it measures.
  // The host column of a trace with no device activity has no device to
  // be busy: n/a, not a measured 0%.
  row(fmt::format("{} utilization", accelerator), [](const Column& c) {
    return c.d->device < 0 ? std::string("n/a") : Pct(c.d->gpu_utilization);
  });
  row("Busy incl. copies", [](const Column& c) {
    return c.d->device < 0 ? std::string("n/a") : Pct(c.d->busy_including_copies);
  });
  // An estimate no device has (a TPU has no SMs, a trace without launch
  // dimensions gives none) is a row of n/a: shown only with -v.
  auto estimate_row = [&](std::string label, std::optional<double> DeviceMetrics::*field) {
    bool any = std::any_of(cols.begin(), cols.end(),
                           [&](const Column& c) { return (c.d->*field).has_value(); });
    if (any || layout.verbose()) {
      row(std::move(label), [&](const Column& c) { return OptPct(c.d->*field); });
    }
    return any;
  };
  bool sm_efficiency = estimate_row("Est. SM efficiency", &DeviceMetrics::est_sm_efficiency);
  // Say how much kernel time the estimate rests on when it is not all of it.
  bool partial_dims = std::any_of(cols.begin(), cols.end(), [](const Column& c) {
    return c.d->sm_efficiency_coverage.value_or(1) < 0.9995;
  });
  if (partial_dims && sm_efficiency) {
    row("  kernel time with dims",
        [](const Column& c) { return OptPct(c.d->sm_efficiency_coverage); });
  }
  estimate_row("Est. achieved occupancy", &DeviceMetrics::est_achieved_occupancy);
  estimate_row("Tensor Core kernel share", &DeviceMetrics::tensor_core_kernel_share);
  row("Step breakdown (mean):", [](const Column&) { return std::string(); });
  std::vector<std::array<TimeNs, kStepCategoryCount>> means;
  for (const Column& c : cols) means.push_back(MeanBreakdownNs(*c.d, c.m->step_count));
  for (int k = 0; k < kStepCategoryCount; ++k) {
    bool any = std::any_of(means.begin(), means.end(), [&](const auto& m) { return m[k] > 0; });
    if (!any && !layout.verbose()) continue;
    std::vector<std::string> cells = {fmt::format("  {}", kCategoryLabels[k])};
    for (size_t i = 0; i < cols.size(); ++i) {
      TimeNs mean_step = cols[i].m->mean_step_ns;
      double share = mean_step > 0 ? static_cast<double>(means[i][k]) / mean_step : 0;
      cells.push_back(fmt::format("{} {:>6}", Ms(means[i][k]), Pct(share)));
    }
    table.AddRow(std::move(cells));
  }
  out += table.Render(layout.width);
}

// A summary of the step times (median, p10/p90, slowest), then only the
// outlier and non-steady steps unless --steps all or -v. Outliers are the
// run summary's (analysis/outlier_steps.h), the set every report uses.
void PerStep(std::string& out, const RankRecord& rec, const RankSummary& rank,
             std::string_view accelerator, const Layout& layout) {
  const StepMetrics& all = rec.all_step_metrics();
  const StepSet& all_steps = rec.all_steps;
  const StepPhaseSet& phase = rec.step_phase;
  if (all.steps.size() < 2) return;
  std::map<int64_t, StepPhase> phase_of;
  for (size_t i = 0; i < all_steps.steps.size() && i < phase.phases.size(); ++i) {
    phase_of[all_steps.steps[i].number] = phase.phases[i];
  }
  auto phase_at = [&](const StepRow& r) {
    auto it = phase_of.find(r.number);
    return it == phase_of.end() ? StepPhase::kSteady : it->second;
  };
  std::set<int64_t> outlier_numbers;
  for (size_t i : rank.outliers.indices) outlier_numbers.insert(rank.steady_steps[i].number);
  std::vector<double> steady_ns;
  for (const StepTime& s : rank.steady_steps) steady_ns.push_back(static_cast<double>(s.step_ns));
  if (!rank.steady_steps.empty()) {
    std::vector<const StepTime*> slowest;
    for (const StepTime& s : rank.steady_steps) slowest.push_back(&s);
    std::stable_sort(slowest.begin(), slowest.end(),
                     [](const StepTime* a, const StepTime* b) { return a->step_ns > b->step_ns; });
    slowest.resize(std::min(slowest.size(), kSlowestShown));
    std::vector<std::string> slow;
    for (const StepTime* s : slowest) slow.push_back(fmt::format("#{} {}", s->number, Ms(s->step_ns)));
    out += Wrap(fmt::format("Per step ({} steady): median {}, p10 {}, p90 {}; slowest {}",
                            steady_ns.size(), Ms(rank.outliers.median_ns),
                            Ms(static_cast<TimeNs>(Quantile(steady_ns, 0.1))),
                            Ms(static_cast<TimeNs>(Quantile(steady_ns, 0.9))),
                            fmt::join(slow, ", ")),
                layout.width, "", "  ");
  }
  std::vector<const StepRow*> shown;
  for (const StepRow& r : all.steps) {
    const bool steady = phase_at(r) == StepPhase::kSteady;
    const bool outlier = steady && outlier_numbers.contains(r.number);
    if (layout.all_steps || !steady || outlier) shown.push_back(&r);
  }
  if (!layout.all_steps) {
    const size_t outliers = outlier_numbers.size();
    const std::string rule =
        rank.outliers.judged()
            ? fmt::format("slower than the median by more than {}", Ms(rank.outliers.limit_ns))
            : fmt::format("fewer than {} steady steps: none judged", kOutlierMinSteps);
    out += Wrap(fmt::format("{} outlier step{} ({}){}; --steps all lists every step",
                            outliers == 0 ? std::string("No") : fmt::format("{}", outliers),
                            outliers == 1 ? "" : "s", rule,
                            shown.size() > outliers ? ", and the steps that are not steady" : ""),
                layout.width, "", "  ");
  }
  if (shown.empty()) return;
  Table table({"step", "phase", "device", "time", fmt::format("{} util", accelerator),
               "busy+copies", "SM eff."},
              {false, false, false, true, true, true, true});
  for (const StepRow* r : shown) {
    for (const DeviceMetrics& d : r->devices) {
      table.AddRow({fmt::format("#{}", r->number), std::string(StepPhaseName(phase_at(*r))),
                    AccelLabel(d.device, accelerator), Ms(r->end_ns - r->start_ns),
                    Pct(d.gpu_utilization), Pct(d.busy_including_copies),
                    OptPct(d.est_sm_efficiency)});
    }
  }
  out += table.Render(layout.width);
}

void HtaLines(std::string& out, const StepMetrics& m, std::string_view accelerator,
              std::string_view framework, const Layout& layout) {
  if (m.hta.empty()) return;
  int64_t excluded = 0;
  bool by_kind = false;
  for (const HtaBreakdown& h : m.hta) {
    excluded += h.excluded_activities;
    by_kind = by_kind || h.by_kind;
  }
  out += Wrap(fmt::format("HTA temporal breakdown (first to last {} activity{}{}):", accelerator,
                          excluded > 0 ? fmt::format("; as HTA does, only {} work launched "
                                                     "before the last {} starts, {} "
                                                     "{} left out",
                                                     accelerator,
                                                     StepLabel(framework, 0).starts_with("step")
                                                         ? "step"
                                                         : "ProfilerStep",
                                                     excluded,
                                                     excluded == 1 ? "activity" : "activities")
                                       : "",
                          by_kind ? "; XLA copies and collectives are non-compute by their "
                                    "kind, as their names carry no Memcpy or nccl"
                                  : ""),
              layout.width, "", "  ");
  for (const HtaBreakdown& h : m.hta) {
    TimeNs span = h.span_ns();
    auto share = [&](TimeNs v) { return span > 0 ? static_cast<double>(v) / span : 0.0; };
    out += Wrap(fmt::format("{}: span {}: idle {} ({}), compute {} ({}), non-compute {} ({})",
                            AccelLabel(h.device, accelerator), Ms(span), Ms(h.idle_ns),
                            Pct(share(h.idle_ns)), Ms(h.compute_ns), Pct(share(h.compute_ns)),
                            Ms(h.non_compute_ns), Pct(share(h.non_compute_ns))),
                layout.width, "  ", "    ");
  }
}

void TopTables(std::string& out, const StepMetrics& m, int top_n, std::string_view accelerator,
               const Layout& layout) {
  size_t n = static_cast<size_t>(std::max(0, top_n));
  size_t names = layout.verbose() ? 0 : kNameColumns;
  if (m.top_kernels.empty()) {
    out += "Top kernels: no kernels in the analysed steps\n";
    return;
  }
  out += Wrap(fmt::format("Top {} kernels by device time ({} of kernel time in the {}):",
                          std::min(n, m.top_kernels.size()), Dur(m.total_kernel_ns),
                          m.top_lists_from_all_steps ? "steps, none of them steady" : "steps"),
              layout.width, "", "  ");
  Table kernels({"total", "count", "mean", "share", "family", "TC", "kernel"},
                {true, true, true, true, false, false, false});
  for (size_t i = 0; i < std::min(n, m.top_kernels.size()); ++i) {
    const KernelStat& k = m.top_kernels[i];
    kernels.AddRow({Dur(k.total_ns), fmt::format("{}", k.count), Dur(k.mean_ns), Pct(k.share),
                    std::string(DeviceFamilyName(k.kernel_class.device_family)),
                    std::string(TensorCoreCell(k.kernel_class.tc, accelerator)),
                    Fit(T(ShortKernelName(k.name)), names)});
  }
  out += kernels.Render(layout.width);
  out += Wrap(fmt::format("Top {} ops by device time (outermost op that launched the kernels):",
                          std::min(n, m.top_ops.size())),
              layout.width, "", "  ");
  Table ops({"device", "calls", "kernels", "per call", "share", "op"},
            {true, true, true, true, true, false});
  for (size_t i = 0; i < std::min(n, m.top_ops.size()); ++i) {
    const OpStat& o = m.top_ops[i];
    ops.AddRow({Dur(o.device_ns), fmt::format("{}", o.count), fmt::format("{}", o.kernel_count),
                Dur(o.mean_device_ns), Pct(o.share), Fit(T(o.name), names)});
  }
  out += ops.Render(layout.width);
}

// Steps, one-time costs and notes of one rank.
void RankFacts(std::string& out, const ReportInput& in, size_t i, const Layout& layout) {
  const RankRecord& rec = *in.records[i];
  const StepPhaseSet& phase = rec.step_phase;
  std::string range = StepRange(rec.all_steps);
  if (!phase.AllSteady()) {
    range += fmt::format("; {} steady", phase.steady_count);
  }
  if (in.records.size() > 1) Fact(out, "File", RankFile(in, rec), layout);
  Fact(out, "Steps", range, layout);
  if (!phase.costs.empty()) {
    std::vector<std::string> costs;
    for (const OneTimeCost& c : phase.costs) {
      costs.push_back(fmt::format("{} {}", OneTimeKindLabel(c.kind), Dur(c.total_ns)));
    }
    Fact(out, "One-time", fmt::format("{}", fmt::join(costs, ", ")), layout);
  }
  for (const std::string& note : rec.steps.notes) {
    out += Wrap("note: " + T(note), layout.width, "  ", "    ");
  }
  if (rec.metadata.truncated) {
    out += Wrap(fmt::format("note: {} at byte {}; {} events read", rec.metadata.truncated_reason,
                            rec.metadata.truncated_at_byte, rec.metadata.events_read),
                layout.width, "  ", "    ");
  }
}

// The allocator's peaks (memory_usage.h) and what they mean for the job.
void MemoryLines(std::string& out, const RankRecord& rec, std::string_view accelerator,
                 const Layout& layout) {
  const MemoryUsage& memory = rec.memory_usage;
  if (!memory.recorded()) {
    if (layout.verbose() && rec.job_profile.is_pytorch()) {
      out += Wrap("Device memory: not recorded (torch.profiler.profile(profile_memory=True) "
                  "records it)",
                  layout.width, "", "  ");
    }
    return;
  }
  out += "Device memory (the allocator's peaks in the trace window):\n";
  for (const DeviceMemoryUsage& m : memory.devices) {
    out += Wrap(fmt::format("{}: {}{}", AccelLabel(m.device, accelerator), DescribeMemory(m),
                            m.peak_step >= 0 ? fmt::format(", in step {}", m.peak_step) : ""),
                layout.width, "  ", "    ");
    std::string advice = MemoryAdvice(m, rec.job_profile, accelerator);
    if (!advice.empty()) out += Wrap("note: " + advice, layout.width, "  ", "    ");
  }
}

void Diagnostics(std::string& out, const ReportInput& in, const Layout& layout) {
  std::string body;
  for (size_t i = 0; i < in.records.size(); ++i) {
    std::string prefix =
        in.records.size() > 1 ? fmt::format("rank {}: ", RankOf(*in.records[i], i)) : "";
    for (const Diagnostic& d : in.records[i]->diagnostics) {
      body += Wrap(fmt::format("[{}] {}{} x{}: {}", SeverityName(d.severity), prefix, T(d.name),
                               d.count, T(d.description)),
                   layout.width, "  ", "    ");
    }
  }
  for (const std::string& w : in.warnings) {
    body += Wrap(fmt::format("[warning] {}", T(w)), layout.width, "  ", "    ");
  }
  if (body.empty() && !layout.verbose()) return;
  out += Heading("Import diagnostics", layout);
  out += body.empty() ? "  none\n" : body;
}

}  // namespace

void RenderMetricsSections(std::string& out, const ReportInput& in, const Layout& layout) {
  if (in.records.empty()) return;
  Verdict verdict = in.summary().verdict;
  const bool several = in.records.size() > 1;
  out += Heading(several ? "Ranks" : "Run", layout);
  RunFacts(out, in, layout);
  if (several) RankTable(out, in, verdict.rank, layout);
  for (size_t i = 0; i < in.records.size(); ++i) {
    int rank = RankOf(*in.records[i], i);
    // Several ranks: the judged rank's metrics (the first rank when none is
    // judged); -v shows every rank.
    int shown_rank = verdict.rank >= 0 ? verdict.rank : RankOf(*in.records.front(), 0);
    if (several && !layout.verbose() && rank != shown_rank) continue;
    std::string title = !several ? std::string("Metrics")
                        : layout.verbose()
                            ? fmt::format("Metrics: rank {}", rank)
                            : fmt::format("Metrics: rank {} (the verdict's rank; -v shows every "
                                          "rank)",
                                          rank);
    out += Heading(title, layout);
    const RankRecord& rec = *in.records[i];
    std::string_view accelerator = AcceleratorName(in.records[i]->metadata);
    RankFacts(out, in, i, layout);
    MetricsTable(out, rec, accelerator, layout);
    PerStep(out, rec, in.summary().ranks[i], accelerator, layout);
    HtaLines(out, rec.step_metrics, accelerator, in.records[i]->metadata.framework, layout);
    MemoryLines(out, rec, accelerator, layout);
    TopTables(out, rec.step_metrics, in.options.top_n, accelerator, layout);
    if (std::string block = RooflineTextBlock(rec.roofline, layout.width,
                                              layout.verbose());
        !block.empty()) {
      out += Heading("Where the device time goes", layout) + block;
    }
  }
  if (std::optional<Throughput> t = in.summary().throughput) {
    out += Heading("Throughput", layout);
    out += fmt::format("  samples/s: {:.1f}\n", t->samples_per_s);
    if (t->samples_per_dollar.has_value()) {
      out += fmt::format("  samples per dollar: {:.0f}\n", *t->samples_per_dollar);
    }
    out += Wrap("assumptions: " + t->assumptions, layout.width, "  ", "    ");
  }
  Diagnostics(out, in, layout);
}

}  // namespace tracelint::text
