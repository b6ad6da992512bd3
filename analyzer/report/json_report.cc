// --format json: described by report.schema.json (schema_version 1). Times
// are int64 ns with an _ns suffix, shares are fractions 0..1, unknown
// estimates are null, and keys come out in a fixed order.

#include <algorithm>

#include "analyzer/analysis/rank_record.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/memory_usage.h"
#include "analyzer/analysis/roofline.h"
#include "analyzer/analysis/step_phase.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/model/accelerator.h"
#include "analyzer/base/version.h"
#include "analyzer/report/json_writer.h"
#include "analyzer/report/report.h"
#include "analyzer/report/report_data.h"
#include "analyzer/report/roofline_report.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

double Share(TimeNs part_ns, TimeNs whole_ns) {
  return whole_ns > 0 ? static_cast<double>(part_ns) / static_cast<double>(whole_ns) : 0;
}

void WriteBreakdown(JsonWriter& w, const std::array<TimeNs, kStepCategoryCount>& ns) {
  w.BeginObject();
  for (int i = 0; i < kStepCategoryCount; ++i) {
    w.Key(StepCategoryName(static_cast<StepCategory>(i)));
    w.Int(ns[i]);
  }
  w.EndObject();
}

// `step_ns` and `breakdown` are per step (a mean in summaries); ratios come
// from the metrics, which summaries compute over the summed steps.
void WriteDeviceMetrics(JsonWriter& w, const DeviceMetrics& m, TimeNs step_ns,
                        const std::array<TimeNs, kStepCategoryCount>& breakdown_ns,
                        int64_t step_count) {
  auto per_step = [&](TimeNs total_ns) { return step_count > 0 ? total_ns / step_count : 0; };
  w.BeginObject();
  w.Key("device").Int(m.device);
  w.Key("step_ns").Int(step_ns);
  w.Key("kernel_busy_ns").Int(per_step(m.kernel_busy_ns));
  w.Key("busy_ns").Int(per_step(m.busy_ns));
  w.Key("gpu_utilization").Share(m.gpu_utilization);
  w.Key("busy_including_copies").Share(m.busy_including_copies);
  w.Key("breakdown_ns");
  WriteBreakdown(w, breakdown_ns);
  w.Key("kernel_ns").Int(per_step(m.kernel_ns));
  w.Key("tensor_core_kernel_ns").Int(per_step(m.tensor_core_kernel_ns));
  w.Key("est_sm_efficiency").OptionalShare(m.est_sm_efficiency);
  w.Key("sm_efficiency_coverage").OptionalShare(m.sm_efficiency_coverage);
  w.Key("est_achieved_occupancy").OptionalShare(m.est_achieved_occupancy);
  w.Key("tensor_core_kernel_share").OptionalShare(m.tensor_core_kernel_share);
  w.EndObject();
}

void WriteDevices(JsonWriter& w, const RunMetadata& md) {
  w.BeginArray();
  for (const DeviceInfo& d : md.devices) {
    w.BeginObject();
    w.Key("id").Int(d.id);
    w.Key("name").String(d.name);
    w.Key("vendor").String(d.vendor);
    w.Key("compute_capability");
    if (d.compute_major >= 0) {
      w.String(fmt::format("{}.{}", d.compute_major, std::max(0, d.compute_minor)));
    } else {
      w.Null();
    }
    w.Key("sm_count");
    d.sm_count > 0 ? w.Int(d.sm_count) : w.Null();
    w.Key("total_memory_bytes");
    d.total_memory_bytes > 0 ? w.Int(d.total_memory_bytes) : w.Null();
    w.EndObject();
  }
  w.EndArray();
}

