#include "parsers/xplane/xplane_convert.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <vector>

#include "analyzer/base/strings.h"
#include "analyzer/model/classify.h"
#include "parsers/common/device_track_names.h"
#include "parsers/xplane/xplane_details.h"

namespace tracelint::xplane {
namespace {

// docs/design/formats.md C.1: saved files are normalized to the session start; a line
// timestamp below this is relative, above it is already epoch ns.
constexpr int64_t kRelativeTimestampLimitNs = 1'000'000'000'000'000;  // 1e15
constexpr int64_t kOtherPlanePidBase = 1'000'000;

std::optional<int64_t> ParseLeadingInt(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p == s.data()) return std::nullopt;
  return v;
}

// CUDA/HIP API names, for API lines whose events lack a correlation id
// (synchronisation calls).
bool IsGpuApiName(std::string_view name) {
  return name.starts_with("cuda") || name.starts_with("cu") || name.starts_with("hip") ||
         name.starts_with("hsa_");
}

EventKind ApiKind(std::string_view name) {
  return name.starts_with("cu") && !name.starts_with("cuda") ? EventKind::kDriver
                                                              : EventKind::kRuntime;
}

// TF executor TraceMe of an op: "scope/op_name:OpType", with display_name
// OpType (docs/design/formats.md C.6; TF's ParseTfOpFullname).
bool LooksLikeTfOp(std::string_view name, std::string_view display_name) {
  if (!display_name.empty()) {
    return name.size() > display_name.size() + 1 && name.ends_with(display_name) &&
           name[name.size() - display_name.size() - 1] == ':';
  }
  size_t colon = name.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 >= name.size()) return false;
  if (Contains(name, "::") || Contains(name, " ")) return false;
  char first = name[colon + 1];
  return first >= 'A' && first <= 'Z';
}

bool IsCollectiveHloCategory(std::string_view category) {
  return Contains(category, "all-reduce") || Contains(category, "all-gather") ||
         Contains(category, "reduce-scatter") || Contains(category, "all-to-all") ||
         Contains(category, "collective-permute");
}

}  // namespace

PlaneClass ClassifyPlaneName(std::string_view name, int* ordinal) {
  *ordinal = -1;
  if (std::optional<DeviceNamePrefix> device = ParseDeviceNamePrefix(name)) {
    *ordinal = device->ordinal;
    return device->family == DeviceFamily::kGpu ? PlaneClass::kGpu : PlaneClass::kTpu;
  }
  if (name == "Task Environment") return PlaneClass::kEnvironment;
  if (name == "/host:metadata" || name == "/host:tfstreamz" ||
      name == "/host:__ScopeRangeCallStack__") {
    return PlaneClass::kMetadata;
  }
  if (name.starts_with("/host:")) return PlaneClass::kHost;
  return PlaneClass::kOther;
}

int64_t XSpaceConverter::LineBaseNs(const LineVisitor& line) const {
  return line.timestamp_ns() < kRelativeTimestampLimitNs ? profile_start_ns_ : 0;
}

void XSpaceConverter::AddEnvironmentPlane(const PlaneVisitor& plane) {
  if (auto s = plane.GetStat(StatType::kProfileStartTime)) {
    std::optional<int64_t> v = s->IntValue();
    // Beyond ~2096 the value is damage, and adding it would overflow.
    constexpr int64_t kLatestPlausibleNs = 4'000'000'000'000'000'000;
    if (v.has_value() && *v > 0 && *v < kLatestPlausibleNs) {
      profile_start_ns_ = *v;
      b_.metadata().base_time_ns = *v;
    }
  }
  CountPlaneDiagnostics(plane);
}

