#ifndef TRACELINT_PARSERS_KINETO_CHROME_TF1_LAUNCHES_H_
#define TRACELINT_PARSERS_KINETO_CHROME_TF1_LAUNCHES_H_

// TF1 timelines record no runtime calls and no correlation ids, but the
// executor's op on the host ("/job:.../device:GPU:0 Compute", args.name =
// the node name) and the kernels and copies it put on that GPU's streams
// ("/device:GPU:0/stream:N Compute") carry the same node name. That name is
// the link: each device activity is linked to the latest op of its GPU with
// its node name that started no later, so idle time before it can be tied
// to what the host did, as for a Kineto trace's launch calls.
//
// Copies named after an edge ("edge_12_IteratorGetNext") come from the
// executor's send/recv, which the timeline does not record: they stay
// unlinked rather than being tied to the op that produced the tensor.

#include <cstdint>
#include <vector>

#include "analyzer/model/timeline_builder.h"

namespace tracelint::kineto {

// What a track of a TF1 timeline holds, by track id.
struct Tf1Track {
  bool host_ops = false;  // "/job:.../device:X:N Compute": the executor's ops
  bool stream = false;    // "/device:GPU:N/stream:M Compute": a stream's work
  int device = -1;        // the GPU ordinal (-1: none, e.g. the CPU device)
};

struct Tf1Links {
  int64_t linked = 0;         // device activities linked to their op
  bool run_step = false;      // the one session.run became ProfilerStep#0
};

// Call after the tracks' slices have their device kinds. Flags every op of
// a GPU's executor as dispatch (kFlagDeviceOpDispatch) and gives the linked
// ops and their activities a shared correlation id. A timeline of one
// session.run (each executor ran `_SOURCE` once) is one step: it becomes a
// ProfilerStep#0 marker over its events, on a track of its own, as XSpace's
// step events do.
Tf1Links ApplyTf1Links(const std::vector<Tf1Track>& tracks, TimelineBuilder& b);

}  // namespace tracelint::kineto

#endif  // TRACELINT_PARSERS_KINETO_CHROME_TF1_LAUNCHES_H_
