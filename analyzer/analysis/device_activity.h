#ifndef TRACELINT_ANALYZER_ANALYSIS_DEVICE_ACTIVITY_H_
#define TRACELINT_ANALYZER_ANALYSIS_DEVICE_ACTIVITY_H_

#include <vector>

#include "analyzer/analysis/interval_set.h"
#include "analyzer/model/timeline.h"

namespace tracelint {

// Busy intervals of one device, unioned over all its streams (and the
// overflow tracks the nesting repair made).
struct DeviceActivity {
  int device = -1;
  IntervalSet kernels;             // every kernel
  IntervalSet compute_kernels;     // kernels without kFlagCollective
  IntervalSet collective_kernels;  // NCCL/RCCL kernels
  IntervalSet memcpy;
  IntervalSet memset;
  IntervalSet htod;                // host-to-device copies only
  IntervalSet all;                 // kernels u memcpy u memset
  int64_t kernel_count = 0;
  int64_t memcpy_count = 0;
  int64_t memset_count = 0;
};

// Sorted by device index; devices with no activity are absent.
std::vector<DeviceActivity> ComputeDeviceActivity(const Timeline& tl);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_DEVICE_ACTIVITY_H_