bool XSpaceConverter::AddEvent(const PlaneVisitor& plane, const LineVisitor& line,
                               const EventVisitor& e, TrackId track, EventKind kind,
                               std::string_view name, uint16_t extra_flags, int64_t correlation) {
  if (e.is_aggregated()) {
    ++aggregated_events_;
    return false;
  }
  if (account_ != nullptr && !memory_stopped_ && ++events_since_charge_ >= 4096) {
    // The builder's own accounting, every few thousand events: cheap
    // against converting them.
    events_since_charge_ = 0;
    account_->Set(b_.MemoryBytes());
    memory_stopped_ = account_->OverBudget();
  }
  if (memory_stopped_ || (max_events_ > 0 && b_.metadata().events_read >= max_events_)) {
    ++events_over_limit_;
    return false;
  }
  SliceSpec s;
  s.ts_ns = e.start_ns() + LineBaseNs(line);
  s.dur_ns = e.duration_ns();
  s.track = track;
  if (name.data() == e.name().data() && name.size() == e.name().size()) {
    auto [it, inserted] = cache_.event_names.try_emplace(e.metadata_id(), kEmptyStringId);
    if (inserted) it->second = b_.Intern(name);
    s.name = it->second;
  } else {
    s.name = b_.Intern(name);
  }
  s.kind = kind;
  s.extra_flags = extra_flags;
  s.correlation = correlation;
  b_.AddSlice(s);
  ++b_.metadata().events_read;
  AddArgs(plane, e);
  return true;
}

void XSpaceConverter::AddArgs(const PlaneVisitor& plane, const EventVisitor& e) {
  e.ForEachStat([&](const StatVisitor& stat) {
    if (stat.name().empty()) return;  // dangling metadata id, counted by the visitor
    auto [key_it, new_key] = cache_.stat_keys.try_emplace(stat.metadata_id(), kEmptyStringId);
    if (new_key) key_it->second = b_.Intern(stat.name());
    StringId key = key_it->second;
    switch (stat.kind()) {
      case StatVisitor::ValueKind::kInt:
        b_.AddArg(key, ArgValue::Int(*stat.IntValue()));
        break;
      case StatVisitor::ValueKind::kUInt: {
        std::optional<int64_t> v = stat.IntValue();
        b_.AddArg(key, v.has_value() ? ArgValue::Int(*v) : ArgValue::UInt(0));
        break;
      }
      case StatVisitor::ValueKind::kDouble:
        b_.AddArg(key, ArgValue::Double(*stat.DoubleValue()));
        break;
      case StatVisitor::ValueKind::kString:
      case StatVisitor::ValueKind::kRef:
      case StatVisitor::ValueKind::kCompressed:
        b_.AddArg(key, ArgValue::String(InternRefOrString(stat)));
        break;
      case StatVisitor::ValueKind::kBytes:
        // Serialized protos (HLO, symbol tables): no use in a finding.
        ++bytes_stats_skipped_;
        break;
      case StatVisitor::ValueKind::kNone:
        break;
    }
  });
}

StringId XSpaceConverter::InternRefOrString(const StatVisitor& stat) {
  uint64_t ref = stat.ref_id();
  if (ref == 0) return b_.Intern(stat.StrOrRefValue());
  auto [it, inserted] = cache_.ref_values.try_emplace(ref, kEmptyStringId);
  if (inserted) it->second = b_.Intern(stat.StrOrRefValue());
  return it->second;
}

void XSpaceConverter::AddMemoryCounters(const EventVisitor& e, int64_t ts_ns) {
  std::string_view allocator;
  std::optional<double> allocated;
  std::optional<double> reserved;
  e.ForEachStat([&](const StatVisitor& s) {
    if (s.name() == "allocator_name") allocator = s.StrOrRefValue();
    if (s.name() == "bytes_allocated") allocated = s.DoubleValue();
    if (s.name() == "bytes_reserved") reserved = s.DoubleValue();
  });
  if (allocator.empty()) return;
  // TF/XLA BFC allocators are named "GPU_<n>_bfc"; host allocators
  // ("gpu_host_bfc", "xla_gpu_host_bfc") count as host memory.
  int device = -1;
  if (allocator.starts_with("GPU_")) {
    device = static_cast<int>(ParseLeadingInt(allocator.substr(4)).value_or(-1));
  }
  if (allocated.has_value()) {
    b_.AddCounter({b_.Intern("Total Allocated"), device, ts_ns, *allocated});
  }
  if (reserved.has_value()) {
    b_.AddCounter({b_.Intern("Total Reserved"), device, ts_ns, *reserved});
  }
}

