#ifndef TRACELINT_ANALYZER_MODEL_ACCELERATOR_H_
#define TRACELINT_ANALYZER_MODEL_ACCELERATOR_H_

#include <string>
#include <string_view>

#include "analyzer/model/metadata.h"

namespace tracelint {

// What a run's devices are, for labels and for rules that only judge GPUs:
// "TPU" (XSpace /device:TPU planes, vendor Google), "MTIA" (mtia_* Kineto
// events, vendor Meta), else "GPU".
inline std::string_view AcceleratorName(const RunMetadata& md) {
  for (const DeviceInfo& d : md.devices) {
    if (d.vendor == "Google") return "TPU";
    if (d.vendor == "Meta") return "MTIA";
  }
  if (!md.accelerator_from_events.empty()) return md.accelerator_from_events;
  return "GPU";
}

// The device's architecture in its vendor's words: "CC 8.0" on NVIDIA (the
// compute capability), "gfx942" on AMD (ROCm reports gfx9.4.2 as compute
// capability 9.4, which names no AMD product; the device name settles the
// stepping where the numbers do not). Empty when the trace does not say.
std::string DeviceArchitecture(const DeviceInfo& d);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_MODEL_ACCELERATOR_H_
