// `tracelint analyze --shard I/N` and `analyze --merge` (docs/sharding.md).

#include <filesystem>
#include <ostream>

#include "analyzer/base/escape.h"
#include "analyzer/engine/registry.h"
#include "cli/analyze_command.h"
#include "cli/analyze_shard.h"
#include "cli/exit_codes.h"
#include "cli/report_output.h"
#include "fmt/format.h"
#include "rules/all_rules.h"

namespace tracelint {

std::string ShardUsageError(const AnalyzeArgs& args) {
  if (args.merge) return "--shard/--shards and --merge: a shard writes a part, --merge reads them";
  if (args.path == "-") return "--shard needs the run's files (a directory or paths), not stdin";
  if (args.list) return "--shard and --list: --list lists the whole run";
  // What the report is and what gates it are decided once, at the merge.
  if (args.format != "text") {
    return "--shard writes its part (JSON Lines) with -o; --format is the merge's";
  }
  if (!args.annotate.empty()) return "--annotate is refused with --shard (and --merge): it draws on "
                                     "every rank's events; run it on one process";
  if (!args.baseline.empty() || !args.fail_on.empty() || !args.fail_on_recoverable.empty()) {
    return "--shard: --baseline and the gates (--fail-on...) apply at the merge";
  }
  return "";
}

int AnalyzeShard(const AnalyzeArgs& args, const ShardSpec& shard, const RuleRegistry& registry,
                 const PreparedRules& rules, const std::string& config_note, Discovery discovery,
                 const PipelineOptions& pipeline_in, std::ostream& out, std::ostream& err) {
  if (discovery.runs_to_pick) {
    err << "tracelint: " << EscapeTerminal(args.path)
        << " holds several TensorBoard runs: --shard analyses one; pick it with --run NAME\n";
    return kExitUsage;
  }
  std::string input = args.path;
  for (const std::string& p : args.more_paths) input += " " + p;
  const AnalyzeShardHeader header = MakeShardHeader(
      discovery, shard.index, shard.count, input, rules, args.engine.set_overrides, config_note);
  PipelineOptions pipeline = pipeline_in;
  pipeline.shard = true;
  pipeline.keep_events = false;
  Discovery mine = ShardDiscovery(discovery, header);
  AnalyzedRun analyzed;
  if (!mine.files.empty()) {
    absl::StatusOr<AnalyzedRun> run = AnalyzeDiscovered(std::move(mine), registry, rules, pipeline);
    if (!run.ok()) {
      err << "tracelint: " << EscapeTerminal(std::string(run.status().message())) << "\n";
      return kExitUnreadable;
    }
    analyzed = std::move(*run);
  }
  // The ranks' health is the merge's to judge (it sees every rank and
  // exits 3 for a damaged one); a shard says what it skipped.
  for (const Run::Skipped& s : analyzed.run.skipped) {
    err << "tracelint: warning: skipped: " << EscapeTerminal(s.reason) << "\n";
  }
  if (absl::Status s = WriteReport(RenderShardPart(header, analyzed), args.output, out); !s.ok()) {
    PrintWriteError(err, s);
    return kExitWriteFailed;
  }
  return kExitOk;
}

int RunAnalyzeMerge(const AnalyzeArgs& args, std::ostream& out, std::ostream& err) {
  auto usage = [&err](const std::string& why) {
    err << "tracelint: " << EscapeTerminal(why) << "\n";
    return kExitUsage;
  };
  if (!args.annotate.empty()) {
    return usage("--annotate is refused with --merge: it draws on every rank's events, which "
                 "the parts do not hold; run it on one process");
  }
  if (args.list || !args.span.empty() || !args.run.empty()) {
    return usage("--merge takes the parts of a sharded analyze; --list, --span and --run apply "
                 "to the shards");
  }
  if (args.engine.rules_given || !args.engine.set_overrides.empty() ||
      !args.engine.config_path.empty()) {
    return usage("--merge uses the rules the shards ran with (their parts name them); "
                 "--rules, --set and --config apply to the shards");
  }
  std::vector<std::string> paths = {args.path};
  paths.insert(paths.end(), args.more_paths.begin(), args.more_paths.end());
  if (!IsStdoutPath(args.output)) {
    for (const std::string& path : paths) {
      std::error_code ec;
      if (std::filesystem::equivalent(path, args.output, ec)) {
        return usage(fmt::format("refusing to write {}: it is a part being merged", args.output));
      }
    }
  }
  RuleRegistry registry;
  RegisterAllRules(registry);
  std::vector<std::string> warnings;
  absl::StatusOr<MergedShards> merged = MergeShardParts(paths, registry, warnings);
  for (const std::string& w : warnings) err << "tracelint: warning: " << EscapeTerminal(w) << "\n";
  if (!merged.ok()) {
    err << "tracelint: " << EscapeTerminal(std::string(merged.status().message())) << "\n";
    return absl::IsInvalidArgument(merged.status()) ? kExitUsage : kExitUnreadable;
  }
  if (!merged->header.config_note.empty()) {
    err << "tracelint: note: config " << EscapeTerminal(merged->header.config_note) << "\n";
  }
  RunWords words;
  words.input_label = merged->header.input;
  words.config_note = merged->header.config_note;
  words.set_overrides = merged->header.set_overrides;
  words.no_timeline_reason =
      "this report was merged from the parts of a sharded analyze, which hold each rank's "
      "summaries, not its events. To see the worst step, run `tracelint analyze --format html` "
      "on that rank's file (the per-rank table names it), or on the whole run in one process.";
  int code = ReportAnalyzedRun(args, registry, merged->rules, words, merged->analyzed, out, err);
  // A part missing or cut short: ranks are missing from the report.
  return warnings.empty() ? code : CombineExitCodes(code, kExitDamaged);
}

}  // namespace tracelint
