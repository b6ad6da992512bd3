#include "cli/analyze_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <system_error>

#include "analyzer/analysis/run_diff.h"
#include "analyzer/base/escape.h"
#include "analyzer/diff/diff_html.h"
#include "analyzer/diff/diff_report.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "analyzer/report/json_writer.h"
#include "analyzer/report/output_formats.h"
#include "analyzer/report/report.h"
#include "analyzer/report/report_data.h"
#include "analyzer/base/worker_pool.h"
#include "cli/analyze_shard.h"
#include "cli/batch_shard.h"
#include "cli/cli_docs.h"
#include "cli/diff_command.h"
#include "cli/exit_codes.h"
#include "cli/gate.h"
#include "cli/limit_options.h"
#include "cli/output_file.h"
#include "cli/progress.h"
#include "cli/run_pipeline.h"
#include "cli/run_selection.h"
#include "cli/stdin_spool.h"
#include "cli/terminal.h"
#include "fmt/format.h"
#include "parsers/annotate/annotate_writer.h"
#include "parsers/format_registry.h"
#include "rules/all_rules.h"

namespace tracelint {
namespace {

// analyze --baseline: this run against a saved report (or any diff input).
// Sets `diff` and returns the gate's exit code, or leaves it empty and
// returns the error's.
int CompareWithBaseline(const AnalyzeArgs& args, const ReportInput& input, std::ostream& err,
                        std::optional<RunDiff>& diff) {
  int error_code = kExitUnreadable;
  absl::StatusOr<LoadedDiffRun> base =
      LoadDiffRun(args.baseline, args.engine, args.threads, args.limits, err, error_code);
  if (!base.ok()) {
    err << "tracelint: --baseline: " << base.status().message() << "\n";
    return error_code;
  }
  DiffOptions options;
  options.top_n = args.top_n;
  options.fail_on_regression_pct = args.fail_on_regression_pct;
  absl::StatusOr<RunDiff> computed = ComputeRunDiff(base->run, DiffRunFromAnalysis(input), options);
  if (!computed.ok()) {
    err << "tracelint: --baseline: " << computed.status().message() << "\n";
    return kExitNotJudgeable;
  }
  diff = std::move(*computed);
  int code = base->exit_code;
  if (diff->gate_tripped) code = CombineExitCodes(code, kExitFindingsGate);
  if (args.fail_on_regression_pct >= 0 && !diff->gate_evaluated) {
    err << "tracelint: --fail-on-regression not evaluated: too few steady steps to judge noise\n";
    code = CombineExitCodes(code, kExitNotJudgeable);
  }
  return code;
}

std::string Render(const std::string& format, const ReportInput& input) {
  const OutputFormat* f = FindReportFormat(format);
  return (f != nullptr ? f->render : ReportFormats().front().render)(input);
}

// What the JSON report records so that it can be reproduced and compared.
void FillProvenance(const std::vector<std::string>& set_overrides, const RuleRegistry& registry,
                    const PreparedRules& rules, const AnalyzedRun& analyzed,
                    ReportInput& input) {
  Provenance& p = input.provenance;
  p.rules_glob = rules.rules_glob;
  p.set_overrides = set_overrides;
  p.config_path = rules.config_path;
  p.selected_rules = rules.selected;
  for (const std::string& id : rules.selected) {
    std::vector<std::pair<std::string, double>> values;
    auto it = rules.options.find(id);
    if (it != rules.options.end()) {
      for (const auto& [name, value] : it->second.values()) values.emplace_back(name, value);
    }
    p.rule_options.emplace_back(id, std::move(values));
    input.rules.push_back({id, std::string(registry.Find(id)->summary())});
  }
  for (const RankRecord& record : analyzed.records) {
    const std::string& path = record.metadata.source_path;
    if (auto it = analyzed.file_bytes.find(path); it != analyzed.file_bytes.end()) {
      p.input_files.push_back({path, it->second});
      continue;
    }
    std::error_code ec;
    uintmax_t bytes = std::filesystem::file_size(path, ec);
    p.input_files.push_back({path, ec ? -1 : static_cast<int64_t>(bytes)});
  }
}

// --annotate: written like -o (output_file.h), gzip when the name ends in
// .gz (as Kineto names its compressed traces).
absl::Status WriteAnnotated(const ReportInput& input, const std::string& path,
                            const AnnotateOptions& options, std::ostream& err) {
  absl::StatusOr<std::unique_ptr<OutputFile>> file =
      OutputFile::Open(path, "the annotated trace", /*gzip=*/path.ends_with(".gz"));
  if (!file.ok()) return file.status();
  absl::StatusOr<AnnotateStats> stats = WriteAnnotatedTrace(input, (*file)->stream(), options);
  if (!stats.ok() && !(*file)->stream().fail()) return stats.status();  // a trace unreadable
  // A failed stream: Commit names why (and removes the temporary file).
  if (absl::Status s = (*file)->Commit(); !s.ok()) return s;
  if (!stats.ok()) return stats.status();
  if (stats->events_dropped > 0) {
    err << "tracelint: warning: --annotate: left out " << stats->events_dropped
        << " event(s) the analysis rejected (not valid JSON or UTF-8, over a limit, damaged); "
           "the tracelint_dropped_events metadata event counts them\n";
  }
  return absl::OkStatus();
}

}  // namespace

int RunAnalyze(const AnalyzeArgs& args, std::ostream& out, std::ostream& err) {
  if (args.format != "text" && args.format != "json" && args.format != "markdown" &&
      args.format != "sarif" && args.format != "html") {
    err << "tracelint: --format must be text, json, markdown, sarif or html, not '" << args.format
        << "'\n";
    return kExitUsage;
  }
  absl::StatusOr<GateOptions> gate = ParseGateOptions(args.fail_on, args.fail_on_recoverable);
  if (!gate.ok()) {
    err << "tracelint: " << gate.status().message() << "\n";
    return kExitUsage;
  }
  if (args.fail_on_regression_pct >= 0 && args.baseline.empty()) {
    err << "tracelint: --fail-on-regression needs --baseline (a report to compare with)\n";
    return kExitUsage;
  }
  if (args.merge) return RunAnalyzeMerge(args, out, err);
  // --shard I/N, or --shards N with the index from a Slurm array or a
  // Kubernetes Indexed Job (batch_shard.h).
  std::optional<ShardSpec> shard;
  if (!args.shard.empty() || args.shards > 0) {
    absl::StatusOr<ShardSpec> spec = ResolveShard(args.shard, args.shards, [](const char* name) {
      const char* v = std::getenv(name);
      return v == nullptr ? std::nullopt : std::optional<std::string>(v);
    });
    if (!spec.ok()) {
      err << "tracelint: " << spec.status().message() << "\n";
      return kExitUsage;
    }
    if (std::string why = ShardUsageError(args); !why.empty()) {
      err << "tracelint: " << why << "\n";
      return kExitUsage;
    }
    shard = *spec;
  }
  std::vector<std::string> paths = {args.path};
  paths.insert(paths.end(), args.more_paths.begin(), args.more_paths.end());
  for (const std::string& path : paths) {
    std::error_code ec;
    if (paths.size() > 1 && (path == "-" || std::filesystem::is_directory(path, ec))) {
      err << "tracelint: " << EscapeTerminal(path) << ": several inputs must all be trace files (one "
          << "directory, or stdin, goes alone)\n";
      return kExitUsage;
    }
  }
  // Outputs never touch an input (a trace, the baseline, the config), and
  // two outputs never name one file.
  std::vector<std::string> traces;
  for (const std::string& path : paths) {
    if (path != "-") traces.push_back(path);
  }
  if (absl::Status s = CheckOutputs({{"-o", args.output}, {"--annotate", args.annotate}}, traces,
                                    {args.baseline, args.engine.config_path});
      !s.ok()) {
    err << "tracelint: " << EscapeTerminal(std::string(s.message())) << "\n";
    return kExitUsage;
  }

  RuleRegistry registry;
  RegisterAllRules(registry);
  // Option errors are usage errors and must stop before any parsing work
  // (and before stdin is read).
  absl::StatusOr<PreparedRules> rules = PrepareCommandRules(registry, args.engine);
  if (!rules.ok()) {
    err << "tracelint: " << EscapeTerminal(std::string(rules.status().message())) << "\n";
    return kExitUsage;
  }
  // A config from a parent directory that changes what is checked is never
  // silent (stderr here, the report's top below).
  const std::string config_note = args.list ? "" : DiscoveredConfigNote(registry, args.engine, *rules);
  if (!config_note.empty()) err << "tracelint: note: config " << EscapeTerminal(config_note) << "\n";
  std::unique_ptr<MemoryLedger> ledger = MakeLedger(args.limits);

  // stdin, and pipes named on the command line (`<(zcat f.json.gz)`), are
  // copied into temporary files first (stdin_spool.h).
  std::vector<std::unique_ptr<SpooledTrace>> spooled;
  PathLabels labels;
  std::vector<std::string> notes;
  const SpoolLimits spool_limits = SpoolLimitsFor(args.limits, ledger->limit_bytes());
  for (std::string& path : paths) {
    if (path != "-" && !IsStreamPath(path)) continue;
    absl::StatusOr<std::unique_ptr<SpooledTrace>> copy = absl::UnknownError("not read");
    if (path == "-" && args.in != nullptr) {
      copy = SpooledTrace::FromStream(*args.in, path, spool_limits);
    } else {
      int fd = path == "-" ? ::dup(STDIN_FILENO) : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        err << "tracelint: " << EscapeTerminal(path) << ": cannot read: " << std::strerror(errno)
            << "\n";
        return kExitUnreadable;
      }
      copy = SpooledTrace::FromFd(fd, path, spool_limits);
      ::close(fd);
    }
    if (!copy.ok()) {
      err << "tracelint: " << EscapeTerminal(std::string(copy.status().message())) << "\n";
      return kExitUnreadable;
    }
    if ((*copy)->cut_warning()) notes.push_back(*(*copy)->cut_warning());
    labels[(*copy)->path()] = path;
    path = (*copy)->path();
    spooled.push_back(std::move(*copy));
  }
  const bool from_stdin = args.path == "-";

