#include "cli/batch_command.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <new>
#include <optional>

#include "absl/strings/string_view.h"
#include "analyzer/base/escape.h"
#include "cli/batch_output.h"
#include "cli/batch_shard.h"
#include "cli/exit_codes.h"
#include "cli/progress.h"
#include "cli/run_pipeline.h"
#include "analyzer/batch/batch_records.h"
#include "analyzer/batch/batch_table.h"
#include "analyzer/report/report_data.h"
#include "fmt/format.h"
#include "analyzer/base/memory_budget.h"
#include "analyzer/base/worker_pool.h"
#include "cli/cli_docs.h"
#include "cli/limit_options.h"
#include "rules/all_rules.h"

namespace tracelint {
namespace {

struct RunSlot {
  std::string path;
  std::string root;                        // the batch path it was found under
  std::optional<absl::Status> find_error;  // the search itself failed
  int shard = 0;
  // One record per run found at the path (several when the files found
  // together are not one job); only rows and findings, never timelines.
  std::vector<BatchRecord> records;
};

BatchRow ErrorRow(const std::string& path, const absl::Status& status) {
  BatchRow row;
  row.run = path;
  row.status = BatchStatus::kError;
  row.error = std::string(status.message());
  return row;
}

// The row of one analysed run, labelled `label`.
BatchRow RowOf(const std::string& label, AnalyzedRun& analyzed,
               std::vector<std::string>& warnings) {
  ReportInput input;
  input.input_path = label;
  for (const std::unique_ptr<Timeline>& tl : analyzed.run.ranks) input.ranks.push_back(tl.get());
  input.contexts = analyzed.ContextPointers();
  input.records = analyzed.RecordPointers();
  input.findings = std::move(analyzed.engine.findings);
  BatchRow row = SummarizeRunForBatch(input);
  std::vector<std::string> run_warnings;
  if (RunHealth(analyzed, run_warnings) == kExitDamaged) {
    row.status = BatchStatus::kDamaged;
    row.error = run_warnings.empty() ? "damaged input" : run_warnings.front();
  }
  // As analyze: a run nobody can judge is never a clean row, and not
  // judgeable outranks damaged as exit 5 outranks 4 (exit_codes.h); the
  // damage, often why nothing could be judged, leads the reason.
  if (Verdict verdict = input.summary().verdict; !verdict.judgeable) {
    row.error = row.status == BatchStatus::kDamaged ? row.error + "; " + verdict.reason
                                                    : verdict.reason;
    row.status = BatchStatus::kNotJudgeable;
  }
  warnings.insert(warnings.end(), run_warnings.begin(), run_warnings.end());
  // What the run's discovery passed over (files that are not traces, a
  // TensorBoard run with no trace) or chose (the newest span) is said too.
  for (const std::string& note : analyzed.discovery.notes) warnings.push_back(note);
  if (!analyzed.discovery.span_choice.empty()) warnings.push_back(analyzed.discovery.span_choice);
  return row;
}

void AnalyzeOne(RunSlot& slot, int64_t index, const RuleRegistry& registry,
                const PreparedRules& rules, const PipelineOptions& pipeline) {
  auto add = [&](int sub) -> BatchRecord& {
    BatchRecord& rec = slot.records.emplace_back();
    rec.index = index;
    rec.sub = sub;
    return rec;
  };
  // Links inside the searched path stay inside the scanned tree.
  PipelineOptions options = pipeline;
  options.discovery.scan_root = slot.root;
  absl::StatusOr<AnalyzedRun> analyzed = absl::UnknownError("not analysed");
  try {
    analyzed = AnalyzeRunAt(slot.path, registry, rules, options);
  } catch (const std::bad_alloc&) {
    // One run that exhausts memory is its own row; the others go on.
    analyzed = absl::ResourceExhaustedError(
        OutOfMemoryText(slot.path, LedgerOf(options.load.parse)));
  }
  if (!analyzed.ok()) {
    add(0).row = ErrorRow(slot.path, analyzed.status());
  } else if (!analyzed->several_runs()) {
    BatchRecord& rec = add(0);
    rec.row = RowOf(slot.path, *analyzed, rec.warnings);
  } else {
    // Files found together that are not one job: one row per run, each
    // analysed on its own (parsed again: the grouping needed them all parsed).
    size_t runs = analyzed->grouping.runs.size();
    for (size_t g = 0; g < runs; ++g) {
      BatchRecord& rec = add(static_cast<int>(g));
      if (g == 0)
        rec.warnings.push_back(fmt::format("{} holds {} runs; one row each", slot.path, runs));
      const RunFileFacts& first = analyzed->file_facts[analyzed->grouping.runs[g].files[0]];
      // A TensorBoard run is named by its folder; other runs found together
      // by their first file.
      std::string label =
          !first.run_folder.empty()
              ? (std::filesystem::path(first.path).parent_path()).string()
              : fmt::format("{} (run {}: {})", slot.path, g + 1,
                            std::filesystem::path(first.path).filename().string());
      absl::StatusOr<AnalyzedRun> one = absl::UnknownError("not analysed");
      try {
        one = AnalyzeDiscovered(analyzed->RunDiscovery(g), registry, rules, pipeline);
      } catch (const std::bad_alloc&) {
        one = absl::ResourceExhaustedError(OutOfMemoryText(label, LedgerOf(options.load.parse)));
      }
      rec.row = one.ok() ? RowOf(label, *one, rec.warnings) : ErrorRow(label, one.status());
    }
  }
  for (BatchRecord& rec : slot.records) rec.row.root = slot.root;
  // The run's timelines are freed here, before the next run is taken.
}

// Everything that makes two shards' rows comparable: rules, their
// effective options, the search depth and the paths as given.
std::string ConfigHash(const BatchArgs& args, const PreparedRules& rules) {
  std::vector<std::string> parts = {"tracelint batch records",
                                    fmt::format("{}", kBatchRecordVersion),
                                    fmt::format("max-depth {}", args.max_depth)};
  if (args.follow_links) parts.push_back("follow-links");  // absent: hashes as before
  for (const std::string& r : rules.selected) parts.push_back("rule " + r);
  for (const auto& [rule, options] : rules.options) {
    for (const auto& [name, value] : options.values()) {
      parts.push_back(fmt::format("{}.{}={}", rule, name, value));
    }
  }
  // Limits change what a run reads; listed only when set, so records made
  // with the defaults keep their hash.
  const ParseLimits& limits = args.limits;
  const ParseLimits defaults;
  if (limits.max_decompressed_bytes) {
    parts.push_back(fmt::format("max-decompressed-bytes {}", *limits.max_decompressed_bytes));
  }
  if (limits.max_events) parts.push_back(fmt::format("max-events {}", *limits.max_events));
  if (limits.max_memory_bytes) {
    parts.push_back(fmt::format("max-memory {}", *limits.max_memory_bytes));
  }
  if (limits.max_string_bytes != defaults.max_string_bytes) {
    parts.push_back(fmt::format("max-string-bytes {}", limits.max_string_bytes));
  }
  if (limits.max_nesting_depth != defaults.max_nesting_depth) {
    parts.push_back(fmt::format("max-nesting-depth {}", limits.max_nesting_depth));
  }
  for (const std::string& p : args.paths) parts.push_back("path " + p);
  return HashParts(parts);
}

std::optional<std::string> GetEnv(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

int Usage(std::ostream& err, absl::string_view message) {
  err << "tracelint: " << EscapeTerminal(std::string(message)) << "\n";
  return kExitUsage;
}

}  // namespace

std::string BatchProgressText(size_t done, size_t total, double elapsed_s) {
  double rate = elapsed_s > 0 ? static_cast<double>(done) / elapsed_s : 0;
  std::string eta = "?";
  if (rate > 0 && done <= total) {
    double eta_s = static_cast<double>(total - done) / rate;
    if (eta_s < 360000) {
      int secs = static_cast<int>(eta_s + 0.5);
      eta = secs >= 3600 ? fmt::format("{}h{:02}m", secs / 3600, secs / 60 % 60)
            : secs >= 60 ? fmt::format("{}m{:02}s", secs / 60, secs % 60)
                         : fmt::format("{}s", secs);
    }
  }
  return fmt::format("tracelint: {}/{} runs analysed, {:.2f} runs/s, ETA {}", done, total, rate,
                     eta);
}

int RunBatch(const BatchArgs& args, std::ostream& out, std::ostream& err) {
  if (args.merge) return RunBatchMerge(args, out, err);
  if (args.format != "text" && args.format != "markdown" && args.format != "csv" &&
      args.format != "json" && args.format != "jsonl") {
    return Usage(err, fmt::format("--format must be text, markdown, csv, json or jsonl, not '{}'",
                                  args.format));
  }
  absl::StatusOr<BatchView> view = ViewOf(args);
  if (!view.ok()) return Usage(err, view.status().message());
  if (args.paths.empty()) return Usage(err, "batch needs at least one path");
  for (const std::string& path : args.paths) {
    if (absl::Status s = CheckOutputOutsideTraces(args.output, path); !s.ok()) {
      return Usage(err, s.message());
    }
  }
  absl::StatusOr<ShardSpec> shard = ResolveShard(args.shard, args.shards, GetEnv);
  if (!shard.ok()) return Usage(err, shard.status().message());
  RuleRegistry registry;
  RegisterAllRules(registry);
  absl::StatusOr<PreparedRules> rules = PrepareCommandRules(registry, args.engine);
  if (!rules.ok()) return Usage(err, rules.status().message());
  if (std::string note = DiscoveredConfigNote(registry, args.engine, *rules); !note.empty()) {
    err << "tracelint: note: config " << EscapeTerminal(note) << "\n";
  }

  std::vector<RunSlot> slots;
  std::map<std::filesystem::path, std::string> seen;
  for (const std::string& path : args.paths) {
    DiscoveryOptions scan;
    scan.follow_links = args.follow_links;
    std::vector<std::string> link_notes;
    absl::StatusOr<std::vector<std::string>> runs =
        FindRunPaths(path, args.max_depth, scan, &link_notes);
    for (const std::string& note : link_notes) {
      err << "tracelint: warning: " << EscapeTerminal(note) << "\n";
    }
    if (!runs.ok()) {
      RunSlot& slot = slots.emplace_back();
      slot.path = path;
      slot.root = path;
      slot.find_error = runs.status();
      continue;
    }
    for (std::string& run : *runs) {
      // Overlapping paths (an archive and a run inside it) list a run once.
      std::error_code ec;
      std::filesystem::path canonical = std::filesystem::canonical(run, ec);
      auto [it, fresh] = seen.emplace(ec ? std::filesystem::path(run) : canonical, run);
      if (!fresh) {
        err << "tracelint: warning: " << EscapeTerminal(run) << " is the run "
            << EscapeTerminal(it->second) << " again; listed once\n";
        continue;
      }
      RunSlot& slot = slots.emplace_back();
      slot.path = std::move(run);
      slot.root = path;
    }
  }

  BatchShardInfo info;
  info.shard = shard->index;
  info.shards = shard->count;
  info.config_hash = ConfigHash(args, *rules);
  info.rule_options_json = BatchRuleOptionsJson(args, *rules);
  std::vector<std::string> paths;
  std::vector<int64_t> sizes;
  for (const RunSlot& slot : slots) {
    paths.push_back(slot.path);
    sizes.push_back(slot.find_error ? 0 : RunSizeBytes(slot.path));
  }
  if (shard->count > 1) {
    std::vector<int> shard_of = PartitionRuns(paths, sizes, shard->count);
    for (size_t i = 0; i < slots.size(); ++i) slots[i].shard = shard_of[i];
  }
  std::vector<size_t> mine;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].shard == shard->index) mine.push_back(i);
  }
  // Largest runs start first, so one big run does not start last and hold
  // up the end of the batch alone; rows keep the order found.
  std::vector<size_t> start_order = mine;
  std::stable_sort(start_order.begin(), start_order.end(),
                   [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });
  if (shard->count > 1) {
    err << fmt::format("tracelint: shard {}/{} (from {}): {} of {} runs found\n", shard->index,
                       shard->count, shard->source, mine.size(), slots.size());
    if (args.format != "jsonl") {
      err << "tracelint: note: the table holds this shard's runs only; write --format jsonl "
             "and combine the shards with `tracelint batch --merge`\n";
    }
  }

  int cores = WorkerPool::ResolveThreads(args.threads);
  int jobs = args.jobs > 0 ? args.jobs : cores;
  jobs = std::max(1, std::min<int>(jobs, static_cast<int>(std::max<size_t>(1, mine.size()))));
  // Runs take the cores in equal shares; one memory budget covers every
  // file being parsed across the runs.
  MemoryBudget budget(MemoryBudget::DefaultBytes());
  // One ledger for every run: what their timelines hold, together, against
  // the memory budget; a run over it stops (its row says so), the others
  // are read whole.
  std::unique_ptr<MemoryLedger> ledger = MakeLedger(args.limits);
  PipelineOptions pipeline;
  pipeline.load.cores = std::max(1, cores / jobs);
  pipeline.load.shared_budget = &budget;
  pipeline.load.parse.limits = args.limits;
  pipeline.load.parse.ledger = ledger.get();
  pipeline.discovery.follow_links = args.follow_links;
  ProgressLine progress(err, IsTerminal(err));
  std::atomic<size_t> runs_done{0};
  auto started = std::chrono::steady_clock::now();
  {
    WorkerPool pool(jobs, jobs);
    for (size_t i : start_order) {
      RunSlot& slot = slots[i];
      if (slot.find_error) {
        BatchRecord& rec = slot.records.emplace_back();
        rec.index = static_cast<int64_t>(i);
        rec.row = ErrorRow(slot.path, *slot.find_error);
        rec.row.root = slot.root;
        continue;
      }
      pool.Submit([&, i] {
        AnalyzeOne(slots[i], static_cast<int64_t>(i), registry, *rules, pipeline);
        size_t done = ++runs_done;
        double elapsed_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        progress.Update(BatchProgressText(done, mine.size(), elapsed_s));
      });
    }
    pool.Wait();
  }
  progress.Finish();

  std::vector<BatchRecord> records;
  for (size_t i : mine) {
    for (BatchRecord& rec : slots[i].records) records.push_back(std::move(rec));
    slots[i].records.clear();
  }
  if (args.format != "jsonl") {
    return FinishBatch(std::move(records), *view, args, kExitOk, out, err,
                       BatchOptionsJson(args, BatchRuleOptionsJson(args, *rules)));
  }

  // jsonl: the partition, one record per run, the end mark; written whole
  // or not at all (WriteReport), so a shard that died leaves no file.
  std::vector<BatchSlot> partition;
  for (size_t i = 0; i < slots.size(); ++i) {
    partition.push_back({static_cast<int64_t>(i), slots[i].path, slots[i].root, slots[i].shard});
  }
  std::string text = ShardHeaderRecord(info, partition);
  int exit_code = kExitOk;
  for (const BatchRecord& rec : records) {
    for (const std::string& w : rec.warnings)
      err << "tracelint: warning: " << EscapeTerminal(w) << "\n";
    if (rec.row.status == BatchStatus::kError) {
      err << "tracelint: " << EscapeTerminal(rec.row.error) << "\n";
      exit_code = CombineExitCodes(exit_code, kExitUnreadable);
    } else if (rec.row.status == BatchStatus::kDamaged) {
      exit_code = CombineExitCodes(exit_code, kExitDamaged);
    } else if (rec.row.status == BatchStatus::kNotJudgeable) {
      exit_code = CombineExitCodes(exit_code, kExitNotJudgeable);
    }
    text += RunRecord(info, rec);
  }
  text += ShardEndRecord(info, static_cast<int64_t>(records.size()));
  if (absl::Status s = WriteReport(text, args.output, out); !s.ok()) {
    PrintWriteError(err, s);
    return CombineExitCodes(exit_code, kExitWriteFailed);
  }
  return exit_code;
}

}  // namespace tracelint

