#include "bench/multi_run.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "bench/child_process.h"
#include "fmt/format.h"
#include "tools/gen_kineto/kineto_generator.h"

namespace tracelint::bench {
namespace {

namespace fs = std::filesystem;

struct Series {
  std::string name;
  std::vector<std::string> argv;
  std::vector<double> times_s;
  int64_t max_rss_bytes = 0;
  std::string failure;
};

double Best(const Series& s) { return *std::min_element(s.times_s.begin(), s.times_s.end()); }

double Median(Series s) {
  std::sort(s.times_s.begin(), s.times_s.end());
  return s.times_s[s.times_s.size() / 2];
}

// Rank `rank` of a `ranks`-rank job from the generator (its own
// distributedInfo.rank and pid), made once.
bool EnsureRank(const fs::path& path, int64_t bytes, uint64_t seed, int rank, int ranks) {
  if (fs::exists(path)) return true;
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::string tmp = path.string() + ".tmp";
  absl::StatusOr<std::unique_ptr<gen::ByteSink>> sink = gen::OpenFileSink(tmp);
  if (!sink.ok()) {
    std::fprintf(stderr, "tracelint_bench: %s\n", sink.status().ToString().c_str());
    return false;
  }
  gen::GeneratorOptions options;
  options.target_bytes = bytes;
  options.seed = seed;
  options.rank = rank;
  options.world_size = ranks;
  absl::StatusOr<gen::GeneratorStats> stats = gen::GenerateKinetoTrace(options, **sink);
  if (!stats.ok()) {
    std::fprintf(stderr, "tracelint_bench: %s\n", stats.status().ToString().c_str());
    return false;
  }
  fs::rename(tmp, path, ec);
  return !ec;
}

// A file of its own at `to`: a hard link (another name for the same
// regular file, which directory scans treat as any file), else a copy.
bool Place(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::remove(to, ec);
  fs::create_directories(to.parent_path(), ec);
  fs::create_hard_link(from, to, ec);
  if (ec) fs::copy_file(from, to, ec);
  if (ec) std::fprintf(stderr, "tracelint_bench: cannot place %s: %s\n", to.c_str(),
                       ec.message().c_str());
  return !ec;
}

}  // namespace

bool MeasureMultiRun(const std::string& tracelint, int64_t rank_bytes, uint64_t seed, int ranks,
                     int repeat, const std::string& work_dir) {
  // Real files with distinct ranks: the run directory's ranks must be
  // files of their own (links out of a scanned directory are skipped).
  fs::path run_dir = fs::path(work_dir) / fmt::format("multirank_{}x{}_seed{}", ranks,
                                                      rank_bytes, seed);
  fs::path archive = fs::path(work_dir) / fmt::format("archive_{}x{}_seed{}", ranks,
                                                      rank_bytes, seed);
  for (int r = 0; r < ranks; ++r) {
    fs::path rank_file = run_dir / fmt::format("rank-{}.pt.trace.json", r);
    if (!EnsureRank(rank_file, rank_bytes, seed, r, ranks)) return false;
    if (!Place(rank_file, archive / fmt::format("run{}", r) / rank_file.filename())) return false;
  }
  fs::path target = run_dir / "rank-0.pt.trace.json";
  const std::string trace = target.string();
  std::vector<Series> series = {
      {"one rank, 1 core", {tracelint, "analyze", target.string(), "--threads", "1"}},
      {fmt::format("{} ranks, all cores", ranks), {tracelint, "analyze", run_dir.string()}},
      {fmt::format("batch of {}, 1 core", ranks),
       {tracelint, "batch", archive.string(), "--jobs", "1", "--threads", "1"}},
      {fmt::format("batch of {}, all cores", ranks), {tracelint, "batch", archive.string()}},
  };
  std::string err_path = work_dir + "/multirun.stderr";
  for (int i = 0; i < repeat; ++i) {
    std::string line = fmt::format("multi-run {}:", i + 1);
    for (Series& s : series) {
      absl::StatusOr<ChildRun> run = RunCommand(s.argv, err_path);
      // Exit 1 is the findings gate: the analysis itself succeeded.
      if (!run.ok() || (run->exit_code != 0 && run->exit_code != 1)) {
        s.failure = run.ok() ? fmt::format("exit {} signal {}", run->exit_code, run->signal)
                             : run.status().ToString();
        std::fprintf(stderr, "tracelint_bench: %s failed: %s (stderr in %s)\n",
                     s.name.c_str(), s.failure.c_str(), err_path.c_str());
        return false;
      }
      s.times_s.push_back(run->wall_s);
      s.max_rss_bytes = std::max(s.max_rss_bytes, run->max_rss_bytes);
      line += fmt::format(" {} {:.3f} s;", s.name, run->wall_s);
    }
    std::printf("%s\n", line.c_str());
  }
  int64_t file_bytes = static_cast<int64_t>(fs::file_size(target));
  std::printf("\n| %s x %d | best s | median s | peak RSS / file | speed-up (best) |\n",
              fs::path(trace).filename().c_str(), ranks);
  std::printf("|---|---|---|---|---|\n");
  double one = Best(series[0]);
  double batch_one = Best(series[2]);
  for (size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    std::string speedup = "-";
    if (k == 1) speedup = fmt::format("{:.2f}x vs {} x one rank, 1 core", ranks * one / Best(s), ranks);
    if (k == 3) {
      speedup = fmt::format("{:.2f}x vs batch on 1 core; {:.2f}x vs {} x one rank, 1 core",
                            batch_one / Best(s), ranks * one / Best(s), ranks);
    }
    std::printf("| %s | %.3f | %.3f | %.2f | %s |\n", s.name.c_str(), Best(s), Median(s),
                static_cast<double>(s.max_rss_bytes) / static_cast<double>(file_bytes),
                speedup.c_str());
  }
  return true;
}

}  // namespace tracelint::bench
