#ifndef TRACELINT_PARSERS_LOAD_RUN_H_
#define TRACELINT_PARSERS_LOAD_RUN_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/model/timeline.h"
#include "analyzer/base/memory_budget.h"
#include "parsers/parse_options.h"
#include "parsers/tensorboard/discovery.h"

namespace tracelint {

struct LoadOptions {
  ParseOptions parse;
  // Files parsed at once; 0 = as many as cores (and files).
  int max_parallel_files = 0;
  // Estimated bytes of files being parsed at once (EstimateParseBytes);
  // 0 = half the machine's physical memory. One file always runs, even when
  // it alone exceeds the budget.
  size_t memory_budget_bytes = 0;
  // When set, files count against this budget instead (a batch shares one
  // across runs) and memory_budget_bytes is ignored.
  MemoryBudget* shared_budget = nullptr;
  // Cores this load may use; 0 = the machine's. Files run max_parallel_files
  // at a time and share these cores by size (ParseOptions::threads 0).
  int cores = 0;
  // Called on the parsing thread as soon as a file's timeline is complete, at
  // the address it keeps in Run::ranks, so per-rank analysis of one file
  // overlaps the parsing of the others; `cores` is the file's share of the
  // cores (its parse threads). Must be safe to call concurrently for
  // different timelines.
  std::function<void(Timeline& timeline, int cores)> on_parsed;
  // A run none of whose files could be read is a Run without ranks (each
  // file's reason in `warnings`) rather than the first file's error: a
  // shard of a sharded analyze reports its files to the merge either way.
  bool allow_no_ranks = false;
};

// Parses every discovered file into one Run, ranks ordered by rank then
// path (files without a rank after those with one). A file that fails fails
// the load with its Status, unless other files loaded: then it becomes a
// Run::warnings entry.
absl::StatusOr<Run> LoadRun(const Discovery& discovery, const LoadOptions& options);

// The order of a run's ranks, whoever loaded them (LoadRun, or the merge of
// a sharded analyze): by metadata rank, ranks without one last, then by
// path; files in discovery order in, indices into `ranks` out.
struct RankAndPath {
  int rank = -1;
  std::string path;
};
std::vector<size_t> RankOrder(const std::vector<RankAndPath>& ranks);
// "A and B both claim rank 3", for each pair of neighbours in `order`.
std::vector<std::string> DuplicateRankWarnings(const std::vector<RankAndPath>& ranks,
                                               const std::vector<size_t>& order);

// The memory a file is expected to need while parsed, from its size on disk.
size_t EstimateParseBytes(const TraceFileRef& file);

}  // namespace tracelint

#endif  // TRACELINT_PARSERS_LOAD_RUN_H_
