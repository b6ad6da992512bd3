#ifndef TRACELINT_PARSERS_KINETO_KINETO_CATEGORIES_H_
#define TRACELINT_PARSERS_KINETO_KINETO_CATEGORIES_H_

// What Kineto's event categories, flow categories and special pids mean
// (docs/design/formats.md A.3-A.6), for the event emitter.

#include <cstdint>
#include <string_view>

#include "analyzer/model/event_kinds.h"

namespace tracelint::kineto {

struct CategoryInfo {
  EventKind kind = EventKind::kOther;  // kOther: not a Kineto category
  bool device = false;
  uint32_t feature = 0;  // a kFeat* bit (kineto_event_emitter.h), or 0
};

// Categories of every Kineto vintage, compared case-insensitively as the
// TensorBoard plugin does (docs/design/formats.md A.4).
CategoryInfo ClassifyCategory(std::string_view cat, bool has_cat);

// MTIA device events: DMA transfers are copies, event record/wait are
// stream synchronization (not work), everything else (pe_exe, remote,
// merge: compiled graph executions) is compute on the device.
EventKind MtiaDeviceKind(std::string_view name);
CopyDirection MtiaCopyDirection(std::string_view direction);

// Flow categories of launch arrows (host launch -> device activity), of
// every Kineto vintage.
bool IsGpuFlowCategory(std::string_view cat);

// String pids Kineto itself writes (docs/design/formats.md A.6); any other string pid
// is a name a non-Kineto producer gave its process.
bool IsKinetoStringPid(std::string_view pid);

}  // namespace tracelint::kineto

#endif  // TRACELINT_PARSERS_KINETO_KINETO_CATEGORIES_H_
