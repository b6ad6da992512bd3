#ifndef TRACELINT_BENCH_REAL_TRACES_H_
#define TRACELINT_BENCH_REAL_TRACES_H_

// Issue 32's benchmark on real traces: corpus traces of four shapes grown
// to benchmark sizes (trace_scaler.h), each timed against the bare walk in
// paired, alternating runs; `.gz` against `.json`; and a batch of many
// small real runs.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/child_process.h"

namespace tracelint::bench {

// A corpus trace (path relative to the corpus directory) and what its shape
// stands for.
struct RealTrace {
  std::string label;
  std::string corpus_path;
};

// The four shapes: a DDP trace with NCCL, a trace with shapes and Python
// stacks, an inference trace (single-line JSON), a legacy-category trace.
std::vector<RealTrace> DefaultRealTraces();

// Small corpus traces that a batch archive is filled with, in turn.
std::vector<std::string> SmallCorpusTraces();

struct PairConfig {
  std::string tracelint;  // tracelint binary
  std::string bare_walk;  // bare_walk binary
  std::string dir;        // scaled traces are written (and reused) here
  std::string corpus;     // the corpus directory
  int repeat = 3;
};

// Medians of `repeat` alternating runs of two commands, and the median of
// the per-pair ratios b / a (each pair ran back to back, so machine load
// hits both alike).
struct PairResult {
  bool ok = false;
  std::string note;  // why not
  double a_median_s = 0;
  double b_median_s = 0;
  double ratio_median = 0;  // of b / a per pair
  double a_cpu_median_s = 0;
  double b_cpu_median_s = 0;
  int64_t a_max_rss_bytes = 0;
  int64_t b_max_rss_bytes = 0;
};

// Runs `a` and `b` alternately (a first), `repeat` times each. Exit codes 0
// and 1 (tracelint's findings gate) count as success.
PairResult RunPaired(const std::vector<std::string>& a, const std::vector<std::string>& b,
                     int repeat, const std::string& stderr_path);

struct RealRow {
  std::string label;
  std::string size_text;
  std::string path;
  int64_t file_bytes = 0;
  int64_t events = 0;
  PairResult walk_vs_tracelint;  // a = bare walk, b = tracelint analyze
  PairResult json_vs_gz;         // a = .json, b = .json.gz (both tracelint)
  int64_t gz_bytes = 0;
};

// Scales (or reuses) each trace to each size and measures it; `gzip_max`:
// the largest size that also gets the .gz comparison. Prints progress.
std::vector<RealRow> MeasureRealTraces(const PairConfig& cfg,
                                       const std::vector<std::string>& sizes,
                                       int64_t gzip_max_bytes);
void PrintRealTable(const std::vector<RealRow>& rows);

// `tracelint batch` over an archive of `runs` one-rank runs, each a copy of
// a small corpus trace (SmallCorpusTraces, in turn). Prints runs per second
// (median of `repeat`); false when it could not run.
bool MeasureBatchOfSmallRuns(const PairConfig& cfg, int runs);

}  // namespace tracelint::bench

#endif  // TRACELINT_BENCH_REAL_TRACES_H_
