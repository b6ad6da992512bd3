#ifndef TRACELINT_PARSERS_ANNOTATE_ANNOTATE_TIMELINE_H_
#define TRACELINT_PARSERS_ANNOTATE_ANNOTATE_TIMELINE_H_

// A converted timeline (XSpace input) as Chrome trace events, for
// `--annotate` when there is no Chrome JSON to copy.

#include <cstdint>
#include <string>
#include <utility>

#include "analyzer/model/timeline.h"

namespace tracelint {

// `ns` as a decimal number of us with three decimals, exactly (a double
// holds an epoch time in ns only to 256 ns).
std::string ExactUs(TimeNs ns);

// The Chrome pid and tid of a track of rank position `rank_pos` in the
// converted output: one process per rank and device (host threads under
// 1000 x (rank_pos + 1), device d under that + 1 + d), so ranks and
// devices never share a process whatever the source's ids.
std::pair<int64_t, int64_t> ConvertedPidTid(const Track& track, size_t rank_pos);

// The names of the annotated trace's processes (docs/design/contract.md,
// "Annotated trace"): "rank R GPU d" ("TPU d", "MTIA d" by the run's
// accelerator), "rank R host"; R is the rank, else the position.
std::string DeviceProcessName(const Timeline& tl, size_t rank_pos, int64_t device);
std::string HostProcessName(const Timeline& tl, size_t rank_pos);

// Every slice of `tl` as a Chrome "X" event (Kineto categories, ts/dur in
// us from the trace's own origin) plus process and thread names, joined by
// ",\n" without brackets; empty for a timeline without tracks.
std::string TimelineAsChromeEvents(const Timeline& tl, size_t rank_pos);

}  // namespace tracelint

#endif  // TRACELINT_PARSERS_ANNOTATE_ANNOTATE_TIMELINE_H_