void XSpaceConverter::AddHostPlane(const PlaneVisitor& plane) {
  cache_ = PlaneCache();
  bool python_plane = plane.name() == "/host:python-tracer";
  bool api_plane = plane.name() == "/host:CUPTI" || plane.name() == "/host:ROCTRACER";
  plane.ForEachLine([&](const LineVisitor& line) {
    TrackId track = b_.GetTrack(TrackKind::kHostThread, 0, line.id());
    std::string_view line_name = line.display_name().empty() ? line.name() : line.display_name();
    if (named_tracks_.insert(track).second) b_.SetTrackName(track, b_.Intern(line_name));
    if (line.name().starts_with("tf_Compute") || line.name().starts_with("tf_data")) {
      ++tf_evidence_;
    }
    if (line.name().starts_with("py_xla_execute") || Contains(line.name(), "pjrt")) {
      ++jax_evidence_;
    }
    bool api_line = api_plane || line.name().starts_with("Host Threads/");
    line.ForEachEvent([&](const EventVisitor& e) {
      AddHostEvent(plane, line, e, track, api_line, python_plane);
    });
  });
  CountPlaneDiagnostics(plane);
}

void XSpaceConverter::AddHostEvent(const PlaneVisitor& plane, const LineVisitor& line,
                                   const EventVisitor& e, TrackId track, bool api_line,
                                   bool python_plane) {
  std::string_view name = e.name();
  int64_t correlation = 0;
  if (auto s = e.GetStat(StatType::kCorrelationId)) correlation = s->IntValue().value_or(0);
  EventKind kind;
  if (python_plane || name.starts_with('$')) {
    // The python tracer prefixes frames with '$'.
    kind = EventKind::kPythonFunction;
    if (name.starts_with('$')) name.remove_prefix(1);
  } else if (correlation != 0 || (api_line && IsGpuApiName(name))) {
    // A CUPTI/roctracer API callback. Old TF names it after the activity
    // ("MemcpyH2D", the kernel name); newer builds after the API call.
    kind = ApiKind(name);
    if (name.starts_with("hip")) rocm_evidence_ = true;
    if (correlation != 0 && !e.is_aggregated()) {
      HostCall& call = host_calls_[correlation];
      call.start_ns = e.start_ns() + LineBaseNs(line);
      call.end_ns = e.end_ns() + LineBaseNs(line);
      call.is_copy = Contains(name, "Memcpy") || Contains(name, "memcpy");
      call.direction = CopyDirectionFromName(name);
      call.synchronous = !Contains(name, "Async");
    }
  } else if (name == "MemoryAllocation" || name == "MemoryDeallocation") {
    kind = EventKind::kInstant;
  } else if (LooksLikeTfOp(name, e.display_name())) {
    kind = EventKind::kCpuOp;
  } else {
    kind = EventKind::kUserAnnotation;
  }
  // The user's step annotation is held back: EmitStepMarkers turns it into
  // the ProfilerStep#N marker of its thread.
  if (!e.is_aggregated() && e.GetStat(StatType::kStepNum).has_value()) {
    std::optional<int64_t> number = RecordStep(host_steps_, e, LineBaseNs(line));
    if (number.has_value() && kind == EventKind::kUserAnnotation) {
      host_step_events_.push_back({track, b_.Intern(name), *number,
                                   e.start_ns() + LineBaseNs(line),
                                   e.end_ns() + LineBaseNs(line)});
      ++b_.metadata().events_read;
      return;
    }
  }
  if (!AddEvent(plane, line, e, track, kind, name, 0, correlation)) return;
  if (kind == EventKind::kInstant) AddMemoryCounters(e, e.start_ns() + LineBaseNs(line));
}

