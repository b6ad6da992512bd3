#ifndef TRACELINT_CLI_BATCH_COMMAND_H_
#define TRACELINT_CLI_BATCH_COMMAND_H_

#include <iosfwd>
#include <string>
#include <vector>

#include "analyzer/engine/engine.h"
#include "cli/config_discovery.h"
#include "parsers/parse_options.h"
#include "cli/option_table.h"

namespace tracelint {

struct BatchArgs {
  // Run archives: each path is a run (file, run directory, TensorBoard log
  // directory) or is searched for runs (FindRunPaths). With `merge`: the
  // shard outputs (--format jsonl) to combine.
  std::vector<std::string> paths;
  std::string format = "text";  // text | markdown | csv | json | jsonl
  int width = -1;  // text: columns; 0: no limit; -1: the terminal's, else COLUMNS
  std::string output;           // empty: stdout
  int jobs = 0;                 // runs analysed at once; 0 = cores
  int threads = 0;              // cores for the whole batch; 0 = the machine's
  int max_depth = 6;            // directory levels searched for runs
  bool follow_links = false;    // --follow-links: scans follow links out of the tree
  // batch_fleet.h BatchView::sort: "path" (as found), "recoverable",
  // "step-time", ... with an optional ":asc" / ":desc".
  std::string sort = "path";
  // Sharding (batch_shard.h): "I/N"; or the shard count for
  // JOB_COMPLETION_INDEX (and to override a Slurm array's count).
  std::string shard;
  int shards = 0;
  bool merge = false;  // `batch --merge FILES...`
  // Fleet view (batch_fleet.h).
  std::string group_by;
  int64_t batch_size = 0;
  std::string batch_size_from;
  std::string prices;  // TOML price table
  bool trend = false;
  double trend_threshold_pct = 10;
  CommandRuleOptions engine;  // --rules, --set, --config, --no-config
  ParseLimits limits;    // --max-decompressed-bytes, --max-events, ...
};

// The whole `tracelint batch` job: every run (of this shard) analysed,
// `jobs` at a time, each on its share of the cores, all under one memory
// budget; one row per run in the order found, then the view (sort, groups,
// prices, trend). A run that fails is a row saying why; the batch goes on.
// Exit codes over all runs by docs/design/contract.md's precedence: kExitUnreadable
// when a run could not be read, else kExitDamaged when a run was damaged,
// else kExitOk; kExitUsage for bad options; kExitWriteFailed when the table
// could not be written.
int RunBatch(const BatchArgs& args, std::ostream& out, std::ostream& err);

// `tracelint batch --merge FILES...`: the shard outputs combined into the
// table one process would print (same view options, same exit code), with
// the runs of a missing or incomplete shard listed as "missing" (exit
// kExitDamaged at least). Records made with another configuration, or
// shards that disagree on the partition, are refused (kExitUsage).
int RunBatchMerge(const BatchArgs& args, std::ostream& out, std::ostream& err);

// The `batch` command and its flags, on `app` and in `table`.
CLI::App* DeclareBatchCommand(CLI::App& app, OptionTable& table, BatchArgs& args);

}  // namespace tracelint

#endif  // TRACELINT_CLI_BATCH_COMMAND_H_
