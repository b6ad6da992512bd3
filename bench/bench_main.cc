// tracelint_bench: issue #4's benchmark. Per trace size it generates (or
// reuses) a synthetic Kineto trace, then times in separate child processes
// the bare simdjson walk and `tracelint analyze`, and reports time, ratio,
// peak RSS per file byte and events/s; plus gzip decompression throughput.
//
//   tracelint_bench --sizes 100M,1G --dir /tmp/tracelint-bench

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/bare_walk.h"
#include "bench/child_process.h"
#include "bench/gzip_bench.h"
#include "bench/multi_run.h"
#include "bench/real_traces.h"
#include "fmt/format.h"
#include "tools/gen_kineto/byte_sink.h"
#include "tools/gen_kineto/kineto_generator.h"

#if TRACELINT_BENCH_HAVE_PARSERS
#include "parsers/format_registry.h"
#endif

#ifndef TRACELINT_BENCH_DEFAULT_TRACELINT
#define TRACELINT_BENCH_DEFAULT_TRACELINT ""
#endif
#ifndef TRACELINT_BENCH_DEFAULT_BARE_WALK
#define TRACELINT_BENCH_DEFAULT_BARE_WALK ""
#endif
#ifndef TRACELINT_BENCH_SOURCE_DIR
#define TRACELINT_BENCH_SOURCE_DIR "."
#endif

namespace tracelint::bench {
namespace {

namespace fs = std::filesystem;

struct Measured {
  double best_s = 0;
  double median_s = 0;
  int64_t max_rss_bytes = 0;  // largest over the repetitions
  bool ok = false;
  std::string note;
};

struct SizeRow {
  std::string size_text;
  int64_t file_bytes = 0;
  int64_t events = 0;
  Measured walk;
  Measured tracelint;
  Measured parse;  // in-process ParseTraceFile (parse + Finalize)
  int64_t slices = 0;
  int64_t timeline_bytes = 0;
  Measured tracelint_gz;
  std::vector<DecompressRun> gzip;
  int64_t gz_bytes = 0;
  double pair_ratio = 0;  // median of tracelint / walk per pair
};

struct Config {
  std::vector<std::string> sizes;
  std::string dir;
  std::string tracelint;
  std::string bare_walk;
  int repeat = 3;
  uint64_t seed = 1;
  bool gzip = true;
  int64_t gzip_max_bytes = int64_t{1} << 30;
  int parse_threads = 0;
};

void Summarize(std::vector<double> times, Measured& m) {
  std::sort(times.begin(), times.end());
  m.best_s = times.front();
  m.median_s = times[times.size() / 2];
  m.ok = true;
}

std::string StderrTail(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  return s.size() > 400 ? s.substr(s.size() - 400) : s;
}

// Generates the trace unless an earlier run left it (written to .tmp and
// renamed, so a present file is complete).
absl::StatusOr<std::string> EnsureTrace(const Config& cfg, const std::string& size_text,
                                        int64_t bytes) {
  std::string path = fmt::format("{}/kineto_{}_seed{}.json", cfg.dir, size_text, cfg.seed);
  if (fs::exists(path)) return path;
  std::string tmp = path + ".tmp";
  absl::StatusOr<std::unique_ptr<gen::ByteSink>> sink = gen::OpenFileSink(tmp);
  if (!sink.ok()) return sink.status();
  gen::GeneratorOptions options;
  options.target_bytes = bytes;
  options.seed = cfg.seed;
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<gen::GeneratorStats> stats = gen::GenerateKinetoTrace(options, **sink);
  if (!stats.ok()) return stats.status();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("generated %s: %.1f MB, %lld events in %.2f s (%.0f MB/s)\n", path.c_str(),
              stats->bytes / 1e6, static_cast<long long>(stats->events), s,
              stats->bytes / 1e6 / s);
  fs::rename(tmp, path);
  return path;
}

Measured MeasureWalk(const std::string& path, int repeat, int64_t* events,
                     std::string* kernel) {
  Measured m;
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    absl::StatusOr<ChildRun> run = RunInChild([&]() -> std::string {
      absl::StatusOr<BareWalkResult> r = BareWalkFile(path);
      if (!r.ok()) return "error: " + r.status().ToString();
      return fmt::format("{} {} {}", r->events, r->checksum, r->kernel);
    });
    if (!run.ok() || run->exit_code != 0) {
      m.note = run.ok() ? fmt::format("exit {} signal {} {}", run->exit_code, run->signal,
                                      run->payload)
                        : run.status().ToString();
      return m;
    }
    std::istringstream payload(run->payload);
    uint64_t checksum;
    payload >> *events >> checksum >> *kernel;
    times.push_back(run->wall_s);
    m.max_rss_bytes = std::max(m.max_rss_bytes, run->max_rss_bytes);
  }
  Summarize(times, m);
  return m;
}

Measured MeasureTracelint(const Config& cfg, const std::string& path, int repeat) {
  Measured m;
  if (cfg.tracelint.empty() || !fs::exists(cfg.tracelint)) {
    m.note = "tracelint binary not built";
    return m;
  }
  std::string err_path = cfg.dir + "/tracelint.stderr";
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    absl::StatusOr<ChildRun> run = RunCommand({cfg.tracelint, "analyze", path}, err_path);
    // Exit 1 is the findings gate: the analysis itself succeeded.
    if (!run.ok() || (run->exit_code != 0 && run->exit_code != 1)) {
      m.note = run.ok() ? fmt::format("exit {} signal {}: {}", run->exit_code, run->signal,
                                      StderrTail(err_path))
                        : run.status().ToString();
      return m;
    }
    times.push_back(run->wall_s);
    m.max_rss_bytes = std::max(m.max_rss_bytes, run->max_rss_bytes);
  }
  Summarize(times, m);
  return m;
}

