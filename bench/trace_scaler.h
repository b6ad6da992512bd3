#ifndef TRACELINT_BENCH_TRACE_SCALER_H_
#define TRACELINT_BENCH_TRACE_SCALER_H_

// Grows a real Kineto trace to a target size for the benchmark (issue 32):
// its profiled body (every event but the metadata) is written again and
// again, each copy shifted in time and with every id space offset, so the
// copies' launches, flows and steps link up as the original's do.
//
// Per copy k (0 = the original):
//  * "ts" of body events + k x period, the period being the body's time
//    span (first start to last end) rounded up to a whole microsecond, plus
//    1 us; only the integer part of the decimal text changes, so fractions
//    keep their digits.
//  * ids + k x stride, one stride for all id spaces (the largest id of any
//    of them + 1), because they refer to each other (an ac2g flow's id is
//    its launch's correlation): the flow "id" of every event, and the args
//    "External id" (either spelling), "correlation", "Python id", "Python
//    parent id", "Ev Idx", "Record function id", "Sequence number", "Seq".
//  * ProfilerStep#N -> ProfilerStep#(N + k x steps), steps = the number of
//    step numbers the original spans, so step names stay unique.
// Metadata is written once: "ph":"M" events and the profiler's own
// spans and markers (pid "Spans", "Traces" or "", category "Trace");
// their complete events are stretched over all copies and their instants
// after the body's midpoint move to the last copy. Keys around the event
// array are copied unchanged. Events are joined by the separator the input
// uses most, so single-line traces stay single-line.

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "tools/gen_kineto/byte_sink.h"

namespace tracelint::bench {

struct ScaleOptions {
  // Copies are chosen so the output is as near this as whole copies get
  // (at least one copy). Ignored when `copies` > 0.
  int64_t target_bytes = 0;
  int64_t copies = 0;
};

struct ScaleStats {
  int64_t copies = 0;
  int64_t output_bytes = 0;
  int64_t body_events = 0;  // per copy
  int64_t once_events = 0;  // metadata, written once
  int64_t period_us = 0;
  int64_t id_stride = 0;
  int64_t step_stride = 0;  // 0 when the trace has no ProfilerStep#N
};

// Scales the uncompressed trace `json` into `out` (closed on success).
absl::StatusOr<ScaleStats> ScaleTrace(std::string_view json, const ScaleOptions& options,
                                      gen::ByteSink& out);

// Reads `in_path` (.json or gzip) and writes the scaled trace to `out_path`
// through a temporary file renamed when complete.
absl::StatusOr<ScaleStats> ScaleTraceFile(const std::string& in_path,
                                          const std::string& out_path,
                                          const ScaleOptions& options);

}  // namespace tracelint::bench

#endif  // TRACELINT_BENCH_TRACE_SCALER_H_