void XSpaceConverter::AddStreamEvent(const PlaneVisitor& plane, const LineVisitor& line,
                                     const EventVisitor& e, TrackId track,
                                     CopyDirection line_direction) {
  std::string_view name = e.name();
  int64_t correlation = 0;
  if (auto s = e.GetStat(StatType::kCorrelationId)) correlation = s->IntValue().value_or(0);
  std::optional<StatVisitor> memcpy_details = e.GetStat(StatType::kMemcpyDetails);
  std::optional<StatVisitor> memset_details = e.GetStat(StatType::kMemsetDetails);
  EventKind kind;
  DeviceDetails details;
  bool with_details = false;
  if (memcpy_details.has_value() || IsCopyEventName(name)) {
    kind = EventKind::kMemcpy;
    details.direction = CopyDirectionFromName(name);
    if (details.direction == CopyDirection::kUnknown) details.direction = line_direction;
    if (memcpy_details.has_value()) ApplyMemcpyDetails(memcpy_details->StrOrRefValue(), details);
    with_details = true;
  } else if (memset_details.has_value() || name.starts_with("Memset")) {
    kind = EventKind::kMemset;
    if (memset_details.has_value()) ApplyMemsetDetails(memset_details->StrOrRefValue(), details);
    with_details = true;
  } else if (IsMemoryManagementName(name)) {
    kind = EventKind::kOther;
  } else {
    kind = EventKind::kKernel;
    if (name.ends_with(".kd")) rocm_evidence_ = true;
    if (auto kd = e.GetStat(StatType::kKernelDetails)) {
      // Kernels launched with one configuration share one ref'd string.
      uint64_t ref = kd->ref_id();
      auto cached = ref == 0 ? cache_.kernel_details.end() : cache_.kernel_details.find(ref);
      DetailsOutcome r;
      if (cached == cache_.kernel_details.end()) {
        r = ApplyKernelDetails(kd->StrOrRefValue(), details);
        if (ref != 0) cache_.kernel_details.emplace(ref, std::make_pair(details, r));
      } else {
        details = cached->second.first;
        r = cached->second.second;
      }
      kernel_fields_rejected_ += r.fields_rejected;
      with_details = r.fields_read > 0;
    }
    // ROCm copies run as ROCclr blit kernels; the host call that queued
    // them says which way the bytes went.
    auto call = host_calls_.find(correlation);
    if (name.starts_with("__amd_rocclr_copy") && call != host_calls_.end() &&
        call->second.is_copy) {
      kind = EventKind::kMemcpy;
      details.direction = call->second.direction;
      details.synchronous = call->second.synchronous;
      with_details = true;
      ++blit_copies_;
    }
  }
  if (!jax_module_seen_) {
    if (auto m = e.GetStat(StatType::kHloModule)) {
      if (m->StrOrRefValue().starts_with("jit_")) jax_module_seen_ = true;
    }
  }
  if (!AddEvent(plane, line, e, track, kind, name, 0, correlation)) return;
  if (with_details) b_.AddDetails() = details;
  if (correlation != 0 && IsDeviceActivity(kind)) {
    device_work_.push_back({e.start_ns() + LineBaseNs(line), correlation});
  }
}

