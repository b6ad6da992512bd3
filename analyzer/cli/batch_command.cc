#include "analyzer/cli/batch_command.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "analyzer/base/escape.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/cli/progress.h"
#include "analyzer/cli/run_pipeline.h"
#include "analyzer/report/batch_table.h"
#include "fmt/format.h"
#include "parsers/common/memory_budget.h"
#include "parsers/common/worker_pool.h"
#include "rules/all_rules.h"

namespace tracelint {
namespace {

struct RunSlot {
  std::string path;
  std::optional<absl::Status> find_error;  // the search itself failed
  BatchRow row;
  std::vector<BatchRow> more_rows;  // further runs found at the same path
  std::vector<std::string> warnings;
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
  input.findings = std::move(analyzed.engine.findings);
  BatchRow row = SummarizeRunForBatch(input);
  std::vector<std::string> run_warnings;
  if (RunHealth(analyzed, run_warnings) == kExitDamaged) {
    row.status = BatchStatus::kDamaged;
    row.error = run_warnings.empty() ? "damaged input" : run_warnings.front();
  }
  warnings.insert(warnings.end(), run_warnings.begin(), run_warnings.end());
  return row;
}

void AnalyzeOne(RunSlot& slot, const RuleRegistry& registry, const PreparedRules& rules,
                const PipelineOptions& pipeline) {
  absl::StatusOr<AnalyzedRun> analyzed = AnalyzeRunAt(slot.path, registry, rules, pipeline);
  if (!analyzed.ok()) {
    slot.row = ErrorRow(slot.path, analyzed.status());
    return;
  }
  if (!analyzed->several_runs()) {
    slot.row = RowOf(slot.path, *analyzed, slot.warnings);
    return;
  }
  // Files found together that are not one job: one row per run, each
  // analysed on its own (parsed again: the grouping needed them all parsed).
  size_t runs = analyzed->grouping.runs.size();
  slot.warnings.push_back(fmt::format("{} holds {} runs; one row each", slot.path, runs));
  for (size_t g = 0; g < runs; ++g) {
    const RunFileFacts& first = analyzed->file_facts[analyzed->grouping.runs[g].files[0]];
    std::string label = fmt::format("{} (run {}: {})", slot.path, g + 1,
                                    std::filesystem::path(first.path).filename().string());
    absl::StatusOr<AnalyzedRun> one =
        AnalyzeDiscovered(analyzed->RunDiscovery(g), registry, rules, pipeline);
    BatchRow row = one.ok() ? RowOf(label, *one, slot.warnings) : ErrorRow(label, one.status());
    (g == 0 ? slot.row : slot.more_rows.emplace_back()) = std::move(row);
  }
  // The run's timelines are freed here, before the next run is taken.
}

}  // namespace

int RunBatch(const BatchArgs& args, std::ostream& out, std::ostream& err) {
  if (args.format != "text" && args.format != "markdown" && args.format != "csv" &&
      args.format != "json") {
    err << "tracelint: --format must be text, markdown, csv or json, not '" << args.format
        << "'\n";
    return kExitUsage;
  }
  if (args.sort != "path" && args.sort != "recoverable") {
    err << "tracelint: --sort must be path or recoverable, not '" << args.sort << "'\n";
    return kExitUsage;
  }
  if (args.paths.empty()) {
    err << "tracelint: batch needs at least one path\n";
    return kExitUsage;
  }
  for (const std::string& path : args.paths) {
    if (absl::Status s = CheckOutputOutsideTraces(args.output, path); !s.ok()) {
      err << "tracelint: " << EscapeTerminal(std::string(s.message())) << "\n";
      return kExitUsage;
    }
  }
  RuleRegistry registry;
  RegisterAllRules(registry);
  absl::StatusOr<PreparedRules> rules = PrepareRules(registry, args.engine);
  if (!rules.ok()) {
    err << "tracelint: " << EscapeTerminal(std::string(rules.status().message())) << "\n";
    return kExitUsage;
  }

  std::vector<RunSlot> slots;
  std::map<std::filesystem::path, std::string> seen;
  for (const std::string& path : args.paths) {
    absl::StatusOr<std::vector<std::string>> runs = FindRunPaths(path, args.max_depth);
    if (!runs.ok()) {
      RunSlot& slot = slots.emplace_back();
      slot.path = path;
      slot.find_error = runs.status();
      continue;
    }
    for (std::string& run : *runs) {
      // Overlapping paths (an archive and a run inside it) list a run once.
      std::error_code ec;
      std::filesystem::path canonical = std::filesystem::canonical(run, ec);
      auto [it, fresh] = seen.emplace(ec ? std::filesystem::path(run) : canonical, run);
      if (!fresh) {
        err << "tracelint: warning: " << EscapeTerminal(run) << " is the run " << EscapeTerminal(it->second)
            << " again; listed once\n";
        continue;
      }
      slots.emplace_back().path = std::move(run);
    }
  }

  int cores = WorkerPool::ResolveThreads(args.threads);
  int jobs = args.jobs > 0 ? args.jobs : cores;
  jobs = std::max(1, std::min<int>(jobs, static_cast<int>(slots.size())));
  // Runs take the cores in equal shares; one memory budget covers every
  // file being parsed across the runs.
  MemoryBudget budget(MemoryBudget::DefaultBytes());
  PipelineOptions pipeline;
  pipeline.load.cores = std::max(1, cores / jobs);
  pipeline.load.shared_budget = &budget;
  ProgressLine progress(err, IsTerminal(err));
  std::atomic<size_t> runs_done{0};
  {
    WorkerPool pool(jobs, jobs);
    for (RunSlot& slot : slots) {
      if (slot.find_error) {
        slot.row = ErrorRow(slot.path, *slot.find_error);
        continue;
      }
      pool.Submit([&] {
        AnalyzeOne(slot, registry, *rules, pipeline);
        progress.Update(fmt::format("tracelint: {}/{} runs analysed", ++runs_done, slots.size()));
      });
    }
    pool.Wait();
  }
  progress.Finish();

  std::vector<BatchRow> rows;
  int exit_code = kExitOk;
  bool any_error = false;
  for (RunSlot& slot : slots) {
    for (const std::string& w : slot.warnings) err << "tracelint: warning: " << EscapeTerminal(w) << "\n";
    slot.more_rows.insert(slot.more_rows.begin(), std::move(slot.row));
    for (BatchRow& row : slot.more_rows) {
      if (row.status == BatchStatus::kError) {
        err << "tracelint: " << EscapeTerminal(row.error) << "\n";
        any_error = true;
      } else if (row.status == BatchStatus::kDamaged) {
        exit_code = kExitDamaged;
      }
      rows.push_back(std::move(row));
    }
  }
  if (any_error) exit_code = kExitUnreadable;
  if (args.sort == "recoverable") {
    std::stable_sort(rows.begin(), rows.end(), [](const BatchRow& a, const BatchRow& b) {
      bool a_read = a.status != BatchStatus::kError;
      bool b_read = b.status != BatchStatus::kError;
      if (a_read != b_read) return a_read;
      return a.recoverable_share > b.recoverable_share;
    });
  }

  if (absl::Status s = WriteReport(RenderBatch(rows, args.format), args.output, out); !s.ok()) {
    err << "tracelint: " << EscapeTerminal(std::string(s.message())) << "\n";
    return CombineExitCodes(exit_code, kExitWriteFailed);
  }
  return exit_code;
}

}  // namespace tracelint
