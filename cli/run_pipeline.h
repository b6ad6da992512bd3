#ifndef TRACELINT_CLI_RUN_PIPELINE_H_
#define TRACELINT_CLI_RUN_PIPELINE_H_

#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/rank_record.h"
#include "cli/report_output.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "analyzer/model/timeline.h"
#include "parsers/load_run.h"
#include "parsers/run_groups.h"
#include "parsers/tensorboard/discovery.h"

namespace tracelint {

// Inputs read from a temporary copy (stdin, a pipe): the copy's path -> the
// name the user gave ("-", "/dev/fd/63"). Messages, reports and the run's
// file list show the name, never the copy.
using PathLabels = std::map<std::string, std::string>;

// `text` with every copy's path replaced by its name.
std::string Relabel(std::string text, const PathLabels& labels);

struct PipelineOptions {
  DiscoveryOptions discovery;
  LoadOptions load;
  // Group the files only (`analyze --list`): each file's facts from its head
  // and tail (ReadRunFileFacts), no parse of the events, no analysis.
  bool parse_only = false;
  // Keep every rank's events and analyses after its analysis (the HTML
  // timeline and --annotate read them); otherwise a multi-rank run keeps
  // only each rank's record (rank_record.h).
  bool keep_events = false;
  // The files are a shard of a larger run (`analyze --shard`, docs/sharding.md):
  // every rank keeps only its record, with its cross-rank data; the rule
  // outcomes are kept unmerged (AnalyzedRun::rank_outcomes); a shard none of
  // whose files can be read is not an error; and the grouping into runs is
  // left to the merge, which sees every rank.
  bool shard = false;
  PathLabels path_labels;
};

// One run, analysed: what `analyze` reports and `batch` summarizes.
struct AnalyzedRun {
  Discovery discovery;
  Run run;
  // records[i]: what the merge and the reports read of run.ranks[i]
  // (rank_record.h). contexts[i]: its analyses, kept only with its events
  // (keep_events, or a run of one file); empty otherwise.
  std::vector<std::unique_ptr<AnalysisContext>> contexts;
  std::vector<RankRecord> records;
  EngineResult engine;
  // PipelineOptions::shard: each rank's outcomes before the merge (parallel
  // to records), and `engine` left empty.
  std::vector<std::vector<RuleOutcome>> rank_outcomes;
  // The size of each input file by path, when the files are not at hand (a
  // merge of shards reports what the shards saw); empty: read from disk.
  std::map<std::string, int64_t> file_bytes;
  // What each loaded file says about its job, and the runs they form. With
  // more than one run (several_runs()) nothing was merged: the caller picks
  // one or analyses each (AnalyzeDiscovered on a run's files).
  std::vector<RunFileFacts> file_facts;
  RunGrouping grouping;

  bool several_runs() const { return grouping.runs.size() > 1; }
  // The discovery of run `index` of the grouping alone.
  Discovery RunDiscovery(size_t index) const;

  std::vector<AnalysisContext*> ContextPointers() const;
  std::vector<const RankRecord*> RecordPointers() const;
};

// Discovers, loads and analyses the run at `path`. Each rank's analyses and
// rule checks run on the thread that parsed it, as soon as it is parsed, so
// one rank's analysis overlaps the parsing of the others; the merge across
// ranks is serial and does not depend on which rank finished first.
// Errors: the path holds no readable trace (discovery or every file failed).
absl::StatusOr<AnalyzedRun> AnalyzeRunAt(const std::string& path, const RuleRegistry& registry,
                                         const PreparedRules& rules,
                                         const PipelineOptions& options);

// The same for files already discovered (several files named on the command
// line, or one run of a directory holding several).
absl::StatusOr<AnalyzedRun> AnalyzeDiscovered(Discovery discovery, const RuleRegistry& registry,
                                              const PreparedRules& rules,
                                              const PipelineOptions& options);

// CheckOutputOutsideTraces and WriteReport live in report_output.h.

// kExitOk, or kExitDamaged when a rank's input was truncated or damaged or a
// file of the run could not be read at all; the one-line reasons (without the "tracelint: " prefix) are appended to
// `warnings`, followed by the load's and the engine's warnings.
int RunHealth(const AnalyzedRun& analyzed, std::vector<std::string>& warnings);

}  // namespace tracelint

#endif  // TRACELINT_CLI_RUN_PIPELINE_H_