  PipelineOptions pipeline;
  pipeline.discovery.span = args.span;
  pipeline.discovery.run = args.run;
  pipeline.discovery.follow_links = args.follow_links;
  // Files share these cores by size (LoadRun); one thread analyses each rank.
  pipeline.load.cores = args.threads;
  if (args.split_bytes > 0) pipeline.load.parse.split_bytes = static_cast<size_t>(args.split_bytes);
  pipeline.load.parse.limits = args.limits;
  pipeline.load.parse.ledger = ledger.get();
  pipeline.path_labels = labels;
  pipeline.parse_only = args.list;
  const OutputFormat* format = FindReportFormat(args.format);
  pipeline.keep_events = (format != nullptr && format->needs_events) || !args.annotate.empty();
  absl::StatusOr<Discovery> discovery = paths.size() > 1
                                            ? DiscoverFiles(paths)
                                            : DiscoverTraces(paths[0], pipeline.discovery);
  if (shard.has_value() && discovery.ok()) {
    return AnalyzeShard(args, *shard, registry, *rules, config_note, std::move(*discovery),
                        pipeline, out, err);
  }
  ProgressLine progress(err, IsTerminal(err), std::chrono::seconds(1));
  if (discovery.ok()) {
    progress.ShowAfterDelay(fmt::format("tracelint: reading and analysing {} file(s)...",
                                        discovery->files.size()));
  }
  absl::StatusOr<AnalyzedRun> analyzed =
      discovery.ok() ? AnalyzeDiscovered(std::move(*discovery), registry, *rules, pipeline)
                     : absl::StatusOr<AnalyzedRun>(discovery.status());
  progress.Finish();
  if (!analyzed.ok()) {
    err << "tracelint: "
        << EscapeTerminal(Relabel(std::string(analyzed.status().message()), labels)) << "\n";
    return kExitUnreadable;
  }
  if (args.list) {
    absl::Status s = WriteReport(ListRunsText(*analyzed), args.output, out);
    PrintWriteError(err, s);
    return s.ok() ? kExitOk : kExitWriteFailed;
  }
  RunWords words;
  words.input_label = from_stdin ? "-" : Relabel(fmt::format("{}", fmt::join(paths, " ")), labels);
  words.config_note = config_note;
  words.set_overrides = args.engine.set_overrides;
  words.labels = std::move(labels);
  words.notes = std::move(notes);
  return ReportAnalyzedRun(args, registry, *rules, words, *analyzed, out, err);
}

