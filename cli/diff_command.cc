#include "cli/diff_command.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "analyzer/base/escape.h"
#include "cli/exit_codes.h"
#include "cli/run_pipeline.h"
#include "cli/run_selection.h"
#include "analyzer/base/worker_pool.h"
#include "cli/report_output.h"
#include "cli/terminal.h"
#include "analyzer/engine/registry.h"
#include "analyzer/analysis/run_diff.h"
#include "analyzer/diff/diff_html.h"
#include "analyzer/diff/diff_formats.h"
#include "analyzer/diff/diff_report.h"
#include "fmt/format.h"
#include "cli/cli_docs.h"
#include "cli/limit_options.h"
#include "rules/all_rules.h"

namespace tracelint {

namespace {

// As analyze on that run: one that cannot be judged is never a silent pass
// of a comparison either (exit 5), though the diff is still printed.
void NoteNotJudgeable(const std::string& path, LoadedDiffRun& loaded, std::ostream& err) {
  if (loaded.run.judgeable) return;
  err << "tracelint: " << EscapeTerminal(path) << ": " << EscapeTerminal(loaded.run.verdict_line)
      << "\n";
  loaded.exit_code = CombineExitCodes(loaded.exit_code, kExitNotJudgeable);
}

}  // namespace

absl::StatusOr<LoadedDiffRun> LoadDiffRun(const std::string& path, const CommandRuleOptions& engine,
                                          int threads, const ParseLimits& limits,
                                          std::ostream& err, int& error_exit_code) {
  LoadedDiffRun loaded;
  if (IsJsonReportFile(path)) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    absl::StatusOr<DiffRun> run = DiffRunFromJsonReport(text.str(), path);
    if (!run.ok()) {
      error_exit_code = kExitUnreadable;
      return run.status();
    }
    loaded.run = std::move(*run);
    NoteNotJudgeable(path, loaded, err);
    return loaded;
  }
  RuleRegistry registry;
  RegisterAllRules(registry);
  absl::StatusOr<PreparedRules> rules = PrepareCommandRules(registry, engine);
  if (!rules.ok()) {
    error_exit_code = kExitUsage;
    return rules.status();
  }
  if (std::string note = DiscoveredConfigNote(registry, engine, *rules); !note.empty()) {
    err << "tracelint: note: config " << EscapeTerminal(note) << "\n";
  }
  PipelineOptions pipeline;
  pipeline.load.cores = threads;
  pipeline.load.parse.limits = limits;
  absl::StatusOr<AnalyzedRun> analyzed = AnalyzeRunAt(path, registry, *rules, pipeline);
  if (!analyzed.ok()) {
    error_exit_code = kExitUnreadable;
    return analyzed.status();
  }
  // One run per side, as `analyze` (docs/design/contract.md, "One run per
  // `analyze`"): a folder of several runs is refused with the list.
  if (analyzed->several_runs()) {
    error_exit_code = kExitUsage;
    return absl::InvalidArgumentError(SeveralRunsMessage(path, *analyzed));
  }
  for (const std::string& note : analyzed->discovery.notes) {
    err << "tracelint: note: " << EscapeTerminal(note) << "\n";
  }
  // The span compared, when a side held several (docs/design/contract.md,
  // "Newest span").
  if (!analyzed->discovery.span_choice.empty()) {
    err << "tracelint: note: " << EscapeTerminal(analyzed->discovery.span_choice) << "\n";
  }
  std::vector<std::string> warnings;
  loaded.exit_code = RunHealth(*analyzed, warnings);
  // Most warnings name their file already (a file under `path`).
  for (const std::string& w : warnings) {
    err << "tracelint: warning: "
        << EscapeTerminal(w.starts_with(path) ? w : fmt::format("{}: {}", path, w)) << "\n";
  }
  ReportInput input;
  input.input_path = path;
  for (const std::unique_ptr<Timeline>& tl : analyzed->run.ranks) input.ranks.push_back(tl.get());
  input.contexts = analyzed->ContextPointers();
  input.records = analyzed->RecordPointers();
  input.findings = std::move(analyzed->engine.findings);
  loaded.run = DiffRunFromAnalysis(input);
  NoteNotJudgeable(path, loaded, err);
  return loaded;
}

namespace {

// As `analyze`: only a diff printed on a terminal is fitted to its width.
int DiffWidth(const DiffArgs& args, const std::ostream& out) {
  if (args.width >= 0) return args.width;
  const bool terminal = IsStdoutPath(args.output) && IsStdoutTerminal(out);
  return ReportWidth(terminal, TerminalColumns(STDOUT_FILENO), std::getenv("COLUMNS"));
}

}  // namespace

