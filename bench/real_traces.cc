#include "bench/real_traces.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "bench/gzip_bench.h"
#include "bench/trace_scaler.h"
#include "fmt/format.h"
#include "tools/gen_kineto/kineto_generator.h"

namespace tracelint::bench {
namespace {

namespace fs = std::filesystem;

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// An analysis that ran: 0, the findings gate (1), damaged input analysed
// (4) or nothing judgeable (5, tiny traces); not usage, unreadable or write
// errors, nor a signal.
bool Succeeded(const absl::StatusOr<ChildRun>& run) {
  if (!run.ok() || run->signal != 0) return false;
  int code = run->exit_code;
  return code == 0 || code == 1 || code == 4 || code == 5;
}

std::string Failure(const absl::StatusOr<ChildRun>& run, const std::string& stderr_path) {
  if (!run.ok()) return run.status().ToString();
  std::ifstream in(stderr_path);
  std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (err.size() > 300) err = err.substr(err.size() - 300);
  return fmt::format("exit {} signal {}: {}", run->exit_code, run->signal, err);
}

// The scaled copy of `trace` at `size_text`, made once; its event count is
// kept beside it.
absl::StatusOr<std::string> EnsureScaled(const PairConfig& cfg, const RealTrace& trace,
                                         const std::string& size_text, int64_t* events) {
  std::string path = fmt::format("{}/real_{}_{}.json", cfg.dir, trace.label, size_text);
  std::string events_path = path + ".events";
  if (fs::exists(path) && fs::exists(events_path)) {
    std::ifstream in(events_path);
    in >> *events;
    return path;
  }
  absl::StatusOr<int64_t> bytes = gen::ParseByteSize(size_text);
  if (!bytes.ok()) return bytes.status();
  ScaleOptions options;
  options.target_bytes = *bytes;
  std::string source = (fs::path(cfg.corpus) / trace.corpus_path).string();
  absl::StatusOr<ScaleStats> stats = ScaleTraceFile(source, path, options);
  if (!stats.ok()) return stats.status();
  *events = stats->copies * stats->body_events + stats->once_events;
  std::ofstream(events_path) << *events << "\n";
  std::printf("scaled %s to %s: %lld copies, %.1f MB\n", trace.corpus_path.c_str(),
              path.c_str(), static_cast<long long>(stats->copies), stats->output_bytes / 1e6);
  return path;
}

std::string Ratio(const PairResult& r) {
  return r.ok ? fmt::format("{:.2f}", r.ratio_median) : "n/a";
}

}  // namespace

std::vector<RealTrace> DefaultRealTraces() {
  return {
      {"ddp_nccl",
       "facebookresearch__HolisticTraceAnalysis/tests/data/nccl_parser_config/nccl_data.json.gz"},
      {"shapes_stacks",
       "AMD-AGI__TraceLens/tests/traces/h100/google_owlv2-large-patch14-ensemble__1016001.json.gz"},
      {"inference_1line",
       "AMD-AGI__TraceLens/tests/traces/inference/xdit_sd_3.5/profile_trace_rank_0.json.gz"},
      {"legacy_cats",
       "pytorch__kineto/tb_plugin/samples/resnet50_profiler_api_num_workers_4/"
       "worker0.pt.trace.json.gz"},
  };
}

std::vector<std::string> SmallCorpusTraces() {
  return {
      "facebookresearch__HolisticTraceAnalysis/tests/data/triton_example/triton_example.json.gz",
      "facebookresearch__HolisticTraceAnalysis/tests/data/critical_path/cuda_event_sync/"
      "event_sync_trace.json.gz",
      "facebookresearch__HolisticTraceAnalysis/tests/data/amd_trace/"
      "mi250_minitoy_train_ROCm6_2_kineto.json.gz",
      "AMD-AGI__TraceLens/tests/traces/torch_compile_triton/trace.json.gz",
      "facebookresearch__HolisticTraceAnalysis/tests/data/with_gpu_user_annotation/"
      "step_based_trace_2543932.json.gz",
      "facebookresearch__HolisticTraceAnalysis/tests/data/critical_path/simple_add/"
      "benchmark_result_493459_1694039959_trace.json.gz",
      "AMD-AGI__TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz",
      "facebookresearch__HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-0.json.gz",
  };
}

PairResult RunPaired(const std::vector<std::string>& a, const std::vector<std::string>& b,
                     int repeat, const std::string& stderr_path) {
  PairResult r;
  std::vector<double> a_s, b_s, a_cpu, b_cpu, ratios;
  for (int i = 0; i < repeat; ++i) {
    absl::StatusOr<ChildRun> ra = RunCommand(a, stderr_path);
    if (!Succeeded(ra)) {
      r.note = fmt::format("{}: {}", a[0], Failure(ra, stderr_path));
      return r;
    }
    absl::StatusOr<ChildRun> rb = RunCommand(b, stderr_path);
    if (!Succeeded(rb)) {
      r.note = fmt::format("{}: {}", b[0], Failure(rb, stderr_path));
      return r;
    }
    a_s.push_back(ra->wall_s);
    b_s.push_back(rb->wall_s);
    a_cpu.push_back(ra->cpu_s);
    b_cpu.push_back(rb->cpu_s);
    ratios.push_back(rb->wall_s / ra->wall_s);
    r.a_max_rss_bytes = std::max(r.a_max_rss_bytes, ra->max_rss_bytes);
    r.b_max_rss_bytes = std::max(r.b_max_rss_bytes, rb->max_rss_bytes);
  }
  r.a_median_s = Median(a_s);
  r.b_median_s = Median(b_s);
  r.a_cpu_median_s = Median(a_cpu);
  r.b_cpu_median_s = Median(b_cpu);
  r.ratio_median = Median(ratios);
  r.ok = true;
  return r;
}

std::vector<RealRow> MeasureRealTraces(const PairConfig& cfg,
                                       const std::vector<std::string>& sizes,
                                       int64_t gzip_max_bytes) {
  std::vector<RealRow> rows;
  std::string err = cfg.dir + "/real.stderr";
  for (const std::string& size_text : sizes) {
    for (const RealTrace& trace : DefaultRealTraces()) {
      RealRow row;
      row.label = trace.label;
      row.size_text = size_text;
      absl::StatusOr<std::string> path = EnsureScaled(cfg, trace, size_text, &row.events);
      if (!path.ok()) {
        row.walk_vs_tracelint.note = path.status().ToString();
        rows.push_back(row);
        continue;
      }
      row.path = *path;
      row.file_bytes = static_cast<int64_t>(fs::file_size(*path));
      // Warm: one untimed read of each so both sides find it in the page cache.
      RunCommand({"/bin/cat", *path}, err).IgnoreError();
      if (row.file_bytes < (int64_t{4} << 30)) {
        row.walk_vs_tracelint =
            RunPaired({cfg.bare_walk, *path}, {cfg.tracelint, "analyze", *path}, cfg.repeat, err);
      } else {
        // Over simdjson's 4 GiB document limit the walk cannot run; tracelint
        // is still timed (a = b = tracelint).
        row.walk_vs_tracelint = RunPaired({cfg.tracelint, "analyze", *path},
                                          {cfg.tracelint, "analyze", *path}, cfg.repeat, err);
        row.walk_vs_tracelint.note = "walk impossible (over 4 GiB)";
      }
      if (row.file_bytes <= gzip_max_bytes) {
        std::string gz = *path + ".gz";
        if (!fs::exists(gz)) {
          absl::Status s = CompressGzipFile(*path, gz + ".tmp", 6);
          if (s.ok()) fs::rename(gz + ".tmp", gz);
        }
        if (fs::exists(gz)) {
          row.gz_bytes = static_cast<int64_t>(fs::file_size(gz));
          row.json_vs_gz = RunPaired({cfg.tracelint, "analyze", *path},
                                     {cfg.tracelint, "analyze", gz}, cfg.repeat, err);
        }
      }
      const PairResult& p = row.walk_vs_tracelint;
      std::printf("%s %s: walk %.3f s, tracelint %.3f s, ratio %s%s\n", row.label.c_str(),
                  size_text.c_str(), p.a_median_s, p.b_median_s, Ratio(p).c_str(),
                  p.note.empty() ? "" : (" (" + p.note + ")").c_str());
      rows.push_back(row);
    }
  }
  return rows;
}

void PrintRealTable(const std::vector<RealRow>& rows) {
  std::printf(
      "\nReal traces scaled (bench/trace_scaler.h); medians of paired alternating runs, each a "
      "process; ratio = median of tracelint/walk per pair; CPU = user+sys.\n\n");
  std::printf("| trace | size | file MB | events | walk s | tracelint s | ratio | walk CPU s "
              "| tracelint CPU s | tracelint RSS/file | .gz MB | .gz/.json |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const RealRow& r : rows) {
    const PairResult& p = r.walk_vs_tracelint;
    bool walk = p.ok && p.note.empty();
    std::string walk_s = walk ? fmt::format("{:.3f}", p.a_median_s) : "n/a";
    std::string walk_cpu = walk ? fmt::format("{:.3f}", p.a_cpu_median_s) : "n/a";
    std::string tl_s = p.ok ? fmt::format("{:.3f}", p.b_median_s) : "n/a";
    std::string tl_cpu = p.ok ? fmt::format("{:.3f}", p.b_cpu_median_s) : "n/a";
    std::string rss =
        p.ok && r.file_bytes > 0
            ? fmt::format("{:.2f}", static_cast<double>(p.b_max_rss_bytes) / r.file_bytes)
            : "n/a";
    std::string gz = r.json_vs_gz.ok ? fmt::format("{:.2f}", r.json_vs_gz.ratio_median) : "-";
    std::printf("| %s | %s | %.1f | %lld | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                r.label.c_str(), r.size_text.c_str(), r.file_bytes / 1e6,
                static_cast<long long>(r.events), walk_s.c_str(), tl_s.c_str(),
                walk ? Ratio(p).c_str() : "-", walk_cpu.c_str(), tl_cpu.c_str(), rss.c_str(),
                r.gz_bytes > 0 ? fmt::format("{:.1f}", r.gz_bytes / 1e6).c_str() : "-",
                gz.c_str());
  }
  for (const RealRow& r : rows) {
    if (!r.walk_vs_tracelint.ok) {
      std::printf("%s %s: %s\n", r.label.c_str(), r.size_text.c_str(),
                  r.walk_vs_tracelint.note.c_str());
    }
  }
}

bool MeasureBatchOfSmallRuns(const PairConfig& cfg, int runs) {
  std::vector<std::string> small = SmallCorpusTraces();
  fs::path archive = fs::path(cfg.dir) / fmt::format("batch_small_{}", runs);
  std::error_code ec;
  if (!fs::exists(archive / fmt::format("run{:04}", runs - 1))) {
    fs::remove_all(archive, ec);
    for (int i = 0; i < runs; ++i) {
      const fs::path source = fs::path(cfg.corpus) / small[static_cast<size_t>(i) % small.size()];
      fs::path run = archive / fmt::format("run{:04}", i);
      fs::create_directories(run, ec);
      fs::copy_file(source, run / source.filename(), fs::copy_options::overwrite_existing, ec);
      if (ec) {
        std::fprintf(stderr, "tracelint_bench: cannot copy %s: %s\n", source.c_str(),
                     ec.message().c_str());
        return false;
      }
    }
  }
  std::string err = cfg.dir + "/batch.stderr";
  std::vector<double> wall, cpu;
  int64_t max_rss = 0;
  for (int i = 0; i < cfg.repeat; ++i) {
    absl::StatusOr<ChildRun> run = RunCommand({cfg.tracelint, "batch", archive.string()}, err);
    if (!Succeeded(run)) {
      std::fprintf(stderr, "tracelint_bench: batch: %s\n", Failure(run, err).c_str());
      return false;
    }
    wall.push_back(run->wall_s);
    cpu.push_back(run->cpu_s);
    max_rss = std::max(max_rss, run->max_rss_bytes);
  }
  double median_s = Median(wall);
  std::printf("\n| batch of small real runs | runs | median s | runs/s | CPU s | peak RSS MB |\n");
  std::printf("|---|---|---|---|---|---|\n");
  std::printf("| `tracelint batch` (%zu corpus traces in turn) | %d | %.3f | %.1f | %.3f | %.1f |\n",
              small.size(), runs, median_s, runs / median_s, Median(cpu), max_rss / 1e6);
  return true;
}

}  // namespace tracelint::bench
