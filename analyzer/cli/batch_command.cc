#include "analyzer/cli/batch_command.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "analyzer/cli/exit_codes.h"
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
  std::vector<std::string> warnings;
};

BatchRow ErrorRow(const std::string& path, const absl::Status& status) {
  BatchRow row;
  row.run = path;
  row.status = BatchStatus::kError;
  row.error = std::string(status.message());
  return row;
}

void AnalyzeOne(RunSlot& slot, const RuleRegistry& registry, const PreparedRules& rules,
                const PipelineOptions& pipeline) {
  absl::StatusOr<AnalyzedRun> analyzed = AnalyzeRunAt(slot.path, registry, rules, pipeline);
  if (!analyzed.ok()) {
    slot.row = ErrorRow(slot.path, analyzed.status());
    return;
  }
  ReportInput input;
  input.input_path = slot.path;
  for (const std::unique_ptr<Timeline>& tl : analyzed->run.ranks) input.ranks.push_back(tl.get());
  input.contexts = analyzed->ContextPointers();
  input.findings = std::move(analyzed->engine.findings);
  slot.row = SummarizeRunForBatch(input);
  if (RunHealth(*analyzed, slot.warnings) == kExitDamaged) {
    slot.row.status = BatchStatus::kDamaged;
    slot.row.error = slot.warnings.empty() ? "damaged input" : slot.warnings.front();
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
      err << "tracelint: " << s.message() << "\n";
      return kExitUsage;
    }
  }
  RuleRegistry registry;
  RegisterAllRules(registry);
  absl::StatusOr<PreparedRules> rules = PrepareRules(registry, args.engine);
  if (!rules.ok()) {
    err << "tracelint: " << rules.status().message() << "\n";
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
        err << "tracelint: warning: " << run << " is the run " << it->second
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
  {
    WorkerPool pool(jobs, jobs);
    for (RunSlot& slot : slots) {
      if (slot.find_error) {
        slot.row = ErrorRow(slot.path, *slot.find_error);
        continue;
      }
      pool.Submit([&] { AnalyzeOne(slot, registry, *rules, pipeline); });
    }
    pool.Wait();
  }

  std::vector<BatchRow> rows;
  int exit_code = kExitOk;
  bool any_error = false;
  for (RunSlot& slot : slots) {
    for (const std::string& w : slot.warnings) err << "tracelint: warning: " << w << "\n";
    if (slot.row.status == BatchStatus::kError) {
      err << "tracelint: " << slot.row.error << "\n";
      any_error = true;
    } else if (slot.row.status == BatchStatus::kDamaged) {
      exit_code = kExitDamaged;
    }
    rows.push_back(std::move(slot.row));
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
    err << "tracelint: " << s.message() << "\n";
    return kExitUsage;
  }
  return exit_code;
}

}  // namespace tracelint
