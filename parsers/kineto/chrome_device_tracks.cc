#include "parsers/kineto/chrome_device_tracks.h"

#include <charconv>
#include <optional>
#include <string_view>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analyzer/base/strings.h"
#include "parsers/common/device_track_names.h"
#include "parsers/kineto/chrome_tf1_launches.h"

namespace tracelint::kineto {
namespace {

// What a host-thread track turns out to be.
enum class Role : uint8_t {
  kNone,        // not named by TensorFlow/XLA: left as it is
  kHostOps,     // TF1 executor ops on the host: cpu ops
  kStream,      // one device stream: its work
  kAllStreams,  // TF1 /stream:all, a GPU's XLA Ops: every stream's kernels again
  kAllCopies,   // TF1 /memcpy: every stream's copies again
  kCoreOps,     // a TPU core's XLA Ops: its work
  kDerived,     // derived device lines (XLA Modules, Steps, ...), TF1 " Tensors"
  kUnnamed,     // a device process's thread of a name not known here
  kOverhead,    // CUPTI overhead
};

struct Plan {
  Role role = Role::kNone;
  int device = -1;
  int64_t stream = -1;  // from the name; -1: the track's tid
  bool tf1 = false;
  bool copy_line = false;  // the whole stream is copies ("Stream #14(MemcpyH2D)")
  CopyDirection line_direction = CopyDirection::kUnknown;
  bool xla_modules = false;
  bool skipped = false;  // a repeat of streams that exist: annotations only
};

// What a process name says, before its threads are looked at.
struct ProcessInfo {
  Role role = Role::kNone;
  int device = -1;
  int64_t stream = -1;
  bool tf1 = false;
  bool xprof_device = false;  // "/device:GPU:0": its threads say what they are
  bool tpu = false;
};

struct Evidence {
  bool tf1 = false;
  bool xla = false;
  bool tf = false;
  bool jax = false;
};

bool ParseWholeInt(std::string_view s, int64_t* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

// "/gpu:0/stream:7": TF1's device names before "/device:GPU:0".
std::optional<DeviceNamePrefix> ParseOldGpuName(std::string_view name) {
  if (!name.starts_with("/gpu:")) return std::nullopt;
  std::string_view rest = name.substr(5);
  size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
  int64_t n = 0;
  if (digits == 0 || digits > 9 || !ParseWholeInt(rest.substr(0, digits), &n)) {
    return std::nullopt;
  }
  DeviceNamePrefix out;
  out.family = DeviceFamily::kGpu;
  out.ordinal = static_cast<int>(n);
  out.rest = rest.substr(digits);
  return out;
}

ProcessInfo ClassifyProcess(std::string_view name, Evidence& ev) {
  ProcessInfo out;
  // TF1's timeline names each device's two processes "<device> Compute"
  // (op events) and "<device> Tensors" (allocations).
  bool tf1_suffix = false;
  bool tensors = false;
  if (name.ends_with(" Compute")) {
    name.remove_suffix(8);
    tf1_suffix = true;
  } else if (name.ends_with(" Tensors")) {
    name.remove_suffix(8);
    tf1_suffix = tensors = true;
  }
  if (tf1_suffix && name.starts_with("/job:")) {
    // The executor's view of every device's ops, on its host threads. Its
    // GPU ops launch the kernels of that GPU (chrome_tf1_launches.h).
    ev.tf1 = true;
    out.role = tensors ? Role::kNone : Role::kHostOps;
    size_t at = name.find("/device:");
    if (at == std::string_view::npos) at = name.find("/gpu:");
    if (at != std::string_view::npos) {
      std::string_view device = name.substr(at);
      std::optional<DeviceNamePrefix> dev = ParseDeviceNamePrefix(device);
      if (!dev.has_value()) dev = ParseOldGpuName(device);
      if (dev.has_value() && dev->family == DeviceFamily::kGpu && dev->rest.empty()) {
        out.device = dev->ordinal;
      }
    }
    return out;
  }
  std::optional<DeviceNamePrefix> dev = ParseDeviceNamePrefix(name);
  if (!dev.has_value() && tf1_suffix) dev = ParseOldGpuName(name);
  if (!dev.has_value()) {
    if (!tf1_suffix && name.starts_with("/host:")) ev.xla = true;
    return out;
  }
  out.device = dev->ordinal;
  out.tpu = dev->family == DeviceFamily::kTpu;
  std::string_view rest = dev->rest;
  if (tf1_suffix && (rest.starts_with("/stream:") || rest == "/memcpy")) {
    ev.tf1 = true;
    out.tf1 = true;
    if (tensors) {
      out.role = Role::kDerived;
    } else if (rest == "/memcpy") {
      out.role = Role::kAllCopies;
    } else if (rest == "/stream:all") {
      out.role = Role::kAllStreams;
    } else if (ParseWholeInt(rest.substr(8), &out.stream) && out.stream >= 0) {
      out.role = Role::kStream;
    } else {
      out.role = Role::kUnnamed;
    }
    return out;
  }
  if (!tf1_suffix && (rest.empty() || rest[0] == ' ' || rest[0] == '(')) {
    ev.xla = true;
    out.xprof_device = true;
  }
  return out;
}

// The role of a thread of an xprof device process.
Plan PlanXprofThread(const ProcessInfo& process, const std::string* thread_name,
                     Evidence& ev) {
  Plan plan;
  plan.device = process.device;
  if (thread_name == nullptr) {
    plan.role = process.tpu ? Role::kCoreOps : Role::kStream;
    return plan;
  }
  std::string_view line = *thread_name;
  switch (ClassifyDeviceLine(line)) {
    case DeviceLineClass::kStream:
      plan.role = Role::kStream;
      plan.stream = StreamLineNumber(line).value_or(-1);
      plan.copy_line = IsCopyOnlyStreamLine(line);
      plan.line_direction = StreamLineCopyDirection(line);
      break;
    case DeviceLineClass::kXlaOps:
      plan.role = process.tpu ? Role::kCoreOps : Role::kAllStreams;
      break;
    case DeviceLineClass::kDerived:
      plan.role = Role::kDerived;
      plan.xla_modules = line == "XLA Modules";
      if (IsTensorFlowDeviceLine(line)) ev.tf = true;
      break;
    case DeviceLineClass::kOverhead:
      plan.role = Role::kOverhead;
      break;
    case DeviceLineClass::kOther:
      plan.role = Role::kUnnamed;
      break;
  }
  return plan;
}

// Host thread names that say which framework ran (as xplane_convert.cc
// reads them in XSpace).
void ThreadEvidence(std::string_view name, Evidence& ev) {
  if (name.starts_with("tf_Compute") || name.starts_with("tf_data")) ev.tf = true;
  if (name.starts_with("py_xla_execute") || Contains(name, "pjrt")) ev.jax = true;
}

bool MaybeTensorFlowOrXla(std::string_view name) {
  return name.ends_with(" Compute") || name.ends_with(" Tensors") ||
         name.starts_with("/device:") || name.starts_with("/host:");
}

// Gives `track` the key, or the first free one with a shifted tid: two
// tracks may claim one stream (a hand-edited file), and neither may lose
// its slices.
void RekeyFree(TimelineBuilder& b, TrackId track, TrackKind kind, int64_t pid, int64_t tid) {
  constexpr int64_t kShift = int64_t{1} << 40;
  for (int64_t k = 0; k < 64; ++k) {
    if (b.RekeyTrack(track, kind, pid, tid + k * kShift)) return;
  }
}

bool IsActivity(Role r) {
  return r == Role::kStream || r == Role::kAllStreams || r == Role::kAllCopies ||
         r == Role::kCoreOps;
}

EventKind DeviceKindOf(std::string_view name, const Plan& plan, bool known_copy) {
  if (plan.role == Role::kCoreOps) {
    return IsXlaAsyncCopyName(name) ? EventKind::kMemcpy : EventKind::kKernel;
  }
  // TF1 names copies "MEMCPYHtoD" and memsets "MEMSET...".
  if (plan.role == Role::kAllCopies || plan.copy_line || known_copy || IsCopyEventName(name) ||
      StartsWithIgnoreCase(name, "memcpy")) {
    return EventKind::kMemcpy;
  }
  if (IsMemsetEventName(name) || StartsWithIgnoreCase(name, "memset")) return EventKind::kMemset;
  if (IsMemoryManagementName(name)) return EventKind::kOther;
  return EventKind::kKernel;
}

using CopyKey = std::tuple<int, TimeNs, TimeNs, StringId>;

}  // namespace

ChromeDeviceTracks ApplyChromeDeviceTracks(const std::vector<ProcessNameEvent>& processes,
                                           const std::vector<TrackNameEvent>& threads,
                                           TimelineBuilder& b) {
  ChromeDeviceTracks out;
  bool any = false;
  for (const ProcessNameEvent& p : processes) any = any || MaybeTensorFlowOrXla(p.name);
  if (!any) return out;  // Kineto and other traces: nothing to look at

  Evidence ev;
  absl::flat_hash_map<int64_t, ProcessInfo> process_of;
  absl::flat_hash_map<int64_t, const std::string*> process_name_of;
  for (const ProcessNameEvent& p : processes) {
    if (process_of.contains(p.pid)) continue;  // the first name counts
    process_of.emplace(p.pid, ClassifyProcess(p.name, ev));
    process_name_of.emplace(p.pid, &p.name);
  }
  absl::flat_hash_map<std::pair<int64_t, int64_t>, const std::string*> thread_of;
  for (const TrackNameEvent& t : threads) {
    thread_of.try_emplace(std::make_pair(t.pid, t.tid), &t.name);
    ThreadEvidence(t.name, ev);
  }

  // Each host-thread track's role; devices with streams of their own.
  const std::vector<Track>& tracks = b.tracks();
  std::vector<Plan> plans(tracks.size());
  absl::flat_hash_set<int> devices_with_streams;
  bool any_role = false;
  for (TrackId id = 0; id < tracks.size(); ++id) {
    const Track& t = tracks[id];
    if (t.kind != TrackKind::kHostThread) continue;
    auto p = process_of.find(t.pid);
    if (p == process_of.end()) continue;
    const ProcessInfo& info = p->second;
    Plan& plan = plans[id];
    if (info.xprof_device) {
      auto th = thread_of.find(std::make_pair(t.pid, t.tid));
      plan = PlanXprofThread(info, th == thread_of.end() ? nullptr : th->second, ev);
      out.tpu = out.tpu || (info.tpu && plan.role == Role::kCoreOps);
    } else {
      plan.role = info.role;
      plan.device = info.device;
      plan.stream = info.stream;
      plan.tf1 = info.tf1;
    }
    if (plan.role == Role::kStream) devices_with_streams.insert(plan.device);
    any_role = any_role || plan.role != Role::kNone;
  }
  if (ev.tf1) {
    out.producer = ChromeProducer::kTensorFlow1;
  } else if (ev.xla) {
    out.producer = ev.jax ? ChromeProducer::kJax
                   : ev.tf ? ChromeProducer::kTensorFlow
                           : ChromeProducer::kXla;
  }
  if (!any_role) return out;

  // Repeats of streams that exist add no work of their own.
  bool copies_repeated = false;
  for (Plan& plan : plans) {
    if ((plan.role == Role::kAllStreams || plan.role == Role::kAllCopies) &&
        devices_with_streams.contains(plan.device)) {
      plan.skipped = true;
      copies_repeated = copies_repeated || plan.role == Role::kAllCopies;
    }
  }
  // TF1 puts each copy on its stream and again on /memcpy, named after the
  // op that issued it ("MatMul"): the repeat tells the stream's copies from
  // its kernels where the name does not.
  absl::flat_hash_set<CopyKey> copies;
  if (copies_repeated) {
    b.EditSlices([&](TimelineBuilder::SliceEditor& e) {
      const Plan& plan = plans[e.track()];
      if (plan.skipped && plan.role == Role::kAllCopies) {
        copies.insert({plan.device, e.ts_ns(), e.dur_ns(), e.name()});
      }
    });
  }

  int64_t skipped_slices = 0;
  int64_t derived_slices = 0;
  int64_t unnamed_slices = 0;
  const StringPool& strings = b.strings();
  b.EditSlices([&](TimelineBuilder::SliceEditor& e) {
    const Plan& plan = plans[e.track()];
    if (plan.role == Role::kNone) return;
    const EventKind kind = e.kind();
    std::string_view name = strings.Get(e.name());
    if (plan.xla_modules && name.starts_with("jit_")) ev.jax = true;
    // Events with a Kineto category keep what it says.
    if (kind != EventKind::kOther && kind != EventKind::kUnknown) return;
    if (plan.role == Role::kHostOps) {
      e.set_kind(EventKind::kCpuOp);
    } else if (plan.role == Role::kOverhead) {
      e.set_kind(EventKind::kOverhead);
    } else if (plan.skipped || plan.role == Role::kDerived || plan.role == Role::kUnnamed) {
      e.set_kind(EventKind::kGpuUserAnnotation);
      ++(plan.skipped ? skipped_slices
                      : plan.role == Role::kDerived ? derived_slices : unnamed_slices);
    } else {
      bool known_copy = !copies.empty() &&
                        copies.contains(CopyKey{plan.device, e.ts_ns(), e.dur_ns(), e.name()});
      EventKind device_kind = DeviceKindOf(name, plan, known_copy);
      e.set_kind(device_kind);
      if (device_kind == EventKind::kMemcpy) {
        CopyDirection d = CopyDirectionFromName(name);
        e.details().direction = d != CopyDirection::kUnknown ? d : plan.line_direction;
      } else if (device_kind == EventKind::kMemset) {
        e.details();
      }
    }
  });
  if (out.producer == ChromeProducer::kTensorFlow || out.producer == ChromeProducer::kXla) {
    if (ev.jax) out.producer = ChromeProducer::kJax;
  }

  // Re-key last: the plans are indexed by the tracks as they were.
  for (TrackId id = 0; id < plans.size(); ++id) {
    const Plan& plan = plans[id];
    const Track t = b.tracks()[id];
    if (plan.role == Role::kNone) continue;
    if (t.name == kEmptyStringId) {
      // TF1 names only the process; the track takes its name.
      auto n = process_name_of.find(t.pid);
      if (n != process_name_of.end()) b.SetTrackName(id, b.Intern(*n->second));
    }
    if (plan.role == Role::kHostOps) continue;
    if (!IsActivity(plan.role) || plan.skipped) {
      // Annotations of the device, on a track never read as work.
      RekeyFree(b, id, TrackKind::kOther, t.pid, t.tid);
    } else {
      // TF1's repeats share tid 0: their own pid keeps them apart.
      int64_t stream = plan.stream >= 0                 ? plan.stream
                       : plan.tf1 && plan.role != Role::kStream ? t.pid
                                                                : t.tid;
      RekeyFree(b, id, TrackKind::kDeviceStream, plan.device, stream);
      ++out.device_streams;
    }
  }

  ImportDiagnostics& diag = b.diagnostics();
  if (out.producer == ChromeProducer::kTensorFlow1) {
    std::vector<Tf1Track> tf1(plans.size());
    for (TrackId id = 0; id < plans.size(); ++id) {
      const Plan& plan = plans[id];
      tf1[id].host_ops = plan.role == Role::kHostOps;
      tf1[id].stream = plan.role == Role::kStream && !plan.skipped;
      tf1[id].device = plan.device;
    }
    const Tf1Links links = ApplyTf1Links(tf1, b);
    out.linked_launches = links.linked;
    if (links.linked > 0) {
      diag.Add("tf1_linked_by_node_name", Severity::kInfo,
               "device activities of a TF1 timeline linked to the executor op that launched "
               "them by their shared node name (the timeline has no correlation ids)",
               links.linked);
    }
    if (links.run_step) {
      diag.Add("tf1_one_run_step", Severity::kInfo,
               "a TF1 timeline of one session.run: its span is step 0 (each executor ran "
               "_SOURCE once)",
               1);
    }
  }
  if (out.device_streams > 0) {
    diag.Add("chrome_device_tracks", Severity::kInfo,
             "tracks that TensorFlow/XLA process or thread names call device timelines "
             "(no Kineto categories): read as device streams",
             out.device_streams);
  }
  if (skipped_slices > 0) {
    diag.Add("chrome_repeated_device_tracks", Severity::kInfo,
             "events of device tracks that repeat the per-stream ones (TensorFlow /stream:all "
             "and /memcpy, a GPU's XLA Ops): kept as device annotations, not counted as device "
             "activity twice",
             skipped_slices);
  }
  if (derived_slices > 0) {
    diag.Add("chrome_derived_device_tracks", Severity::kInfo,
             "events of derived device tracks (XLA Modules, TensorFlow Ops, Steps, ...): kept "
             "as device annotations; a Steps track gives no step markers",
             derived_slices);
  }
  if (unnamed_slices > 0) {
    diag.Add("chrome_unknown_device_thread", Severity::kInfo,
             "events on threads of a device process whose names tracelint does not know: kept "
             "as device annotations, not counted as device activity",
             unnamed_slices);
  }
  return out;
}

}  // namespace tracelint::kineto