// The steady view's context (docs/steady-state.md): every complete step
// with its phase, the one-time costs, the window edges, and the metrics
// over all complete steps when they differ from the steady ones.
void WriteSteadyState(JsonWriter& w, const RankRecord& rec) {
  const StepSet& all = rec.all_steps;
  const StepPhaseSet& phase = rec.step_phase;
  w.Key("all_count").Int(static_cast<int64_t>(all.steps.size()));
  w.Key("steady_count").Int(phase.steady_count);
  w.Key("phases").BeginArray();
  for (size_t i = 0; i < all.steps.size(); ++i) {
    w.BeginObject();
    w.Key("step").Int(all.steps[i].number);
    w.Key("phase").String(StepPhaseName(phase.phases[i]));
    w.Key("source").String(StepSourceName(all.source));
    TimeNs cut_ns = 0;
    if (i < phase.cuts.size()) {
      for (const Interval& cut : phase.cuts[i]) cut_ns += cut.length_ns();
    }
    w.Key("one_time_cut_ns").Int(cut_ns);
    w.EndObject();
  }
  w.EndArray();
  w.Key("inherited_device_ns").Int(all.inherited_device_ns);
  w.Key("stop_tail_ns").Int(all.stop_tail_ns);
  w.Key("lead_in_ns").Int(all.lead_in_ns);
  w.Key("start_up_cut_ns")
      .Int(phase.window_steady_start_ns >= 0 && !all.steps.empty()
               ? phase.window_steady_start_ns - all.steps[0].start_ns
               : 0);
  w.Key("one_time_costs").BeginArray();
  for (const OneTimeCost& c : phase.costs) {
    w.BeginObject();
    w.Key("kind").String(OneTimeKindKey(c.kind));
    w.Key("total_ns").Int(c.total_ns);
    w.Key("event_count").Int(static_cast<int64_t>(c.events.size()));
    w.EndObject();
  }
  w.EndArray();
  w.Key("all_steps");
  if (phase.AllSteady()) {
    w.Null();
    return;
  }
  const StepMetrics& m = rec.all_step_metrics();
  w.BeginObject();
  w.Key("count").Int(m.step_count);
  w.Key("total_ns").Int(m.total_step_ns);
  w.Key("mean_step_ns").Int(m.mean_step_ns);
  w.Key("summary").BeginArray();
  for (const DeviceMetrics& d : m.summary) {
    WriteDeviceMetrics(w, d, m.mean_step_ns, MeanBreakdownNs(d, m.step_count), m.step_count);
  }
  w.EndArray();
  w.EndObject();
}

void WriteDeviceMemory(JsonWriter& w, const RankRecord& rec, std::string_view accelerator) {
  auto optional_double = [&w](const std::optional<double>& v) { v ? w.Double(*v) : w.Null(); };
  w.Key("device_memory").BeginArray();
  for (const DeviceMemoryUsage& m : rec.memory_usage.devices) {
    w.BeginObject();
    w.Key("device").Int(m.device);
    w.Key("samples").Int(m.samples);
    w.Key("peak_allocated_bytes").Int(m.peak_allocated_bytes);
    w.Key("peak_allocated_ts_ns").Int(m.peak_allocated_ts_ns);
    w.Key("peak_reserved_bytes").Int(m.peak_reserved_bytes);
    w.Key("total_memory_bytes");
    m.total_memory_bytes > 0 ? w.Int(m.total_memory_bytes) : w.Null();
    w.Key("peak_step");
    m.peak_step >= 0 ? w.Int(m.peak_step) : w.Null();
    w.Key("peak_allocated_share");
    optional_double(m.peak_allocated_share);
    w.Key("peak_reserved_share");
    optional_double(m.peak_reserved_share);
    w.Key("state").String(MemoryStateName(m.state));
    w.Key("release_calls").Int(m.release_calls);
    w.Key("release_ns").Int(m.release_ns);
    w.Key("advice").String(MemoryAdvice(m, rec.job_profile, accelerator));
    w.EndObject();
  }
  w.EndArray();
}

