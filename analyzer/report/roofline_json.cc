// ranks[].roofline (report.schema.json, $defs/roofline; docs/roofline.md).
// Unknown numbers are null: a family without a model has no rate, a device
// without a table entry no peak.

#include <cmath>

#include "analyzer/report/roofline_report.h"

namespace tracelint {
namespace {

void PositiveOrNull(JsonWriter& w, double v) { v > 0 ? w.Double(v) : w.Null(); }
void NonNegativeOrNull(JsonWriter& w, double v) { v >= 0 ? w.Double(v) : w.Null(); }
void StringOrNull(JsonWriter& w, const std::string& s) { s.empty() ? w.Null() : w.String(s); }
int64_t Ns(double ns) { return SaturatingNsFromDouble(ns); }
double Clamp01(double v) { return v < 0 ? 0 : v > 1 ? 1 : v; }

void WriteFamily(JsonWriter& w, const RooflineFamily& f) {
  w.BeginObject();
  w.Key("family").String(f.family);
  w.Key("dtype");
  StringOrNull(w, f.dtype);
  w.Key("variant");
  StringOrNull(w, f.variant);
  w.Key("compute").Bool(f.compute);
  w.Key("device_ns_per_step").Int(Ns(f.device_ns_per_step));
  w.Key("device_ns_steps").BeginArray();
  for (double ns : f.device_ns_steps) w.Int(Ns(ns));
  w.EndArray();
  w.Key("flops_per_step").Double(f.flops_per_step);
  w.Key("bytes_per_step").Double(f.bytes_per_step);
  w.Key("share_of_step").Double(Clamp01(f.share_of_step));
  w.Key("share_of_busy").Double(Clamp01(f.share_of_busy));
  const bool modelled = f.modelled_share > 0;
  w.Key("achieved_tflops");
  modelled && f.flops_per_step > 0 ? w.Double(f.achieved_tflops) : w.Null();
  w.Key("achieved_tbps");
  modelled && f.bytes_per_step > 0 ? w.Double(f.achieved_tbps) : w.Null();
  w.Key("peak_tflops");
  PositiveOrNull(w, f.peak_tflops);
  w.Key("peak_tbps");
  PositiveOrNull(w, f.peak_tbps);
  w.Key("bound");
  StringOrNull(w, f.bound);
  w.Key("efficiency");
  NonNegativeOrNull(w, f.efficiency);
  w.Key("modelled_share").Double(Clamp01(f.modelled_share));
  w.EndObject();
}

void WriteOp(JsonWriter& w, const RooflineOp& o) {
  w.BeginObject();
  w.Key("name").String(o.name);
  w.Key("family").String(o.family);
  w.Key("dtype");
  StringOrNull(w, o.dtype);
  w.Key("shapes").String(o.shapes);
  w.Key("params").String(o.params);
  w.Key("kernel").String(o.kernel);
  w.Key("calls").Int(o.calls);
  w.Key("device_ns_per_step").Int(Ns(o.device_ns_per_step));
  w.Key("modelled").Bool(o.modelled);
  w.Key("flops_per_call");
  o.modelled ? w.Double(o.flops_per_call) : w.Null();
  w.Key("bytes_per_call");
  o.modelled && o.bytes_per_call >= 0 ? w.Double(o.bytes_per_call) : w.Null();
  w.Key("intensity");
  NonNegativeOrNull(w, o.intensity);
  w.Key("achieved_tflops");
  o.modelled ? w.Double(o.achieved_tflops) : w.Null();
  w.Key("achieved_tbps");
  o.modelled && o.bytes_per_call >= 0 ? w.Double(o.achieved_tbps) : w.Null();
  w.Key("peak_tflops");
  PositiveOrNull(w, o.peak_tflops);
  w.Key("peak_tbps");
  PositiveOrNull(w, o.peak_tbps);
  w.Key("bound");
  StringOrNull(w, o.bound);
  w.Key("efficiency");
  NonNegativeOrNull(w, o.efficiency);
  w.EndObject();
}

}  // namespace

void WriteRooflineJson(JsonWriter& w, const RankRoofline& r) {
  w.BeginObject();
  w.Key("steps").Int(r.steps);
  w.Key("devices").Int(r.devices);
  w.Key("device");
  StringOrNull(w, r.device);
  w.Key("device_in_trace");
  StringOrNull(w, r.device_in_trace);
  w.Key("peak_kind");
  StringOrNull(w, r.peak_kind);
  w.Key("no_peak_reason");
  StringOrNull(w, r.no_peak_reason);
  w.Key("architecture");
  StringOrNull(w, r.architecture);
  w.Key("busy_ns_per_step").Int(Ns(r.busy_ns_per_step));
  w.Key("modelled_flop_utilization").BeginObject();
  w.Key("name").String("modelled FLOP utilization (includes recompute)");
  w.Key("value").OptionalDouble(r.mfu);
  w.Key("dtype");
  StringOrNull(w, r.mfu_dtype);
  w.Key("peak_tflops");
  PositiveOrNull(w, r.mfu_peak_tflops);
  w.Key("matrix_modelled_share").Double(Clamp01(r.matrix_modelled_share));
  w.EndObject();
  w.Key("families").BeginArray();
  for (const RooflineFamily& f : r.families) WriteFamily(w, f);
  w.EndArray();
  w.Key("top_ops").BeginArray();
  for (const RooflineOp& o : r.top_ops) WriteOp(w, o);
  w.EndArray();
  w.Key("notes").StringArray(r.notes);
  w.EndObject();
}

}  // namespace tracelint
