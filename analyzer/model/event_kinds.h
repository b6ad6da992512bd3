#ifndef TRACELINT_ANALYZER_MODEL_EVENT_KINDS_H_
#define TRACELINT_ANALYZER_MODEL_EVENT_KINDS_H_

#include <cstdint>
#include <string_view>

namespace tracelint {

// Normalized event kinds, the same for every input format.
enum class EventKind : uint8_t {
  kUnknown = 0,
  kCpuOp,              // framework op on a host thread (aten::*, tf_op on host)
  kUserAnnotation,     // record_function / TraceMe annotation on a host thread
  kPythonFunction,     // Python frame (with_stack)
  kRuntime,            // CUDA/HIP runtime API call (cudaLaunchKernel, ...)
  kDriver,             // CUDA driver API call (cuLaunchKernel, ...)
  kKernel,             // device kernel
  kMemcpy,             // device copy (direction in CopyDetails)
  kMemset,             // device memset
  kGpuUserAnnotation,  // annotation on a device stream
  kCudaSync,           // device-side sync wait (cuda_sync "Stream Sync")
  kCudaEvent,          // cuda_event record
  kOverhead,           // profiler overhead
  kTraceSpan,          // the profiler's own span event
  kInstant,            // zero-duration marker with no other meaning
  kOther,              // any other host slice (unknown category)
};
inline constexpr int kEventKindCount = static_cast<int>(EventKind::kOther) + 1;

std::string_view EventKindName(EventKind kind);

inline bool IsDeviceKind(EventKind k) {
  return k == EventKind::kKernel || k == EventKind::kMemcpy ||
         k == EventKind::kMemset || k == EventKind::kGpuUserAnnotation ||
         k == EventKind::kCudaSync || k == EventKind::kCudaEvent;
}
// Device work that occupies the GPU (annotations and sync waits do not).
inline bool IsDeviceActivity(EventKind k) {
  return k == EventKind::kKernel || k == EventKind::kMemcpy ||
         k == EventKind::kMemset;
}

// Semantic flags, derived from names and args in one place (classify.cc) so
// every format gets the same meaning.
enum EventFlag : uint16_t {
  kFlagNone = 0,
  kFlagStepMarker = 1 << 0,     // ProfilerStep#N (host) or a format's step event
  kFlagCollective = 1 << 1,     // NCCL/RCCL kernel or host collective op
  kFlagDataLoader = 1 << 2,     // enumerate(DataLoader)#...__next__ etc.
  kFlagSyncCall = 1 << 3,       // host call that blocks on the device
  kFlagLaunch = 1 << 4,         // runtime/driver call that enqueues device work
  kFlagGraphLaunch = 1 << 5,    // cudaGraphLaunch / hipGraphLaunch
  kFlagImplicitSync = 1 << 6,   // aten::item, _local_scalar_dense, nonzero ...
  kFlagBackward = 1 << 7,       // autograd::engine::evaluate_function: ...
  kFlagGpuStepMarker = 1 << 8,  // ProfilerStep#N on a device stream
  kFlagOptimizer = 1 << 9,      // Optimizer.step#... annotations
  // The profiler's own host code: torch.profiler's step, record_function's
  // enter/exit (Python frames, profiler::_record_function_* ops).
  kFlagProfilerCode = 1 << 10,
  // Device memory allocation calls (cudaMalloc, cudaFree, hipFree,
  // cudaHostAlloc, cudaMallocAsync, cuMemMap, ...): the allocator.
  kFlagAllocator = 1 << 11,
  // Job submission on accelerators that submit jobs (MTIA's
  // "runFunction - job_prep_and_submit_for_execution").
  kFlagJobSubmission = 1 << 12,
  // A framework op placed on a device, recorded where the host executor
  // dispatches it (a TF1 timeline's "/job:.../device:GPU:0 Compute"): its
  // host time is dispatch, not host computation. With a correlation id it
  // is the launch of the device work that carries the id.
  kFlagDeviceOpDispatch = 1 << 13,
};

enum class TrackKind : uint8_t {
  kHostThread = 0,
  kDeviceStream,
  kOther,  // spans, counters, overhead: never analysed as host or device work
};

enum class CopyDirection : uint8_t {
  kUnknown = 0, kHtoD, kDtoH, kDtoD, kPtoP, kHtoH,
};
enum class MemorySpace : uint8_t {
  kUnknown = 0, kPageable, kPinned, kDevice, kManaged, kArray,
};
std::string_view CopyDirectionName(CopyDirection d);
std::string_view MemorySpaceName(MemorySpace m);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_MODEL_EVENT_KINDS_H_