int RunDiffCommand(const DiffArgs& args, std::ostream& out, std::ostream& err) {
  if (args.format != "text" && args.format != "markdown" && args.format != "json" &&
      args.format != "html") {
    err << "tracelint: --format must be text, markdown, json or html, not '" << args.format
        << "'\n";
    return kExitUsage;
  }
  for (const std::string& input : {args.base, args.next}) {
    // A saved report is not a trace directory: only overwriting it is refused.
    std::error_code ec;
    if (!args.output.empty() && IsJsonReportFile(input) &&
        std::filesystem::equivalent(args.output, input, ec)) {
      err << "tracelint: refusing to overwrite the input report " << input << "\n";
      return kExitUsage;
    }
    if (IsJsonReportFile(input)) continue;
    if (absl::Status s = CheckOutputOutsideTraces(args.output, input); !s.ok()) {
      err << "tracelint: " << s.message() << "\n";
      return kExitUsage;
    }
  }
  int exit_code = kExitOk;
  std::vector<DiffRun> runs;
  for (const std::string& path : {args.base, args.next}) {
    int error_code = kExitUnreadable;
    absl::StatusOr<LoadedDiffRun> loaded =
        LoadDiffRun(path, args.engine, args.threads, args.limits, err, error_code);
    if (!loaded.ok()) {
      err << "tracelint: " << loaded.status().message() << "\n";
      return error_code;
    }
    exit_code = CombineExitCodes(exit_code, loaded->exit_code);
    runs.push_back(std::move(loaded->run));
  }
  DiffOptions options;
  options.rank = args.rank;
  options.top_n = args.top_n;
  options.fail_on_regression_pct = args.fail_on_regression_pct;
  absl::StatusOr<RunDiff> diff = ComputeRunDiff(runs[0], runs[1], options);
  if (!diff.ok()) {
    err << "tracelint: " << diff.status().message() << "\n";
    return absl::IsInvalidArgument(diff.status()) ? kExitUsage : kExitNotJudgeable;
  }
  for (const std::string& w : diff->warnings) {
    err << "tracelint: warning: " << EscapeTerminal(w) << "; the comparison may mean little\n";
  }
  const DiffFormat* format = FindDiffFormat(args.format);
  if (format == nullptr) format = &DiffFormats().front();
  std::string text = format->render(*diff, DiffWidth(args, out));
  if (absl::Status s = WriteReport(text, args.output, out); !s.ok()) {
    PrintWriteError(err, s);
    return kExitWriteFailed;
  }
  if (diff->gate_tripped) exit_code = CombineExitCodes(exit_code, kExitFindingsGate);
  if (args.fail_on_regression_pct >= 0 && !diff->gate_evaluated) {
    err << "tracelint: --fail-on-regression not evaluated: too few steady steps to judge noise\n";
    exit_code = CombineExitCodes(exit_code, kExitNotJudgeable);
  }
  return exit_code;
}

}  // namespace tracelint

namespace tracelint {

CLI::App* DeclareDiffCommand(CLI::App& app, OptionTable& table, DiffArgs& d) {
  static constexpr char kHelp[] =
      "compare two runs step by step: what changed beyond run-to-run noise";
  CLI::App* diff = app.add_subcommand("diff", kHelp);
  CommandFlags f(*diff, table.AddCommand("diff", kHelp));
  f.Positional("base", d.base, "trace, run directory or JSON report (--format json)",
               /*required=*/true);
  f.Positional("new", d.next, "trace, run directory or JSON report", /*required=*/true);
  f.Value("--format", d.format, FormatOptionHelp(DiffFormats()), Choices(DiffFormatNames(), true));
  f.Value("-o,--output", d.output, "write the diff to this file", OutputOnly());
  OptionTraits rank = Checked(AtLeast(0));
  rank.default_text = "";
  f.Value("--rank", d.rank, "compare this rank of both runs (default: the worst)", rank);
  f.Value("--top", d.top_n, "kernels and ops listed", Checked(AtLeast(1)));
  OptionTraits width = Checked(AtLeast(0));
  width.output_only = true;
  width.default_text = "";
  f.Value("--width", d.width, "text: columns per line (default: the terminal's; 0: no limit)",
          width);
  OptionTraits regression = Checked(CLI::NonNegativeNumber);
  regression.default_text = "";
  f.Value("--fail-on-regression", d.fail_on_regression_pct,
          "exit 1 when the step time's 95% lower bound rose by more than PCT percent", regression);
  DeclareRuleFlags(f, d.engine);
  DeclareLimitFlags(f, d.limits);
  f.Value("--threads", d.threads,
          fmt::format("cores to use (0 = all; at most {})", kMaxThreads),
          Checked(Between(0, kMaxThreads)));
  return diff;
}

}  // namespace tracelint
