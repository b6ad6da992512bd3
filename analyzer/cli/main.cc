// tracelint: reads GPU profiler traces and ranks what wastes GPU time.
// main stays tiny: parsing the command line and calling the testable
// commands in analyze_command.cc, batch_command.cc, diff_command.cc,
// capture_command.cc and rules_command.cc.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "analyzer/base/version.h"
#include "analyzer/cli/analyze_command.h"
#include "analyzer/cli/batch_command.h"
#include "analyzer/cli/capture_command.h"
#include "analyzer/cli/cli_docs.h"
#include "analyzer/cli/diff_command.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/cli/limit_options.h"
#include "analyzer/cli/rules_command.h"

namespace {

void AddRuleOptions(CLI::App& command, tracelint::EngineOptions& engine) {
  command.add_option("--rules", engine.rules_glob, "rule selection globs, e.g. '-*,gpu-*'")
      ->each([&engine](const std::string&) { engine.rules_given = true; });
  command.add_option("--set", engine.set_overrides, "rule option, <rule-id>.<Option>=value");
  command.add_option("--config", engine.config_path,
                     "config file (TOML or JSON); default: tracelint.toml or pyproject.toml's "
                     "[tool.tracelint], from the current directory upward");
  // Flags win over the file; --no-config ignores any file found.
  engine.discover_config = true;
  command.add_flag_callback("--no-config", [&engine] { engine.discover_config = false; },
                            "do not look for tracelint.toml / pyproject.toml");
}

// The report options of `analyze`, shared by `capture`, which analyses
// what it recorded through the same code path.
// `capture` has its own --steps (an NVTX range name), so it shows per-step
// rows with -v only.
void AddReportOptions(CLI::App& command, tracelint::AnalyzeArgs& a, bool step_rows_option) {
  using namespace tracelint;
  command.add_option("--format", a.format, "output format: text, json, markdown, sarif or html")
      ->check(CLI::IsMember({"text", "json", "markdown", "sarif", "html"}));
  command.add_option("-o,--output", a.output, "write the report to this file ('-': stdout)");
  command.add_option("--color", a.color, "colour severities: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  CLI::Option* quiet = command.add_flag("-q,--quiet", a.quiet, "text: the findings' lines only");
  command.add_flag("-v,--verbose", a.verbose, "text: everything (every step, rank and evidence)")
      ->excludes(quiet);
  if (step_rows_option) {
    command.add_option("--steps", a.steps, "text: per-step rows, outliers (default) or all")
        ->check(CLI::IsMember({"outliers", "all"}));
  }
  command.add_option("--width", a.width,
                     "text: columns per line (default: the terminal's; 0: no limit)")
      ->check(AtLeast(0));
  command
      .add_option("--fail-on", a.fail_on,
                  "exit 1 when a finding at or above this severity is present")
      ->check(CLI::IsMember({"high", "medium", "low"}));
  command.add_option("--fail-on-recoverable", a.fail_on_recoverable,
                     "exit 1 when the findings recover at least this share of the step "
                     "(0.2 or 20%)");
  command.add_option("--source-root", a.source_root,
                     "SARIF: checkout that Python frames are mapped into (default: cwd)");
  command.add_option("--docs-url", a.docs_url,
                     "SARIF: base URL of the rule docs (helpUri = URL/rules/docs/<id>.md)");
  command.add_option("--annotate", a.annotate,
                     "also write the trace with the findings drawn on it (Chrome/Perfetto JSON)");
  command.add_option("--top", a.top_n, "rows in the top-kernel/op tables and findings shown")
      ->check(AtLeast(1));
  command.add_option("--batch-size", a.batch_size, "samples per step per rank (samples/s)");
  command.add_option("--price-per-hour", a.price_per_hour,
                     "price of all machines of the run per hour (samples per dollar)");
  AddRuleOptions(command, a.engine);
  AddLimitOptions(command, a.limits);
  command.add_option("--threads", a.threads, "cores to use (0 = all)")->check(AtLeast(0));
  command.add_option("--split-bytes", a.split_bytes,
                     "split large event arrays into parts of this size (testing)");
  command.add_option("--baseline", a.baseline,
                     "compare with this JSON report (or trace) as `tracelint diff` does");
  command
      .add_option("--fail-on-regression", a.fail_on_regression_pct,
                  "with --baseline: exit 1 when the step time's 95% lower bound rose by "
                  "more than PCT percent")
      ->check(CLI::NonNegativeNumber);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tracelint;
  CLI::App app{"tracelint: finds what wastes GPU time in profiler traces, ranked by the step "
               "time you would win back",
               "tracelint"};
  app.require_subcommand(1);
  const std::string kVersion = "tracelint " + std::string(kToolVersion);
  app.set_version_flag("--version", kVersion);
  bool help_man = false;
  app.add_flag("--help-man", help_man, "print the man page")->group("");  // hidden

  AnalyzeArgs a;
  CLI::App* analyze = app.add_subcommand("analyze", "analyze a trace file or directory");
  analyze->add_option("path", a.path,
                      "trace file (.json, .json.gz, .xplane.pb), directory, or - for stdin")
      ->required();
  analyze->add_option("more-paths", a.more_paths, "more trace files: the ranks of one run");
  analyze->add_flag("--list", a.list, "list the runs, spans and ranks found, without analysing");
  AddReportOptions(*analyze, a, /*step_rows_option=*/true);
  analyze->add_option("--span", a.span, "profiling span stamp to analyse (default newest)");
  analyze->add_option("--run", a.run, "TensorBoard run to analyse (default newest)");
  AddFollowLinksOption(*analyze, a.follow_links);

  BatchArgs b;
  CLI::App* batch = app.add_subcommand(
      "batch", "analyze every run under the given paths, in parallel, into one table");
  batch->add_option("paths", b.paths,
                    "run files or directories, or archives of runs (with --merge: the shard "
                    "outputs)")
      ->required();
  batch->add_option("--format", b.format,
                    "output format: text, markdown, csv, json, or jsonl (one record per run, "
                    "for --merge)")
      ->check(CLI::IsMember({"text", "markdown", "csv", "json", "jsonl"}));
  batch->add_option("-o,--output", b.output,
                    "write the table to this file, atomically ('-': stdout)");
  batch->add_option("-j,--jobs", b.jobs, "runs analysed at once (0 = as many as cores)")
      ->check(AtLeast(0));
  batch->add_option("--threads", b.threads, "cores for the whole batch (0 = all)")
      ->check(AtLeast(0));
  batch->add_option("--max-depth", b.max_depth, "directory levels searched for runs")
      ->check(AtLeast(0));
  batch->add_option("--sort", b.sort,
                    "row order: path (as found) or a column (run, status, device, start, "
                    "ranks, steps, step-time, gpu-util, findings, recoverable, top-cost, "
                    "samples-per-s, price, samples-per-dollar, ...), optionally :asc or :desc");
  batch->add_option("--shard", b.shard,
                    "analyse shard I of N (I/N, from 0): a size-balanced share of the runs; "
                    "default from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX");
  batch->add_option("--shards", b.shards,
                    "shard count, with JOB_COMPLETION_INDEX (Kubernetes Indexed Job)")
      ->check(AtLeast(0));
  batch->add_flag("--merge", b.merge,
                  "combine shard outputs (--format jsonl) into the table one process prints");
  batch->add_option("--group-by", b.group_by,
                    "aggregate by device, dir:N (directory level N) or regex:PATTERN");
  batch->add_option("--batch-size", b.batch_size,
                    "samples per step per rank, for samples/s and samples per dollar")
      ->check(AtLeast(0));
  batch->add_option("--batch-size-from", b.batch_size_from,
                    "regex on the run's path whose first group is its batch size "
                    "(e.g. 'bs(\\d+)')");
  batch->add_option("--prices", b.prices,
                    "TOML price table: \"<device substring or path glob>\" = price per "
                    "device-hour");
  batch->add_flag("--trend", b.trend,
                  "show runs by trace time and where step time or a finding's cost changed");
  batch->add_option("--trend-threshold", b.trend_threshold_pct,
                    "smallest change the trend shows, percent (default 10)")
      ->check(CLI::NonNegativeNumber);
  AddRuleOptions(*batch, b.engine);
  AddLimitOptions(*batch, b.limits);
  AddFollowLinksOption(*batch, b.follow_links);

  DiffArgs d;
  CLI::App* diff = app.add_subcommand(
      "diff", "compare two runs step by step: what changed beyond run-to-run noise");
  diff->add_option("base", d.base, "trace, run directory or JSON report (--format json)")
      ->required();
  diff->add_option("new", d.next, "trace, run directory or JSON report")->required();
  diff->add_option("--format", d.format,
                   "output format: text, markdown, json or html (one self-contained page)")
      ->check(CLI::IsMember({"text", "markdown", "json", "html"}));
  diff->add_option("-o,--output", d.output, "write the diff to this file");
  diff->add_option("--rank", d.rank, "compare this rank of both runs (default: the worst)")
      ->check(AtLeast(0));
  diff->add_option("--top", d.top_n, "kernels and ops listed")->check(AtLeast(1));
  diff->add_option("--width", d.width,
                   "text: columns per line (default: the terminal's; 0: no limit)")
      ->check(AtLeast(0));
  diff->add_option("--fail-on-regression", d.fail_on_regression_pct,
                   "exit 1 when the step time's 95% lower bound rose by more than PCT percent")
      ->check(CLI::NonNegativeNumber);
  AddRuleOptions(*diff, d.engine);
  AddLimitOptions(*diff, d.limits);
  diff->add_option("--threads", d.threads, "cores to use (0 = all)")->check(AtLeast(0));

  CaptureArgs c;
  CLI::App* capture = app.add_subcommand(
      "capture", "run a CUDA program under CUPTI, write its traces, and analyze them");
  capture->add_option("--out", c.out_dir,
                      "new or empty directory for the traces (default ./tracelint-capture-<time>)");
  capture->add_option("--steps", c.steps,
                      "NVTX range name that marks one step (becomes ProfilerStep#N)");
  capture->add_option("--delay", c.delay_s, "start recording S seconds after the program starts")
      ->check(CLI::NonNegativeNumber);
  capture->add_option("--duration", c.duration_s,
                      "record for S seconds (default: until the program exits)")
      ->check(CLI::NonNegativeNumber);
  capture->add_flag("--keep-raw", c.keep_raw,
                    "keep the raw CUPTI record dumps (<out>/.tracelint-raw/)");
  AddReportOptions(*capture, c.analyze, /*step_rows_option=*/false);
  capture->add_option("command", c.command, "the program and its arguments, after --")
      ->required();

  RulesArgs r;
  CLI::App* rules = app.add_subcommand("rules", "list the rules and their options");
  rules->add_flag("--dump-config", r.dump_config, "print every option with its default");
  rules->add_option("id", r.id, "show this rule's documentation page");

  // With stdout closed (`>&-`) the next file opened would become fd 1 and
  // the report would go into it: hold fd 1 with a read-only /dev/null so
  // writing the report fails and exits kExitWriteFailed instead.
  if (::fcntl(STDOUT_FILENO, F_GETFD) < 0 && errno == EBADF) {
    ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  }
  std::string help_topic;
  CLI::App* help = app.add_subcommand("help", "show the help of tracelint or of one command");
  help->add_option("command", help_topic, "the command to explain");
  CLI::App* version = app.add_subcommand("version", "print the version");
  std::string shell;
  CLI::App* completions = app.add_subcommand(
      "completions", "print the shell completion script (bash, zsh or fish)");
  completions->add_option("shell", shell, "bash, zsh or fish")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh", "fish"}));

  std::vector<std::string> words(argv + 1, argv + argc);
  if (std::optional<std::string> unknown = CheckUnknownWords(app, words)) {
    std::cerr << "tracelint: " << *unknown << "\n";
    return kExitUsage;
  }
  if (words.size() == 1 && words[0] == "--help-man") {
    std::cout << ManPage(app, kVersion);
    return kExitOk;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 reports through exceptions; map them to the usage exit code.
    int code = app.exit(e);
    return e.get_exit_code() == 0 ? code : kExitUsage;
  }
  if (*analyze) return RunAnalyze(a, std::cout, std::cerr);
  if (*batch) return RunBatch(b, std::cout, std::cerr);
  if (*diff) return RunDiffCommand(d, std::cout, std::cerr);
  if (*capture) return RunCapture(c, std::cout, std::cerr);
  if (*rules) return RunRulesCommand(r, std::cout, std::cerr);
  if (*version) {
    std::cout << kVersion << "\n";
    return kExitOk;
  }
  if (*completions) {
    std::cout << CompletionScript(app, shell).value_or("");
    return kExitOk;
  }
  if (*help) {
    if (!help_topic.empty()) {
      if (std::optional<std::string> unknown = CheckUnknownWords(app, {help_topic})) {
        std::cerr << "tracelint: " << *unknown << "\n";
        return kExitUsage;
      }
    }
    const CLI::App* topic = help_topic.empty() ? &app : app.get_subcommand(help_topic);
    // app.help() would show the help of the command being run ("help").
    std::cout << (topic == &app ? app.get_formatter()->make_help(&app, app.get_name(),
                                                                 CLI::AppFormatMode::Normal)
                                : topic->help(app.get_name()));
    return kExitOk;
  }
  return kExitUsage;
}
