#ifndef TRACELINT_ANALYZER_REPORT_REPORT_DATA_H_
#define TRACELINT_ANALYZER_REPORT_REPORT_DATA_H_

// Numbers both renderers show, computed once so text and JSON agree.

#include <array>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "analyzer/analysis/kernel_classify.h"
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/analysis/trace_integrity.h"
#include "analyzer/report/report.h"

namespace tracelint {

// domain.md: samples/s = batch size per rank x ranks / mean step time;
// samples per dollar = samples/s x 3600 / price per hour of all machines.
struct Throughput {
  int64_t batch_size_per_rank = 0;
  int ranks = 0;
  TimeNs mean_step_ns = 0;  // mean over ranks of each rank's mean step
  double samples_per_s = 0;
  std::optional<double> price_per_hour;
  std::optional<double> samples_per_dollar;
  std::string assumptions;
};
// nullopt without --batch-size or without analysed steps.
std::optional<Throughput> ComputeThroughput(const ReportInput& input);

// Per-step mean breakdown in whole ns that sums exactly to the mean step
// (the rounding remainder goes to the largest categories first).
std::array<TimeNs, kStepCategoryCount> MeanBreakdownNs(const DeviceMetrics& summary,
                                                       int64_t step_count);

struct FindingsSummary {
  int count = 0;
  TimeNs recoverable_ns_per_step = 0;
  double recoverable_share = 0;  // capped at 1: causes are charged once
  std::string line;              // "3 findings, up to 41% of step time recoverable"
};
FindingsSummary SummarizeFindings(const std::vector<Finding>& findings);

// contract.md, "The verdict line": what bounds the run, from the analysed
// steps of the worst rank (longest mean step). Computed once here so every
// reporter prints the same words.
struct Verdict {
  bool judgeable = false;  // false: exit 5, bound "not judgeable"
  std::string bound;       // input | host | communication | copies | gpu compute | not judgeable
  int rank = -1;           // the rank judged; -1 when none
  double share = 0;        // of the step: the bounding cause's time (GPU busy for gpu compute)
  std::string line;        // "Verdict: input (rank 0: data loader idle, 52% of the step)"
  std::string reason;      // why not judgeable (the text in the line's parentheses); else empty
};
Verdict ComputeVerdict(const ReportInput& input);

// Every rank had steps and none of them is steady (warm-up, capture or
// compile only): nothing per step can be claimed.
bool NoRankHasSteadyStep(const ReportInput& input);

// The run's trace integrity as reports show it: the least trusted rank's
// (the first of equals), and every rank's verdict.
struct RunIntegrity {
  const TraceIntegrity* worst = nullptr;  // nullptr: no rank analysed
  int worst_rank = -1;
  std::vector<std::pair<int, IntegrityVerdict>> per_rank;
  std::string line;  // "Trace integrity: trusted" (+ rank when several)
};
RunIntegrity SummarizeIntegrity(const ReportInput& input);

// "GPU 0" / "host" for a device index.
std::string DeviceLabel(int device, std::string_view accelerator);

// A kernel's Tensor Core use for the top-kernels tables: "-" off GPUs,
// where the name-based classification means nothing.
std::string_view TensorCoreCell(TensorCoreUse tc, std::string_view accelerator);
// Rank number as the metadata says, else the position in the run.
int RankOf(const Timeline& tl, size_t position);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_REPORT_REPORT_DATA_H_