namespace tracelint {

CLI::App* DeclareBatchCommand(CLI::App& app, OptionTable& table, BatchArgs& b) {
  static constexpr char kHelp[] =
      "analyze every run under the given paths, in parallel, into one table";
  CLI::App* batch = app.add_subcommand("batch", kHelp);
  CommandFlags f(*batch, table.AddCommand("batch", kHelp));
  f.Positional("paths", b.paths,
               "run files or directories, or archives of runs (with --merge: the shard "
               "outputs)",
               /*required=*/true);
  f.Value("--format", b.format, FormatOptionHelp(BatchFormats()), Choices(BatchFormatNames(), true));
  f.Value("-o,--output", b.output, "write the table to this file, atomically ('-': stdout)",
          OutputOnly());
  OptionTraits width = Checked(AtLeast(0));
  width.output_only = true;
  width.default_text = "";
  f.Value("--width", b.width,
          "text: columns per line (default: the terminal's, else COLUMNS; 0: no limit)", width);
  f.Value("-j,--jobs", b.jobs,
          fmt::format("runs analysed at once (0 = as many as cores; at most {})", kMaxThreads),
          Checked(Between(0, kMaxThreads)));
  f.Value("--threads", b.threads,
          fmt::format("cores for the whole batch (0 = all; at most {})", kMaxThreads),
          Checked(Between(0, kMaxThreads)));
  f.Value("--max-depth", b.max_depth, "directory levels searched for runs", Checked(AtLeast(0)));
  f.Value("--sort", b.sort,
          "row order: path (as found) or a column (run, status, device, start, ranks, steps, "
          "step-time, gpu-util, findings, recoverable, top-cost, samples-per-s, price, "
          "samples-per-dollar, ...), optionally :asc or :desc");
  f.Value("--shard", b.shard,
          "analyse shard I of N (I/N, from 0): a size-balanced share of the runs; default from "
          "SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX");
  f.Value("--shards", b.shards, "shard count, with JOB_COMPLETION_INDEX (Kubernetes Indexed Job)",
          Checked(AtLeast(0)));
  f.Flag("--merge", b.merge,
         "combine shard outputs (--format jsonl) into the table one process prints");
  f.Value("--group-by", b.group_by,
          "aggregate by device, dir:N (directory level N) or regex:PATTERN");
  f.Value("--batch-size", b.batch_size,
          "samples per step per rank, for samples/s and samples per dollar", Checked(AtLeast(0)));
  f.Value("--batch-size-from", b.batch_size_from,
          "regex on the run's path whose first group is its batch size (e.g. 'bs(\\d+)')");
  f.Value("--prices", b.prices,
          "TOML price table: \"<device substring or path glob>\" = price per device-hour");
  f.Flag("--trend", b.trend,
         "show runs by trace time and where step time or a finding's cost changed");
  f.Value("--trend-threshold", b.trend_threshold_pct,
          "smallest change the trend shows, percent (default 10)",
          Checked(CLI::NonNegativeNumber));
  DeclareRuleFlags(f, b.engine);
  DeclareLimitFlags(f, b.limits);
  DeclareFollowLinksFlag(f, b.follow_links);
  return batch;
}

}  // namespace tracelint