void WriteRank(JsonWriter& w, const RankRecord& rec, size_t position,
               int top_n) {
  const RunMetadata& md = rec.metadata;
  const StepSet& steps = rec.steps;
  const StepMetrics& m = rec.step_metrics;
  w.BeginObject();
  w.Key("rank").Int(RankOf(rec, position));
  w.Key("source_path").String(md.source_path);
  w.Key("format").String(md.format);
  w.Key("framework").String(md.framework);
  w.Key("framework_version").String(md.framework_version);
  w.Key("world_size");
  md.world_size > 0 ? w.Int(md.world_size) : w.Null();
  w.Key("backend").String(md.backend);
  w.Key("host_name").String(md.host_name);
  w.Key("truncated").Bool(md.truncated);
  w.Key("accelerator").String(AcceleratorName(md));
  w.Key("devices");
  WriteDevices(w, md);

  w.Key("steps").BeginObject();
  w.Key("from_markers").Bool(steps.from_markers);
  w.Key("source").String(StepSourceName(steps.source));
  w.Key("count").Int(m.step_count);
  w.Key("dropped_incomplete").Int(steps.dropped_incomplete);
  w.Key("total_ns").Int(m.total_step_ns);
  w.Key("mean_step_ns").Int(m.mean_step_ns);
  w.Key("notes").StringArray(steps.notes);
  WriteSteadyState(w, rec);
  w.EndObject();

  w.Key("summary").BeginArray();
  for (const DeviceMetrics& d : m.summary) {
    WriteDeviceMetrics(w, d, m.mean_step_ns, MeanBreakdownNs(d, m.step_count), m.step_count);
  }
  w.EndArray();

  // Every steady step, outliers included: diff's samples.
  w.Key("per_step").BeginArray();
  for (const StepRow& row : rec.steady_step_metrics().steps) {
    w.BeginObject();
    w.Key("step").Int(row.number);
    w.Key("source").String(StepSourceName(steps.source));
    w.Key("start_ns").Int(row.start_ns);
    w.Key("end_ns").Int(row.end_ns);
    w.Key("devices").BeginArray();
    for (const DeviceMetrics& d : row.devices) {
      WriteDeviceMetrics(w, d, d.step_ns, d.breakdown_ns, 1);
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();

  w.Key("hta_temporal_breakdown").BeginArray();
  for (const HtaBreakdown& h : m.hta) {
    w.BeginObject();
    w.Key("device").Int(h.device);
    w.Key("span_start_ns").Int(h.span_start_ns);
    w.Key("span_end_ns").Int(h.span_end_ns);
    w.Key("span_ns").Int(h.span_ns());
    w.Key("idle_ns").Int(h.idle_ns);
    w.Key("compute_ns").Int(h.compute_ns);
    w.Key("non_compute_ns").Int(h.non_compute_ns);
    w.Key("idle_share").Share(Share(h.idle_ns, h.span_ns()));
    w.Key("compute_share").Share(Share(h.compute_ns, h.span_ns()));
    w.Key("non_compute_share").Share(Share(h.non_compute_ns, h.span_ns()));
    w.EndObject();
  }
  w.EndArray();

  WriteDeviceMemory(w, rec, AcceleratorName(md));

  size_t n = static_cast<size_t>(std::max(0, top_n));
  w.Key("top_kernels").BeginArray();
  for (size_t i = 0; i < std::min(n, m.top_kernels.size()); ++i) {
    const KernelStat& k = m.top_kernels[i];
    w.BeginObject();
    w.Key("name").String(k.name);
    w.Key("count").Int(k.count);
    w.Key("total_ns").Int(k.total_ns);
    w.Key("mean_ns").Int(k.mean_ns);
    w.Key("share").Share(k.share);
    w.Key("family").String(KernelFamilyName(k.kernel_class.family));
    // The fine family, the same names as ranks[].roofline.families[].family.
    w.Key("kernel_family").String(DeviceFamilyName(k.kernel_class.device_family));
    w.Key("tensor_cores").String(TensorCoreUseName(k.kernel_class.tc));
    w.EndObject();
  }
  w.EndArray();
  w.Key("top_ops").BeginArray();
  for (size_t i = 0; i < std::min(n, m.top_ops.size()); ++i) {
    const OpStat& o = m.top_ops[i];
    w.BeginObject();
    w.Key("name").String(o.name);
    w.Key("count").Int(o.count);
    w.Key("kernel_count").Int(o.kernel_count);
    w.Key("device_ns").Int(o.device_ns);
    w.Key("mean_device_ns").Int(o.mean_device_ns);
    w.Key("share").Share(o.share);
    w.EndObject();
  }
  w.EndArray();
  // Every kernel and op whatever --top says: `tracelint diff` reads them back.
  w.Key("kernels").BeginArray();
  for (const KernelStat& k : m.top_kernels) {
    w.BeginObject();
    w.Key("name").String(k.name);
    w.Key("count").Int(k.count);
    w.Key("total_ns").Int(k.total_ns);
    w.EndObject();
  }
  w.EndArray();
  w.Key("ops").BeginArray();
  for (const OpStat& o : m.top_ops) {
    w.BeginObject();
    w.Key("name").String(o.name);
    w.Key("count").Int(o.count);
    w.Key("device_ns").Int(o.device_ns);
    w.EndObject();
  }
  w.EndArray();
  w.Key("roofline");
  WriteRooflineJson(w, rec.roofline);

  w.Key("import_diagnostics").BeginArray();
  for (const Diagnostic& d : rec.diagnostics) {
    w.BeginObject();
    w.Key("name").String(d.name);
    w.Key("severity").String(SeverityName(d.severity));
    w.Key("description").String(d.description);
    w.Key("count").Int(d.count);
    w.Key("first_byte_offset");
    d.first_byte_offset >= 0 ? w.Int(d.first_byte_offset) : w.Null();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

// trace_integrity.h: the least trusted rank's checks and what they imply.
void WriteIntegrity(JsonWriter& w, const RunIntegrity& run) {
  w.Key("integrity");
  if (!run.worst.has_value()) {
    w.Null();
    return;
  }
  const TraceIntegrity& t = *run.worst;
  w.BeginObject();
  w.Key("verdict").String(IntegrityVerdictName(t.verdict));
  w.Key("rank").Int(run.worst_rank);
  w.Key("summary").String(t.summary);
  w.Key("max_confidence").String(ConfidenceName(static_cast<Confidence>(t.max_confidence)));
  w.Key("max_claim_share").Share(t.max_claim_share);
  w.Key("withheld").BeginArray();
  for (const WithheldCause& c : t.withheld) {
    w.BeginObject();
    w.Key("cause").String(c.cause);
    w.Key("reason").String(c.reason);
    w.EndObject();
  }
  w.EndArray();
  w.Key("checks").BeginArray();
  for (const IntegrityCheck& c : t.checks) {
    w.BeginObject();
    w.Key("id").String(c.id);
    w.Key("status").String(CheckStatusName(c.status));
    w.Key("value").Double(c.value);
    w.Key("threshold").Double(c.threshold);
    w.Key("unit").String(c.unit);
    w.Key("reason").String(c.reason);
    w.EndObject();
  }
  w.EndArray();
  w.Key("ranks").BeginArray();
  for (const auto& [rank, verdict] : run.per_rank) {
    w.BeginObject();
    w.Key("rank").Int(rank);
    w.Key("verdict").String(IntegrityVerdictName(verdict));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteFinding(JsonWriter& w, const Finding& f) {
  w.BeginObject();
  w.Key("rule_id").String(f.rule_id);
  w.Key("cause").String(f.cause);
  w.Key("severity").String(FindingSeverityName(f.severity));
  w.Key("recoverable_ns_per_step").Int(f.recoverable_ns_per_step);
  // Every steady step's value (whatever the display options): `diff` tests
  // a finding's change on them when it reads this report back.
  w.Key("recoverable_ns_steps").BeginArray();
  for (TimeNs ns : f.recoverable_ns_steps) w.Int(ns);
  w.EndArray();
  w.Key("recoverable_share").Share(f.recoverable_share);
  w.Key("confidence").String(ConfidenceName(f.confidence));
  w.Key("title").String(f.title);
  w.Key("message").String(f.message);
  w.Key("evidence").BeginArray();
  for (const Evidence& e : f.evidence) {
    w.BeginObject();
    w.Key("text").String(e.text);
    w.Key("value").Double(e.value);
    w.Key("threshold").Double(e.threshold);
    w.Key("unit").String(e.unit);
    w.EndObject();
  }
  w.EndArray();
  const FindingLocation& l = f.location;
  w.Key("location").BeginObject();
  w.Key("rank").Int(l.rank);
  w.Key("first_step").Int(l.first_step);
  w.Key("last_step").Int(l.last_step);
  w.Key("track").String(l.track);
  w.Key("start_ns").Int(l.start_ns);
  w.Key("end_ns").Int(l.end_ns);
  w.Key("top_items").BeginArray();
  for (const TopItem& t : l.top_items) {
    w.BeginObject();
    w.Key("name").String(t.name);
    w.Key("total_ns").Int(t.total_ns);
    w.Key("count").Int(t.count);
    w.Key("detail").String(t.detail);
    w.EndObject();
  }
  w.EndArray();
  w.Key("python_stack").StringArray(l.python_stack);
  w.EndObject();
  w.Key("fix").String(f.fix);
  w.Key("per_rank").StringArray(f.per_rank);
  w.Key("one_time_ns").Int(f.one_time_ns);
  w.Key("outlier_step_ns").Int(f.outlier_step_ns);
  w.Key("outlier_steps").BeginArray();
  for (int64_t n : f.outlier_steps) w.Int(n);
  w.EndArray();
  w.Key("fingerprint").String(f.fingerprint);
  w.EndObject();
}

void WriteProvenance(JsonWriter& w, const Provenance& p) {
  w.BeginObject();
  w.Key("rules").String(p.rules_glob);
  w.Key("set").StringArray(p.set_overrides);
  w.Key("config_path").String(p.config_path);
  w.Key("selected_rules").StringArray(p.selected_rules);
  w.Key("rule_options").BeginObject();
  for (const auto& [rule, values] : p.rule_options) {
    w.Key(rule).BeginObject();
    for (const auto& [name, value] : values) w.Key(name).Double(value);
    w.EndObject();
  }
  w.EndObject();
  w.Key("input_files").BeginArray();
  for (const InputFileInfo& f : p.input_files) {
    w.BeginObject();
    w.Key("path").String(f.path);
    w.Key("bytes");
    f.bytes >= 0 ? w.Int(f.bytes) : w.Null();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string FindingJson(const Finding& f) {
  JsonWriter w(/*compact=*/true);
  WriteFinding(w, f);
  std::string out = w.Finish();
  out.pop_back();  // Finish's newline
  return out;
}

std::string RenderJsonReport(const ReportInput& input) {
  JsonWriter w;
  w.BeginObject();
  w.Key("schema_version").Int(kReportSchemaVersion);
  w.Key("tool").String("tracelint");
  w.Key("tool_version").String(kToolVersion);
  w.Key("input_path").String(input.input_path);
  w.Key("options").BeginObject();
  w.Key("top_n").Int(input.options.top_n);
  w.Key("batch_size").Int(input.options.batch_size);
  w.Key("price_per_hour").Double(input.options.price_per_hour);
  w.EndObject();
  w.Key("provenance");
  WriteProvenance(w, input.provenance);
  Verdict verdict = input.summary().verdict;
  w.Key("verdict").String(verdict.bound);
  w.Key("verdict_text").String(verdict.line);

  w.Key("ranks").BeginArray();
  for (size_t i = 0; i < input.records.size(); ++i) {
    WriteRank(w, *input.records[i], i, input.options.top_n);
  }
  w.EndArray();

  w.Key("throughput");
  if (std::optional<Throughput> t = input.summary().throughput) {
    w.BeginObject();
    w.Key("batch_size_per_rank").Int(t->batch_size_per_rank);
    w.Key("ranks").Int(t->ranks);
    w.Key("mean_step_ns").Int(t->mean_step_ns);
    w.Key("samples_per_s").Double(t->samples_per_s);
    w.Key("price_per_hour").OptionalDouble(t->price_per_hour);
    w.Key("samples_per_dollar").OptionalDouble(t->samples_per_dollar);
    w.Key("assumptions").String(t->assumptions);
    w.EndObject();
  } else {
    w.Null();
  }

  WriteIntegrity(w, input.summary().integrity);
  w.Key("findings").BeginArray();
  for (const Finding& f : input.findings) WriteFinding(w, f);
  w.EndArray();
  w.Key("not_judged").BeginArray();
  for (const RuleOutcome& o : input.not_judged) {
    w.BeginObject();
    w.Key("rule_id").String(o.rule_id);
    w.Key("reason").String(o.not_judged_reason);
    w.EndObject();
  }
  w.EndArray();
  w.Key("warnings").StringArray(input.warnings);

  FindingsSummary s = SummarizeFindings(input.findings);
  w.Key("summary").BeginObject();
  w.Key("finding_count").Int(s.count);
  w.Key("recoverable_ns_per_step").Int(s.recoverable_ns_per_step);
  w.Key("recoverable_share").Share(s.recoverable_share);
  w.Key("text").String(s.line);
  w.EndObject();
  if (input.baseline != nullptr && input.baseline->write_json) {
    w.Key("baseline_diff");
    input.baseline->write_json(w);
  }
  w.EndObject();
  return w.Finish();
}

}  // namespace tracelint
