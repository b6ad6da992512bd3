#include "analyzer/analysis/rank_record_io.h"

#include <string>

#include "analyzer/analysis/record_io.h"

// Every field of every struct a record holds, once. A field added to one of
// these structs and not here would be lost in a merge of shards: the
// round-trip test (rank_record_io_test.cc) compares whole reports.
namespace tracelint::record_io {

template <> struct EnumMax<Severity> { static constexpr int value = 2; };
template <> struct EnumMax<StepSource> { static constexpr int value = 2; };
template <> struct EnumMax<StepPhase> { static constexpr int value = 3; };
template <> struct EnumMax<OneTimeKind> { static constexpr int value = kOneTimeKindCount - 1; };
template <> struct EnumMax<IdleCause> { static constexpr int value = kIdleCauseCount - 1; };
template <> struct EnumMax<MemoryState> { static constexpr int value = 3; };
template <> struct EnumMax<KernelFamily> { static constexpr int value = 4; };
template <> struct EnumMax<TensorCoreUse> { static constexpr int value = 2; };
template <> struct EnumMax<DeviceFamily> { static constexpr int value = kDeviceFamilyCount - 1; };
template <> struct EnumMax<ComputeDtype> { static constexpr int value = kComputeDtypeCount - 1; };
template <> struct EnumMax<AttentionKind> { static constexpr int value = 4; };
template <> struct EnumMax<JobKind> { static constexpr int value = 2; };
template <> struct EnumMax<JobFramework> { static constexpr int value = 3; };
template <> struct EnumMax<CollectiveKind> { static constexpr int value = kCollectiveKindCount - 1; };
template <> struct EnumMax<IntegrityVerdict> { static constexpr int value = 2; };
template <> struct EnumMax<CheckStatus> { static constexpr int value = 3; };

// The metadata.
template <typename A> void Io(A& a, DeviceInfo& d) {
  a("id", d.id);
  a("name", d.name);
  a("vendor", d.vendor);
  a("compute_major", d.compute_major);
  a("compute_minor", d.compute_minor);
  a("sm_count", d.sm_count);
  a("total_memory_bytes", d.total_memory_bytes);
  a("max_threads_per_sm", d.max_threads_per_sm);
}
template <typename A> void Io(A& a, ReadCoverage::Range& r) {
  a("start_ns", r.start_ns);
  a("end_ns", r.end_ns);
}
template <typename A> void Io(A& a, ReadCoverage::TrackCoverage& t) {
  a("track", t.track);
  a("read_min_ns", t.read_min_ns);
  a("read_max_ns", t.read_max_ns);
  a("complete", t.complete);
}
template <typename A> void Io(A& a, ReadCoverage& c) {
  a("computed", c.computed);
  a("interleaved", c.interleaved);
  a("blocks", c.blocks);
  a("first_start_ns", c.first_start_ns);
  a("horizon_ns", c.horizon_ns);
  a("tracks", c.tracks);
}
template <typename A> void Io(A& a, RunMetadata& m) {
  a("source_path", m.source_path);
  a("format", m.format);
  a("framework", m.framework);
  a("framework_version", m.framework_version);
  a("devices", m.devices);
  a("rank", m.rank);
  a("world_size", m.world_size);
  a("backend", m.backend);
  a("host_name", m.host_name);
  a("base_time_ns", m.base_time_ns);
  a("late_base_time_ns", m.late_base_time_ns);
  a("trace_name", m.trace_name);
  a("tracelint_capture", m.tracelint_capture);
  a("accelerator_from_events", m.accelerator_from_events);
  a("truncated", m.truncated);
  a("truncated_at_byte", m.truncated_at_byte);
  a("truncated_reason", m.truncated_reason);
  a("read_coverage", m.read_coverage);
  a("events_read", m.events_read);
  a("unlisted_devices", m.unlisted_devices);
}
template <typename A> void Io(A& a, Diagnostic& d) {
  a("name", d.name);
  a("severity", d.severity);
  a("description", d.description);
  a("count", d.count);
  a("first_byte_offset", d.first_byte_offset);
}

// Steps and their phases.
template <typename A> void Io(A& a, Interval& i) {
  a("start_ns", i.start_ns);
  a("end_ns", i.end_ns);
}
template <typename A> void Io(A& a, Step& s) {
  a("number", s.number);
  a("start_ns", s.start_ns);
  a("end_ns", s.end_ns);
  a("marker", s.marker);
  a("host_end_ns", s.host_end_ns);
  a("device_activities", s.device_activities);
  a("cut", s.cut);
}
template <typename A> void Io(A& a, StepSet& s) {
  a("steps", s.steps);
  a("framework", s.framework);
  a("from_markers", s.from_markers);
  a("dropped_incomplete", s.dropped_incomplete);
  a("notes", s.notes);
  a("inherited_device_ns", s.inherited_device_ns);
  a("stop_tail_ns", s.stop_tail_ns);
  a("lead_in_ns", s.lead_in_ns);
  a("source", s.source);
}
template <typename A> void Io(A& a, OutlierSteps& o) {
  a("samples", o.samples);
  a("median_ns", o.median_ns);
  a("limit_ns", o.limit_ns);
  a("indices", o.indices);
}
template <typename A> void Io(A& a, OneTimeEvent& e) {
  a("kind", e.kind);
  a("slice", e.slice);
  a("name", e.name);
  a("start_ns", e.start_ns);
  a("end_ns", e.end_ns);
}
template <typename A> void Io(A& a, OneTimeCost& c) {
  a("kind", c.kind);
  a("total_ns", c.total_ns);
  a("events", c.events);
}
template <typename A> void Io(A& a, StepPhaseSet& p) {
  a("phases", p.phases);
  a("cuts", p.cuts);
  a("recurring_notes", p.recurring_notes);
  a("costs", p.costs);
  a("steady_count", p.steady_count);
  a("window_steady_start_ns", p.window_steady_start_ns);
}

// Step metrics.
template <typename A> void Io(A& a, DeviceMetrics& d) {
  a("device", d.device);
  a("step_ns", d.step_ns);
  a("kernel_busy_ns", d.kernel_busy_ns);
  a("busy_ns", d.busy_ns);
  a("breakdown_ns", d.breakdown_ns);
  a("kernel_ns", d.kernel_ns);
  a("tensor_core_kernel_ns", d.tensor_core_kernel_ns);
  a("gpu_utilization", d.gpu_utilization);
  a("busy_including_copies", d.busy_including_copies);
  a("est_sm_efficiency", d.est_sm_efficiency);
  a("est_achieved_occupancy", d.est_achieved_occupancy);
  a("tensor_core_kernel_share", d.tensor_core_kernel_share);
  a("sm_efficiency_ns", d.sm_efficiency_ns);
  a("occupancy_weighted_ns", d.occupancy_weighted_ns);
  a("occupancy_known_ns", d.occupancy_known_ns);
  a("sm_efficiency_known", d.sm_efficiency_known);
  a("sm_dims_known_ns", d.sm_dims_known_ns);
  a("sm_efficiency_coverage", d.sm_efficiency_coverage);
}
template <typename A> void Io(A& a, StepRow& r) {
  a("number", r.number);
  a("start_ns", r.start_ns);
  a("end_ns", r.end_ns);
  a("devices", r.devices);
}
template <typename A> void Io(A& a, HtaBreakdown& h) {
  a("device", h.device);
  a("span_start_ns", h.span_start_ns);
  a("span_end_ns", h.span_end_ns);
  a("idle_ns", h.idle_ns);
  a("compute_ns", h.compute_ns);
  a("non_compute_ns", h.non_compute_ns);
  a("launch_filter", h.launch_filter);
  a("excluded_activities", h.excluded_activities);
  a("by_kind", h.by_kind);
}
template <typename A> void Io(A& a, KernelClass& k) {
  a("family", k.family);
  a("tc", k.tc);
  a("device_family", k.device_family);
  a("dtype", k.dtype);
  a("attention", k.attention);
}
template <typename A> void Io(A& a, KernelStat& k) {
  a("name", k.name);
  a("count", k.count);
  a("total_ns", k.total_ns);
  a("mean_ns", k.mean_ns);
  a("share", k.share);
  a("kernel_class", k.kernel_class);
}
template <typename A> void Io(A& a, OpStat& o) {
  a("name", o.name);
  a("count", o.count);
  a("kernel_count", o.kernel_count);
  a("device_ns", o.device_ns);
  a("mean_device_ns", o.mean_device_ns);
  a("share", o.share);
}
template <typename A> void Io(A& a, StepMetrics& m) {
  a("steps", m.steps);
  a("summary", m.summary);
  a("step_count", m.step_count);
  a("total_step_ns", m.total_step_ns);
  a("mean_step_ns", m.mean_step_ns);
  a("hta", m.hta);
  a("top_kernels", m.top_kernels);
  a("top_ops", m.top_ops);
  a("total_kernel_ns", m.total_kernel_ns);
  a("top_lists_from_all_steps", m.top_lists_from_all_steps);
}

// Idle time, memory, roofline, job.
template <typename A> void Io(A& a, IdlePiece& p) {
  a("device", p.device);
  a("step_index", p.step_index);
  a("start_ns", p.start_ns);
  a("end_ns", p.end_ns);
  a("cause", p.cause);
  a("host_slice", p.host_slice);
  a("next_activity", p.next_activity);
  a("gap", p.gap);
  a("host_thread_slice", p.host_thread_slice);
  a("cause_slice", p.cause_slice);
}
template <typename A> void Io(A& a, IdleAttribution& i) {
  a("pieces", i.pieces);  // empty in a record
  a("per_step_ns", i.per_step_ns);
  a("total_ns", i.total_ns);
  a("total_idle_ns", i.total_idle_ns);
  a("unmarked_tail_ns", i.unmarked_tail_ns);
  a("inferred_ns", i.inferred_ns);
}
template <typename A> void Io(A& a, MemoryCurvePoint& p) {
  a("ts_ns", p.ts_ns);
  a("allocated_bytes", p.allocated_bytes);
  a("reserved_bytes", p.reserved_bytes);
}
template <typename A> void Io(A& a, DeviceMemoryUsage& m) {
  a("device", m.device);
  a("samples", m.samples);
  a("peak_allocated_bytes", m.peak_allocated_bytes);
  a("peak_allocated_ts_ns", m.peak_allocated_ts_ns);
  a("peak_reserved_bytes", m.peak_reserved_bytes);
  a("total_memory_bytes", m.total_memory_bytes);
  a("peak_step", m.peak_step);
  a("peak_allocated_share", m.peak_allocated_share);
  a("peak_reserved_share", m.peak_reserved_share);
  a("held_share", m.held_share);
  a("state", m.state);
  a("release_calls", m.release_calls);
  a("release_ns", m.release_ns);
  a("curve", m.curve);
  a("curve_end_ns", m.curve_end_ns);
}
template <typename A> void Io(A& a, MemoryUsage& m) { a("devices", m.devices); }
template <typename A> void Io(A& a, RooflineFamily& f) {
  a("family", f.family);
  a("dtype", f.dtype);
  a("variant", f.variant);
  a("compute", f.compute);
  a("matrix", f.matrix);
  a("device_ns_per_step", f.device_ns_per_step);
  a("device_ns_steps", f.device_ns_steps);
  a("flops_per_step", f.flops_per_step);
  a("bytes_per_step", f.bytes_per_step);
  a("modelled_ns_per_step", f.modelled_ns_per_step);
  a("share_of_step", f.share_of_step);
  a("share_of_busy", f.share_of_busy);
  a("modelled_share", f.modelled_share);
  a("achieved_tflops", f.achieved_tflops);
  a("achieved_tbps", f.achieved_tbps);
  a("peak_tflops", f.peak_tflops);
  a("peak_tbps", f.peak_tbps);
  a("bound", f.bound);
  a("efficiency", f.efficiency);
}
template <typename A> void Io(A& a, RooflineOp& o) {
  a("name", o.name);
  a("family", o.family);
  a("dtype", o.dtype);
  a("shapes", o.shapes);
  a("params", o.params);
  a("kernel", o.kernel);
  a("calls", o.calls);
  a("device_ns_per_step", o.device_ns_per_step);
  a("flops_per_call", o.flops_per_call);
  a("bytes_per_call", o.bytes_per_call);
  a("achieved_tflops", o.achieved_tflops);
  a("achieved_tbps", o.achieved_tbps);
  a("intensity", o.intensity);
  a("peak_tflops", o.peak_tflops);
  a("peak_tbps", o.peak_tbps);
  a("bound", o.bound);
  a("efficiency", o.efficiency);
  a("modelled", o.modelled);
  a("from_kineto_flops", o.from_kineto_flops);
}
template <typename A> void Io(A& a, RankRoofline& r) {
  a("steps", r.steps);
  a("step_numbers", r.step_numbers);
  a("devices", r.devices);
  a("step_ns", r.step_ns);
  a("busy_ns_per_step", r.busy_ns_per_step);
  a("device", r.device);
  a("device_in_trace", r.device_in_trace);
  a("peak_kind", r.peak_kind);
  a("no_peak_reason", r.no_peak_reason);
  a("architecture", r.architecture);
  a("families", r.families);
  a("top_ops", r.top_ops);
  a("mfu", r.mfu);
  a("mfu_dtype", r.mfu_dtype);
  a("mfu_peak_tflops", r.mfu_peak_tflops);
  a("matrix_modelled_share", r.matrix_modelled_share);
  a("notes", r.notes);
}
template <typename A> void Io(A& a, JobProfile& j) {
  a("kind", j.kind);
  a("framework", j.framework);
  a("backward_ops", j.backward_ops);
  a("optimizer_ops", j.optimizer_ops);
  a("backward_kernels", j.backward_kernels);
  a("host_ops", j.host_ops);
  a("host_api_only", j.host_api_only);
  a("capture", j.capture);
  a("framework_from_kernels", j.framework_from_kernels);
  a("llm", j.llm);
  a("jitted_calls", j.jitted_calls);
  a("jitted_name", j.jitted_name);
  a("collective_count", j.collective_count);
  a("collective_ns", j.collective_ns);
  a("dominant_collective", j.dominant_collective);
}

// The rank's summary and cross-rank data.
template <typename A> void Io(A& a, IntegrityCheck& c) {
  a("id", c.id);
  a("status", c.status);
  a("value", c.value);
  a("threshold", c.threshold);
  a("unit", c.unit);
  a("reason", c.reason);
}
template <typename A> void Io(A& a, WithheldCause& c) {
  a("cause", c.cause);
  a("reason", c.reason);
}
template <typename A> void Io(A& a, TraceIntegrity& t) {
  a("verdict", t.verdict);
  a("checks", t.checks);
  a("max_confidence", t.max_confidence);
  a("max_claim_share", t.max_claim_share);
  a("confidence_levels_down", t.confidence_levels_down);
  a("fragment_reason", t.fragment_reason);
  a("withheld", t.withheld);
  a("summary", t.summary);
}
template <typename A> void Io(A& a, StepTime& s) {
  a("number", s.number);
  a("start_ns", s.start_ns);
  a("step_ns", s.step_ns);
}
template <typename A> void Io(A& a, RankSummary& r) {
  a("position", r.position);
  a("rank", r.rank);
  a("world_size", r.world_size);
  a("accelerator", r.accelerator);
  a("no_steady_step", r.no_steady_step);
  a("step_count", r.step_count);
  a("mean_step_ns", r.mean_step_ns);
  a("has_device", r.has_device);
  a("device_step_ns", r.device_step_ns);
  a("kernel_busy_ns", r.kernel_busy_ns);
  a("breakdown_ns", r.breakdown_ns);
  a("idle_ns", r.idle_ns);
  a("unattributed_where", r.unattributed_where);
  a("inferred_idle_ns", r.inferred_idle_ns);
  a("integrity", r.integrity);
  a("steady_steps", r.steady_steps);
  a("outliers", r.outliers);
  a("active_devices", r.active_devices);
  a("dominant_family", r.dominant_family);
  a("xla_async_copy_ns", r.xla_async_copy_ns);
}
template <typename A> void Io(A& a, RankCollectives& c) {
  a("step_numbers", c.step_numbers);
  a("durations_ns", c.durations_ns);
}
template <typename A> void Io(A& a, RankCrossData& c) {
  a("collectives", c.collectives);
  a("step_count", c.step_count);
  a("mean_step_ns", c.mean_step_ns);
  a("devices", c.devices);
  a("compute_ns", c.compute_ns);
  a("data_loader_ns", c.data_loader_ns);
  a("communication_ns", c.communication_ns);
  a("gpu_idle_ns", c.gpu_idle_ns);
  a("wait_collective_ns", c.wait_collective_ns);
  a("job", c.job);
}

template <typename A> void Io(A& a, RankRecord& r) {
  a("metadata", r.metadata);
  a("bounds", r.bounds);
  a("diagnostics", r.diagnostics);
  a("steps", r.steps);
  a("steady_steps", r.steady_steps);
  a("all_steps", r.all_steps);
  a("outlier_steps", r.outlier_steps);
  a("step_phase", r.step_phase);
  a("step_metrics", r.step_metrics);
  a("own_steady_step_metrics", r.own_steady_step_metrics);
  a("own_all_step_metrics", r.own_all_step_metrics);
  a("idle_attribution", r.idle_attribution);
  a("memory_usage", r.memory_usage);
  a("roofline", r.roofline);
  a("job_profile", r.job_profile);
  a("active_devices", r.active_devices);
  a("summary", r.summary);
  a("cross_rank", r.cross_rank);
}

}  // namespace tracelint::record_io

