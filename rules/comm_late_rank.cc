#include "rules/comm_late_rank.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/analysis/collective_matching.h"
#include "analyzer/analysis/cross_rank.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/stats.h"
#include "analyzer/analysis/trace_integrity.h"
#include "analyzer/base/time_limits.h"
#include "fmt/format.h"
#include "rules/launch_context.h"

namespace tracelint {
namespace {

using rules_internal::Percent;
using rules_internal::SafeShare;

// A rank is in the late group when its waiting is within this fraction of
// the spread from the least-waiting rank: ranks of one slow node arrive
// late together.
constexpr double kLateGroupSpread = 0.25;
// A cause explains the lateness when it accounts for at least this much.
constexpr double kDominantShare = 0.5;
constexpr size_t kMaxRanksListed = 8;

// Per step and device, over the rank's steady steps.
struct RankPace {
  bool known = false;
  double step_ns = 0;
  double compute_ns = 0;      // step breakdown "kernel": compute kernels
  double data_loader_ns = 0;  // step breakdown "data loader"
  double host_idle_ns = 0;    // GPU idle, less device-side waits on collectives
  double comm_owned_ns = 0;   // exposed communication + device-side waits on collectives
  double waiting_ns = 0;      // inside collectives, for a later rank
  int devices = 1;
};

RankPace PaceOf(const RankCrossData& r) {
  RankPace p;
  if (r.step_count <= 0 || r.devices == 0) return p;
  const double idle = static_cast<double>(r.gpu_idle_ns);
  const double wait_collective = static_cast<double>(r.wait_collective_ns);
  const double per = static_cast<double>(r.step_count) * r.devices;
  p.known = true;
  p.devices = r.devices;
  p.step_ns = static_cast<double>(r.mean_step_ns);
  p.compute_ns = static_cast<double>(r.compute_ns) / per;
  p.data_loader_ns = static_cast<double>(r.data_loader_ns) / per;
  p.host_idle_ns = std::max(0.0, idle - wait_collective) / per;
  p.comm_owned_ns = (static_cast<double>(r.communication_ns) + wait_collective) / per;
  return p;
}

// A per-step figure as whole nanoseconds; hostile traces can make the
// doubles larger than any trace time, so they are held to the trace range.
TimeNs Ns(double v) {
  const double limit = static_cast<double>(kMaxTraceTimeNs);
  return static_cast<TimeNs>(std::llround(std::clamp(v, -limit, limit)));
}

std::string RankList(const std::vector<size_t>& idx, const std::vector<int>& names) {
  std::string out;
  for (size_t i = 0; i < idx.size() && i < kMaxRanksListed; ++i) {
    out += fmt::format("{}{}", i == 0 ? "" : ", ", names[idx[i]]);
  }
  if (idx.size() > kMaxRanksListed) out += fmt::format(" and {} more", idx.size() - kMaxRanksListed);
  return out;
}

std::string Signed(double ns) {
  return fmt::format("{}{}", ns < 0 ? "-" : "+",
                     FormatDurationNs(Ns(std::fabs(ns))));
}

enum class Why { kCompute, kDataLoader, kHost, kMixed };

std::string FixFor(Why why, int late, const JobProfile& job) {
  switch (why) {
    case Why::kCompute:
      if (job.is_inference()) {
        return fmt::format(
            "Rank {} runs more GPU compute per step than the others, and every rank waits for "
            "it in the collectives. Give every rank the same work (route requests so each gets "
            "the same number of tokens; equal tensor-parallel shards), and if the work is the "
            "same, check that GPU's clocks and throttling (nvidia-smi -q -d PERFORMANCE,CLOCK).",
            late);
      }
      return fmt::format(
          "Rank {} runs more GPU compute per step than the others, and every rank waits for it "
          "in the collectives. If the work is uneven, balance it: give every rank the same "
          "number of tokens (pack or bucket sequences by length), even shard sizes, no ragged "
          "last batch. If the work is the same, its GPU is slower: check clocks and throttling "
          "(nvidia-smi -q -d PERFORMANCE,CLOCK) and move the job off that GPU.",
          late);
    case Why::kDataLoader:
      if (job.framework == JobFramework::kTensorFlow) {
        return fmt::format(
            "Rank {} waits longer for its input than the others: parallelize and prefetch its "
            "tf.data pipeline (num_parallel_calls=tf.data.AUTOTUNE, .prefetch(AUTOTUNE)) and "
            "check that host's storage and CPU load; every rank runs at the slowest input.",
            late);
      }
      if (!job.is_pytorch()) {
        return fmt::format(
            "Rank {} waits longer for its input than the others: give its input pipeline more "
            "parallel workers and prefetching, and check that host's storage and CPU load; "
            "every rank runs at the pace of the slowest input.",
            late);
      }
      return fmt::format(
          "Rank {} waits longer for its input than the others: give its DataLoader more workers "
          "(num_workers, persistent_workers=True, pin_memory=True) and check that host's "
          "storage and CPU load; every rank runs at the pace of the slowest loader.",
          late);
    case Why::kHost:
      return fmt::format(
          "Rank {}'s GPU waits for its host longer than the others'. Look for work only that "
          "rank does inside the step ({}logging, metrics, checkpoint writes, evaluation: do it "
          "every N steps or on a background thread) and for CPU contention on its node (other "
          "processes, too few cores per rank, CPU affinity).",
          late, late == 0 ? "rank 0 often does extra work: " : "");
    case Why::kMixed:
      break;
  }
  return fmt::format(
      "Rank {} arrives late without one cause dominating in this trace: compare its timeline "
      "with another rank's before the collectives (per-rank work, input, host work) and "
      "balance what differs; every rank waits for the slowest.",
      late);
}

}  // namespace

std::vector<Finding> SplitOutLateRank(const std::vector<const RankCrossData*>& ranks,
                                      const std::vector<int>& rank_names,
                                      double min_imbalance_share, std::vector<Finding> merged) {
  const size_t n = ranks.size();
  if (n < 2) return merged;
  std::vector<RankCollectives> collected;
  for (const RankCrossData* r : ranks) collected.push_back(r->collectives);
  const CollectiveSplit split = MatchCollectives(collected, rank_names);
  if (split.steps_matched == 0 || split.collectives_matched == 0) return merged;
  std::vector<RankPace> pace;
  for (const RankCrossData* r : ranks) {
    pace.push_back(PaceOf(*r));
    if (!pace.back().known) return merged;
  }
  const double matched = static_cast<double>(split.steps_matched);
  for (size_t r = 0; r < n; ++r) {
    pace[r].waiting_ns = static_cast<double>(split.waiting_ns[r]) / matched / pace[r].devices;
  }
  size_t late = 0, most = 0;  // ties: the lowest index
  double mean_step = 0, mean_wait = 0;
  for (size_t r = 0; r < n; ++r) {
    if (pace[r].waiting_ns < pace[late].waiting_ns) late = r;
    if (pace[r].waiting_ns > pace[most].waiting_ns) most = r;
    mean_step += pace[r].step_ns / n;
    mean_wait += pace[r].waiting_ns / n;
  }
  const double spread_ns = pace[most].waiting_ns - pace[late].waiting_ns;
  const double imbalance = SafeShare(spread_ns, mean_step);
  if (spread_ns <= 0 || imbalance < min_imbalance_share) return merged;

  // Two bounds, the larger kept: fixing the late rank alone ends each of
  // its collectives when the next-latest rank arrives (held-up, measured);
  // balancing the work evenly brings every rank to the mean (modelled).
  const double held_ns = static_cast<double>(split.held_up_ns[late]) / matched / pace[late].devices;
  const double balance_ns = mean_wait - pace[late].waiting_ns;
  const double bound_ns = pace[most].comm_owned_ns;
  const double saving_ns = std::min(std::max(held_ns, balance_ns), bound_ns);
  if (saving_ns <= 0) return merged;

  std::vector<size_t> group, others;
  for (size_t r = 0; r < n; ++r) {
    (pace[r].waiting_ns - pace[late].waiting_ns <= kLateGroupSpread * spread_ns ? group : others)
        .push_back(r);
  }
  auto median_of = [&](double RankPace::*field) {
    std::vector<double> v;
    for (size_t r : others) v.push_back(pace[r].*field);
    return Median(std::move(v));
  };
  const double d_compute = pace[late].compute_ns - median_of(&RankPace::compute_ns);
  const double d_loader = pace[late].data_loader_ns - median_of(&RankPace::data_loader_ns);
  const double d_host = pace[late].host_idle_ns - median_of(&RankPace::host_idle_ns);
  const double lateness_ns = pace[late].step_ns - pace[late].waiting_ns -
                             (pace[most].step_ns - pace[most].waiting_ns);
  const double explain_ns = std::max(spread_ns, lateness_ns);
  Why why = Why::kMixed;
  if (d_loader >= kDominantShare * explain_ns) {
    why = Why::kDataLoader;
  } else if (d_host >= kDominantShare * explain_ns && d_host >= d_compute) {
    why = Why::kHost;
  } else if (d_compute >= kDominantShare * explain_ns) {
    why = Why::kCompute;
  }

  const int late_name = rank_names[late];
  const int most_name = rank_names[most];
  Finding f;
  f.cause = "late_rank";
  f.recoverable_ns_per_step = Ns(saving_ns);
  f.recoverable_share = std::min(1.0, SafeShare(saving_ns, pace[most].step_ns));
  f.confidence = held_ns >= balance_ns ? Confidence::kMeasured : Confidence::kModelled;
  const double last_share = SafeShare(static_cast<double>(split.arrived_last[late]),
                                      static_cast<double>(split.collectives_matched));
  f.title = fmt::format("The other ranks wait for rank {} in the collectives: {} per step",
                        late_name, FormatDurationNs(f.recoverable_ns_per_step));
  const char* because = why == Why::kCompute      ? "it runs longer GPU compute"
                        : why == Why::kDataLoader ? "it waits longer for its input"
                        : why == Why::kHost       ? "its GPU waits longer for its host"
                                                  : "no single cause dominates";
  f.message = fmt::format(
      "Rank {} arrives last at {} of {} matched collectives ({}); rank {} waits {} per step "
      "inside collectives for later ranks, rank {} only {}. Work per step (step minus that waiting) "
      "differs by {} of the step across ranks (threshold {}), and every rank runs at the pace "
      "of the slowest: {}. Up to {} per step is recoverable; this time is taken out of this "
      "rule's other findings, which would otherwise count it as communication.",
      late_name, split.arrived_last[late], split.collectives_matched, Percent(last_share),
      most_name, FormatDurationNs(Ns(pace[most].waiting_ns)),
      late_name, FormatDurationNs(Ns(pace[late].waiting_ns)),
      Percent(imbalance), Percent(min_imbalance_share), because,
      FormatDurationNs(f.recoverable_ns_per_step));
  f.evidence.push_back({fmt::format("Imbalance (most minus least waiting in collectives) {} of "
                                    "step (threshold {})",
                                    Percent(imbalance), Percent(min_imbalance_share)),
                        imbalance, min_imbalance_share, "share"});
  f.evidence.push_back(
      {fmt::format("Held up by rank {} alone: {} per step (where it arrives last, the "
                   "next-latest rank's collective time minus its own)",
                   late_name, FormatDurationNs(Ns(held_ns))),
       held_ns, 0, "ns"});
  f.evidence.push_back(
      {fmt::format("Rank {} against the median of the ranks that wait, per step: compute {}, "
                   "data loading {}, GPU idle for the host {}",
                   late_name, Signed(d_compute), Signed(d_loader), Signed(d_host)),
       d_compute, 0, "ns"});
  if (group.size() > 1) {
    f.evidence.push_back({fmt::format("Ranks arriving late together: {}", RankList(group, rank_names)),
                          static_cast<double>(group.size()), 0, "count"});
  }
  if (std::max(held_ns, balance_ns) > bound_ns) {
    f.evidence.push_back(
        {fmt::format("Capped at rank {}'s exposed communication and waits on collectives, {} "
                     "per step",
                     most_name, FormatDurationNs(Ns(bound_ns))),
         bound_ns, 0, "ns"});
  }
  if (split.steps_mismatched > 0) {
    f.evidence.push_back({fmt::format("{} step(s) not matched: collective counts differ (first: "
                                      "{})",
                                      split.steps_mismatched, split.mismatch),
                          static_cast<double>(split.steps_mismatched), 0, "count"});
  }
  for (size_t r = 0; r < n; ++r) {
    f.per_rank.push_back(fmt::format(
        "rank {}: waits {} per step in collectives", rank_names[r],
        FormatDurationNs(Ns(pace[r].waiting_ns))));
  }
  f.location.rank = late_name;
  f.location.first_step = split.first_step;
  f.location.last_step = split.last_step;
  f.fix = FixFor(why, late_name, ranks[late]->job);

  // Hand the time over: the same waiting is inside the collectives the
  // other findings of this rule charge.
  std::vector<Finding> out;
  for (Finding& m : merged) {
    if (m.one_time_ns > 0 || m.recoverable_ns_per_step <= 0) {
      out.push_back(std::move(m));
      continue;
    }
    const TimeNs before = m.recoverable_ns_per_step;
    const TimeNs after = std::max<TimeNs>(0, before - f.recoverable_ns_per_step);
    if (after == 0) continue;  // all of it was waiting for the late rank
    const double scale = static_cast<double>(after) / static_cast<double>(before);
    ScaleRecoverable(m, scale);
    m.recoverable_ns_per_step = after;  // exact, whatever the rounding of the scale
    m.recoverable_share *= scale;
    // Every rank runs at the job's pace, so each rank's step shortens by the
    // same time and each rank's own value loses it too.
    for (RankValue& v : m.rank_values) {
      if (!v.fired || v.recoverable_ns_per_step <= 0) continue;
      const TimeNs rank_after =
          std::max<TimeNs>(0, v.recoverable_ns_per_step - f.recoverable_ns_per_step);
      v.recoverable_share *= static_cast<double>(rank_after) /
                             static_cast<double>(v.recoverable_ns_per_step);
      v.recoverable_ns_per_step = rank_after;
    }
    m.evidence.push_back(
        {fmt::format("{} per step of it is waiting for rank {}: counted under late_rank",
                     FormatDurationNs(before - after), late_name),
         static_cast<double>(before - after), 0, "ns"});
    out.push_back(std::move(m));
  }
  out.push_back(std::move(f));
  return out;
}

}  // namespace tracelint