void XSpaceConverter::AddDevicePlane(const PlaneVisitor& plane, PlaneClass cls, int ordinal) {
  cache_ = PlaneCache();
  DeviceInfo device;
  device.id = ordinal;
  plane.ForEachStat([&](const StatVisitor& s) {
    std::optional<int64_t> v = s.IntValue();
    switch (s.type()) {
      case StatType::kCoreCount: device.sm_count = static_cast<int>(v.value_or(-1)); break;
      case StatType::kComputeCapMajor: device.compute_major = static_cast<int>(v.value_or(-1)); break;
      case StatType::kComputeCapMinor: device.compute_minor = static_cast<int>(v.value_or(-1)); break;
      case StatType::kMemorySize: device.total_memory_bytes = v.value_or(-1); break;
      case StatType::kGpuDeviceName:
      case StatType::kDeviceTypeString: device.name = std::string(s.StrOrRefValue()); break;
      case StatType::kDeviceVendor: {
        std::string_view vendor = s.StrOrRefValue();
        if (EqualsIgnoreCase(vendor, "nvidia")) {
          device.vendor = "NVIDIA";
        } else if (EqualsIgnoreCase(vendor, "amd")) {
          device.vendor = "AMD";
          rocm_evidence_ = true;
        } else {
          device.vendor = std::string(vendor);
        }
        break;
      }
      default: break;
    }
  });
  // TPUs are told apart by their vendor (AcceleratorName).
  if (cls == PlaneClass::kTpu) device.vendor = "Google";
  b_.metadata().devices.push_back(device);

  plane.ForEachLine([&](const LineVisitor& line) {
    std::string_view line_name = line.name();
    const DeviceLineClass line_class = ClassifyDeviceLine(line_name);
    bool stream = line_class == (cls == PlaneClass::kGpu ? DeviceLineClass::kStream
                                                         : DeviceLineClass::kXlaOps);
    TrackId track = b_.GetTrack(stream ? TrackKind::kDeviceStream : TrackKind::kOther, ordinal,
                                line.id());
    if (named_tracks_.insert(track).second) b_.SetTrackName(track, b_.Intern(line_name));
    if (IsTensorFlowDeviceLine(line_name)) ++tf_evidence_;
    if (stream && cls == PlaneClass::kGpu) {
      CopyDirection line_direction = StreamLineCopyDirection(line_name);
      line.ForEachEvent([&](const EventVisitor& e) {
        AddStreamEvent(plane, line, e, track, line_direction);
      });
      return;
    }
    if (stream) {  // TPU ops: the short display name; the HLO text stays an arg.
      line.ForEachEvent([&](const EventVisitor& e) {
        uint16_t flags = 0;
        if (auto c = e.GetStat(StatType::kHloCategory)) {
          if (IsCollectiveHloCategory(c->StrOrRefValue())) flags |= kFlagCollective;
        }
        std::string_view name = e.display_name().empty() ? e.name() : e.display_name();
        // XLA's async copies ("copy-start.4" ... "copy-done.4") move bytes
        // (HBM <-> host memory, offloading); copy-done lasts while the core
        // waits for them. Copies, not compute, as on GPUs.
        EventKind kind = IsXlaAsyncCopyName(name) ? EventKind::kMemcpy : EventKind::kKernel;
        if (!AddEvent(plane, line, e, track, kind, name, flags, 0)) return;
        if (kind == EventKind::kMemcpy) b_.AddDetails() = DeviceDetails{};
        if (name != e.name()) {
          b_.AddArg(b_.Intern("long_name"), ArgValue::String(b_.Intern(e.name())));
        }
      });
      return;
    }
    EventKind kind = line_class == DeviceLineClass::kOverhead ? EventKind::kOverhead
                                                              : EventKind::kGpuUserAnnotation;
    line.ForEachEvent([&](const EventVisitor& e) {
      if (line_name == "Steps") RecordStep(device_steps_, e, LineBaseNs(line));
      if (line_name == "XLA Modules" && e.name().starts_with("jit_")) jax_module_seen_ = true;
      AddEvent(plane, line, e, track, kind, e.name(), 0, 0);
    });
  });
  CountPlaneDiagnostics(plane);
}

