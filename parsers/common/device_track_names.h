#ifndef TRACELINT_PARSERS_COMMON_DEVICE_TRACK_NAMES_H_
#define TRACELINT_PARSERS_COMMON_DEVICE_TRACK_NAMES_H_

// The names TensorFlow, JAX and XLA profilers give device timelines
// (docs/design/formats.md B and C.2-C.3), read in one place for every reader: XSpace
// planes and lines (parsers/xplane) and the same names in the
// process_name/thread_name metadata of their Chrome trace JSON
// (parsers/kineto/chrome_device_tracks.cc).

#include <cstdint>
#include <optional>
#include <string_view>

#include "analyzer/model/event_kinds.h"

namespace tracelint {

enum class DeviceFamily : uint8_t { kGpu, kTpu };

struct DeviceNamePrefix {
  DeviceFamily family = DeviceFamily::kGpu;
  int ordinal = -1;
  std::string_view rest;  // what follows the ordinal ("", " (Tesla V100)", "/stream:7 ...")
};

// "/device:GPU:N..." and "/device:TPU:N...". nullopt for anything else, for
// an N that is no int >= 0, and for TPU SparseCore planes
// ("/device:TPU:0 SparseCore 1"), which share their core's ordinal but are
// not its timeline.
std::optional<DeviceNamePrefix> ParseDeviceNamePrefix(std::string_view name);

enum class DeviceLineClass : uint8_t {
  kStream,    // "Stream #N" or "Stream #N(Kernel,MemcpyH2D)": one GPU stream's work
  kXlaOps,    // "XLA Ops": a TPU core's work; on a GPU, a summary of its streams
  kDerived,   // derived by post-processing from the others (Steps, XLA Modules, ...)
  kOverhead,  // "CUPTI overhead"
  kOther,
};
DeviceLineClass ClassifyDeviceLine(std::string_view line_name);

// TensorFlow's own names of two derived lines (later renamed "Framework
// ..."): evidence that TensorFlow made the trace.
bool IsTensorFlowDeviceLine(std::string_view line_name);

// 13 of "Stream #13" and "Stream #13(Compute)".
std::optional<int64_t> StreamLineNumber(std::string_view line_name);

// The copy direction a name states: "MemcpyH2D", "Memcpy DtoH (...)",
// "MEMCPYHtoD", "hipMemcpyHtoDAsync", "CopyDeviceToDevice", ...
CopyDirection CopyDirectionFromName(std::string_view name);

// The copy direction of a stream whose name lists exactly one copy type,
// e.g. "Stream #135(MemcpyH2D)". Mixed streams say nothing per event.
CopyDirection StreamLineCopyDirection(std::string_view line_name);

// A stream's only type is copies ("Stream #14(MemcpyH2D)").
bool IsCopyOnlyStreamLine(std::string_view line_name);

// Device events named as copies ("MemcpyH2D", "CopyHostToDevice"), as
// memsets, or as device-memory bookkeeping CUPTI reports on streams
// (MemoryAlloc, MemFree: not device work).
bool IsCopyEventName(std::string_view name);
bool IsMemsetEventName(std::string_view name);
bool IsMemoryManagementName(std::string_view name);
// XLA's async copies ("copy-start.4" ... "copy-done.4"): bytes moved
// between HBM and host memory, copies rather than compute.
bool IsXlaAsyncCopyName(std::string_view name);

}  // namespace tracelint

#endif  // TRACELINT_PARSERS_COMMON_DEVICE_TRACK_NAMES_H_
