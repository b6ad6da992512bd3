#include "analyzer/analysis/run_summary_json.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "simdjson.h"

namespace tracelint {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

void WriteIntegrity(JsonWriter& w, const TraceIntegrity& t) {
  w.BeginObject();
  w.Key("verdict").String(IntegrityVerdictName(t.verdict));
  w.Key("max_confidence").Int(t.max_confidence);
  w.Key("max_claim_share").Double(t.max_claim_share);
  w.Key("confidence_levels_down").Int(t.confidence_levels_down);
  w.Key("fragment_reason").String(t.fragment_reason);
  w.Key("summary").String(t.summary);
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
  w.Key("withheld").BeginArray();
  for (const WithheldCause& c : t.withheld) {
    w.BeginObject();
    w.Key("cause").String(c.cause);
    w.Key("reason").String(c.reason);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

// Reading: every accessor names the field it failed on.
class Reader {
 public:
  explicit Reader(std::string* error) : error_(error) {}

  bool ok() const { return error_->empty(); }
  void Fail(std::string_view field, std::string_view what) {
    if (error_->empty()) *error_ = fmt::format("rank summary: {}: {}", field, what);
  }
  // A default-constructed simdjson element or array must never be touched, so every accessor
  // returns a zero value once anything has failed.
  bool Field(object o, std::string_view key, element* e) {
    if (!ok()) return false;
    if (o[key].get(*e) != simdjson::SUCCESS) {
      Fail(key, "missing");
      return false;
    }
    return true;
  }
  int64_t Int(object o, std::string_view key) {
    int64_t v = 0;
    element e;
    if (Field(o, key, &e) && e.get_int64().get(v) != simdjson::SUCCESS) Fail(key, "not an integer");
    return v;
  }
  double Double(object o, std::string_view key) {
    double v = 0;
    element e;
    if (!Field(o, key, &e)) return v;
    if (e.is_null()) return std::numeric_limits<double>::quiet_NaN();  // written for NaN
    if (e.get_double().get(v) != simdjson::SUCCESS) Fail(key, "not a number");
    return v;
  }
  bool Bool(object o, std::string_view key) {
    bool v = false;
    element e;
    if (Field(o, key, &e) && e.get_bool().get(v) != simdjson::SUCCESS) Fail(key, "not a boolean");
    return v;
  }
  std::string String(object o, std::string_view key) {
    std::string_view v;
    element e;
    if (Field(o, key, &e) && e.get_string().get(v) != simdjson::SUCCESS) Fail(key, "not a string");
    return std::string(v);
  }
  object Object(object o, std::string_view key) {
    object v;
    element e;
    if (Field(o, key, &e) && e.get_object().get(v) != simdjson::SUCCESS) Fail(key, "not an object");
    return v;
  }
  std::vector<element> Array(object o, std::string_view key) {
    std::vector<element> out;
    element e;
    array v;
    if (!Field(o, key, &e)) return out;
    if (e.get_array().get(v) != simdjson::SUCCESS) {
      Fail(key, "not an array");
      return out;
    }
    for (element item : v) out.push_back(item);
    return out;
  }
  object AsObject(element e, std::string_view where) {
    object v;
    if (ok() && e.get_object().get(v) != simdjson::SUCCESS) Fail(where, "not an object");
    return v;
  }

 private:
  std::string* error_;
};

template <typename Enum, int kCount, typename NameFn>
bool EnumFromName(std::string_view name, NameFn name_of, Enum* out) {
  for (int i = 0; i < kCount; ++i) {
    if (name_of(static_cast<Enum>(i)) == name) {
      *out = static_cast<Enum>(i);
      return true;
    }
  }
  return false;
}

TraceIntegrity ReadIntegrity(Reader& r, object o) {
  TraceIntegrity t;
  if (!EnumFromName<IntegrityVerdict, 3>(r.String(o, "verdict"), IntegrityVerdictName,
                                         &t.verdict)) {
    r.Fail("integrity.verdict", "unknown verdict");
  }
  t.max_confidence = static_cast<int>(r.Int(o, "max_confidence"));
  t.max_claim_share = r.Double(o, "max_claim_share");
  t.confidence_levels_down = static_cast<int>(r.Int(o, "confidence_levels_down"));
  t.fragment_reason = r.String(o, "fragment_reason");
  t.summary = r.String(o, "summary");
  if (!r.ok()) return t;
  for (element e : r.Array(o, "checks")) {
    object c = r.AsObject(e, "integrity.checks[]");
    if (!r.ok()) return t;
    IntegrityCheck check;
    check.id = r.String(c, "id");
    if (!EnumFromName<CheckStatus, 4>(r.String(c, "status"), CheckStatusName, &check.status)) {
      r.Fail("integrity.checks[].status", "unknown status");
    }
    check.value = r.Double(c, "value");
    check.threshold = r.Double(c, "threshold");
    check.unit = r.String(c, "unit");
    check.reason = r.String(c, "reason");
    t.checks.push_back(std::move(check));
  }
  if (!r.ok()) return t;
  for (element e : r.Array(o, "withheld")) {
    object c = r.AsObject(e, "integrity.withheld[]");
    if (!r.ok()) return t;
    t.withheld.push_back({r.String(c, "cause"), r.String(c, "reason")});
  }
  return t;
}

}  // namespace

void WriteRankSummary(JsonWriter& w, const RankSummary& r) {
  w.BeginObject();
  w.Key("position").Int(r.position);
  w.Key("rank").Int(r.rank);
  w.Key("world_size").Int(r.world_size);
  w.Key("accelerator").String(r.accelerator);
  w.Key("no_steady_step").Bool(r.no_steady_step);
  w.Key("step_count").Int(r.step_count);
  w.Key("mean_step_ns").Int(r.mean_step_ns);
  w.Key("has_device").Bool(r.has_device);
  w.Key("device_step_ns").Int(r.device_step_ns);
  w.Key("kernel_busy_ns").Int(r.kernel_busy_ns);
  w.Key("active_devices").Int(r.active_devices);
  w.Key("breakdown_ns").BeginObject();
  for (int c = 0; c < kStepCategoryCount; ++c) {
    w.Key(StepCategoryName(static_cast<StepCategory>(c))).Int(r.breakdown_ns[c]);
  }
  w.EndObject();
  w.Key("idle_ns").BeginObject();
  for (int c = 0; c < kIdleCauseCount; ++c) {
    w.Key(IdleCauseName(static_cast<IdleCause>(c))).Int(r.idle_ns[c]);
  }
  w.EndObject();
  w.Key("unattributed_where").String(r.unattributed_where);
  // The verdict names the inferred cause of unattributed idle.
  w.Key("inferred_idle_ns").BeginObject();
  for (int c = 0; c < kIdleCauseCount; ++c) {
    w.Key(IdleCauseName(static_cast<IdleCause>(c))).Int(r.inferred_idle_ns[c]);
  }
  w.EndObject();
  w.Key("dominant_family").String(r.dominant_family);
  w.Key("xla_async_copy_ns").Int(r.xla_async_copy_ns);
  w.Key("integrity");
  WriteIntegrity(w, r.integrity);
  w.Key("steady_steps").BeginArray();
  for (const StepTime& s : r.steady_steps) {
    w.BeginObject();
    w.Key("number").Int(s.number);
    w.Key("start_ns").Int(s.start_ns);
    w.Key("step_ns").Int(s.step_ns);
    w.EndObject();
  }
  w.EndArray();
  w.Key("outliers").BeginObject();
  w.Key("samples").Int(r.outliers.samples);
  w.Key("median_ns").Int(r.outliers.median_ns);
  w.Key("limit_ns").Int(r.outliers.limit_ns);
  w.Key("indices").BeginArray();
  for (size_t i : r.outliers.indices) w.Int(static_cast<int64_t>(i));
  w.EndArray();
  w.EndObject();
  w.EndObject();
}

std::string RankSummaryToJson(const RankSummary& rank) {
  JsonWriter w;
  WriteRankSummary(w, rank);
  return w.Finish();
}

absl::StatusOr<RankSummary> RankSummaryFromJson(std::string_view json) {
  simdjson::dom::parser parser;
  element doc;
  if (parser.parse(json.data(), json.size()).get(doc) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError("rank summary: not valid JSON");
  }
  std::string error;
  Reader r(&error);
  object o = r.AsObject(doc, "rank summary");
  RankSummary s;
  if (r.ok()) {
    s.position = static_cast<int>(r.Int(o, "position"));
    s.rank = static_cast<int>(r.Int(o, "rank"));
    s.world_size = static_cast<int>(r.Int(o, "world_size"));
    s.accelerator = r.String(o, "accelerator");
    s.no_steady_step = r.Bool(o, "no_steady_step");
    s.step_count = r.Int(o, "step_count");
    s.mean_step_ns = r.Int(o, "mean_step_ns");
    s.has_device = r.Bool(o, "has_device");
    s.device_step_ns = r.Int(o, "device_step_ns");
    s.kernel_busy_ns = r.Int(o, "kernel_busy_ns");
    s.active_devices = static_cast<int>(r.Int(o, "active_devices"));
    object breakdown = r.Object(o, "breakdown_ns");
    for (int c = 0; r.ok() && c < kStepCategoryCount; ++c) {
      s.breakdown_ns[c] = r.Int(breakdown, StepCategoryName(static_cast<StepCategory>(c)));
    }
    object idle = r.Object(o, "idle_ns");
    for (int c = 0; r.ok() && c < kIdleCauseCount; ++c) {
      s.idle_ns[c] = r.Int(idle, IdleCauseName(static_cast<IdleCause>(c)));
    }
    s.unattributed_where = r.String(o, "unattributed_where");
    object inferred = r.Object(o, "inferred_idle_ns");
    for (int c = 0; r.ok() && c < kIdleCauseCount; ++c) {
      s.inferred_idle_ns[c] = r.Int(inferred, IdleCauseName(static_cast<IdleCause>(c)));
    }
    s.dominant_family = r.String(o, "dominant_family");
    s.xla_async_copy_ns = r.Int(o, "xla_async_copy_ns");
    object integrity = r.Object(o, "integrity");
    if (r.ok()) s.integrity = ReadIntegrity(r, integrity);
    if (r.ok()) {
      for (element e : r.Array(o, "steady_steps")) {
        object step = r.AsObject(e, "steady_steps[]");
        if (!r.ok()) break;
        s.steady_steps.push_back({r.Int(step, "number"), r.Int(step, "start_ns"),
                                  r.Int(step, "step_ns")});
      }
    }
    object outliers = r.Object(o, "outliers");
    if (r.ok()) {
      s.outliers.samples = r.Int(outliers, "samples");
      s.outliers.median_ns = r.Int(outliers, "median_ns");
      s.outliers.limit_ns = r.Int(outliers, "limit_ns");
      for (element e : r.Array(outliers, "indices")) {
        int64_t i = 0;
        if (e.get_int64().get(i) != simdjson::SUCCESS || i < 0 ||
            static_cast<size_t>(i) >= s.steady_steps.size()) {
          r.Fail("outliers.indices", "not an index of steady_steps");
          break;
        }
        s.outliers.indices.push_back(static_cast<size_t>(i));
      }
    }
  }
  if (!error.empty()) return absl::InvalidArgumentError(error);
  return s;
}

}  // namespace tracelint
