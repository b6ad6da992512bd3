#ifndef TRACELINT_CLI_ANALYZE_COMMAND_H_
#define TRACELINT_CLI_ANALYZE_COMMAND_H_

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "analyzer/engine/engine.h"
#include "cli/batch_shard.h"
#include "cli/config_discovery.h"
#include "cli/option_table.h"
#include "cli/run_pipeline.h"
#include "parsers/parse_options.h"

namespace tracelint {

struct AnalyzeArgs {
  std::string path;  // "-": a trace on stdin
  // Further trace files: with `path`, the ranks of one run.
  std::vector<std::string> more_paths;
  bool list = false;  // print the runs found (files, start times) instead
  std::istream* in = nullptr;  // what "-" reads; nullptr: std::cin
  std::string format = "text";  // text | json | markdown | sarif | html
  // The text report's layout (docs/output-formats.md, "Text").
  std::string color = "auto";  // auto | always | never
  bool quiet = false;          // -q: the findings' lines only
  bool verbose = false;        // -v: everything
  std::string steps = "outliers";  // outliers | all: rows of the per-step table
  int width = -1;              // --width: columns; 0: no limit; -1: the terminal's
  std::string output;           // empty or "-": stdout
  std::string annotate;         // --annotate: the annotated trace JSON; empty: none
  int top_n = 10;
  int64_t batch_size = 0;
  double price_per_hour = 0;
  std::string span;
  std::string run;
  bool follow_links = false;  // --follow-links: scans follow links out of the tree
  CommandRuleOptions engine;  // --rules, --set, --config, --no-config
  int threads = 0;  // cores to use; 0 = the machine's
  int64_t split_bytes = 0;  // 0: parser default
  ParseLimits limits;       // --max-decompressed-bytes, --max-events, ...
  // --baseline REPORT.json: the diff against it follows the report (diff.h).
  std::string baseline;
  double fail_on_regression_pct = -1;  // with --baseline; < 0: no gate
  // The gate (gate.h): "" is off.
  std::string fail_on;              // high | medium | low
  std::string fail_on_recoverable;  // "0.2" or "20%"
  // SARIF locations (docs/design/contract.md): Python frames are mapped into this
  // checkout (default: the current directory); helpUri base.
  std::string source_root;
  std::string docs_url;
  std::string docs_ref;      // helpUri's <ref>; empty: the build's commit, else main
  std::string sarif_anchor;  // location without a mapped frame; empty: README.md
  // Shown with the report's warnings (capture: how the program ended).
  std::vector<std::string> notes;
  // A sharded analyze (docs/sharding.md): --shard I/N, or --shards N with
  // the index from the environment; --merge: `path` and `more_paths` are
  // the parts to merge.
  std::string shard;
  int shards = 0;
  bool merge = false;
};

// The whole `tracelint analyze` job, testable without a process: returns
// the exit code (exit_codes.h), writes the report to `out` (or args.output)
// and one-line errors/warnings to `err`.
int RunAnalyze(const AnalyzeArgs& args, std::ostream& out, std::ostream& err);

// What the report of an analysed run says of how it was asked for.
struct RunWords {
  std::string input_label;  // the run as the user named it
  std::string config_note;  // ReportInput::config_note
  std::vector<std::string> set_overrides;
  PathLabels labels;               // stdin and pipe copies -> their names
  std::vector<std::string> notes;  // a copy cut at a limit
  std::string no_timeline_reason;  // ReportInput::no_timeline_reason
};

// Everything `analyze` does after the analysis, for one process and for a
// merge of shards alike: the report, its warnings, the gate, --baseline,
// --annotate (which needs the ranks' timelines).
int ReportAnalyzedRun(const AnalyzeArgs& args, const RuleRegistry& registry,
                      const PreparedRules& rules, const RunWords& words, AnalyzedRun& analyzed,
                      std::ostream& out, std::ostream& err);

// analyze_shard_command.cc: the options a shard refuses ("" when none),
// a shard's part written, and the merge of parts reported.
std::string ShardUsageError(const AnalyzeArgs& args);
int AnalyzeShard(const AnalyzeArgs& args, const ShardSpec& shard, const RuleRegistry& registry,
                 const PreparedRules& rules, const std::string& config_note, Discovery discovery,
                 const PipelineOptions& pipeline, std::ostream& out, std::ostream& err);
int RunAnalyzeMerge(const AnalyzeArgs& args, std::ostream& out, std::ostream& err);

// The report options of `analyze` (format, output, gates, rules, limits,
// ...), shared by `capture`, which analyses what it recorded the same way.
// `capture` has its own --steps (an NVTX range name): without
// `step_rows_option` the per-step rows come with -v only.
void DeclareReportFlags(CommandFlags& flags, AnalyzeArgs& args, bool step_rows_option);
// The `analyze` command and its flags, on `app` and in `table`.
CLI::App* DeclareAnalyzeCommand(CLI::App& app, OptionTable& table, AnalyzeArgs& args);

}  // namespace tracelint

#endif  // TRACELINT_CLI_ANALYZE_COMMAND_H_
