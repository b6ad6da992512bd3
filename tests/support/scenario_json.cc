#include <algorithm>
#include <map>

#include "analyzer/base/json_escape.h"
#include "tests/support/scenario.h"
#include "fmt/format.h"

// Scenario -> Kineto Chrome-trace JSON (docs/design/formats.md, A.2-A.7), from the same
// event list BuildTimeline() uses.

namespace tracelint::testing {
namespace {

// Microseconds with exactly three decimals: the ns value survives a round trip.
std::string MicrosText(TimeNs ns) {
  const char* sign = ns < 0 ? "-" : "";
  TimeNs a = ns < 0 ? -ns : ns;
  return fmt::format("{}{}.{:03}", sign, a / 1000, a % 1000);
}

std::string ArgJson(const ScenarioArg& a) {
  switch (a.type) {
    case ScenarioArg::Type::kInt: return fmt::format("{}", a.i);
    case ScenarioArg::Type::kDouble: return fmt::format("{}", a.d);
    case ScenarioArg::Type::kString: return fmt::format("\"{}\"", JsonEscape(a.s));
    case ScenarioArg::Type::kRawJson: return a.s;
  }
  return "null";
}

}  // namespace

absl::StatusOr<std::string> Scenario::ToKinetoJson() const {
  if (absl::Status s = Validate(); !s.ok()) return s;
  std::string out = "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [";
  for (size_t i = 0; i < devices_.size(); ++i) {
    const DeviceSpec& d = devices_[i];
    out += fmt::format(
        "{}\n    {{\"id\": {}, \"name\": \"{}\", \"totalGlobalMem\": {}, \"computeMajor\": {}, "
        "\"computeMinor\": {}, \"maxThreadsPerBlock\": 1024, "
        "\"maxThreadsPerMultiprocessor\": {}, \"regsPerBlock\": 65536, "
        "\"regsPerMultiprocessor\": 65536, \"warpSize\": 32, \"sharedMemPerBlock\": 49152, "
        "\"sharedMemPerMultiprocessor\": 167936, \"numSms\": {}, "
        "\"sharedMemPerBlockOptin\": 166912}}",
        i == 0 ? "" : ",", d.id, JsonEscape(d.name), d.total_memory_bytes, d.compute_major,
        d.compute_minor, d.max_threads_per_sm, d.sm_count);
  }
  out += devices_.empty() ? "],\n" : "\n  ],\n";
  if (rank_ >= 0) {
    out += fmt::format(
        "  \"distributedInfo\": {{\"backend\": \"{}\", \"rank\": {}, \"world_size\": {}}},\n",
        JsonEscape(backend_), rank_, world_size_);
  }
  out += "  \"record_shapes\": 1,\n  \"displayTimeUnit\": \"ms\",\n  \"traceEvents\": [\n";
  bool first = true;
  auto emit = [&](const std::string& line) {
    out += first ? "    " : ",\n    ";
    out += line;
    first = false;
  };
  // Process and thread names, as Kineto writes them (M events).
  std::map<int64_t, std::vector<int64_t>> tids_by_pid;
  for (const ScenarioEvent& e : events_) {
    std::vector<int64_t>& tids = tids_by_pid[e.pid];
    if (std::find(tids.begin(), tids.end(), e.tid) == tids.end()) tids.push_back(e.tid);
  }
  for (const auto& [pid, tids] : tids_by_pid) {
    bool host = pid == kHostPid;
    emit(fmt::format(
        R"({{"name": "process_name", "ph": "M", "ts": 0.000, "pid": {}, "tid": 0, "args": {{"name": "python3"}}}})",
        pid));
    emit(fmt::format(
        R"({{"name": "process_labels", "ph": "M", "ts": 0.000, "pid": {}, "tid": 0, "args": {{"labels": "{}"}}}})",
        pid, host ? std::string("CPU") : fmt::format("GPU {}", pid)));
    for (int64_t tid : tids) {
      emit(fmt::format(
          R"({{"name": "thread_name", "ph": "M", "ts": 0.000, "pid": {}, "tid": {}, "args": {{"name": "{}"}}}})",
          pid, tid, host ? ThreadName(tid) : fmt::format("stream {}", tid)));
    }
  }
  for (const ScenarioEvent& e : events_) {
    std::string args;
    auto add = [&args](std::string_view key, const std::string& value) {
      args += fmt::format("{}\"{}\": {}", args.empty() ? "" : ", ", JsonEscape(key), value);
    };
    for (const ScenarioArg& a : e.args) add(a.key, ArgJson(a));
    if (e.external_id != 0) add("External id", fmt::format("{}", e.external_id));
    if (e.correlation != 0) add("correlation", fmt::format("{}", e.correlation));
    emit(fmt::format(
        R"({{"ph": "X", "cat": "{}", "name": "{}", "pid": {}, "tid": {}, "ts": {}, "dur": {}, "args": {{{}}}}})",
        e.cat, JsonEscape(e.name), e.pid, e.tid, MicrosText(e.ts_ns), MicrosText(e.dur_ns),
        args));
  }
  for (const MemoryEvent& m : memory_) {
    emit(fmt::format(
        R"({{"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": {}, "tid": {}, "ts": {}, "args": {{"Total Reserved": {}, "Total Allocated": {}, "Bytes": {}, "Addr": 0, "Device Id": {}, "Device Type": 1}}}})",
        kHostPid, m.tid, MicrosText(m.ts_ns), m.total_reserved, m.total_allocated, m.bytes,
        m.device));
  }
  for (const Flow& f : flows_) {
    const ScenarioEvent& from = events_[f.from];
    const ScenarioEvent& to = events_[f.to];
    emit(fmt::format(
        R"({{"ph": "s", "id": {}, "pid": {}, "tid": {}, "ts": {}, "cat": "ac2g", "name": "ac2g"}})",
        f.id, from.pid, from.tid, MicrosText(from.ts_ns)));
    emit(fmt::format(
        R"({{"ph": "f", "id": {}, "pid": {}, "tid": {}, "ts": {}, "cat": "ac2g", "name": "ac2g", "bp": "e"}})",
        f.id, to.pid, to.tid, MicrosText(to.ts_ns)));
  }
  out += "\n  ],\n  \"traceName\": \"scenario\"\n}\n";
  return out;
}

}  // namespace tracelint::testing
