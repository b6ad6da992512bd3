#ifndef TRACELINT_PARSERS_TENSORBOARD_DISCOVERY_H_
#define TRACELINT_PARSERS_TENSORBOARD_DISCOVERY_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "parsers/format_registry.h"

namespace tracelint {

struct DiscoveryOptions {
  std::string span;  // profiling span stamp to load; empty = newest
  std::string run;   // run directory to load; empty = newest
  // Directory scans follow symlinks that stay inside the scanned tree;
  // links leading out of it are skipped with a note naming them unless
  // this is set (`--follow-links`).
  bool follow_links = false;
  // The scanned tree: empty = the path being discovered. `batch` sets the
  // path it searched, so a run's links into the rest of it stay inside.
  std::string scan_root;
};

struct TraceFileRef {
  std::string path;
  InputFormat format = InputFormat::kUnknown;
  std::string worker;  // "<worker>" of "<worker>.<stamp>.pt.trace.json", else the file stem
  std::string span;    // "<stamp>", or "" when the name has none
};

struct Discovery {
  std::vector<TraceFileRef> files;  // one per rank/host, sorted by path
  std::vector<std::string> notes;   // choices made (span, run, skipped files)
  std::vector<std::string> spans;   // every profiling span stamp seen, oldest first
  std::vector<std::string> runs;    // every TensorBoard run folder seen, by name
};

// Resolves what `tracelint analyze PATH` should load:
//  * a file: that file, if it sniffs as a trace;
//  * a directory written by torch.profiler.tensorboard_trace_handler:
//    <worker>.<stamp>.pt.trace.json[.gz], one file per worker per span; the
//    newest span (largest stamp; file times mean nothing after a copy) or
//    options.span, its workers becoming the ranks of one run. Other
//    *.json[.gz] files are sniffed and used only if they are Kineto traces;
//  * a TensorBoard log directory (plugins/profile/<run>/) or a directory of
//    run folders: the newest run (run names are timestamps) or options.run.
absl::StatusOr<Discovery> DiscoverTraces(const std::string& path,
                                         const DiscoveryOptions& options);

// Several trace files named on the command line: the ranks of one run
// (the caller checks that they are one job). Each path must be a trace file;
// a directory among several paths is InvalidArgument.
absl::StatusOr<Discovery> DiscoverFiles(const std::vector<std::string>& paths);

// The runs under `root`, for `tracelint batch`: each one a path that
// DiscoverTraces accepts. A file is one run; so is a directory holding
// trace files itself, a TensorBoard log directory (plugins/profile/) or
// plugins/profile itself. Any other directory is searched, subdirectories in
// name order, at most `max_depth` levels down. NotFound when nothing under
// `root` looks like a run.
// Symlinks follow options.follow_links; each skipped link adds a line to
// `notes`. A directory reached twice (a link, a loop) is searched once.
absl::StatusOr<std::vector<std::string>> FindRunPaths(const std::string& root, int max_depth,
                                                      const DiscoveryOptions& options = {},
                                                      std::vector<std::string>* notes = nullptr);

// Splits "<worker>[.<stamp>].pt.trace.json[.gz]" (the TensorBoard plugin's
// pattern); false when the name does not end in .pt.trace.json[.gz].
bool SplitPtTraceName(std::string_view file_name, std::string* worker, std::string* span);

}  // namespace tracelint

#endif  // TRACELINT_PARSERS_TENSORBOARD_DISCOVERY_H_