namespace tracelint {
namespace {

// What MakeRankRecord always makes and the reports rely on: indices within
// their vectors, one phase per step. A part that breaks it was damaged or
// edited, and reading on would index past a vector.
absl::Status CheckRecord(const RankRecord& r) {
  auto bad = [](std::string_view what) {
    return absl::InvalidArgumentError(std::string("record: ") + std::string(what));
  };
  const StepPhaseSet& phase = r.step_phase;
  if (phase.phases.size() != r.all_steps.steps.size() || phase.cuts.size() > phase.phases.size() ||
      phase.steady_count < 0 || static_cast<size_t>(phase.steady_count) > phase.phases.size()) {
    return bad("step_phase: not one phase per step of all_steps");
  }
  for (size_t i : r.outlier_steps.indices) {
    if (i >= r.steady_steps.steps.size()) return bad("outlier_steps: not an index of steady_steps");
  }
  for (size_t i : r.summary.outliers.indices) {
    if (i >= r.summary.steady_steps.size()) {
      return bad("summary.outliers: not an index of summary.steady_steps");
    }
  }
  return absl::OkStatus();
}

}  // namespace

void WriteRankRecord(JsonWriter& w, const RankRecord& record) {
  record_io::Writer(w).Value(record);
}

absl::StatusOr<RankRecord> ReadRankRecord(simdjson::dom::element object) {
  simdjson::dom::object o;
  if (object.get_object().get(o) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError("rank record: not an object");
  }
  std::string error;
  record_io::Reader reader(o, &error, "record");
  RankRecord record;
  record_io::Io(reader, record);
  if (!error.empty()) return absl::InvalidArgumentError(error);
  if (absl::Status s = CheckRecord(record); !s.ok()) return s;
  return record;
}

std::string RankRecordToJson(const RankRecord& record) { return record_io::ToJsonLine(record); }

absl::StatusOr<RankRecord> RankRecordFromJson(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(simdjson::padded_string(json)).get(doc) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError("rank record: not valid JSON");
  }
  return ReadRankRecord(doc);
}

}  // namespace tracelint
