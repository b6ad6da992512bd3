#include "parsers/kineto/kineto_categories.h"

#include "analyzer/base/strings.h"
#include "parsers/kineto/kineto_event_emitter.h"

namespace tracelint::kineto {

CategoryInfo ClassifyCategory(std::string_view cat, bool has_cat) {
  struct Entry {
    std::string_view name;
    CategoryInfo info;
  };
  static constexpr Entry kTable[] = {
      {"cpu_op", {EventKind::kCpuOp, false, kFeatCurrentCategories}},
      {"operator", {EventKind::kCpuOp, false, kFeatLegacyCategories}},
      {"user_annotation", {EventKind::kUserAnnotation, false, kFeatCurrentCategories}},
      {"python_function", {EventKind::kPythonFunction, false, kFeatCurrentCategories}},
      {"python", {EventKind::kPythonFunction, false, kFeatLegacyCategories}},
      {"cuda_runtime", {EventKind::kRuntime, false, kFeatCurrentCategories}},
      {"runtime", {EventKind::kRuntime, false, kFeatLegacyCategories}},
      {"mtia_runtime", {EventKind::kRuntime, false, kFeatMtia}},
      // MTIA command-processor events on the device's streams; the kind is
      // refined by name (MtiaDeviceKind).
      {"mtia_ccp_events", {EventKind::kKernel, true, kFeatMtia}},
      {"xpu_runtime", {EventKind::kRuntime, false, 0}},
      {"privateuse1_runtime", {EventKind::kRuntime, false, 0}},
      {"cuda_driver", {EventKind::kDriver, false, kFeatCudaDriver}},
      {"kernel", {EventKind::kKernel, true, 0}},
      {"gpu_memcpy", {EventKind::kMemcpy, true, kFeatCurrentCategories}},
      {"memcpy", {EventKind::kMemcpy, true, kFeatLegacyCategories}},
      {"gpu_memset", {EventKind::kMemset, true, kFeatCurrentCategories}},
      {"memset", {EventKind::kMemset, true, kFeatLegacyCategories}},
      {"gpu_user_annotation", {EventKind::kGpuUserAnnotation, true, kFeatGpuUserAnnotation}},
      {"cuda_sync", {EventKind::kCudaSync, true, 0}},
      {"cuda_event", {EventKind::kCudaEvent, true, 0}},
      {"overhead", {EventKind::kOverhead, false, 0}},
      {"trace", {EventKind::kTraceSpan, false, 0}},
  };
  if (!has_cat) return {};
  for (const Entry& e : kTable) {
    if (EqualsIgnoreCase(cat, e.name)) return e.info;
  }
  return {};
}

EventKind MtiaDeviceKind(std::string_view name) {
  if (name.starts_with("dma_")) return EventKind::kMemcpy;
  if (name == "event_wait") return EventKind::kCudaSync;
  if (name == "event_record") return EventKind::kCudaEvent;
  return EventKind::kKernel;
}

CopyDirection MtiaCopyDirection(std::string_view direction) {
  if (direction == "HOST_TO_DEVICE") return CopyDirection::kHtoD;
  if (direction == "DEVICE_TO_HOST") return CopyDirection::kDtoH;
  if (direction == "DEVICE_TO_DEVICE") return CopyDirection::kDtoD;
  return CopyDirection::kUnknown;
}

bool IsGpuFlowCategory(std::string_view cat) {
  return cat == "ac2g" || cat == "async_cpu_to_gpu" || cat == "async" || cat == "async_gpu";
}

bool IsKinetoStringPid(std::string_view pid) {
  // "CPU functions" / "CUDA functions": PyTorch's legacy autograd profiler
  // export, read as host and device tracks once parsed (chrome_generic_tracks.h).
  return pid.empty() || pid == "Spans" || pid == "Traces" || pid.starts_with("GPU ") ||
         pid == "CPU functions" || pid == "CUDA functions";
}

}  // namespace tracelint::kineto
