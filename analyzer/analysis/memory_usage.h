#ifndef TRACELINT_ANALYZER_ANALYSIS_MEMORY_USAGE_H_
#define TRACELINT_ANALYZER_ANALYSIS_MEMORY_USAGE_H_

// Device memory as the framework's allocator reported it: the peaks of the
// "Total Allocated" and "Total Reserved" curves the TensorBoard plugin's
// memory view draws (PyTorch `[memory]` events with profile_memory=True;
// XSpace memory TraceMes). Only what the trace records is claimed:
//  - the peaks are those of the trace window; a longer step (evaluation, a
//    longer sequence) outside it may need more;
//  - the allocator's own totals leave out what it does not manage (the
//    CUDA context, NCCL buffers, other processes on the device), so the
//    headroom they imply is an upper bound.
// docs/glossary.md, "Device memory", says the same to users.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/base/time.h"
#include "analyzer/model/timeline.h"

namespace tracelint {

// docs/design/domain.md, "More rules users expect": peak use under ~25% of the device
// leaves room for a larger batch; reserved memory over 90% of it is
// pressure (the allocator frees its cache and retries, and cudaFree
// synchronizes the device).
inline constexpr double kMemoryHeadroomMaxShare = 0.25;
inline constexpr double kMemoryPressureMinShare = 0.90;

enum class MemoryState : uint8_t {
  kUnknown,   // no device size to compare with
  kHeadroom,  // peak allocated < kMemoryHeadroomMaxShare of the device
  kNormal,
  kPressure,  // peak reserved >= kMemoryPressureMinShare of the device
};
std::string_view MemoryStateName(MemoryState s);  // "headroom", "pressure", ...

// One point of the memory curve: the largest totals of a slice of time.
struct MemoryCurvePoint {
  TimeNs ts_ns = 0;  // the slice's start
  int64_t allocated_bytes = 0;
  int64_t reserved_bytes = 0;
};
// Slices of the window the curve is cut into: enough for a page-wide chart.
inline constexpr size_t kMemoryCurvePoints = 400;

struct DeviceMemoryUsage {
  int device = -1;
  int64_t samples = 0;  // allocator events on this device
  int64_t peak_allocated_bytes = 0;
  TimeNs peak_allocated_ts_ns = 0;
  int64_t peak_reserved_bytes = 0;  // 0 when the trace gives no reserved totals
  int64_t total_memory_bytes = -1;  // deviceProperties; -1 unknown
  // The step (as the trace numbers it) the allocated peak falls in; -1 when
  // outside every complete step.
  int64_t peak_step = -1;
  std::optional<double> peak_allocated_share;  // of total_memory_bytes
  std::optional<double> peak_reserved_share;
  // What pressure is judged on: the larger share, or the allocated one
  // alone where the framework reserves the device up front (TF, JAX).
  std::optional<double> held_share;
  MemoryState state = MemoryState::kUnknown;
  // Device memory freed back to the driver inside the steady steps
  // (cudaFree, hipFree, cuMemFree): the caching allocator does so only to
  // make room (or on empty_cache()), and each call waits for the device.
  // Counted per rank, so every device of the rank carries the same figures.
  int64_t release_calls = 0;
  TimeNs release_ns = 0;
  // The totals over the window (the TensorBoard plugin's memory curve), at
  // most kMemoryCurvePoints points, each slice's maximum so no peak is lost;
  // between events a total stays what the last event said.
  std::vector<MemoryCurvePoint> curve;
  TimeNs curve_end_ns = 0;  // the last event's time
};

struct MemoryUsage {
  std::vector<DeviceMemoryUsage> devices;  // by device id; empty: not recorded
  bool recorded() const { return !devices.empty(); }
  // The device with the highest reserved (else allocated) share, for
  // advice that names one; nullptr when none has a known size.
  const DeviceMemoryUsage* Fullest() const;
};

struct StepSet;
// `all_steps` places the peak in a step; releases are counted in `steady`.
MemoryUsage ComputeMemoryUsage(const Timeline& tl, const StepSet& all_steps,
                               const StepSet& steady);

// "peak allocated 1.95 GiB (2.5% of 79.2 GiB), reserved 2.45 GiB (3.1%)".
std::string DescribeMemory(const DeviceMemoryUsage& m);
struct JobProfile;
// What a device's memory state means for the job, in its framework's words;
// empty when the state calls for nothing (normal or unknown size).
std::string MemoryAdvice(const DeviceMemoryUsage& m, const JobProfile& job,
                         std::string_view accelerator);
// Bytes as GiB (MiB under 1 GiB), for these lines.
std::string MemoryBytes(int64_t bytes);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_MEMORY_USAGE_H_
