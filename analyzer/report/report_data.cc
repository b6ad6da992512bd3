#include "analyzer/report/report_data.h"

#include <algorithm>
#include <numeric>

#include "fmt/format.h"

namespace tracelint {

std::optional<Throughput> ComputeThroughput(const ReportInput& input) {
  if (input.options.batch_size <= 0) return std::nullopt;
  TimeNs sum_ns = 0;
  int with_steps = 0;
  int world_size = 0;
  for (size_t i = 0; i < input.contexts.size(); ++i) {
    const StepMetrics& m = input.contexts[i]->step_metrics();
    if (m.step_count > 0) {
      sum_ns += m.mean_step_ns;
      ++with_steps;
    }
    world_size = std::max(world_size, input.contexts[i]->timeline().metadata().world_size);
  }
  if (with_steps == 0 || sum_ns <= 0) return std::nullopt;
  Throughput t;
  t.batch_size_per_rank = input.options.batch_size;
  // One rank's trace of a larger job still stands for the whole job: every
  // rank runs the same steps.
  int traces = static_cast<int>(input.contexts.size());
  t.ranks = std::max(traces, world_size);
  t.mean_step_ns = sum_ns / with_steps;
  t.samples_per_s = static_cast<double>(t.batch_size_per_rank) * t.ranks /
                    (static_cast<double>(t.mean_step_ns) / kNsPerS);
  t.assumptions = fmt::format(
      "batch size {} per rank x {} ranks ({}) / mean step time {} (mean over ranks of the "
      "mean analysed step)",
      t.batch_size_per_rank, t.ranks,
      world_size > traces ? "world size from the trace" : "rank traces loaded",
      FormatDurationNs(t.mean_step_ns));
  if (input.options.price_per_hour > 0) {
    t.price_per_hour = input.options.price_per_hour;
    t.samples_per_dollar = t.samples_per_s * 3600 / input.options.price_per_hour;
    t.assumptions += fmt::format("; price {} per hour for all machines of the run",
                                 input.options.price_per_hour);
  }
  return t;
}

std::array<TimeNs, kStepCategoryCount> MeanBreakdownNs(const DeviceMetrics& summary,
                                                       int64_t step_count) {
  std::array<TimeNs, kStepCategoryCount> out{};
  if (step_count <= 0) return out;
  TimeNs mean_step_ns = summary.step_ns / step_count;
  TimeNs assigned_ns = 0;
  std::array<TimeNs, kStepCategoryCount> remainder{};
  for (int i = 0; i < kStepCategoryCount; ++i) {
    out[i] = summary.breakdown_ns[i] / step_count;
    remainder[i] = summary.breakdown_ns[i] % step_count;
    assigned_ns += out[i];
  }
  // Largest remainders first, ties by category order: deterministic.
  std::array<int, kStepCategoryCount> order;
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return remainder[a] > remainder[b]; });
  for (int i = 0; assigned_ns < mean_step_ns && i < kStepCategoryCount; ++i) {
    ++out[order[i]];
    ++assigned_ns;
  }
  return out;
}

FindingsSummary SummarizeFindings(const std::vector<Finding>& findings) {
  FindingsSummary s;
  s.count = static_cast<int>(findings.size());
  for (const Finding& f : findings) {
    s.recoverable_ns_per_step += f.recoverable_ns_per_step;
    s.recoverable_share += f.recoverable_share;
  }
  s.recoverable_share = std::min(1.0, s.recoverable_share);
  if (s.count == 0) {
    s.line = "no findings";
  } else {
    s.line = fmt::format("{} finding{}, up to {:.0f}% of step time recoverable", s.count,
                         s.count == 1 ? "" : "s", 100 * s.recoverable_share);
  }
  return s;
}

std::string DeviceLabel(int device) {
  return device < 0 ? std::string("host") : fmt::format("GPU {}", device);
}

int RankOf(const Timeline& tl, size_t position) {
  return tl.metadata().rank >= 0 ? tl.metadata().rank : static_cast<int>(position);
}

}  // namespace tracelint
