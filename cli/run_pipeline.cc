#include "cli/run_pipeline.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "analyzer/model/diagnostic_catalog.h"
#include "analyzer/analysis/device_activity.h"
#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/base/worker_pool.h"
#include "cli/exit_codes.h"
#include "fmt/format.h"

namespace tracelint {
namespace {


struct RankWork {
  std::unique_ptr<AnalysisContext> context;
  std::vector<RuleOutcome> outcomes;
  RankRecord record;
};

// `analyze --list`: each file's facts from its head and tail reads
// (ReadRunFileFacts), not a parse of its events, then the grouping. A file
// that cannot be read is a warning, as in LoadRun, unless none can be.
absl::StatusOr<AnalyzedRun> ListOnly(AnalyzedRun analyzed, const PipelineOptions& options) {
  absl::Status first_error;
  for (const TraceFileRef& file : analyzed.discovery.files) {
    absl::StatusOr<RunFileFacts> facts = ReadRunFileFacts(file.path, options.load.parse);
    if (!facts.ok()) {
      if (first_error.ok()) first_error = facts.status();
      analyzed.run.warnings.push_back(std::string(facts.status().message()));
      ++analyzed.run.files_skipped;
      continue;
    }
    facts->run_folder = file.run_folder;
    analyzed.file_facts.push_back(std::move(*facts));
  }
  if (analyzed.file_facts.empty() && !first_error.ok()) return first_error;
  analyzed.grouping = GroupIntoRuns(analyzed.file_facts);
  return analyzed;
}

// Names every copy as the user did, in what the run carries out.
void ApplyLabels(AnalyzedRun& analyzed, const PathLabels& labels) {
  if (labels.empty()) return;
  for (std::unique_ptr<Timeline>& tl : analyzed.run.ranks) {
    auto it = labels.find(tl->metadata().source_path);
    if (it != labels.end()) tl->mutable_metadata().source_path = it->second;
  }
  for (RunFileFacts& f : analyzed.file_facts) f.path = Relabel(f.path, labels);
  for (std::string& w : analyzed.run.warnings) w = Relabel(w, labels);
  for (std::string& n : analyzed.discovery.notes) n = Relabel(n, labels);
}

absl::Status RelabelStatus(const absl::Status& s, const PathLabels& labels) {
  if (s.ok() || labels.empty()) return s;
  return absl::Status(s.code(), Relabel(std::string(s.message()), labels));
}

}  // namespace

std::string Relabel(std::string text, const PathLabels& labels) {
  for (const auto& [path, label] : labels) {
    if (path.empty()) continue;
    for (size_t at = text.find(path); at != std::string::npos;
         at = text.find(path, at + label.size())) {
      text.replace(at, path.size(), label);
    }
  }
  return text;
}

std::vector<AnalysisContext*> AnalyzedRun::ContextPointers() const {
  std::vector<AnalysisContext*> out;
  for (const std::unique_ptr<AnalysisContext>& c : contexts) out.push_back(c.get());
  return out;
}

std::vector<const RankRecord*> AnalyzedRun::RecordPointers() const {
  std::vector<const RankRecord*> out;
  for (const RankRecord& r : records) out.push_back(&r);
  return out;
}

absl::StatusOr<AnalyzedRun> AnalyzeRunAt(const std::string& path, const RuleRegistry& registry,
                                         const PreparedRules& rules,
                                         const PipelineOptions& options) {
  absl::StatusOr<Discovery> discovery = DiscoverTraces(path, options.discovery);
  if (!discovery.ok()) return discovery.status();
  return AnalyzeDiscovered(std::move(*discovery), registry, rules, options);
}

Discovery AnalyzedRun::RunDiscovery(size_t index) const {
  Discovery d;
  d.notes = discovery.notes;
  d.spans = discovery.spans;
  d.span_choice = discovery.span_choice;
  d.chosen_span = discovery.chosen_span;
  for (size_t i : grouping.runs.at(index).files) {
    for (const TraceFileRef& f : discovery.files) {
      if (f.path == file_facts[i].path) d.files.push_back(f);
    }
  }
  return d;
}

absl::StatusOr<AnalyzedRun> AnalyzeDiscovered(Discovery discovery, const RuleRegistry& registry,
                                              const PreparedRules& rules,
                                              const PipelineOptions& options) {
  AnalyzedRun analyzed;
  analyzed.discovery = std::move(discovery);
  if (options.parse_only) {
    absl::StatusOr<AnalyzedRun> listed = ListOnly(std::move(analyzed), options);
    if (!listed.ok()) return RelabelStatus(listed.status(), options.path_labels);
    ApplyLabels(*listed, options.path_labels);
    return listed;
  }
  if (analyzed.discovery.runs_to_pick) {
    // Several TensorBoard runs and no --run: listed from each file's cheap
    // facts, never parsed all for a refusal (or for batch, which analyses
    // them one by one: RunDiscovery). Only one readable: that one.
    absl::StatusOr<AnalyzedRun> listed = ListOnly(std::move(analyzed), options);
    if (!listed.ok()) return RelabelStatus(listed.status(), options.path_labels);
    if (listed->several_runs() || listed->grouping.runs.empty()) {
      ApplyLabels(*listed, options.path_labels);
      return listed;
    }
    return AnalyzeDiscovered(listed->RunDiscovery(0), registry, rules, options);
  }

  std::mutex mu;
  absl::flat_hash_map<const Timeline*, RankWork> work;
  // With several ranks, each keeps only what the merge and the report read
  // once it is analysed, so memory grows with the ranks being parsed, not
  // with all of them.
  const bool release_events =
      (analyzed.discovery.files.size() > 1 || options.shard) && !options.keep_events;
  LoadOptions load = options.load;
  load.allow_no_ranks = options.shard;
  auto analyse_rank = [&](Timeline& tl, int cores) {
    RankWork w;
    w.context = std::make_unique<AnalysisContext>(tl);
    // Everything the rules and the report read, computed here on the
    // parsing thread rather than later on the serial merge path. The step
    // metrics (for the report) and the idle attribution + rules need only
    // the steps and device activity, so with a core to spare they run side
    // by side.
    w.context->steps();
    w.context->device_activity();
    std::thread metrics;
    std::exception_ptr metrics_error;
    if (cores <= 1 || !TryStartThread(metrics, [&w, &metrics_error] {
          try {
            w.context->step_metrics();
          } catch (...) {
            metrics_error = std::current_exception();
          }
        })) {
      w.context->step_metrics();
    }
    try {
      w.context->idle_attribution();
      w.context->trace_integrity();
      w.outcomes = EvaluateRank(registry, rules, *w.context);
    } catch (...) {
      if (metrics.joinable()) metrics.join();
      throw;
    }
    if (metrics.joinable()) metrics.join();
    if (metrics_error) std::rethrow_exception(metrics_error);
    // Made here, on the parsing thread, not on the serial merge path.
    // A run of one file has one rank, unless the file holds several (an
    // XSpace of several hosts): its cross-rank data is added below then.
    w.record = MakeRankRecord(*w.context, /*cross_rank=*/release_events);
    if (release_events) {
      // The record holds all that the merge and the reports read: the
      // analyses (idle pieces, interval sets) and the events go now.
      w.context.reset();
      tl.ReleaseEvents();
    }
    std::lock_guard<std::mutex> lock(mu);
    work.emplace(&tl, std::move(w));
  };
  load.on_parsed = analyse_rank;
  absl::StatusOr<Run> run = LoadRun(analyzed.discovery, load);
  if (!run.ok()) return RelabelStatus(run.status(), options.path_labels);
  analyzed.run = std::move(*run);
  ApplyLabels(analyzed, options.path_labels);
  for (const std::unique_ptr<Timeline>& tl : analyzed.run.ranks) {
    analyzed.file_facts.push_back(FactsOf(*tl));
  }
  analyzed.grouping = GroupIntoRuns(analyzed.file_facts);
  if (analyzed.several_runs() && !options.shard) return analyzed;

  std::vector<std::vector<RuleOutcome>> outcomes;
  analyzed.records.reserve(analyzed.run.ranks.size());
  for (const std::unique_ptr<Timeline>& tl : analyzed.run.ranks) {
    RankWork& w = work.at(tl.get());
    if (w.context != nullptr) {
      if (!release_events && analyzed.run.ranks.size() > 1) {
        w.record.cross_rank = w.context->cross_rank_data();
      }
      analyzed.contexts.push_back(std::move(w.context));
    }
    outcomes.push_back(std::move(w.outcomes));
    // The path as the user named it (ApplyLabels ran after the parse).
    w.record.metadata.source_path = tl->metadata().source_path;
    analyzed.records.push_back(std::move(w.record));
  }
  if (options.shard) {
    analyzed.rank_outcomes = std::move(outcomes);
    return analyzed;
  }
  analyzed.engine =
      MergeRankOutcomes(registry, rules, analyzed.RecordPointers(), std::move(outcomes));
  return analyzed;
}

int RunHealth(const AnalyzedRun& analyzed, std::vector<std::string>& warnings) {
  int exit_code = kExitOk;
  for (const RankRecord& record : analyzed.records) {
    const RunMetadata& m = record.metadata;
    // A limit (ParseLimits) that stopped the reading or dropped events: the
    // analysis is partial, and the message names the flag that raises it.
    bool stopped_at_limit = false;
    bool damaged = false;
    for (const Diagnostic& d : record.diagnostics) {
      damaged |= d.severity >= Severity::kError;
      if (d.name != kDiagLimitReached && !d.name.starts_with("event_over_")) continue;
      stopped_at_limit |= d.name == kDiagLimitReached;
      warnings.push_back(d.name == kDiagLimitReached
                             ? fmt::format("{}: {}", m.source_path, d.description)
                             : fmt::format("{}: {} {}", m.source_path, d.count, d.description));
      exit_code = kExitDamaged;
    }
    if (stopped_at_limit) {
      continue;
    } else if (m.truncated) {
      warnings.push_back(fmt::format(
          "{}: {} at byte {} of the decompressed stream; analysed the {} complete events "
          "before it",
          m.source_path, m.truncated_reason, m.truncated_at_byte, m.events_read));
      exit_code = kExitDamaged;
    } else if (damaged) {
      warnings.push_back(
          fmt::format("{}: damaged input, see import diagnostics", m.source_path));
      exit_code = kExitDamaged;
    }
  }
  for (const std::string& w : analyzed.run.warnings) warnings.push_back(w);
  // A rank that could not be read is damage too: the findings describe the
  // other ranks only, and a gate on the exit code must see it.
  if (analyzed.run.files_skipped > 0) exit_code = kExitDamaged;
  for (const std::string& w : analyzed.engine.warnings) warnings.push_back(w);
  return exit_code;
}

}  // namespace tracelint
