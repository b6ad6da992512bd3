#ifndef TRACELINT_CLI_ANALYZE_SHARD_H_
#define TRACELINT_CLI_ANALYZE_SHARD_H_

// `tracelint analyze --shard I/N` and `analyze --merge` (docs/sharding.md):
// one run of many ranks analysed by N processes, each parsing its share of
// the files, and merged into the report one process would have written.
//
// A part file is JSON Lines, one self-describing record per line:
//   {"type": "analyze-shard", ...}  the run: every file with its size and
//                                   shard, the discovery's notes, the
//                                   rules and their options, the
//                                   configuration's hash
//   {"type": "rank", ...}           one per rank of the shard: its record
//                                   (rank_record_io.h) and its rule
//                                   outcomes before the cross-rank merge
//   {"type": "skipped", ...}        a file of the shard that could not be read
//   {"type": "analyze-end", ...}    the shard finished
// each line ending with the checksum of the rest ("sum"), so that a line
// altered after it was written is named as damage, never merged.
// so that the merge rebuilds the run's ranks in their order, runs the
// cross-rank merge on them, and names the ranks of a shard that wrote
// nothing or was cut short.

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/engine/engine.h"
#include "cli/run_pipeline.h"

namespace tracelint {

inline constexpr int kAnalyzeShardVersion = 1;

// What every shard of one run states alike; the merge refuses parts whose
// headers differ (config_hash).
struct AnalyzeShardHeader {
  int shard = 0;  // 0-based
  int shards = 1;
  std::string tool_version;
  std::string input;  // the run as named on the command line
  struct File {
    std::string path;
    int64_t bytes = -1;
    int shard = 0;
  };
  std::vector<File> files;  // every file of the run, in discovery order
  // The discovery's words (Discovery's fields of the same names).
  std::vector<std::string> notes;
  std::vector<std::string> spans;
  std::string span_choice;
  std::string chosen_span;
  std::vector<std::string> runs;
  // The rules the shards ran, as PreparedRules and Provenance hold them.
  std::string rules_glob = "*";
  std::vector<std::string> set_overrides;
  std::string config_path;
  std::vector<std::string> selected;
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>> rule_options;
  std::string config_note;  // ReportInput::config_note
  // Of everything above but `shard`: parts of one sharded run share it.
  std::string config_hash;
};

// The header of shard `shard` of `shards` of a discovered run: its files
// split by size (batch_shard.h's PartitionRuns, so each node of an array
// job computes the same split), its rules, its hash.
AnalyzeShardHeader MakeShardHeader(const Discovery& discovery, int shard, int shards,
                                   const std::string& input, const PreparedRules& rules,
                                   const std::vector<std::string>& set_overrides,
                                   const std::string& config_note);

// The files of the header's shard, for the pipeline.
Discovery ShardDiscovery(const Discovery& discovery, const AnalyzeShardHeader& header);

// The part file of an analysed shard (AnalyzeDiscovered with
// PipelineOptions::shard).
std::string RenderShardPart(const AnalyzeShardHeader& header, const AnalyzedRun& analyzed);

// One part file read back.
struct ShardPart {
  std::string path;
  AnalyzeShardHeader header;
  struct Rank {
    RankRecord record;
    std::vector<RuleOutcome> outcomes;
  };
  std::map<std::string, Rank> ranks;           // by file path
  std::map<std::string, std::string> skipped;  // file path -> why
  bool complete = false;                       // the end record was read
  int64_t truncated_at_line = 0;               // > 0: that last line was cut short
};

// `text` with every line's checksum made anew, as if the lines had been
// written as they are: for tests and fuzzers that forge parts.
std::string ResignShardPart(std::string_view text);

// Errors name the file and line (a file of something else, a damaged
// line before the last, a record of another shard in the same file).
absl::StatusOr<ShardPart> ParseShardPart(std::string_view text, const std::string& path);
absl::StatusOr<ShardPart> ReadShardPart(const std::string& path);

// The merge: the run as one process would have analysed it, from its
// parts, with `rules` set from their header and `header` (the first part's)
// returned for the report's run-level words. A missing or incomplete part
// is a warning (`warnings`), its files skipped as unreadable ones are
// (exit 3 for the run); parts of different runs or configurations are
// InvalidArgument (a usage error); no part readable, or no rank in any,
// FailedPrecondition.
struct MergedShards {
  AnalyzeShardHeader header;
  PreparedRules rules;
  AnalyzedRun analyzed;
};
absl::StatusOr<MergedShards> MergeShardParts(const std::vector<std::string>& paths,
                                             const RuleRegistry& registry,
                                             std::vector<std::string>& warnings);

}  // namespace tracelint

#endif  // TRACELINT_CLI_ANALYZE_SHARD_H_
