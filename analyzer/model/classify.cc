#include "analyzer/model/classify.h"

#include <algorithm>
#include <array>

#include "analyzer/base/strings.h"

namespace tracelint {
namespace {

// Host calls that block until the device catches up, on every vendor.
// hipMemcpyWithStream is what PyTorch on ROCm calls for a blocking copy
// (`.cpu()`, `.item()`): synchronous despite taking a stream.
constexpr std::array<std::string_view, 25> kSyncCalls = {
    "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize",
    "cudaMemcpy", "cudaMemcpy2D", "cudaMemcpyFromSymbol", "cudaMemcpyToSymbol",
    "cuStreamSynchronize", "cuCtxSynchronize", "cuEventSynchronize",
    "cuMemcpyDtoH_v2", "cuMemcpyHtoD_v2", "cuMemcpyDtoH", "cuMemcpyHtoD",
    "hipStreamSynchronize", "hipDeviceSynchronize", "hipEventSynchronize",
    "hipMemcpy", "hipMemcpyWithStream", "hipMemcpy2D", "hipMemcpyDtoH",
    "hipMemcpyHtoD", "hipMemcpyFromSymbol", "hipMemcpyToSymbol", "hipCtxSynchronize"};

// Calls that enqueue device work (a device activity may carry their
// correlation id).
constexpr std::array<std::string_view, 10> kLaunchPrefixes = {
    "cudaLaunch", "cuLaunch", "hipLaunch", "hipModuleLaunch",
    "hipExtModuleLaunch", "hipExtLaunch", "cudaMemcpy", "cudaMemset",
    "hipMemcpy", "hipMemset"};

constexpr std::array<std::string_view, 5> kLaunchExtraPrefixes = {
    "cuMemcpy", "cuMemset", "cudaGraphLaunch", "hipGraphLaunch",
    "cuGraphLaunch"};

constexpr std::array<std::string_view, 3> kGraphLaunch = {
    "cudaGraphLaunch", "hipGraphLaunch", "cuGraphLaunch"};

// Allocator calls: a caching allocator makes them rare in a steady loop,
// so when they stall the device every step the allocator is the cause
// (freeing and growing again, empty_cache(), a per-call workspace).
constexpr std::array<std::string_view, 21> kAllocatorPrefixes = {
    "cudaMalloc", "cudaFree", "cudaHostAlloc", "cudaHostRegister", "cudaHostUnregister",
    "cuMemAlloc", "cuMemFree", "cuMemMap", "cuMemUnmap", "cuMemCreate", "cuMemRelease",
    "cuMemAddressReserve", "cuMemAddressFree", "cuMemSetAccess", "cuMemHostAlloc",
    "hipMalloc", "hipFree", "hipHostMalloc", "hipHostFree", "hipExtMallocWithFlags",
    "hipMemMap"};

// aten ops that copy a device value to the host and wait for it.
constexpr std::array<std::string_view, 5> kImplicitSyncOps = {
    "aten::item", "aten::_local_scalar_dense", "aten::nonzero",
    "aten::is_nonzero", "aten::equal"};

// TensorFlow's input pipeline ops: the step waits in them for tf.data's
// next batch, as a PyTorch loop waits in DataLoader.__next__.
bool IsTfInputOpName(std::string_view name) {
  return name == "IteratorGetNext" || name == "IteratorGetNextSync" ||
         name == "IteratorGetNextAsOptional" ||
         name.starts_with("MultiDeviceIteratorGetNextFromShard");
}

bool IsOneOf(std::string_view name, const auto& table) {
  for (std::string_view t : table) {
    if (name == t) return true;
  }
  return false;
}
bool StartsWithOneOf(std::string_view name, const auto& table) {
  for (std::string_view t : table) {
    if (name.starts_with(t)) return true;
  }
  return false;
}

bool IsHostCollectiveName(std::string_view name) {
  return name == "record_param_comms" || name.starts_with("nccl:") ||
         name.starts_with("gloo:") || name.starts_with("c10d::") ||
         name.starts_with("rccl:") || name.starts_with("hccl:");
}

// Collective kernels that are not NCCL/RCCL-named: symmetric-memory and
// custom all-reduce kernels (PyTorch SymmetricMemory, vLLM, TensorRT-LLM,
// sglang), DeepEP's expert-parallel dispatch/combine/notify kernels
// ("deep_ep::intranode::dispatch", "dpsk::ep::..."), NVSHMEM/rocSHMEM and
// MSCCL++ kernels, which move data between devices just as NCCL does.
constexpr std::array<std::string_view, 18> kCustomCollectiveTokens = {
    "multimem_all_reduce", "multimem_all_gather", "multimem_reduce_scatter",
    "cross_device_reduce", "one_shot_all_reduce", "two_shot_all_reduce",
    "oneshot_all_reduce",  "twoshot_all_reduce",  "hccl",
    "deep_ep::",           "dpsk::ep",            "deepep",
    "nvshmem",             "rocshmem",            "mscclpp",
    "symmetric_memory",    "symm_mem",            "allreduce_fusion"};

MemorySpace ParseSpace(std::string_view s) {
  s = StripAsciiWhitespace(s);
  if (s == "Pageable") return MemorySpace::kPageable;
  if (s == "Pinned") return MemorySpace::kPinned;
  if (s == "Device") return MemorySpace::kDevice;
  if (s == "Managed") return MemorySpace::kManaged;
  if (s == "Array") return MemorySpace::kArray;
  return MemorySpace::kUnknown;
}

}  // namespace

bool IsAllocatorCallName(std::string_view name) {
  return StartsWithOneOf(name, kAllocatorPrefixes) || name.starts_with("hipMemUnmap") ||
         name.starts_with("hipMemCreate") || name.starts_with("hipMemRelease");
}

bool IsJobSubmissionName(std::string_view name) {
  return ContainsIgnoreCase(name, "submit_for_execution") ||
         ContainsIgnoreCase(name, "job_prep") || ContainsIgnoreCase(name, "submitJob");
}

bool IsCollectiveKernelName(std::string_view name) {
  // Demangled custom kernels put the namespace first ("void
  // c10d::symmetric_memory::multimem_all_reduce_kernel<...>"); 160 bytes
  // reach past it without scanning long template argument lists. Lower-cased
  // once, then searched with find (the tables are lower case).
  constexpr size_t kHead = 160;
  char buf[kHead];
  const size_t n = std::min(kHead, name.size());
  for (size_t i = 0; i < n; ++i) buf[i] = AsciiLower(name[i]);
  const std::string_view head(buf, n);
  if (head.substr(0, 64).find("nccl") != std::string_view::npos || head.starts_with("rccl")) {
    return true;
  }
  for (std::string_view t : kCustomCollectiveTokens) {
    if (head.find(t) != std::string_view::npos) return true;
  }
  return Contains(head, "allreduce") &&
         (Contains(head, "oneshot") || Contains(head, "twoshot") || Contains(head, "one_shot") ||
          Contains(head, "two_shot"));
}

uint16_t ClassifyFlags(EventKind kind, std::string_view name) {
  uint16_t flags = 0;
  switch (kind) {
    case EventKind::kCpuOp:
    case EventKind::kUserAnnotation:
    case EventKind::kOther:
      if (name.starts_with("ProfilerStep#")) flags |= kFlagStepMarker;
      if (IsHostCollectiveName(name)) flags |= kFlagCollective;
      if ((name.starts_with("enumerate(DataLoader)#") &&
           Contains(name, "__next__")) ||
          name.starts_with("enumerate(DataPipe)#") || IsTfInputOpName(name)) {
        flags |= kFlagDataLoader;
      }
      if (IsOneOf(name, kImplicitSyncOps)) flags |= kFlagImplicitSync;
      if (name.starts_with("autograd::engine::evaluate_function:")) {
        flags |= kFlagBackward;
      }
      if (name.starts_with("Optimizer.")) flags |= kFlagOptimizer;
      if (kind == EventKind::kCpuOp && name.starts_with("profiler::_record_function")) {
        flags |= kFlagProfilerCode;
      }
      break;
    case EventKind::kPythonFunction:
      if (Contains(name, "torch/autograd/profiler") || Contains(name, "torch/profiler/")) {
        flags |= kFlagProfilerCode;
      }
      break;
    case EventKind::kRuntime:
    case EventKind::kDriver:
      if (IsOneOf(name, kSyncCalls)) flags |= kFlagSyncCall;
      if (StartsWithOneOf(name, kLaunchPrefixes) ||
          StartsWithOneOf(name, kLaunchExtraPrefixes)) {
        flags |= kFlagLaunch;
      }
      if (IsOneOf(name, kGraphLaunch)) flags |= kFlagGraphLaunch;
      if (IsAllocatorCallName(name)) flags |= kFlagAllocator;
      if (IsJobSubmissionName(name)) flags |= kFlagJobSubmission;
      break;
    case EventKind::kKernel:
      if (IsCollectiveKernelName(name)) flags |= kFlagCollective;
      break;
    case EventKind::kGpuUserAnnotation:
      if (name.starts_with("ProfilerStep#")) flags |= kFlagGpuStepMarker;
      break;
    default:
      break;
  }
  return flags;
}

CopyKind ParseMemcpyName(std::string_view name) {
  CopyKind out;
  auto dir = [](std::string_view n) {
    if (Contains(n, "HtoD") || Contains(n, "H2D")) return CopyDirection::kHtoD;
    if (Contains(n, "DtoH") || Contains(n, "D2H")) return CopyDirection::kDtoH;
    if (Contains(n, "DtoD") || Contains(n, "D2D")) return CopyDirection::kDtoD;
    if (Contains(n, "PtoP") || Contains(n, "P2P")) return CopyDirection::kPtoP;
    if (Contains(n, "HtoH") || Contains(n, "H2H")) return CopyDirection::kHtoH;
    return CopyDirection::kUnknown;
  };
  out.direction = dir(name);
  size_t open = name.find('(');
  size_t arrow = name.find("->");
  size_t close = name.rfind(')');
  if (open != std::string_view::npos && arrow != std::string_view::npos &&
      close != std::string_view::npos && open < arrow && arrow < close) {
    out.src = ParseSpace(name.substr(open + 1, arrow - open - 1));
    out.dst = ParseSpace(name.substr(arrow + 2, close - arrow - 2));
  }
  return out;
}

std::string_view EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kUnknown: return "unknown";
    case EventKind::kCpuOp: return "cpu_op";
    case EventKind::kUserAnnotation: return "user_annotation";
    case EventKind::kPythonFunction: return "python_function";
    case EventKind::kRuntime: return "runtime";
    case EventKind::kDriver: return "driver";
    case EventKind::kKernel: return "kernel";
    case EventKind::kMemcpy: return "memcpy";
    case EventKind::kMemset: return "memset";
    case EventKind::kGpuUserAnnotation: return "gpu_user_annotation";
    case EventKind::kCudaSync: return "cuda_sync";
    case EventKind::kCudaEvent: return "cuda_event";
    case EventKind::kOverhead: return "overhead";
    case EventKind::kTraceSpan: return "trace_span";
    case EventKind::kInstant: return "instant";
    case EventKind::kOther: return "other";
  }
  return "unknown";
}

std::string_view CopyDirectionName(CopyDirection d) {
  switch (d) {
    case CopyDirection::kHtoD: return "HtoD";
    case CopyDirection::kDtoH: return "DtoH";
    case CopyDirection::kDtoD: return "DtoD";
    case CopyDirection::kPtoP: return "PtoP";
    case CopyDirection::kHtoH: return "HtoH";
    default: return "unknown";
  }
}

std::string_view MemorySpaceName(MemorySpace m) {
  switch (m) {
    case MemorySpace::kPageable: return "pageable";
    case MemorySpace::kPinned: return "pinned";
    case MemorySpace::kDevice: return "device";
    case MemorySpace::kManaged: return "managed";
    case MemorySpace::kArray: return "array";
    default: return "unknown";
  }
}

}  // namespace tracelint