// ParseTraceFile alone (sniff, read, parse, Finalize) in a child process:
// the parser's share of `tracelint analyze`, and the Timeline's size.
Measured MeasureParse(const Config& cfg, const std::string& path, int64_t* slices,
                      int64_t* timeline_bytes) {
  Measured m;
#if TRACELINT_BENCH_HAVE_PARSERS
  absl::StatusOr<ChildRun> run = RunInChild([&]() -> std::string {
    ParseOptions options;
    options.threads = cfg.parse_threads;
    absl::StatusOr<Timeline> tl = ParseTraceFile(path, options);
    if (!tl.ok()) return "error: " + tl.status().ToString();
    return fmt::format("{} {}", tl->slice_count(), tl->MemoryBytes());
  });
  if (!run.ok() || run->exit_code != 0) {
    m.note = run.ok() ? fmt::format("exit {} signal {}: {}", run->exit_code, run->signal,
                                    run->payload)
                      : run.status().ToString();
    return m;
  }
  std::istringstream payload(run->payload);
  payload >> *slices >> *timeline_bytes;
  m.max_rss_bytes = run->max_rss_bytes;
  Summarize({run->wall_s}, m);
#else
  m.note = "built without the parsers";
#endif
  return m;
}

void MeasureGzip(const Config& cfg, const std::string& path, SizeRow& row) {
  std::string gz = path + ".gz";
  if (!fs::exists(gz)) {
    auto start = std::chrono::steady_clock::now();
    absl::Status s = CompressGzipFile(path, gz + ".tmp", 6);
    if (!s.ok()) {
      std::printf("  gzip: %s\n", s.ToString().c_str());
      return;
    }
    fs::rename(gz + ".tmp", gz);
    std::printf("compressed %s (zlib level 6) in %.1f s\n", gz.c_str(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  row.gz_bytes = static_cast<int64_t>(fs::file_size(gz));
  // In a child so the decompression buffers never inflate the driver.
  absl::StatusOr<ChildRun> run = RunInChild([&]() -> std::string {
    absl::StatusOr<std::vector<DecompressRun>> runs =
        MeasureGzipDecompression(gz, row.file_bytes);
    if (!runs.ok()) return "error: " + runs.status().ToString();
    std::string out;
    for (const DecompressRun& r : *runs) {
      out += fmt::format("{}\t{}\t{}\t{}\n", r.library, r.streaming ? 1 : 0, r.seconds,
                         r.output_bytes);
    }
    return out;
  });
  if (!run.ok() || run->exit_code != 0) {
    std::printf("  gzip bench failed: %s\n",
                run.ok() ? run->payload.c_str() : run.status().ToString().c_str());
    return;
  }
  std::istringstream lines(run->payload);
  std::string line;
  while (std::getline(lines, line)) {
    DecompressRun r;
    std::istringstream fields(line);
    std::string streaming;
    std::getline(fields, r.library, '\t');
    std::getline(fields, streaming, '\t');
    r.streaming = streaming == "1";
    fields >> r.seconds >> r.output_bytes;
    row.gzip.push_back(r);
  }
  row.tracelint_gz = MeasureTracelint(cfg, gz, 1);
}

std::string Seconds(const Measured& m) {
  if (!m.ok) return "n/a";
  return fmt::format("{:.3f} (med {:.3f})", m.best_s, m.median_s);
}

void PrintReport(const std::vector<SizeRow>& rows, const std::string& kernel) {
  std::printf("\nSynthetic traces (tools/gen_kineto). bare walk kernel: %s; times are best of "
              "the repetitions (median in parentheses), each run a separate process; ratio = "
              "median of tracelint/walk over the paired runs; RSS is ru_maxrss.\n\n",
              kernel.c_str());
  std::printf("| size | file MB | events | bare walk s | tracelint s | ratio | walk RSS/file "
              "| tracelint RSS/file | tracelint Mevents/s |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (const SizeRow& r : rows) {
    double mb = r.file_bytes / 1e6;
    std::string ratio = r.walk.ok && r.tracelint.ok ? fmt::format("{:.2f}", r.pair_ratio) : "n/a";
    std::string tl_rss = r.tracelint.ok
                             ? fmt::format("{:.2f}", double(r.tracelint.max_rss_bytes) /
                                                         r.file_bytes)
                             : "n/a";
    // Events are counted by the walk; without it, neither they nor the rate
    // are known here.
    std::string rate = r.tracelint.ok && r.walk.ok
                           ? fmt::format("{:.2f}", r.events / r.tracelint.best_s / 1e6)
                           : "n/a";
    std::string events = r.walk.ok ? fmt::format("{}", r.events) : "n/a";
    std::string walk_rss =
        r.walk.ok ? fmt::format("{:.2f}", double(r.walk.max_rss_bytes) / r.file_bytes) : "n/a";
    std::printf("| %s | %.1f | %s | %s | %s | %s | %s | %s | %s |\n", r.size_text.c_str(), mb,
                events.c_str(), Seconds(r.walk).c_str(), Seconds(r.tracelint).c_str(),
                ratio.c_str(), walk_rss.c_str(), tl_rss.c_str(), rate.c_str());
  }
  std::printf("\n| size | parse+Finalize s | ratio to walk | parse RSS/file | slices "
              "| Timeline bytes/slice |\n|---|---|---|---|---|---|\n");
  for (const SizeRow& r : rows) {
    if (!r.parse.ok) {
      std::printf("| %s | n/a (%s) | | | | |\n", r.size_text.c_str(), r.parse.note.c_str());
      continue;
    }
    std::string ratio = r.walk.ok ? fmt::format("{:.2f}", r.parse.best_s / r.walk.best_s) : "n/a";
    std::printf("| %s | %s | %s | %.2f | %lld | %.1f |\n", r.size_text.c_str(),
                Seconds(r.parse).c_str(), ratio.c_str(),
                double(r.parse.max_rss_bytes) / r.file_bytes, static_cast<long long>(r.slices),
                r.slices > 0 ? double(r.timeline_bytes) / r.slices : 0.0);
  }
  for (const SizeRow& r : rows) {
    if (!r.walk.ok) std::printf("%s bare walk: %s\n", r.size_text.c_str(), r.walk.note.c_str());
    if (!r.tracelint.ok) {
      std::printf("%s tracelint: %s\n", r.size_text.c_str(), r.tracelint.note.c_str());
    }
  }
  bool any_gzip = false;
  for (const SizeRow& r : rows) any_gzip |= !r.gzip.empty();
  if (!any_gzip) return;
  std::printf("\n| size | .gz MB | library | mode | s | JSON output GB/s |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const SizeRow& r : rows) {
    for (const DecompressRun& d : r.gzip) {
      std::printf("| %s | %.1f | %s | %s | %.3f | %.2f |\n", r.size_text.c_str(),
                  r.gz_bytes / 1e6, d.library.c_str(),
                  d.streaming ? "streaming, 4 MiB window" : "whole buffer", d.seconds,
                  d.output_bytes / d.seconds / 1e9);
    }
    if (r.tracelint_gz.ok) {
      std::printf("| %s | %.1f | tracelint analyze on .json.gz | end to end | %.3f | %.2f |\n",
                  r.size_text.c_str(), r.gz_bytes / 1e6, r.tracelint_gz.best_s,
                  r.file_bytes / r.tracelint_gz.best_s / 1e9);
    }
  }
}

int Run(int argc, char** argv) {
  CLI::App app{"tracelint benchmark (issue #4)"};
  Config cfg;
  std::string sizes = "100M";
  std::string gzip_max = "1G";
  cfg.dir = "/tmp/tracelint-bench";
  cfg.tracelint = TRACELINT_BENCH_DEFAULT_TRACELINT;
  cfg.bare_walk = TRACELINT_BENCH_DEFAULT_BARE_WALK;
  std::string real_sizes;
  std::string corpus = std::string(TRACELINT_BENCH_SOURCE_DIR) + "/../shared/corpus";
  int batch_runs = 0;
  bool no_gzip = false;
  int ranks = 0;
  std::string ranks_size = "1G";
  app.add_option("--sizes", sizes, "comma-separated trace sizes (binary K/M/G)")
      ->capture_default_str();
  app.add_option("--dir", cfg.dir, "where traces are generated and reused")
      ->capture_default_str();
  app.add_option("--tracelint", cfg.tracelint, "tracelint binary")->capture_default_str();
  app.add_option("--bare-walk", cfg.bare_walk, "bare_walk binary (the reference)")
      ->capture_default_str();
  app.add_option("--real-sizes", real_sizes,
                 "also scale the four real corpus traces (real_traces.h) to these sizes and "
                 "time them against the walk, e.g. 100M,1G,5G (empty = skip)")
      ->capture_default_str();
  app.add_option("--corpus", corpus, "the shared corpus directory")->capture_default_str();
  app.add_option("--batch-runs", batch_runs,
                 "also time `tracelint batch` over this many copies of small corpus traces "
                 "(0 = skip)")
      ->check(CLI::Range(0, 100000));
  app.add_option("--repeat", cfg.repeat, "runs per measurement")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  app.add_option("--seed", cfg.seed, "generator seed")->capture_default_str();
  app.add_option("--parse-threads", cfg.parse_threads,
                 "ParseOptions::threads for the in-process parse (0 = all cores)")
      ->capture_default_str();
  app.add_flag("--no-gzip", no_gzip, "skip the decompression benchmark");
  app.add_option("--gzip-max", gzip_max, "largest size that gets the gzip benchmark")
      ->capture_default_str();
  app.add_option("--ranks", ranks,
                 "also time a run of N ranks and a batch of N runs against one rank on one "
                 "core (0 = skip)")
      ->check(CLI::Range(0, 64));
  app.add_option("--ranks-size", ranks_size, "trace size used for --ranks")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  cfg.gzip = !no_gzip;
  absl::StatusOr<int64_t> gmax = gen::ParseByteSize(gzip_max);
  if (!gmax.ok()) {
    std::fprintf(stderr, "tracelint_bench: %s\n", gmax.status().ToString().c_str());
    return 2;
  }
  cfg.gzip_max_bytes = *gmax;
  std::error_code ec;
  fs::create_directories(cfg.dir, ec);

  std::printf("cpus: %ld, simdjson active kernel: %s, driver RSS: %.1f MB, tracelint: %s\n",
              sysconf(_SC_NPROCESSORS_ONLN), ActiveSimdjsonKernel().c_str(),
              CurrentRssBytes() / 1e6, cfg.tracelint.empty() ? "(none)" : cfg.tracelint.c_str());
  if (cfg.bare_walk.empty() || !fs::exists(cfg.bare_walk) || cfg.tracelint.empty() ||
      !fs::exists(cfg.tracelint)) {
    std::fprintf(stderr, "tracelint_bench: needs the tracelint and bare_walk binaries "
                         "(--tracelint, --bare-walk)\n");
    return 2;
  }
  std::vector<SizeRow> rows;
  std::string kernel = "?";
  std::stringstream size_list(sizes);
  std::string size_text;
  while (std::getline(size_list, size_text, ',')) {
    absl::StatusOr<int64_t> bytes = gen::ParseByteSize(size_text);
    if (!bytes.ok()) {
      std::fprintf(stderr, "tracelint_bench: %s\n", bytes.status().ToString().c_str());
      return 2;
    }
    absl::StatusOr<std::string> path = EnsureTrace(cfg, size_text, *bytes);
    if (!path.ok()) {
      std::fprintf(stderr, "tracelint_bench: %s\n", path.status().ToString().c_str());
      return 3;
    }
    SizeRow row;
    row.size_text = size_text;
    row.file_bytes = static_cast<int64_t>(fs::file_size(*path));
    // The walk's counts and kernel, once (untimed).
    MeasureWalk(*path, 1, &row.events, &kernel);
    // Interleaved so that machine noise hits both sides alike: the walk as a
    // process of its own (bare_walk), then tracelint, then the in-process
    // parse.
    std::vector<double> walk_times, tl_times, parse_times, ratios;
    for (int i = 0; i < cfg.repeat; ++i) {
      PairResult pair = RunPaired({cfg.bare_walk, *path}, {cfg.tracelint, "analyze", *path}, 1,
                                  cfg.dir + "/synthetic.stderr");
      Measured p = MeasureParse(cfg, *path, &row.slices, &row.timeline_bytes);
      if (pair.ok) {
        walk_times.push_back(pair.a_median_s);
        tl_times.push_back(pair.b_median_s);
        ratios.push_back(pair.ratio_median);
        row.walk.max_rss_bytes = std::max(row.walk.max_rss_bytes, pair.a_max_rss_bytes);
        row.tracelint.max_rss_bytes = std::max(row.tracelint.max_rss_bytes, pair.b_max_rss_bytes);
      } else {
        row.walk.note = row.tracelint.note = pair.note;
      }
      if (p.ok) parse_times.push_back(p.best_s);
      row.parse.max_rss_bytes = std::max(row.parse.max_rss_bytes, p.max_rss_bytes);
      if (!p.ok) row.parse.note = p.note;
      std::printf("%s run %d: bare walk %s s, tracelint %s s, parse %s s\n", size_text.c_str(),
                  i + 1, pair.ok ? fmt::format("{:.3f}", pair.a_median_s).c_str() : "failed",
                  pair.ok ? fmt::format("{:.3f}", pair.b_median_s).c_str() : "n/a",
                  p.ok ? fmt::format("{:.3f}", p.best_s).c_str() : "n/a");
    }
    if (walk_times.size() == static_cast<size_t>(cfg.repeat)) Summarize(walk_times, row.walk);
    if (tl_times.size() == static_cast<size_t>(cfg.repeat)) Summarize(tl_times, row.tracelint);
    if (parse_times.size() == static_cast<size_t>(cfg.repeat)) Summarize(parse_times, row.parse);
    if (!ratios.empty()) {
      std::sort(ratios.begin(), ratios.end());
      row.pair_ratio = ratios[ratios.size() / 2];
    }
    if (cfg.gzip && *bytes <= cfg.gzip_max_bytes) MeasureGzip(cfg, *path, row);
    rows.push_back(row);
  }
  if (!rows.empty()) PrintReport(rows, kernel);
  PairConfig pair_cfg{cfg.tracelint, cfg.bare_walk, cfg.dir, corpus, cfg.repeat};
  if (!real_sizes.empty()) {
    if (!fs::exists(fs::path(corpus) / "MANIFEST.tsv")) {
      std::fprintf(stderr, "tracelint_bench: no corpus at %s (--corpus)\n", corpus.c_str());
      return 3;
    }
    std::vector<std::string> list;
    std::stringstream real_list(real_sizes);
    for (std::string s; std::getline(real_list, s, ',');) list.push_back(s);
    PrintRealTable(MeasureRealTraces(pair_cfg, list, cfg.gzip ? cfg.gzip_max_bytes : 0));
  }
  if (batch_runs > 0 && !MeasureBatchOfSmallRuns(pair_cfg, batch_runs)) return 4;
  if (ranks > 0) {
    absl::StatusOr<int64_t> bytes = gen::ParseByteSize(ranks_size);
    if (!bytes.ok()) {
      std::fprintf(stderr, "tracelint_bench: %s\n", bytes.status().ToString().c_str());
      return 2;
    }
    if (!MeasureMultiRun(cfg.tracelint, *bytes, cfg.seed, ranks, cfg.repeat, cfg.dir)) return 4;
  }
  return 0;
}

}  // namespace
}  // namespace tracelint::bench

int main(int argc, char** argv) { return tracelint::bench::Run(argc, argv); }
