#include "bench/multi_run.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "bench/child_process.h"
#include "fmt/format.h"

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

bool Link(const fs::path& target, const fs::path& link) {
  std::error_code ec;
  fs::remove(link, ec);
  fs::create_directories(link.parent_path(), ec);
  fs::create_symlink(target, link, ec);
  if (ec) std::fprintf(stderr, "tracelint_bench: cannot link %s: %s\n", link.c_str(),
                       ec.message().c_str());
  return !ec;
}

}  // namespace

bool MeasureMultiRun(const std::string& tracelint, const std::string& trace, int ranks,
                     int repeat, const std::string& work_dir) {
  fs::path target = fs::absolute(trace);
  fs::path run_dir = fs::path(work_dir) / fmt::format("multirank_{}", ranks);
  fs::path archive = fs::path(work_dir) / fmt::format("archive_{}", ranks);
  std::error_code ec;
  fs::remove_all(run_dir, ec);
  fs::remove_all(archive, ec);
  for (int r = 0; r < ranks; ++r) {
    // Distinct worker names make them ranks of one span (discovery.h).
    if (!Link(target, run_dir / fmt::format("worker{}.pt.trace.json", r))) return false;
    if (!Link(target, archive / fmt::format("run{}", r) / "worker0.pt.trace.json")) return false;
  }
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
      if (!run.ok() || run->exit_code != 0) {
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
