#include "analyzer/diff/diff_input.h"

#include <fstream>

#include "analyzer/analysis/rank_record.h"
#include "analyzer/analysis/memory_usage.h"
#include "analyzer/model/accelerator.h"
#include "analyzer/report/report_data.h"
#include "fmt/format.h"
#include "simdjson.h"

namespace tracelint {
namespace {

// The device whose steps a rank's diff uses: most kernel busy time per step,
// then the lowest index. Per-step (truncated) values, as the JSON report
// stores them, so an analysis and its saved report pick the same device.
int PrimaryDevice(const std::vector<std::pair<int, TimeNs>>& busy_per_step) {
  int device = -1;
  TimeNs best_ns = -1;
  for (const auto& [d, busy_ns] : busy_per_step) {
    if (busy_ns > best_ns) {
      device = d;
      best_ns = busy_ns;
    }
  }
  return device;
}

DiffStep StepFrom(const StepRow& row, int device) {
  DiffStep s;
  s.number = row.number;
  s.step_ns = row.end_ns - row.start_ns;
  for (const DeviceMetrics& d : row.devices) {
    if (d.device != device) continue;
    s.gpu_utilization = d.gpu_utilization;
    s.breakdown_ns = d.breakdown_ns;
  }
  return s;
}

// The primary device's name, else the first named device's.
std::string DeviceNameOf(const std::vector<std::pair<int, std::string>>& named, int device) {
  for (const auto& [id, name] : named) {
    if (id == device && !name.empty()) return name;
  }
  for (const auto& [id, name] : named) {
    if (!name.empty()) return name;
  }
  return "";
}

}  // namespace

std::vector<const StepRow*> SteadyStepSamples(const StepMetrics& metrics) {
  std::vector<const StepRow*> rows;
  for (const StepRow& row : metrics.steps) rows.push_back(&row);
  return rows;
}

DiffRun DiffRunFromAnalysis(const ReportInput& input) {
  DiffRun run;
  run.label = input.input_path;
  Verdict verdict = input.summary().verdict;
  run.judgeable = verdict.judgeable;
  run.verdict_line = verdict.line;
  for (size_t i = 0; i < input.records.size(); ++i) {
    const StepMetrics& m = input.records[i]->step_metrics;
    DiffRank rank;
    rank.rank = RankOf(*input.records[i], i);
    rank.accelerator = std::string(AcceleratorName(input.records[i]->metadata));
    rank.analysed_steps = m.step_count;
    for (const DeviceMemoryUsage& mem : input.records[i]->memory_usage.devices) {
      if (mem.peak_allocated_bytes > rank.peak_allocated_bytes) {
        rank.peak_allocated_bytes = mem.peak_allocated_bytes;
        rank.device_memory_bytes = mem.total_memory_bytes;
      }
    }
    std::vector<std::pair<int, TimeNs>> busy;
    for (const DeviceMetrics& d : m.summary) {
      busy.emplace_back(d.device, m.step_count > 0 ? d.kernel_busy_ns / m.step_count : 0);
    }
    int device = PrimaryDevice(busy);
    const RunMetadata& md = input.records[i]->metadata;
    rank.framework = md.framework;
    rank.world_size = md.world_size;
    std::vector<std::pair<int, std::string>> named;
    for (const DeviceInfo& info : md.devices) named.emplace_back(info.id, info.name);
    rank.device_name = DeviceNameOf(named, device);
    // Every steady step, outliers included (docs/design/contract.md, "diff: outliers").
    for (const StepRow* row : SteadyStepSamples(input.records[i]->steady_step_metrics())) {
      rank.steady_steps.push_back(StepFrom(*row, device));
    }
    for (const KernelStat& k : m.top_kernels) rank.kernels.push_back({k.name, k.count, k.total_ns});
    for (const OpStat& o : m.top_ops) rank.ops.push_back({o.name, o.count, o.device_ns});
    run.ranks.push_back(std::move(rank));
  }
  for (const Finding& f : input.findings) {
    run.findings.push_back({f.fingerprint, f.rule_id, f.cause, f.title,
                            std::string(FindingSeverityName(f.severity)), f.location.rank,
                            f.recoverable_ns_per_step, f.recoverable_ns_steps,
                            f.recoverable_share, f.one_time_ns});
  }
  return run;
}

namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

// Field readers that turn a missing or mistyped field into one error naming
// it, instead of a simdjson code.
class Reader {
 public:
  explicit Reader(std::string label) : label_(std::move(label)) {}
  absl::Status status() const { return status_; }

