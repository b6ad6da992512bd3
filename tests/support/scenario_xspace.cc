#include "tests/support/scenario_xspace.h"

#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "analyzer/model/classify.h"
#include "fmt/format.h"
#include "tests/support/xspace_builder.h"

namespace tracelint::testing {
namespace {

constexpr int64_t kPsPerNs = 1000;

const ScenarioArg* FindArg(const ScenarioArgs& args, std::string_view key) {
  for (const ScenarioArg& a : args) {
    if (a.key == key) return &a;
  }
  return nullptr;
}

int64_t IntArg(const ScenarioArgs& args, std::string_view key, int64_t fallback) {
  const ScenarioArg* a = FindArg(args, key);
  return a != nullptr && a->type == ScenarioArg::Type::kInt ? a->i : fallback;
}

// "[1024, 1, 1]" -> "1024,1,1", the kernel_details spelling.
std::string Dim3Text(const ScenarioArgs& args, std::string_view key) {
  const ScenarioArg* a = FindArg(args, key);
  if (a == nullptr) return "1,1,1";
  std::string out;
  for (char c : a->s) {
    if (c != '[' && c != ']' && c != ' ') out += c;
  }
  return out;
}

// XSpace spells memory kinds in lower case ("pageable", "device").
std::string_view KindText(MemorySpace m) {
  switch (m) {
    case MemorySpace::kPageable: return "pageable";
    case MemorySpace::kPinned: return "pinned";
    case MemorySpace::kDevice: return "device";
    default: return "unknown";
  }
}

// Host TraceMe args become stats of the same name (arrays as their text,
// as the Kineto parser keeps them).
void AddArgStats(XStatsBuilder& stats, const ScenarioArgs& args) {
  for (const ScenarioArg& a : args) {
    switch (a.type) {
      case ScenarioArg::Type::kInt: stats.Stat(a.key, a.i); break;
      case ScenarioArg::Type::kDouble: stats.Stat(a.key, a.d); break;
      case ScenarioArg::Type::kString:
      case ScenarioArg::Type::kRawJson: stats.Stat(a.key, std::string_view(a.s)); break;
    }
  }
}

std::optional<int64_t> StepNumber(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (!name.starts_with(kPrefix)) return std::nullopt;
  int64_t n = 0;
  for (char c : name.substr(kPrefix.size())) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

class Emitter {
 public:
  Emitter(const Scenario& s, const ScenarioXSpaceOptions& options)
      : scenario_(s), options_(options) {}

  std::string Emit() {
    cpu_ = space_.AddPlane("/host:CPU").proto();
    cupti_ = space_.AddPlane("/host:CUPTI").proto();
    for (const DeviceSpec& d : scenario_.devices()) GpuPlane(d.id);
    for (const ScenarioEvent& e : scenario_.events()) {
      if (e.pid == kHostPid) {
        HostEvent(e);
      } else {
        DeviceEvent(e);
      }
    }
    return space_.Serialize();
  }

 private:
  int64_t OffsetPs(TimeNs ts_ns) const { return (ts_ns + options_.shift_ns) * kPsPerNs; }

  XLineBuilder Line(tensorflow::profiler::XPlane* plane, int64_t id, std::string_view name) {
    for (tensorflow::profiler::XLine& line : *plane->mutable_lines()) {
      if (line.id() == id) return XLineBuilder(plane, &line);
    }
    return XPlaneBuilder(plane).AddLine(id, name, /*timestamp_ns=*/0);
  }

  tensorflow::profiler::XPlane* GpuPlane(int device) {
    auto it = gpus_.find(device);
    if (it != gpus_.end()) return it->second;
    XPlaneBuilder plane = space_.AddPlane(fmt::format("/device:GPU:{}", device));
    for (const DeviceSpec& d : scenario_.devices()) {
      if (d.id != device) continue;
      plane.Stat("gpu_device_name", std::string_view(d.name))
          .Stat("device_vendor", "Nvidia")
          .Stat("compute_cap_major", int64_t{d.compute_major})
          .Stat("compute_cap_minor", int64_t{d.compute_minor})
          .Stat("core_count", int64_t{d.sm_count})
          .Stat("memory_size", static_cast<uint64_t>(d.total_memory_bytes));
    }
    gpus_[device] = plane.proto();
    return plane.proto();
  }

  void HostEvent(const ScenarioEvent& e) {
    bool runtime = e.cat == "cuda_runtime" || e.cat == "cuda_driver";
    std::string thread = fmt::format("python3/{}", e.tid);
    XLineBuilder line = Line(runtime ? cupti_ : cpu_, e.tid, thread);
    std::optional<int64_t> step = StepNumber(e.name);
    std::string name = e.name;
    if (step.has_value()) name = options_.step_event_name;
    if (e.cat == "python_function") name = "$" + name;
    XStatsBuilder stats = line.AddEvent(name, OffsetPs(e.ts_ns), e.dur_ns * kPsPerNs);
    if (step.has_value()) stats.Stat("step_num", *step);
    if (e.correlation != 0) stats.Stat("correlation_id", static_cast<uint64_t>(e.correlation));
    AddArgStats(stats, e.args);
  }

  void DeviceEvent(const ScenarioEvent& e) {
    tensorflow::profiler::XPlane* plane = GpuPlane(static_cast<int>(e.pid));
    XLineBuilder line = Line(plane, e.tid, fmt::format("Stream #{}(Kernel,Memcpy,Memset)", e.tid));
    if (e.cat == "kernel") {
      XStatsBuilder stats = line.AddEvent(e.name, OffsetPs(e.ts_ns), e.dur_ns * kPsPerNs);
      if (e.correlation != 0) stats.Stat("correlation_id", static_cast<uint64_t>(e.correlation));
      stats.RefStat("kernel_details",
                    fmt::format("regs:{} static_shared:{} dynamic_shared:0 grid:{} block:{} "
                                "occ_pct:{}",
                                IntArg(e.args, "registers per thread", 32),
                                IntArg(e.args, "shared memory", 0), Dim3Text(e.args, "grid"),
                                Dim3Text(e.args, "block"),
                                IntArg(e.args, "est. achieved occupancy %", 0)));
    } else if (e.cat == "gpu_memcpy") {
      CopyKind kind = ParseMemcpyName(e.name);
      std::string_view name = kind.direction == CopyDirection::kHtoD   ? "MemcpyH2D"
                              : kind.direction == CopyDirection::kDtoH ? "MemcpyD2H"
                                                                       : "Memcpy";
      XStatsBuilder stats = line.AddEvent(name, OffsetPs(e.ts_ns), e.dur_ns * kPsPerNs);
      if (e.correlation != 0) stats.Stat("correlation_id", static_cast<uint64_t>(e.correlation));
      stats.Stat("memcpy_details",
                 fmt::format("kind_src:{} kind_dst:{} size:{} dest:{} async:1",
                             KindText(kind.src), KindText(kind.dst), IntArg(e.args, "bytes", 0),
                             e.pid));
    } else if (e.cat == "gpu_memset") {
      XStatsBuilder stats = line.AddEvent("Memset", OffsetPs(e.ts_ns), e.dur_ns * kPsPerNs);
      if (e.correlation != 0) stats.Stat("correlation_id", static_cast<uint64_t>(e.correlation));
      stats.Stat("Memset_details",
                 fmt::format("kind:device num_bytes:{} async:1", IntArg(e.args, "bytes", 0)));
    }
    // gpu_user_annotation and cuda_sync have no XSpace stream counterpart.
  }

  const Scenario& scenario_;
  const ScenarioXSpaceOptions& options_;
  XSpaceBuilder space_;
  tensorflow::profiler::XPlane* cpu_ = nullptr;
  tensorflow::profiler::XPlane* cupti_ = nullptr;
  std::map<int, tensorflow::profiler::XPlane*> gpus_;
};

}  // namespace

absl::StatusOr<std::string> ScenarioToXSpace(const Scenario& scenario,
                                             const ScenarioXSpaceOptions& options) {
  for (const ScenarioEvent& e : scenario.events()) {
    if (e.dur_ns < 0) {
      return absl::FailedPreconditionError(
          fmt::format("scope '{}' never closed", e.name));
    }
  }
  return Emitter(scenario, options).Emit();
}

}  // namespace tracelint::testing
