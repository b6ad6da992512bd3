#include "parsers/load_run.h"

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#include <unistd.h>

#include "fmt/format.h"
#include "parsers/common/worker_pool.h"
#include "parsers/format_registry.h"

namespace tracelint {
namespace {

// Counts bytes of work in flight against a budget.
class MemoryBudget {
 public:
  explicit MemoryBudget(size_t budget) : budget_(budget) {}
  void Acquire(size_t bytes) {
    if (budget_ == 0) return;
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return in_use_ == 0 || in_use_ + bytes <= budget_; });
    in_use_ += bytes;
  }
  void Release(size_t bytes) {
    if (budget_ == 0) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      in_use_ -= bytes;
    }
    cv_.notify_all();
  }

 private:
  size_t budget_;
  size_t in_use_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
};

size_t DefaultMemoryBudget() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<size_t>(pages) * static_cast<size_t>(page_size) / 2;
}

absl::StatusOr<Timeline> ParseOne(const TraceFileRef& file, const ParseOptions& options) {
  for (const FormatEntry& entry : AllFormats()) {
    if (entry.format == file.format) return entry.parse(file.path, options);
  }
  if (file.format == InputFormat::kUnknown) return ParseTraceFile(file.path, options);
  return absl::UnimplementedError(fmt::format("{}: {} files are not supported by this build",
                                              file.path, InputFormatName(file.format)));
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
  int cores = WorkerPool::ResolveThreads(0);
  int parallel = options.max_parallel_files > 0 ? options.max_parallel_files : cores;
  parallel = std::max(1, std::min<int>(parallel, static_cast<int>(files.size())));
  ParseOptions parse = options.parse;
  // Threads inside one file share the cores with the other files.
  if (parse.threads == 0) parse.threads = std::max(1, cores / parallel);

  std::vector<std::optional<absl::StatusOr<Timeline>>> results(files.size());
  MemoryBudget budget(options.memory_budget_bytes > 0 ? options.memory_budget_bytes
                                                     : DefaultMemoryBudget());
  {
    WorkerPool pool(parallel, parallel);
    for (size_t i = 0; i < files.size(); ++i) {
      pool.Submit([&, i] {
        size_t bytes = EstimateParseBytes(files[i]);
        budget.Acquire(bytes);
        results[i] = ParseOne(files[i], parse);
        budget.Release(bytes);
      });
    }
    pool.Wait();
  }

  Run run;
  std::vector<std::pair<std::string, Timeline>> loaded;
  std::optional<absl::Status> first_error;
  for (size_t i = 0; i < files.size(); ++i) {
    absl::StatusOr<Timeline>& r = *results[i];
    if (r.ok()) {
      loaded.emplace_back(files[i].path, std::move(*r));
    } else {
      if (!first_error) first_error = r.status();
      run.warnings.push_back(fmt::format("skipped: {}", std::string(r.status().message())));
    }
  }
  if (loaded.empty()) return *first_error;
  std::stable_sort(loaded.begin(), loaded.end(), [](const auto& a, const auto& b) {
    int ra = a.second.metadata().rank;
    int rb = b.second.metadata().rank;
    return std::make_tuple(ra < 0, ra, a.first) < std::make_tuple(rb < 0, rb, b.first);
  });
  for (size_t i = 1; i < loaded.size(); ++i) {
    int rank = loaded[i].second.metadata().rank;
    if (rank >= 0 && rank == loaded[i - 1].second.metadata().rank) {
      run.warnings.push_back(fmt::format("{} and {} both claim rank {}", loaded[i - 1].first,
                                         loaded[i].first, rank));
    }
  }
  for (auto& [path, tl] : loaded) {
    // Step windows come from ProfilerStep#N markers (or a format's own step
    // events mapped to them); without any, analyses use one window over the
    // whole trace, and the report must say so.
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
    run.ranks.push_back(std::move(tl));
  }
  return run;
}

}  // namespace tracelint
