#ifndef TRACELINT_ANALYZER_MODEL_TIMELINE_INVARIANTS_H_
#define TRACELINT_ANALYZER_MODEL_TIMELINE_INVARIANTS_H_

#include "absl/status/status.h"
#include "analyzer/model/timeline.h"

namespace tracelint {

// Checks what every finalized timeline must satisfy, whatever its format:
// equal column lengths; slices grouped by track and sorted by start;
// durations >= 0; proper nesting per track (a parent contains its children,
// depth = parent depth + 1, no partial overlap); flows and launch links point
// at real slices of the right kind; every device activity whose correlation
// id matches a runtime/driver call is linked to it; counters sorted by time.
// Returns the first violation, naming the slice.
absl::Status CheckTimelineInvariants(const Timeline& timeline);

// The slice-column part of the checks, on its own so tests can hand-build
// broken columns (a Timeline can only come from TimelineBuilder).
absl::Status CheckSliceColumnInvariants(const SliceColumns& slices, size_t track_count);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_MODEL_TIMELINE_INVARIANTS_H_
