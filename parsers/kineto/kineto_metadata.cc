#include "parsers/kineto/kineto_metadata.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <set>
#include <string_view>

#include "analyzer/base/strings.h"
#include "fmt/format.h"
#include "parsers/kineto/kineto_event_emitter.h"
#include "parsers/kineto/kineto_parser.h"

namespace tracelint::kineto {

std::optional<int64_t> ParseIntText(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  std::string_view s = StripAsciiWhitespace(*text);
  int64_t v;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::pair<int, int>> MatchLoneDevice(
    const absl::flat_hash_set<int64_t>& slice_devices, RunMetadata& m,
    ImportDiagnostics& diagnostics) {
  if (m.devices.size() != 1) return std::nullopt;
  std::set<int64_t> ids(slice_devices.begin(), slice_devices.end());
  if (ids.size() != 1 || *ids.begin() == m.devices[0].id) return std::nullopt;
  diagnostics.Add("device_properties_id_matched", Severity::kInfo,
                  fmt::format("the one deviceProperties entry (id {}) describes the device "
                              "the events call {}",
                              m.devices[0].id, *ids.begin()));
  const int old_id = m.devices[0].id;
  m.devices[0].id = static_cast<int>(*ids.begin());
  return std::make_pair(old_id, m.devices[0].id);
}

void DescribeUnlistedDevices(const absl::flat_hash_set<int64_t>& slice_devices,
                             RunMetadata& m, ImportDiagnostics& diagnostics) {
  if (m.devices.size() < 2) return;
  const DeviceInfo& first = m.devices.front();
  auto same = [&](const DeviceInfo& d) {
    return d.name == first.name && d.vendor == first.vendor &&
           d.compute_major == first.compute_major && d.compute_minor == first.compute_minor &&
           d.sm_count == first.sm_count && d.total_memory_bytes == first.total_memory_bytes &&
           d.max_threads_per_sm == first.max_threads_per_sm;
  };
  if (!std::all_of(m.devices.begin(), m.devices.end(), same)) return;
  std::set<int64_t> unlisted;
  for (int64_t id : slice_devices) {
    if (id >= 0 && id <= std::numeric_limits<int>::max() &&
        m.FindDevice(static_cast<int>(id)) == nullptr) {
      unlisted.insert(id);
    }
  }
  for (int64_t id : unlisted) {
    DeviceInfo info = first;
    info.id = static_cast<int>(id);
    m.unlisted_devices.push_back(std::move(info));
    diagnostics.Add("device_properties_identical",
                    Severity::kInfo,
                    fmt::format("the events name device {}, not among the {} deviceProperties "
                                "entries; all of them are identical ({}), so their properties "
                                "describe it",
                                id, m.devices.size(), first.name.empty() ? "unnamed" : first.name));
  }
}

bool HasKinetoEvidence(uint32_t features, const RawMeta& meta) {
  // Fractional timestamps, displayTimeUnit and bare arrays are Chrome
  // trace JSON, not Kineto's alone (xprof writes displayTimeUnit too).
  constexpr uint32_t kKinetoFeatures =
      kFeatLegacyCategories | kFeatCurrentCategories | kFeatFlowAsync | kFeatFlowAsyncCpuToGpu |
      kFeatFlowAc2g | kFeatGpuUserAnnotation | kFeatCudaDriver | kFeatKernelCollectiveArgs |
      kFeatRecordFunctionId | kFeatSpansPid | kFeatMtia | kFeatEvIdx | kFeatKinetoCategory |
      kFeatKinetoNames;
  return (features & kKinetoFeatures) != 0 || meta.schema_version.has_value() ||
         meta.has_device_properties || meta.has_distributed_info ||
         meta.base_time_text.has_value() || meta.nvidia_hints || meta.rocm_hints ||
         meta.tracelint_capture ||
         !meta.trace_name.empty();
}

namespace {

// The framework a non-Kineto trace's names show (chrome_device_tracks.h).
std::string_view ChromeFramework(ChromeProducer producer) {
  switch (producer) {
    case ChromeProducer::kTensorFlow1:
    case ChromeProducer::kTensorFlow: return "TensorFlow";
    case ChromeProducer::kJax: return "JAX";
    case ChromeProducer::kXla: return "TensorFlow/JAX (XLA)";
    case ChromeProducer::kNone: break;
  }
  return "";
}

}  // namespace

void FillMetadata(const std::string& path, const RawMeta& meta, uint32_t features,
                  bool bare_array, TimeNs base_time_ns, const ChromeDeviceTracks& chrome,
                  RunMetadata& m) {
  m.source_path = path;
  if (HasKinetoEvidence(features, meta)) {
    m.format = "kineto-json";
    if (meta.tracelint_capture) {
      // The capture writes Kineto's keys itself: they date no PyTorch, and
      // the program may be any CUDA program.
      m.tracelint_capture = true;
    } else {
      m.framework = "PyTorch";
      m.framework_version = GuessPytorchVersion(features, meta, bare_array);
    }
  } else {
    m.format = "chrome-json";
    m.framework = std::string(ChromeFramework(chrome.producer));
  }
  if (chrome.tpu) m.accelerator_from_events = "TPU";
  bool amd = meta.rocm_hints || (features & kFeatHipNames) != 0;
  for (const RawDevice& d : meta.devices) {
    DeviceInfo info;
    info.id = static_cast<int>(d.id);
    info.name = d.name;
    amd = amd || d.rocm_fields || ContainsIgnoreCase(d.name, "AMD") ||
          ContainsIgnoreCase(d.name, "Instinct");
    info.compute_major = static_cast<int>(d.compute_major);
    info.compute_minor = static_cast<int>(d.compute_minor);
    info.sm_count = static_cast<int>(d.num_sms);
    info.total_memory_bytes = d.total_global_mem;
    info.max_threads_per_sm = static_cast<int>(d.max_threads_per_sm);
    m.devices.push_back(std::move(info));
  }
  for (DeviceInfo& info : m.devices) {
    if ((features & kFeatMtia) != 0) {
      info.vendor = "Meta";
    } else if (amd) {
      info.vendor = "AMD";
    } else if (info.compute_major >= 0) {
      info.vendor = "NVIDIA";
    }
  }
  // MTIA traces without deviceProperties still name their device by the
  // mtia_* categories of its events.
  if ((features & kFeatMtia) != 0) m.accelerator_from_events = "MTIA";
  m.rank = static_cast<int>(ParseIntText(meta.rank_text).value_or(-1));
  if (m.rank < 0) m.rank = RankFromFileName(path);
  m.world_size = static_cast<int>(ParseIntText(meta.world_size_text).value_or(-1));
  m.backend = meta.backend;
  m.host_name = meta.host_name;
  m.trace_name = meta.trace_name;
  m.base_time_ns = base_time_ns;
}

std::string GuessPytorchVersion(uint32_t features, const RawMeta& meta, bool bare_array) {
  // Walk the fingerprints from newest to oldest; the first that matches
  // dates the producer (approximately: PyTorch pins a Kineto commit). A
  // feature Kineto still writes only bounds the version from below: a trace
  // without newer features may simply not have captured the events that
  // carry them (a CPU-only trace has no flows), so "2.0+" and not "~2.0".
  // Only features a later Kineto replaced give a closed range.
  struct Step {
    bool present;
    std::string_view version;
    std::string_view evidence;
  };
  const Step steps[] = {
      {(features & kFeatRecordFunctionId) != 0, "2.5+", "\"Record function id\" args"},
      {meta.base_time_text.has_value(), "2.4+", "baseTimeNanoseconds"},
      {meta.has_display_time_unit || (features & kFeatFractionalTs) != 0, "2.3+",
       "fractional-microsecond timestamps"},
      {(features & kFeatKernelCollectiveArgs) != 0, "2.2+", "collective args on kernels"},
      {(features & kFeatCudaDriver) != 0, "2.1+", "cuda_driver events"},
      {(features & kFeatFlowAc2g) != 0, "2.0+", "ac2g flows"},
      {(features & kFeatEvIdx) != 0, "2.0+", "\"Ev Idx\" args"},
      {(features & kFeatGpuUserAnnotation) != 0, "1.12+", "gpu_user_annotation slices"},
      {(features & kFeatFlowAsyncCpuToGpu) != 0, "~1.11-1.13", "async_cpu_to_gpu flows"},
      {(features & kFeatCurrentCategories) != 0, "1.10+", "cpu_op/cuda_runtime categories"},
      {(features & kFeatLegacyCategories) != 0 && meta.has_device_properties, "~1.9",
       "legacy categories with deviceProperties"},
      {(features & kFeatLegacyCategories) != 0 && !bare_array, "~1.8",
       "legacy categories in a JSON object"},
      {bare_array, "~1.8 pre-release", "bare event array"},
  };
  for (const Step& s : steps) {
    if (s.present) return fmt::format("{} (inferred from {})", s.version, s.evidence);
  }
  return "";
}

int RankFromFileName(std::string_view path) {
  size_t slash = path.find_last_of('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  for (size_t i = 0; i + 4 < name.size(); ++i) {
    if (!EqualsIgnoreCase(name.substr(i, 4), "rank")) continue;
    size_t j = i + 4;
    if (j < name.size() && (name[j] == '-' || name[j] == '_')) ++j;
    size_t k = j;
    while (k < name.size() && name[k] >= '0' && name[k] <= '9' && k - j < 9) ++k;
    if (k > j) {
      int rank = 0;
      std::from_chars(name.data() + j, name.data() + k, rank);
      return rank;
    }
  }
  return -1;
}

}  // namespace tracelint::kineto
