#ifndef TRACELINT_PARSERS_XPLANE_XPLANE_DETAILS_H_
#define TRACELINT_PARSERS_XPLANE_XPLANE_DETAILS_H_

// Decoders for the space-separated `key:value` detail strings XSpace puts on
// device events (docs/design/formats.md C.5). Unknown keys are ignored; values outside
// what hardware allows are rejected one field at a time, because real
// files carry garbage such as `regs:18446744073709551615`.

#include <string_view>

#include "analyzer/model/timeline.h"

namespace tracelint::xplane {

struct DetailsOutcome {
  int fields_read = 0;      // recognised keys with a usable value
  int fields_rejected = 0;  // recognised keys whose value was out of range
};

// kernel_details in any of its forms:
//   CUDA now:  regs:N static_shared:N dynamic_shared:N grid:x,y,z block:x,y,z occ_pct:D
//   old TF:    regs:N shm:N grid:x,y,z block:x,y,z
//   ROCm old:  grid:x,y,z block:x,y,z private_mem:N group_mem:N occ_pct:D
//   ROCm new:  regs:N static_shared:N dynamic_shared:N grid:... block:... private_mem:N [occ_pct:D]
// Shared memory is static + dynamic (CUDA), shm (old TF) or group_mem (LDS,
// ROCm). occ_pct is the tracer's theoretical occupancy; 0 means the tracer
// did not compute it (ROCm writes 0 for every kernel) and is left unknown.
DetailsOutcome ApplyKernelDetails(std::string_view text, DeviceDetails& out);

// memcpy_details: `kind_src:M kind_dst:M size:N dest:D async:B`, or the old
// `kind:K size:N dest:D async:B`. Fills bytes, src/dst memory spaces, the
// direction when the kinds imply one (an existing direction is kept), and
// `synchronous` from async:0.
DetailsOutcome ApplyMemcpyDetails(std::string_view text, DeviceDetails& out);

// Memset_details: `kind:M num_bytes:N async:B`.
DetailsOutcome ApplyMemsetDetails(std::string_view text, DeviceDetails& out);

// "Pageable", "pinned", "Device", "Unified"/"Managed", "Array"; kUnknown else.
MemorySpace MemorySpaceFromXSpaceKind(std::string_view kind);

}  // namespace tracelint::xplane

#endif  // TRACELINT_PARSERS_XPLANE_XPLANE_DETAILS_H_
