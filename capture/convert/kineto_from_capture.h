#ifndef TRACELINT_CAPTURE_CONVERT_KINETO_FROM_CAPTURE_H_
#define TRACELINT_CAPTURE_CONVERT_KINETO_FROM_CAPTURE_H_

// capture_to_kineto: one process's CUPTI records as the Kineto trace JSON
// PyTorch writes (docs/design/formats.md A), so tracelint and every other Kineto
// reader (TensorBoard, HTA, Perfetto) read a capture unchanged:
//   kernels        cat "kernel", pid = device, tid = stream
//   memcpy/memset  cat "gpu_memcpy"/"gpu_memset", named as Kineto names them
//                  ("Memcpy HtoD (Pageable -> Device)", "Memset (Device)")
//   runtime/driver cat "cuda_runtime"/"cuda_driver" on the calling thread,
//                  with "correlation" and "cbid", and an "ac2g" flow to the
//                  device work they launched; a driver call inside a runtime
//                  call (the runtime's own) is left out unless it launched work
//   syncs          cat "cuda_sync" ("Stream Sync", ...) on tid stream+1000000
//   NVTX           ranges as "user_annotation" slices, marks as instants;
//                  --steps NAME renames the ranges NAME to ProfilerStep#N
//   graph traces   one "kernel" slice per graph execution ("CUDA graph N")
//   lost records   an "overhead" slice "CUPTI dropped records" per report,
//                  which the trace-integrity pass counts (dropped_records)

#include <cstdint>
#include <string>
#include <vector>

#include "capture/convert/records.h"

namespace tracelint::capture {

struct ConvertOptions {
  // --steps: NVTX ranges with exactly this name become ProfilerStep#N
  // (N from 0, in start order). Empty: names are kept.
  std::string steps_range;
};

struct ConvertSummary {
  int64_t kernels = 0;
  int64_t copies = 0;
  int64_t memsets = 0;
  int64_t api_calls = 0;
  int64_t syncs = 0;
  int64_t ranges = 0;
  int64_t instants = 0;
  int64_t graphs = 0;
  int64_t steps = 0;
  int64_t unmatched_ranges = 0;  // a start without an end, or an end without a start
  int64_t nested_driver_calls = 0;  // driver calls inside runtime calls, left out
  uint64_t dropped_records = 0;
  // What the user should know (a --steps name never seen, lost records).
  std::vector<std::string> warnings;
};

// The Kineto JSON document. Events are sorted by time, so buffers that
// arrived out of order give the same file as ordered ones.
std::string CaptureToKinetoJson(const CaptureRecords& records, const ConvertOptions& options,
                                ConvertSummary* summary = nullptr);

// "<host>.<pid>[.rank<R>].pt.trace.json" (docs/design/contract.md, "Capture files").
std::string CaptureTraceFileName(const ProcessInfo& process);

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel"; "_ptsz"/"_ptds" dropped.
std::string ApiDisplayName(std::string_view cupti_name);
// "Memcpy HtoD (Pageable -> Device)", "Memcpy PtoP (Device -> Device)".
std::string MemcpyName(CopyKind kind, MemoryKind src, MemoryKind dst);
// A demangled kernel name; the input unchanged when it is not mangled.
std::string DemangleKernelName(const std::string& name);

}  // namespace tracelint::capture

#endif  // TRACELINT_CAPTURE_CONVERT_KINETO_FROM_CAPTURE_H_
