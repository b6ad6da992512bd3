#ifndef TRACELINT_ANALYZER_MODEL_ACCELERATOR_H_
#define TRACELINT_ANALYZER_MODEL_ACCELERATOR_H_

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

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_MODEL_ACCELERATOR_H_