  int64_t Int(object o, std::string_view key) {
    if (!ok()) return {};
    int64_t v = 0;
    if (o[key].get_int64().get(v) != simdjson::SUCCESS) Fail(key);
    return v;
  }
  double Double(object o, std::string_view key) {
    if (!ok()) return {};
    double v = 0;
    if (o[key].get_double().get(v) != simdjson::SUCCESS) Fail(key);
    return v;
  }
  std::string String(object o, std::string_view key) {
    if (!ok()) return {};
    std::string_view v;
    if (o[key].get_string().get(v) != simdjson::SUCCESS) Fail(key);
    return std::string(v);
  }
  // Empty on failure: a default simdjson array must not be iterated.
  std::vector<element> Array(object o, std::string_view key) {
    std::vector<element> out;
    if (!ok()) return out;
    array v;
    if (o[key].get_array().get(v) != simdjson::SUCCESS) {
      Fail(key);
      return out;
    }
    for (element e : v) out.push_back(e);
    return out;
  }
  object Object(element e, std::string_view what) {
    return Object(simdjson::simdjson_result<element>(std::move(e)), what);
  }
  // Check ok() before using the result: a default object must not be read.
  object Object(simdjson::simdjson_result<element> e, std::string_view what) {
    object v;
    if (!ok()) return v;
    if (e.get_object().get(v) != simdjson::SUCCESS) Fail(what);
    return v;
  }
  bool ok() const { return status_.ok(); }

 private:
  void Fail(std::string_view key) {
    if (status_.ok()) {
      status_ = absl::InvalidArgumentError(fmt::format(
          "{}: not a complete tracelint JSON report (field '{}' missing or of the wrong type; "
          "reports from before `diff` lack the full kernel and op lists: write it again with "
          "this version)",
          label_, key));
    }
  }
  std::string label_;
  absl::Status status_;
};

void ReadRank(Reader& r, object ro, DiffRank& rank) {
  rank.rank = static_cast<int>(r.Int(ro, "rank"));
  // Optional: reports from before these fields read as a GPU run without
  // allocator events.
  std::string_view accelerator;
  if (ro["accelerator"].get_string().get(accelerator) == simdjson::SUCCESS &&
      !accelerator.empty()) {
    rank.accelerator = std::string(accelerator);
  }
  simdjson::dom::array memory;
  if (ro["device_memory"].get_array().get(memory) == simdjson::SUCCESS) {
    for (element e : memory) {
      int64_t peak = -1;
      int64_t total = -1;
      if (e["peak_allocated_bytes"].get_int64().get(peak) != simdjson::SUCCESS) continue;
      if (e["total_memory_bytes"].get_int64().get(total) != simdjson::SUCCESS) total = -1;
      if (peak > rank.peak_allocated_bytes) {
        rank.peak_allocated_bytes = peak;
        rank.device_memory_bytes = total;
      }
    }
  }
  // Optional too (the run-mismatch warning only).
  std::string_view framework;
  if (ro["framework"].get_string().get(framework) == simdjson::SUCCESS) {
    rank.framework = std::string(framework);
  }
  int64_t world_size = -1;
  if (ro["world_size"].get_int64().get(world_size) == simdjson::SUCCESS) {
    rank.world_size = static_cast<int>(world_size);
  }
  std::vector<std::pair<int, std::string>> named;
  simdjson::dom::array devices;
  if (ro["devices"].get_array().get(devices) == simdjson::SUCCESS) {
    for (element e : devices) {
      int64_t id = -1;
      std::string_view name;
      if (e["id"].get_int64().get(id) != simdjson::SUCCESS ||
          e["name"].get_string().get(name) != simdjson::SUCCESS) {
        continue;
      }
      named.emplace_back(static_cast<int>(id), std::string(name));
    }
  }
  object steps = r.Object(ro["steps"], "steps");
  if (!r.ok()) return;
  rank.analysed_steps = r.Int(steps, "count");
  std::vector<std::pair<int, TimeNs>> busy;
  for (element e : r.Array(ro, "summary")) {
    object d = r.Object(e, "summary");
    if (!r.ok()) return;
    busy.emplace_back(static_cast<int>(r.Int(d, "device")), r.Int(d, "kernel_busy_ns"));
  }
  int device = PrimaryDevice(busy);
  rank.device_name = DeviceNameOf(named, device);
  for (element e : r.Array(ro, "per_step")) {
    object so = r.Object(e, "per_step");
    if (!r.ok()) return;
    // Forward compatible: a step a later report marks as not steady is skipped.
    bool steady = true;
    if (so["steady"].get_bool().get(steady) == simdjson::SUCCESS && !steady) continue;
    DiffStep s;
    s.number = r.Int(so, "step");
    s.step_ns = r.Int(so, "end_ns") - r.Int(so, "start_ns");
    for (element de : r.Array(so, "devices")) {
      object d = r.Object(de, "devices");
      if (!r.ok() || r.Int(d, "device") != device) continue;
      s.gpu_utilization = r.Double(d, "gpu_utilization");
      object b = r.Object(d["breakdown_ns"], "breakdown_ns");
      for (int i = 0; r.ok() && i < kStepCategoryCount; ++i) {
        s.breakdown_ns[i] = r.Int(b, StepCategoryName(static_cast<StepCategory>(i)));
      }
    }
    rank.steady_steps.push_back(s);
  }
  for (element e : r.Array(ro, "kernels")) {
    object k = r.Object(e, "kernels");
    if (!r.ok()) return;
    rank.kernels.push_back({r.String(k, "name"), r.Int(k, "count"), r.Int(k, "total_ns")});
  }
  for (element e : r.Array(ro, "ops")) {
    object o = r.Object(e, "ops");
    if (!r.ok()) return;
    rank.ops.push_back({r.String(o, "name"), r.Int(o, "count"), r.Int(o, "device_ns")});
  }
}

}  // namespace

