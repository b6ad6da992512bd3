#ifndef TRACELINT_PARSERS_KINETO_CHROME_DEVICE_TRACKS_H_
#define TRACELINT_PARSERS_KINETO_CHROME_DEVICE_TRACKS_H_

// Device timelines of Chrome trace JSON that TensorFlow and JAX write. They
// carry no Kineto categories: their processes and threads are named as
// devices instead (docs/input-formats.md):
//
//   TensorFlow 1 timeline (timeline.Timeline(...).generate_chrome_trace_format()),
//   one process per device track, suffixed " Compute" (ops) or " Tensors":
//     /device:GPU:0/stream:13 Compute   one stream's kernels and copies
//     /device:GPU:0/stream:all Compute  every stream's kernels again
//     /device:GPU:0/memcpy Compute      every stream's copies again
//     /gpu:0/stream:7 Compute ...       the same, before TF 1.3 or so
//     /job:localhost/.../device:CPU:0 Compute, .../device:GPU:0 Compute:
//                                       the executor's ops, on the host
//   xprof trace viewer (TF2 <host>.trace.json.gz, JAX perfetto_trace.json.gz):
//     process /device:GPU:N (maybe followed by a description), threads
//     "Stream #13(Compute)", "Stream #14(MemcpyH2D)" (the device's work) and
//     "XLA Ops", "XLA Modules", "Steps", "TensorFlow Ops", ... (derived from
//     them); process /device:TPU:N, thread "XLA Ops" (a TPU core's work);
//     process /host:CPU.
//
// The host-thread tracks these events were first put on become device
// streams (pid = device ordinal, tid = stream), their slices kernels,
// copies or memsets. Tracks that repeat others (stream:all, memcpy, XLA Ops
// of a GPU with streams) and derived tracks become 'other' tracks of
// device annotations, so no busy time is counted twice.

#include <cstdint>
#include <vector>

#include "analyzer/model/timeline_builder.h"
#include "parsers/kineto/kineto_event_emitter.h"

namespace tracelint::kineto {

// Who the process and thread names say wrote the trace.
enum class ChromeProducer : uint8_t {
  kNone,         // no TensorFlow/XLA names
  kTensorFlow1,  // TF1 timeline names
  kTensorFlow,   // xprof names, and TensorFlow's own (TensorFlow Ops, tf_* threads)
  kJax,          // xprof names, and JAX's own (jit_ XLA modules, PJRT threads)
  kXla,          // xprof names only: TensorFlow or JAX
};

struct ChromeDeviceTracks {
  ChromeProducer producer = ChromeProducer::kNone;
  bool tpu = false;             // a /device:TPU:N track holds the work
  int64_t device_streams = 0;   // tracks made device streams
  int64_t linked_launches = 0;  // TF1 device activities linked to their op
};

// Retags the builder's host-thread tracks named as above, with the
// process_name/thread_name events of the whole file. Call once every part
// is merged and B/E pairs are slices, before Finalize. Slices that already
// have a Kineto kind keep it. Adds info diagnostics for what it skipped.
ChromeDeviceTracks ApplyChromeDeviceTracks(const std::vector<ProcessNameEvent>& processes,
                                           const std::vector<TrackNameEvent>& threads,
                                           TimelineBuilder& b);

}  // namespace tracelint::kineto

#endif  // TRACELINT_PARSERS_KINETO_CHROME_DEVICE_TRACKS_H_
