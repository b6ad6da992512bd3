#include "parsers/load_run.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <memory>
#include <new>
#include <string>
#include <tuple>
#include <vector>

#include "fmt/format.h"
#include "analyzer/base/worker_pool.h"
#include "parsers/format_registry.h"

namespace tracelint {
namespace {

absl::StatusOr<Timeline> ParseOne(const TraceFileRef& file, const ParseOptions& options) {
  for (const FormatEntry& entry : AllFormats()) {
    if (entry.format == file.format) return entry.parse(file.path, options);
  }
  if (file.format == InputFormat::kUnknown) return ParseTraceFile(file.path, options);
  return absl::UnimplementedError(fmt::format("{}: {} files are not supported by this build",
                                              file.path, InputFormatName(file.format)));
}

// Step windows come from ProfilerStep#N markers (or a format's own step
// events mapped to them); without any, analyses use one window over the
// whole trace, and the report must say so.
void AddNoStepMarkersNote(Timeline& tl) {
  bool has_steps = false;
  for (SliceId s = 0; s < tl.slice_count() && !has_steps; ++s) {
    has_steps = tl.HasFlag(s, kFlagStepMarker);
  }
  if (!has_steps && tl.slice_count() > 0) {
    tl.mutable_diagnostics().Add(
        "no_step_markers", Severity::kInfo,
        "no ProfilerStep#N step markers: the whole trace is analysed as one window, so "
        "per-step numbers are per window");
  }
}

// Parse threads for each file: the cores, shared by size among the files,
// at least one each. Equal files running two at a time on two cores get one
// thread each (no thread switching inside a file); one large file among
// small ones gets the cores the small ones barely use.
std::vector<int> ThreadsPerFile(const std::vector<TraceFileRef>& files, int cores) {
  std::vector<size_t> bytes;
  size_t total = 0;
  for (const TraceFileRef& f : files) {
    bytes.push_back(std::max<size_t>(1, EstimateParseBytes(f)));
    total += bytes.back();
  }
  std::vector<int> threads;
  for (size_t b : bytes) {
    double share = static_cast<double>(cores) * static_cast<double>(b) / static_cast<double>(total);
    threads.push_back(std::clamp(static_cast<int>(share + 0.5), 1, cores));
  }
  return threads;
}

}  // namespace

size_t EstimateParseBytes(const TraceFileRef& file) {
  std::error_code ec;
  size_t on_disk = static_cast<size_t>(std::filesystem::file_size(file.path, ec));
  if (ec) return 0;
  // Kineto gzip files inflate about 15-25x (corpus MANIFEST); the timeline
  // plus in-flight parts take about the decompressed size again.
  bool gz = file.path.ends_with(".gz");
  return on_disk * (gz ? 25 : 2);
}

absl::StatusOr<Run> LoadRun(const Discovery& discovery, const LoadOptions& options) {
  const std::vector<TraceFileRef>& files = discovery.files;
  if (files.empty()) {
    return absl::InvalidArgumentError("no trace files to load");
  }
  int cores = WorkerPool::ResolveThreads(options.cores);
  int parallel = options.max_parallel_files > 0 ? options.max_parallel_files : cores;
  parallel = std::max(1, std::min<int>(parallel, static_cast<int>(files.size())));
  std::vector<int> threads = ThreadsPerFile(files, cores);

  std::vector<std::optional<absl::StatusOr<std::unique_ptr<Timeline>>>> results(files.size());
  MemoryBudget own_budget(options.memory_budget_bytes > 0 ? options.memory_budget_bytes
                                                         : MemoryBudget::DefaultBytes());
  MemoryBudget& budget = options.shared_budget != nullptr ? *options.shared_budget : own_budget;
  {
    WorkerPool pool(parallel, parallel);
    for (size_t i = 0; i < files.size(); ++i) {
      pool.Submit([&, i] {
        ParseOptions parse = options.parse;
        if (parse.threads == 0) parse.threads = threads[i];
        size_t bytes = EstimateParseBytes(files[i]);
        budget.Acquire(bytes);
        // The allocator failing (a limit lower than the budget knew of,
        // or memory other processes took) fails this file with a message
        // that says so, never the process.
        try {
          absl::StatusOr<Timeline> tl = ParseOne(files[i], parse);
          budget.Release(bytes);
          bytes = 0;
          if (!tl.ok()) {
            results[i] = tl.status();
            return;
          }
          auto owned = std::make_unique<Timeline>(std::move(*tl));
          AddNoStepMarkersNote(*owned);
          if (options.on_parsed) options.on_parsed(*owned, parse.threads);
          results[i] = std::move(owned);
        } catch (const std::bad_alloc&) {
          budget.Release(bytes);
          results[i] = absl::ResourceExhaustedError(
              OutOfMemoryText(files[i].path, LedgerOf(parse)));
        }
      });
    }
    pool.Wait();
  }

  Run run;
  std::vector<std::pair<std::string, std::unique_ptr<Timeline>>> loaded;
  std::optional<absl::Status> first_error;
  for (size_t i = 0; i < files.size(); ++i) {
    absl::StatusOr<std::unique_ptr<Timeline>>& r = *results[i];
    if (r.ok()) {
      loaded.emplace_back(files[i].path, std::move(*r));
    } else {
      if (!first_error) first_error = r.status();
      run.warnings.push_back(fmt::format("skipped: {}", std::string(r.status().message())));
      run.skipped.push_back({files[i].path, std::string(r.status().message())});
      ++run.files_skipped;
    }
  }
  if (loaded.empty() && !options.allow_no_ranks) return *first_error;
  std::vector<RankAndPath> keys;
  for (const auto& [path, tl] : loaded) keys.push_back({tl->metadata().rank, path});
  const std::vector<size_t> order = RankOrder(keys);
  for (std::string& w : DuplicateRankWarnings(keys, order)) run.warnings.push_back(std::move(w));
  for (size_t i : order) run.ranks.push_back(std::move(loaded[i].second));
  return run;
}

std::vector<size_t> RankOrder(const std::vector<RankAndPath>& ranks) {
  std::vector<size_t> order(ranks.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const bool na = ranks[a].rank < 0;
    const bool nb = ranks[b].rank < 0;
    return std::tie(na, ranks[a].rank, ranks[a].path) < std::tie(nb, ranks[b].rank, ranks[b].path);
  });
  return order;
}

std::vector<std::string> DuplicateRankWarnings(const std::vector<RankAndPath>& ranks,
                                               const std::vector<size_t>& order) {
  std::vector<std::string> out;
  for (size_t k = 1; k < order.size(); ++k) {
    const RankAndPath& a = ranks[order[k - 1]];
    const RankAndPath& b = ranks[order[k]];
    if (b.rank >= 0 && b.rank == a.rank) {
      out.push_back(fmt::format("{} and {} both claim rank {}", a.path, b.path, b.rank));
    }
  }
  return out;
}

}  // namespace tracelint