int ReportAnalyzedRun(const AnalyzeArgs& args, const RuleRegistry& registry,
                      const PreparedRules& rules, const RunWords& words, AnalyzedRun& analyzed,
                      std::ostream& out, std::ostream& err) {
  const std::string& input_label = words.input_label;
  const std::string& config_note = words.config_note;
  const PathLabels& labels = words.labels;
  const std::vector<std::string>& notes = words.notes;
  if (analyzed.several_runs()) {
    err << "tracelint: " << SeveralRunsMessage(input_label, analyzed);
    return kExitUsage;
  }

  ReportInput input;
  input.input_path = input_label;
  input.config_note = config_note;
  input.no_timeline_reason = words.no_timeline_reason;
  // docs/design/contract.md, "Newest span": the choice is said in the header
  // and on stderr.
  if (!analyzed.discovery.span_choice.empty()) {
    err << "tracelint: note: " << EscapeTerminal(analyzed.discovery.span_choice) << "\n";
    const bool sessions = analyzed.discovery.spans.size() < 2;  // plugins/profile/<session>/
    input.span_note = fmt::format(
        "{}, the newest of {} profiling {}; {} to choose another", analyzed.discovery.chosen_span,
        sessions ? analyzed.discovery.runs.size() : analyzed.discovery.spans.size(),
        sessions ? "sessions" : "spans", sessions ? "--run" : "--span");
  }
  for (const std::unique_ptr<Timeline>& tl : analyzed.run.ranks) input.ranks.push_back(tl.get());
  input.contexts = analyzed.ContextPointers();
  input.records = analyzed.RecordPointers();
  input.findings = std::move(analyzed.engine.findings);
  input.not_judged = std::move(analyzed.engine.not_judged);
  input.warnings = analyzed.run.warnings;
  for (const std::string& note : analyzed.discovery.notes) input.warnings.push_back(note);
  for (const std::string& note : args.notes) input.warnings.push_back(note);
  if (args.price_per_hour > 0 && args.batch_size <= 0) {
    // Said, not silently dropped: the price alone divides nothing.
    std::string why =
        "--price-per-hour needs --batch-size (samples per step per rank): without it neither "
        "samples/s nor samples per dollar can be computed, so neither is shown";
    err << "tracelint: note: " << why << "\n";
    input.warnings.push_back(why);
  }
  for (const std::string& note : notes) input.warnings.push_back(note);
  input.options.top_n = args.top_n;
  input.options.batch_size = args.batch_size;
  input.options.price_per_hour = args.price_per_hour;
  // Only a report on a terminal is cut to its width and coloured.
  const bool terminal = IsStdoutPath(args.output) && IsStdoutTerminal(out);
  TextOptions& text = input.options.text;
  text.width_columns = args.width >= 0 ? args.width
                                       : ReportWidth(terminal, TerminalColumns(STDOUT_FILENO),
                                                     std::getenv("COLUMNS"));
  text.color = UseColor(args.color, terminal, std::getenv("NO_COLOR"));
  text.verbosity = args.quiet     ? TextVerbosity::kQuiet
                   : args.verbose ? TextVerbosity::kVerbose
                                  : TextVerbosity::kNormal;
  text.all_steps = args.steps == "all";
  input.sarif.source_root = args.source_root;
  input.sarif.docs_url = args.docs_url;
  input.sarif.docs_ref = args.docs_ref;
  input.sarif.anchor = args.sarif_anchor;
  FillProvenance(words.set_overrides, registry, rules, analyzed, input);

  std::vector<std::string> warnings = notes;
  int exit_code = RunHealth(analyzed, warnings);
  // A copy cut at a limit analysed part of the input.
  if (!notes.empty()) exit_code = CombineExitCodes(exit_code, kExitDamaged);
  for (const std::string& w : warnings) err << "tracelint: warning: " << EscapeTerminal(w) << "\n";

  // A run nobody can judge is never a silent pass (exit 5), and a tripped
  // gate outranks it (exit_codes.h).
  Verdict verdict = input.summary().verdict;
  if (!verdict.judgeable) {
    err << "tracelint: " << verdict.line << "\n";
    exit_code = CombineExitCodes(exit_code, kExitNotJudgeable);
  }
  // docs/design/contract.md, "Exit codes, added": when every selected rule
  // could not judge and nothing was found, "no findings" would be a false
  // green.
  if (verdict.judgeable && input.findings.empty() && !rules.selected.empty()) {
    std::set<std::string> not_judged;
    for (const RuleOutcome& o : input.not_judged) not_judged.insert(o.rule_id);
    if (not_judged.size() == rules.selected.size()) {
      err << "tracelint: nothing could be judged: every selected rule (" 
          << fmt::format("{}", fmt::join(rules.selected, ", "))
          << ") could not judge this run, and nothing was found\n";
      exit_code = CombineExitCodes(exit_code, kExitNotJudgeable);
    }
  }
  absl::StatusOr<GateOptions> gate = ParseGateOptions(args.fail_on, args.fail_on_recoverable);
  if (!gate.ok()) return kExitUsage;  // RunAnalyze checked it
  GateResult gated = EvaluateGate(*gate, input.findings);
  for (const std::string& reason : gated.reasons) err << "tracelint: gate: " << reason << "\n";
  if (gated.tripped) exit_code = CombineExitCodes(exit_code, kExitFindingsGate);

  std::optional<RunDiff> baseline_diff;
  BaselineSection baseline_section;
  if (!args.baseline.empty()) {
    int baseline_code = CompareWithBaseline(args, input, err, baseline_diff);
    if (!baseline_diff.has_value()) return baseline_code;
    exit_code = CombineExitCodes(exit_code, baseline_code);
    baseline_section.headline = StepTimeVerdict(*baseline_diff);
    baseline_section.html = RenderDiffHtmlSection(*baseline_diff);
    baseline_section.text = RenderDiffText(*baseline_diff, input.options.text.width_columns);
    baseline_section.markdown = RenderDiffMarkdown(*baseline_diff);
    baseline_section.write_json = [&baseline_diff](JsonWriter& w) { WriteDiffJson(w, *baseline_diff); };
    input.baseline = &baseline_section;
  }

  if (!args.annotate.empty()) {
    AnnotateOptions annotate;
    annotate.limits = args.limits;
    // Where each rank's events are read again: a copy's own path.
    std::map<std::string, std::string> copy_of;
    for (const auto& [copy, label] : labels) copy_of[label] = copy;
    for (const Timeline* tl : input.ranks) {
      auto it = copy_of.find(tl->metadata().source_path);
      annotate.source_paths.push_back(it != copy_of.end() ? it->second : "");
    }
    absl::Status s = WriteAnnotated(input, args.annotate, annotate, err);
    if (!s.ok()) {
      if (!IsQuietWriteError(s)) {
        err << "tracelint: --annotate: "
            << EscapeTerminal(Relabel(std::string(s.message()), labels)) << "\n";
      }
      exit_code = CombineExitCodes(exit_code, kExitWriteFailed);
    }
  }
  // JSON carries it as "baseline_diff" and HTML as a section of its page;
  // SARIF, a list of results, has no place for it.
  std::string report = Render(args.format, input);
  if (absl::Status s = WriteReport(report, args.output, out); !s.ok()) {
    PrintWriteError(err, s);
    return CombineExitCodes(exit_code, kExitWriteFailed);
  }
  return exit_code;
}

}  // namespace tracelint

