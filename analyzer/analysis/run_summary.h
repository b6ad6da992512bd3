#ifndef TRACELINT_ANALYZER_ANALYSIS_RUN_SUMMARY_H_
#define TRACELINT_ANALYZER_ANALYSIS_RUN_SUMMARY_H_

// What a run amounts to, computed once after the analyses: the verdict (and
// with it the exit-5 decision), the trace integrity's summary, throughput,
// and each rank's steady steps and outlier steps. Every reporter (text,
// JSON, Markdown, SARIF, HTML, batch, diff) prints these; none computes its
// own. (The findings' total is engine/finding.h's SummarizeFindings.)
//
// It is computed from per-rank summaries (RankSummary), plain data with no
// pointer into a timeline, so that ranks analysed in other processes can be
// summarised the same way.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/outlier_steps.h"
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/analysis/trace_integrity.h"
#include "analyzer/base/time.h"

namespace tracelint {

class AnalysisContext;

// One steady step as the run summary sees it.
struct StepTime {
  int64_t number = -1;  // N of ProfilerStep#N
  TimeNs start_ns = 0;
  TimeNs step_ns = 0;
};

// One rank's part of the run summary.
struct RankSummary {
  int position = 0;  // in the run's file order
  int rank = 0;      // the metadata's rank, else the position
  int world_size = 0;
  std::string accelerator = "GPU";  // what the device is called: GPU, TPU, MTIA
  bool no_steady_step = false;      // steps exist, none steady (warm-up/capture/compile only)
  int64_t step_count = 0;           // analysed (steady) steps
  TimeNs mean_step_ns = 0;
  bool has_device = false;  // any device activity in the analysed steps
  // Sums over the rank's devices (not the host) over the analysed steps:
  // each device-instant of a step is in one breakdown category.
  TimeNs device_step_ns = 0;
  TimeNs kernel_busy_ns = 0;
  std::array<TimeNs, kStepCategoryCount> breakdown_ns{};
  std::array<TimeNs, kIdleCauseCount> idle_ns{};  // per cause, over the analysed steps
  std::string unattributed_where;  // UnattributedIdleWhere, when there is such idle
  // The unattributed idle by the cause the recorded host suggests
  // (IdleAttribution::inferred_ns): named in the verdict, never a saving.
  std::array<TimeNs, kIdleCauseCount> inferred_idle_ns{};
  TraceIntegrity integrity;
  std::vector<StepTime> steady_steps;  // in step order
  OutlierSteps outliers;               // indices into steady_steps
  // The rank's devices with activity in the analysed steps.
  int active_devices = 0;
  // The largest compute kernel family, its share of the step and its
  // efficiency ("GEMM bf16 62% of the step at 48% of peak"; roofline.h), for
  // the verdict of a run bound by GPU compute; "" without device time.
  std::string dominant_family;
  // Of breakdown_ns[kMemcpy]: XLA's async copies (copy-start/copy-done on
  // TPU op lines). They run beside compute, so they are no exposed copies:
  // the verdict leaves them out of "copies" and says so.
  TimeNs xla_async_copy_ns = 0;
};

// This rank's summary at `position` in the run's file order (its rank when
// the metadata names none); from AnalysisContext::rank_summary().
RankSummary SummarizeRank(AnalysisContext& ctx, int position);
// `r` placed at `position` in the run's file order, named by it when the
// metadata names no rank: the one rule both SummarizeRank and a rank's
// record (SummarizeRecord) follow.
RankSummary PlaceRankSummary(RankSummary r, int position);
// The summary without a position (rank -1 when the metadata names none):
// what AnalysisContext::rank_summary() caches.
RankSummary ComputeRankSummary(AnalysisContext& ctx);

// contract: what bounds the run, from the analysed steps of the worst rank
// (longest mean step).
struct Verdict {
  bool judgeable = false;  // false: exit 5, bound "not judgeable"
  std::string bound;       // input | host | communication | copies | gpu compute | not judgeable
  int rank = -1;           // the rank judged; -1 when none
  double share = 0;        // of the step: the bounding cause's time (GPU busy for gpu compute)
  std::string line;        // "Verdict: input (rank 0: data loader idle, 52% of the step)"
  std::string reason;      // why not judgeable (the text in the line's parentheses); else empty
};

// The run's trace integrity as reports show it: the least trusted rank's
// (the first of equals), and every rank's verdict.
struct RunIntegrity {
  std::optional<TraceIntegrity> worst;  // nullopt: no rank analysed
  int worst_rank = -1;
  std::vector<std::pair<int, IntegrityVerdict>> per_rank;
  std::string line;  // "Trace integrity: trusted" (+ rank when several)
};

// samples/s = batch size per rank x ranks / mean step time; samples per
// dollar = samples/s x 3600 / price per hour of all machines.
struct Throughput {
  int64_t batch_size_per_rank = 0;
  int ranks = 0;
  TimeNs mean_step_ns = 0;  // mean over ranks of each rank's mean step
  double samples_per_s = 0;
  std::optional<double> price_per_hour;
  std::optional<double> samples_per_dollar;
  std::string assumptions;
};
struct ThroughputOptions {
  int64_t batch_size = 0;     // samples per step per rank; 0: no throughput
  double price_per_hour = 0;  // of all machines of the run; 0: no samples per dollar
};

struct RunSummary {
  std::vector<RankSummary> ranks;  // in file order
  Verdict verdict;
  // Every rank had steps and none of them is steady: nothing per step can
  // be claimed.
  bool no_rank_has_steady_step = false;
  RunIntegrity integrity;
  std::optional<Throughput> throughput;  // nullopt without a batch size or steps

  // The rank at `position` (file order), or nullptr.
  const RankSummary* Rank(size_t position) const {
    return position < ranks.size() ? &ranks[position] : nullptr;
  }
};

RunSummary SummarizeRun(std::vector<RankSummary> ranks, const ThroughputOptions& throughput);

// Per-step mean breakdown in whole ns that sums exactly to the mean step
// (the rounding remainder goes to the largest categories first).
std::array<TimeNs, kStepCategoryCount> MeanBreakdownNs(const DeviceMetrics& summary,
                                                       int64_t step_count);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_RUN_SUMMARY_H_
