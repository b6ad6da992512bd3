#ifndef TRACELINT_PARSERS_ANNOTATE_ANNOTATE_WRITER_H_
#define TRACELINT_PARSERS_ANNOTATE_ANNOTATE_WRITER_H_

// `analyze --annotate OUT.json`: the run's trace written back out as one
// Chrome/Perfetto trace JSON with the analysis drawn on it.
//
// Kineto/Chrome JSON input: every event of every rank's file is copied byte
// for byte (the top-level members other than traceEvents come from the first
// rank's file), so the output reads back as the same events. XSpace input:
// the converted timeline, one Chrome process per host pid / device, with the
// slices' names, times and arguments. After the events comes one "tracelint"
// process per rank with one thread per finding rule: the idle gaps of the
// analysed steps named for their cause, each finding's worst instance named
// for the finding (its numbers in args), and flow arrows from a gap to the
// host op that caused it.

#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "analyzer/report/report.h"

namespace tracelint {

// The pid of rank position `rank_pos`'s tracelint process: far above real
// pids (Linux caps them at 2^22) and device indices.
inline constexpr int64_t kAnnotatePidBase = 2'000'000'000;

// Writes the annotated trace to `out`. The ranks' events must not have been
// released (Timeline::ReleaseEvents). Errors: a rank's source file could not
// be read again.
absl::Status WriteAnnotatedTrace(const ReportInput& input, std::ostream& out);

// The tracelint events of one rank only, as comma-separated JSON objects
// (no brackets), with timestamps in us relative to `base_time_ns`; the flow
// arrows point at host threads by the source's pid/tid, or by
// ConvertedPidTid when `converted`.
std::string AnnotationEvents(const ReportInput& input, size_t rank_pos, TimeNs base_time_ns,
                             bool converted);

}  // namespace tracelint

#endif  // TRACELINT_PARSERS_ANNOTATE_ANNOTATE_WRITER_H_
