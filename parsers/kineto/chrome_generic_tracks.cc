#include "parsers/kineto/chrome_generic_tracks.h"

#include <charconv>
#include <string_view>
#include <vector>

#include "analyzer/base/strings.h"
#include "analyzer/model/classify.h"

namespace tracelint::kineto {
namespace {

// A track is read as a device stream when at least this share of its
// slices is named as device work, and none as a runtime call.
constexpr double kDeviceTrackMinShare = 0.8;
// ... and it holds at least this many of them (a lone "kernel" word in a
// host trace is not a GPU timeline).
constexpr int64_t kDeviceTrackMinSlices = 3;

enum class Role : uint8_t { kNone, kLegacyHost, kLegacyDevice, kDevice };

struct TrackStats {
  int64_t slices = 0;
  int64_t unknown_kind = 0;   // slices without a Kineto kind
  int64_t device_like = 0;
  int64_t runtime_like = 0;
};

bool ContainsWord(std::string_view name, std::string_view word) {
  return ContainsIgnoreCase(name, word);
}

// "GPU 3" (a counter-style pid) or a small number: the device index.
int DeviceIndexOf(std::string_view text, int64_t number, bool numeric) {
  if (numeric) return number >= 0 && number < 64 ? static_cast<int>(number) : 0;
  if (StartsWithIgnoreCase(text, "GPU ")) {
    std::string_view rest = text.substr(4);
    int n = 0;
    auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
    if (ec == std::errc() && n >= 0 && n < 64) return n;
  }
  return 0;
}

}  // namespace

bool IsRuntimeApiName(std::string_view name) {
  auto api = [&](std::string_view prefix) {
    return name.size() > prefix.size() && name.starts_with(prefix) &&
           name[prefix.size()] >= 'A' && name[prefix.size()] <= 'Z';
  };
  return api("cuda") || api("cu") || api("hip") || api("nccl");
}

EventKind DeviceKindFromName(std::string_view name) {
  if (IsRuntimeApiName(name)) return EventKind::kUnknown;
  // "[MEMCPY] HtoD", "[CUDA memcpy HtoD]", "Memcpy DtoH (Device -> Pinned)",
  // "MEMCPYHtoD".
  if (ContainsWord(name, "memcpy")) return EventKind::kMemcpy;
  if (ContainsWord(name, "memset")) return EventKind::kMemset;
  // Kernels: mangled C++ names, templated signatures, kernel libraries.
  if (name.starts_with("_Z") || name.starts_with("void ") || ContainsWord(name, "kernel") ||
      ContainsWord(name, "gemm") || ContainsWord(name, "cutlass") ||
      ContainsWord(name, "cudnn") || ContainsWord(name, "nccl") ||
      name.starts_with("sm80_") || name.starts_with("sm90_") || name.starts_with("ampere_") ||
      name.starts_with("volta_") || name.starts_with("turing_") || name.starts_with("triton_") ||
      name.starts_with("Cijk_") || name.starts_with("[KERNEL]") ||
      name.starts_with("[CONCURRENT_KERNEL]")) {
    return EventKind::kKernel;
  }
  return EventKind::kUnknown;
}

GenericTracks ApplyGenericChromeTracks(bool kineto_categories, TimelineBuilder& b) {
  GenericTracks out;
  const std::vector<Track>& tracks = b.tracks();
  const StringPool& strings = b.strings();
  std::vector<Role> roles(tracks.size(), Role::kNone);
  bool any_legacy = false;
  for (TrackId id = 0; id < tracks.size(); ++id) {
    const Track& t = tracks[id];
    if (t.kind != TrackKind::kOther || t.name == kEmptyStringId) continue;
    std::string_view name = strings.Get(t.name);
    if (name == "CPU functions") roles[id] = Role::kLegacyHost;
    if (name == "CUDA functions") roles[id] = Role::kLegacyDevice;
    any_legacy = any_legacy || roles[id] != Role::kNone;
  }
  if (!any_legacy && kineto_categories) return out;

  std::vector<TrackStats> stats(tracks.size());
  if (!kineto_categories) {
    b.EditSlices([&](TimelineBuilder::SliceEditor& e) {
      TrackStats& s = stats[e.track()];
      ++s.slices;
      const EventKind kind = e.kind();
      if (kind != EventKind::kOther && kind != EventKind::kUnknown) return;
      ++s.unknown_kind;
      std::string_view name = strings.Get(e.name());
      if (IsRuntimeApiName(name)) {
        ++s.runtime_like;
      } else if (DeviceKindFromName(name) != EventKind::kUnknown) {
        ++s.device_like;
      }
    });
    for (TrackId id = 0; id < tracks.size(); ++id) {
      const TrackStats& s = stats[id];
      if (roles[id] != Role::kNone || s.unknown_kind == 0 || s.runtime_like > 0) continue;
      if (tracks[id].kind == TrackKind::kDeviceStream) continue;
      if (s.device_like >= kDeviceTrackMinSlices &&
          static_cast<double>(s.device_like) >=
              kDeviceTrackMinShare * static_cast<double>(s.unknown_kind)) {
        roles[id] = Role::kDevice;
      }
    }
  }

  b.EditSlices([&](TimelineBuilder::SliceEditor& e) {
    const Role role = roles[e.track()];
    const EventKind kind = e.kind();
    if (kind != EventKind::kOther && kind != EventKind::kUnknown) return;
    std::string_view name = strings.Get(e.name());
    switch (role) {
      case Role::kLegacyHost:
        e.set_kind(EventKind::kCpuOp);
        return;
      case Role::kLegacyDevice:
        e.set_kind(EventKind::kKernel);
        e.details();
        return;
      case Role::kDevice: {
        EventKind device_kind = DeviceKindFromName(name);
        if (device_kind == EventKind::kUnknown) device_kind = EventKind::kKernel;
        e.set_kind(device_kind);
        DeviceDetails& d = e.details();
        if (device_kind == EventKind::kMemcpy) {
          const CopyKind copy = ParseMemcpyName(name);
          d.direction = copy.direction;
          d.src = copy.src;
          d.dst = copy.dst;
        }
        return;
      }
      case Role::kNone:
        // A GPU-only trace's host side: runtime API calls named as such.
        if (!kineto_categories && tracks[e.track()].kind == TrackKind::kHostThread &&
            IsRuntimeApiName(name)) {
          e.set_kind(name.starts_with("cu") && !name.starts_with("cuda") ? EventKind::kDriver
                                                                         : EventKind::kRuntime);
        }
        return;
    }
  });

  // Re-key last: the roles are indexed by the tracks as they were.
  for (TrackId id = 0; id < roles.size(); ++id) {
    const Track t = b.tracks()[id];
    std::string_view name = t.name == kEmptyStringId ? "" : strings.Get(t.name);
    switch (roles[id]) {
      case Role::kNone:
        break;
      case Role::kLegacyHost:
        if (b.RekeyTrack(id, TrackKind::kHostThread, t.pid, t.tid)) ++out.legacy_host_tracks;
        break;
      case Role::kLegacyDevice:
        // The legacy exporter writes the device index as the tid.
        if (b.RekeyTrack(id, TrackKind::kDeviceStream, DeviceIndexOf("", t.tid, true), 0)) {
          ++out.legacy_device_tracks;
        }
        break;
      case Role::kDevice: {
        const bool numeric_pid = t.kind == TrackKind::kHostThread;
        const int device = DeviceIndexOf(name, t.pid, numeric_pid);
        if (b.RekeyTrack(id, TrackKind::kDeviceStream, device, t.tid)) ++out.inferred_device_tracks;
        break;
      }
    }
  }
  ImportDiagnostics& diag = b.diagnostics();
  if (out.legacy_host_tracks + out.legacy_device_tracks > 0) {
    diag.Add("legacy_profiler_tracks", Severity::kInfo,
             "PyTorch's legacy autograd profiler export (pids \"CPU functions\" and \"CUDA "
             "functions\", no categories): its host events read as host threads, its CUDA "
             "ranges as device kernels with no linked launch",
             out.legacy_host_tracks + out.legacy_device_tracks);
  }
  if (out.inferred_device_tracks > 0) {
    diag.Add("inferred_device_tracks", Severity::kInfo,
             "tracks with no categories whose events are named as device work (kernels, "
             "[MEMCPY]/[MEMSET] copies): read as device streams",
             out.inferred_device_tracks);
  }
  return out;
}

}  // namespace tracelint::kineto
