#ifndef TRACELINT_PARSERS_KINETO_CHROME_GENERIC_TRACKS_H_
#define TRACELINT_PARSERS_KINETO_CHROME_GENERIC_TRACKS_H_

// Chrome trace JSON that carries no Kineto categories and no TensorFlow/XLA
// names, read for what its events are (docs/input-formats.md):
//
//   PyTorch's legacy autograd profiler (export_chrome_trace before Kineto,
//   PyTorch <= 1.7): a bare array, pid "CPU functions" for the host's ops
//   (tid = thread) and "CUDA functions" for their GPU time (tid = device),
//   no "cat". The host events become host threads of cpu ops, the GPU ones
//   a device stream of kernels (unlinked: the format has no correlation).
//
//   GPU-only traces of custom CUPTI tools: no "cat", no process names,
//   device work named as such ("[MEMCPY] HtoD", "[CUDA memset]", mangled or
//   templated kernel names). A track whose slices are almost all named as
//   device work becomes a device stream (copies, memsets and kernels by
//   name); runtime-API names elsewhere become runtime calls.

#include <cstdint>

#include "analyzer/model/timeline_builder.h"

namespace tracelint::kineto {

struct GenericTracks {
  int64_t legacy_host_tracks = 0;
  int64_t legacy_device_tracks = 0;
  int64_t inferred_device_tracks = 0;  // GPU-only traces: tracks read as streams
};

// `kineto_categories`: the file had events with Kineto categories (then
// only the legacy pids are looked at). Call after ApplyChromeDeviceTracks,
// only when that found no TensorFlow/XLA producer.
GenericTracks ApplyGenericChromeTracks(bool kineto_categories, TimelineBuilder& b);

// The kind a name of device work says ("[MEMCPY] HtoD", "void
// gemm_kernel<...>(...)"); kUnknown when the name does not look like
// device work. For tests and the track decision.
EventKind DeviceKindFromName(std::string_view name);
// Runtime API names ("cudaLaunchKernel", "cuMemcpyHtoDAsync", "hipMalloc").
bool IsRuntimeApiName(std::string_view name);

}  // namespace tracelint::kineto

#endif  // TRACELINT_PARSERS_KINETO_CHROME_GENERIC_TRACKS_H_
