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
  // The TensorBoard run folder the file is in, when the directory held
  // several and none was picked (Discovery::runs_to_pick): files of
  // different run folders are never one run.
  std::string run_folder;
};

// How --list and the --span error name the span of files without a stamp
// ("worker0.pt.trace.json"); --span accepts it.
inline constexpr std::string_view kUnstampedSpan = "unstamped";

struct Discovery {
  std::vector<TraceFileRef> files;  // one per rank/host, sorted by path
  std::vector<std::string> notes;   // skipped files, links, run folders without a trace
  // Every profiling span seen, oldest first (kUnstampedSpan for files
  // without a stamp), and the one chosen when there were several.
  std::vector<std::string> spans;
  // "DIR: 3 profiling spans; analysing the newest (STAMP); --span to choose
  // another": the header and stderr say it (docs/design/contract.md,
  // "Newest span"). Empty when there was nothing to choose.
  std::string span_choice;
  std::string chosen_span;  // the span analysed when there were several
  std::vector<std::string> runs;    // every TensorBoard run folder seen, by name
  // Several TensorBoard run folders and no --run: `files` holds the files
  // of all of them (each with its run_folder), to be listed and refused
  // (docs/design/contract.md, "One run per `analyze`").
  bool runs_to_pick = false;
};

// Resolves what `tracelint analyze PATH` should load:
//  * a file: that file, if it sniffs as a trace;
//  * a directory written by torch.profiler.tensorboard_trace_handler:
//    <worker>.<stamp>.pt.trace.json[.gz], one file per worker per span; the
//    newest span (largest stamp; file times mean nothing after a copy) or
//    options.span, its workers becoming the ranks of one run. Other
//    *.json[.gz] files are sniffed and used only if they are Kineto traces;
//  * a TensorBoard log directory (plugins/profile/<run>/) or a directory of
//    run folders: options.run, the only run folder, or, with several and no
//    --run, the files of all of them (runs_to_pick) for the caller to list.
//    A run folder holding only summaries (no trace) is named in a note, or
//    in the error when no folder holds a trace.
absl::StatusOr<Discovery> DiscoverTraces(const std::string& path,
                                         const DiscoveryOptions& options);

// Several trace files named on the command line: the ranks of one run
// (the caller checks that they are one job). Each path must be a trace file;
// a directory among several paths is InvalidArgument.
absl::StatusOr<Discovery> DiscoverFiles(const std::vector<std::string>& paths);

// The runs under `root`, for `tracelint batch`: each one a path that
// DiscoverTraces accepts. A file is one run; so is a directory holding
// trace files itself, a TensorBoard log directory (plugins/profile/) or
// plugins/profile itself. Every directory is searched, subdirectories in
// name order, at most `max_depth` levels down, a run's too (runs in the
// subfolders of a folder that is itself a run are runs; a log directory's
// plugins/ belongs to its own run). NotFound when nothing under `root`
// looks like a run.
// Symlinks follow options.follow_links; each skipped link adds a line to
// `notes`, as does each folder passed over and why (files named like traces
// that are none, subfolders deeper than max_depth). A directory reached
// twice (a link, a loop) is searched once.
absl::StatusOr<std::vector<std::string>> FindRunPaths(const std::string& root, int max_depth,
                                                      const DiscoveryOptions& options = {},
                                                      std::vector<std::string>* notes = nullptr);

// Splits "<worker>[.<stamp>].pt.trace.json[.gz]" (the TensorBoard plugin's
// pattern); false when the name does not end in .pt.trace.json[.gz].
bool SplitPtTraceName(std::string_view file_name, std::string* worker, std::string* span);

}  // namespace tracelint

#endif  // TRACELINT_PARSERS_TENSORBOARD_DISCOVERY_H_
