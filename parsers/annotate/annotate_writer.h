#ifndef TRACELINT_PARSERS_ANNOTATE_ANNOTATE_WRITER_H_
#define TRACELINT_PARSERS_ANNOTATE_ANNOTATE_WRITER_H_

// `analyze --annotate OUT.json`: the run's trace written back out as one
// Chrome/Perfetto trace JSON with the analysis drawn on it
// (docs/design/contract.md, "Annotated trace").
//
// Kineto/Chrome JSON input: every event of every rank's file that the tool
// read is copied with its `ts` untouched; its pid is remapped so that each
// rank and device is one process ("rank R GPU d", "rank R host"), and ranks
// profiled on the same local GPU never merge. Events the tool rejected or
// never read (not valid JSON or UTF-8, over a limit, damaged, past where
// reading stopped) are dropped and counted in a "tracelint_dropped_events"
// metadata event, so the output is always valid JSON and valid UTF-8. The
// top-level members other than traceEvents come from the first rank's file.
// XSpace input: the converted timeline, one process per rank and device,
// with the slices' names, times and arguments. After the events comes one
// "tracelint" process per rank with one thread per finding rule: the idle
// gaps of the analysed steps named for their cause, each finding's worst
// instance named for the finding (its numbers in args), and flow arrows
// from a gap to the host op that caused it.

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "analyzer/report/report.h"
#include "parsers/parse_options.h"

namespace tracelint {

// The pid of rank position `rank_pos`'s tracelint process: far above real
// pids (Linux caps them at 2^22) and device indices.
inline constexpr int64_t kAnnotatePidBase = 2'000'000'000;

struct AnnotateOptions {
  // The limits the traces were read with: events over the string or
  // nesting limit were dropped by the parser, and are here too.
  ParseLimits limits;
  // Where rank position i's trace is read again; absent or "": its
  // metadata's source_path (a trace from stdin names its temporary copy).
  std::vector<std::string> source_paths;
};

struct AnnotateStats {
  int64_t events_written = 0;  // the input's events copied
  int64_t events_dropped = 0;  // the input's events left out (see above)
};

// Writes the annotated trace to `out`. The ranks' events must not have been
// released (Timeline::ReleaseEvents). Errors: a rank's source file could not
// be read again, or `out` failed.
absl::StatusOr<AnnotateStats> WriteAnnotatedTrace(const ReportInput& input, std::ostream& out,
                                                  const AnnotateOptions& options = {});

// The process and thread a flow arrow ends on, for a host track of the rank.
using HostPidTid = std::function<std::pair<int64_t, int64_t>(const Track& host)>;

// The tracelint events of one rank only, as comma-separated JSON objects
// (no brackets), with timestamps in us relative to `base_time_ns`; the flow
// arrows point at host threads through `host_pid_tid`.
std::string AnnotationEvents(const ReportInput& input, size_t rank_pos, TimeNs base_time_ns,
                             const HostPidTid& host_pid_tid);

}  // namespace tracelint

#endif  // TRACELINT_PARSERS_ANNOTATE_ANNOTATE_WRITER_H_