absl::StatusOr<DiffRun> DiffRunFromJsonReport(std::string_view json, std::string label) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  element doc;
  if (parser.parse(padded).get(doc) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError(fmt::format("{}: not valid JSON", label));
  }
  object root;
  std::string_view tool;
  if (doc.get_object().get(root) != simdjson::SUCCESS ||
      root["tool"].get_string().get(tool) != simdjson::SUCCESS || tool != "tracelint") {
    return absl::InvalidArgumentError(
        fmt::format("{}: not a tracelint JSON report (no \"tool\": \"tracelint\")", label));
  }
  Reader r(label);
  int64_t version = r.Int(root, "schema_version");
  if (r.ok() && version != kReportSchemaVersion) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: report schema_version {} (this build reads {})", label, version,
        kReportSchemaVersion));
  }
  DiffRun run;
  run.label = std::move(label);
  for (element e : r.Array(root, "ranks")) {
    object ro = r.Object(e, "ranks");
    if (!r.ok()) break;
    DiffRank rank;
    ReadRank(r, ro, rank);
    run.ranks.push_back(std::move(rank));
  }
  for (element e : r.Array(root, "findings")) {
    object fo = r.Object(e, "findings");
    if (!r.ok()) break;
    DiffFinding f;
    f.fingerprint = r.String(fo, "fingerprint");
    f.rule_id = r.String(fo, "rule_id");
    f.cause = r.String(fo, "cause");
    f.title = r.String(fo, "title");
    f.severity = r.String(fo, "severity");
    object loc = r.Object(fo["location"], "location");
    if (r.ok()) f.rank = static_cast<int>(r.Int(loc, "rank"));
    f.recoverable_ns_per_step = r.Int(fo, "recoverable_ns_per_step");
    // Optional: a report written before per-step values existed has none,
    // and diff then judges that finding by the 20% rule.
    array steps;
    if (r.ok() && fo["recoverable_ns_steps"].get_array().get(steps) == simdjson::SUCCESS) {
      for (element v : steps) {
        int64_t ns = 0;
        if (v.get_int64().get(ns) != simdjson::SUCCESS) {
          return absl::InvalidArgumentError(fmt::format(
              "{}: not a complete tracelint JSON report (field 'recoverable_ns_steps' holds a "
              "value that is not an integer)",
              run.label));
        }
        f.recoverable_ns_steps.push_back(ns);
      }
    }
    f.recoverable_share = r.Double(fo, "recoverable_share");
    f.one_time_ns = r.Int(fo, "one_time_ns");
    run.findings.push_back(std::move(f));
  }
  // Read after the ranks, so a report of an older layout is named by the
  // first field it lacks.
  run.judgeable = r.String(root, "verdict") != "not judgeable";
  run.verdict_line = r.String(root, "verdict_text");
  if (!r.ok()) return r.status();
  return run;
}

bool IsJsonReportFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string head(512, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  // RenderJsonReport writes schema_version, then "tool": "tracelint", first.
  return head.find("\"tool\": \"tracelint\"") != std::string::npos &&
         head.find("\"schema_version\"") != std::string::npos;
}

}  // namespace tracelint