namespace tracelint {

void DeclareReportFlags(CommandFlags& f, AnalyzeArgs& a, bool step_rows_option) {
  f.Value("--format", a.format, FormatOptionHelp(ReportFormats()), Choices(ReportFormatNames(), true));
  f.Value("-o,--output", a.output, "write the report to this file ('-': stdout)", OutputOnly());
  OptionTraits color = Choices({"auto", "always", "never"}, true);
  f.Value("--color", a.color, "colour severities: auto (on a terminal), always, never", color);
  CLI::Option* quiet = f.Flag("-q,--quiet", a.quiet, "text: the findings' lines only", OutputOnly());
  f.Flag("-v,--verbose", a.verbose, "text: everything (every step, rank and evidence)",
         OutputOnly())
      ->excludes(quiet);
  if (step_rows_option) {
    f.Value("--steps", a.steps, "text: per-step rows, outliers (default) or all",
            Choices({"outliers", "all"}, true));
  }
  OptionTraits width = Checked(AtLeast(0));
  width.output_only = true;
  width.default_text = "";
  f.Value("--width", a.width, "text: columns per line (default: the terminal's; 0: no limit)",
          width);
  f.Value("--fail-on", a.fail_on, "exit 1 when a finding at or above this severity is present",
          Choices({"high", "medium", "low"}));
  f.Value("--fail-on-recoverable", a.fail_on_recoverable,
          "exit 1 when the findings recover at least this share of the step (0.2 or 20%)");
  f.Value("--source-root", a.source_root,
          "SARIF: checkout that Python frames are mapped into (default: cwd)");
  f.Value("--docs-url", a.docs_url,
          "SARIF: repository URL of the rule docs (helpUri = URL/blob/REF/rules/docs/<id>.md)");
  f.Value("--docs-ref", a.docs_ref,
          "SARIF: REF of helpUri (default: the commit tracelint was built from, else main)");
  f.Value("--sarif-anchor", a.sarif_anchor,
          "SARIF: repository-relative file a finding without a mapped Python frame points at "
          "(default: README.md)");
  f.Value("--annotate", a.annotate,
          "also write the trace with the findings drawn on it (Chrome/Perfetto JSON)",
          OutputOnly());
  f.Value("--top", a.top_n, "rows in the top-kernel/op tables and findings shown",
          Checked(AtLeast(1)));
  f.Value("--batch-size", a.batch_size, "samples per step per rank (samples/s)",
          Checked(AtLeast(0)));
  f.Value("--price-per-hour", a.price_per_hour,
          "price of all machines of the run per hour (samples per dollar)",
          Checked(FiniteAtLeastZero()));
  DeclareRuleFlags(f, a.engine);
  DeclareLimitFlags(f, a.limits);
  f.Value("--threads", a.threads,
          fmt::format("cores to use (0 = all; at most {})", kMaxThreads),
          Checked(Between(0, kMaxThreads)));
  OptionTraits split;
  split.hidden = true;
  f.Value("--split-bytes", a.split_bytes,
          "split large event arrays into parts of this size (testing)", split);
  f.Value("--baseline", a.baseline,
          "compare with this JSON report (or trace) as `tracelint diff` does");
  OptionTraits regression = Checked(CLI::NonNegativeNumber);
  regression.default_text = "";
  f.Value("--fail-on-regression", a.fail_on_regression_pct,
          "with --baseline: exit 1 when the step time's 95% lower bound rose by more than PCT "
          "percent",
          regression);
}

CLI::App* DeclareAnalyzeCommand(CLI::App& app, OptionTable& table, AnalyzeArgs& a) {
  static constexpr char kHelp[] = "analyze a trace file or directory";
  CLI::App* analyze = app.add_subcommand("analyze", kHelp);
  CommandFlags f(*analyze, table.AddCommand("analyze", kHelp));
  f.Positional("path", a.path, "trace file (" + InputExtensionsText() + "), directory, or - for stdin",
               /*required=*/true);
  f.Positional("more-paths", a.more_paths, "more trace files: the ranks of one run",
               /*required=*/false);
  f.Flag("--list", a.list, "list the runs, spans and ranks found, without analysing");
  f.Value("--shard", a.shard,
          "analyse shard I of N (I/N, from 0) of the run's files and write its part (JSON Lines) "
          "for --merge");
  f.Value("--shards", a.shards,
          "shard count, the index from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX",
          Checked(AtLeast(0)));
  f.Flag("--merge", a.merge,
         "report the run from the parts its shards wrote (the paths), as one process would");
  DeclareReportFlags(f, a, /*step_rows_option=*/true);
  f.Value("--span", a.span, "profiling span stamp to analyse (default newest)");
  f.Value("--run", a.run, "TensorBoard run to analyse (default newest)");
  DeclareFollowLinksFlag(f, a.follow_links);
  return analyze;
}

}  // namespace tracelint
