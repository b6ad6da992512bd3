#ifndef TRACELINT_ANALYZER_MODEL_CLASSIFY_H_
#define TRACELINT_ANALYZER_MODEL_CLASSIFY_H_

#include <cstdint>
#include <string_view>

#include "analyzer/model/event_kinds.h"

namespace tracelint {

// The one place where names turn into meaning (EventFlag bits), shared by
// every parser. Tables are in classify.cc.
uint16_t ClassifyFlags(EventKind kind, std::string_view name);

// True for NCCL/RCCL/collective device kernels ("ncclKernel_*",
// "ncclDevKernel_*", "rccl*").
bool IsCollectiveKernelName(std::string_view name);

// Device memory allocator calls of the CUDA runtime and driver and of HIP.
bool IsAllocatorCallName(std::string_view name);
// Job submission calls of accelerators that submit jobs (MTIA).
bool IsJobSubmissionName(std::string_view name);

struct CopyKind {
  CopyDirection direction = CopyDirection::kUnknown;
  MemorySpace src = MemorySpace::kUnknown;
  MemorySpace dst = MemorySpace::kUnknown;
};
// "Memcpy HtoD (Pageable -> Device)", "Memcpy DtoH (Device -> Pinned)",
// "MemcpyH2D", "Memcpy PtoP (Device -> Device)".
CopyKind ParseMemcpyName(std::string_view name);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_MODEL_CLASSIFY_H_