void XSpaceConverter::AddOtherPlane(const PlaneVisitor& plane, int plane_index) {
  cache_ = PlaneCache();
  plane.ForEachLine([&](const LineVisitor& line) {
    TrackId track = b_.GetTrack(TrackKind::kOther, kOtherPlanePidBase + plane_index, line.id());
    if (named_tracks_.insert(track).second) {
      b_.SetTrackName(track, b_.Intern(fmt::format("{} / {}", plane.name(), line.name())));
    }
    line.ForEachEvent([&](const EventVisitor& e) {
      AddEvent(plane, line, e, track, EventKind::kOther, e.name(), 0, 0);
    });
  });
  CountPlaneDiagnostics(plane);
}

void XSpaceConverter::CountPlaneDiagnostics(const PlaneVisitor& plane) {
  unknown_metadata_refs_ += plane.unknown_metadata_refs();
  bad_compressed_ += plane.bad_compressed_values();
}

void XSpaceConverter::Finish() {
  RunMetadata& m = b_.metadata();
  ImportDiagnostics& diag = b_.diagnostics();

  EmitStepMarkers();

  if (jax_module_seen_ || jax_evidence_ > 0) {
    m.framework = "JAX";
    diag.Add("xspace_framework_guess", Severity::kInfo,
             "framework guessed as JAX from jit_ XLA modules or PJRT/py_xla_execute threads");
  } else if (tf_evidence_ > 0) {
    m.framework = "TensorFlow";
    diag.Add("xspace_framework_guess", Severity::kInfo,
             "framework guessed as TensorFlow from TensorFlow Ops lines or tf_Compute threads");
  }

  int64_t inferred_vendor = 0;
  for (DeviceInfo& d : m.devices) {
    if (d.vendor.empty() && d.compute_major >= 0) {
      // Old CUPTI collectors wrote compute capability but no vendor; ROCm
      // builds always write device_vendor, so HIP evidence means AMD.
      d.vendor = rocm_evidence_ ? "AMD" : "NVIDIA";
      ++inferred_vendor;
    }
  }
  std::stable_sort(m.devices.begin(), m.devices.end(),
                   [](const DeviceInfo& a, const DeviceInfo& b) { return a.id < b.id; });
  if (inferred_vendor > 0) {
    diag.Add("xspace_device_vendor_inferred", Severity::kInfo,
             "devices with a compute capability but no device_vendor stat; vendor inferred "
             "from the API names in the file",
             inferred_vendor);
  }
  if (aggregated_events_ > 0) {
    diag.Add("xspace_aggregated_events_skipped", Severity::kInfo,
             "events stored as num_occurrences (no start time); not placed on the timeline",
             aggregated_events_);
  }
  if (unknown_metadata_refs_ > 0) {
    diag.Add("xspace_unknown_metadata_id", Severity::kWarning,
             "event or stat metadata ids missing from the plane's tables; names left empty",
             unknown_metadata_refs_);
  }
  if (bad_compressed_ > 0) {
    diag.Add("xspace_bad_compressed_stat", Severity::kWarning,
             "compressed_str_value stats that do not gunzip; value left empty", bad_compressed_);
  }
  if (kernel_fields_rejected_ > 0) {
    diag.Add("xspace_kernel_details_rejected", Severity::kInfo,
             "kernel_details fields outside hardware limits (e.g. regs:2191500840); dropped",
             kernel_fields_rejected_);
  }
  if (blit_copies_ > 0) {
    diag.Add("xspace_blit_kernel_as_memcpy", Severity::kInfo,
             "ROCclr copy kernels mapped to memcpy, direction taken from the host copy call",
             blit_copies_);
  }
  if (bytes_stats_skipped_ > 0) {
    diag.Add("xspace_bytes_stat_skipped", Severity::kInfo,
             "stats holding raw bytes (serialized protos); not kept as args",
             bytes_stats_skipped_);
  }
}

}  // namespace tracelint::xplane
