#include "analyzer/analysis/collective_matching.h"

#include <algorithm>
#include <map>
#include <utility>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/model/timeline.h"
#include "fmt/format.h"

namespace tracelint {

RankCollectives CollectStepCollectives(AnalysisContext& ctx) {
  const Timeline& tl = ctx.timeline();
  const StepSet& steps = ctx.steps();
  const SliceColumns& c = tl.slices();
  // (start, end) per step; sorted afterwards so several streams interleave
  // in the order the collectives were issued on the device.
  std::vector<std::vector<std::pair<TimeNs, TimeNs>>> per_step(steps.steps.size());
  for (TrackId t = 0; t < tl.tracks().size(); ++t) {
    if (tl.tracks()[t].kind != TrackKind::kDeviceStream) continue;
    auto [begin, end] = tl.track_range(t);
    for (SliceId s = begin; s < end; ++s) {
      if (c.kind[s] != EventKind::kKernel || !tl.HasFlag(s, kFlagCollective)) continue;
      auto it = std::upper_bound(steps.steps.begin(), steps.steps.end(), c.ts_ns[s],
                                 [](TimeNs ts, const Step& st) { return ts < st.start_ns; });
      if (it == steps.steps.begin()) continue;
      --it;
      if (c.ts_ns[s] >= it->end_ns) continue;
      per_step[it - steps.steps.begin()].push_back({c.ts_ns[s], c.end_ns(s)});
    }
  }
  RankCollectives out;
  for (size_t i = 0; i < per_step.size(); ++i) {
    std::sort(per_step[i].begin(), per_step[i].end());
    std::vector<TimeNs> durations;
    durations.reserve(per_step[i].size());
    for (const auto& [start_ns, end_ns] : per_step[i]) durations.push_back(end_ns - start_ns);
    out.step_numbers.push_back(steps.steps[i].number);
    out.durations_ns.push_back(std::move(durations));
  }
  return out;
}

int CollectiveSplit::MostOftenLast() const {
  int best = -1;
  for (size_t r = 0; r < arrived_last.size(); ++r) {
    if (arrived_last[r] > 0 && (best < 0 || arrived_last[r] > arrived_last[best])) {
      best = static_cast<int>(r);
    }
  }
  return best;
}

CollectiveSplit MatchCollectives(const std::vector<RankCollectives>& ranks,
                                 const std::vector<int>& rank_names) {
  CollectiveSplit out;
  const size_t n = ranks.size();
  out.collective_ns.assign(n, 0);
  out.waiting_ns.assign(n, 0);
  out.arrived_last.assign(n, 0);
  out.held_up_ns.assign(n, 0);
  if (n < 2) return out;
  // Steps are matched by number: ranks may have dropped different
  // incomplete steps at the edges of their traces.
  std::vector<std::map<int64_t, const std::vector<TimeNs>*>> by_number(n);
  for (size_t r = 0; r < n; ++r) {
    for (size_t i = 0; i < ranks[r].step_numbers.size(); ++i) {
      by_number[r].emplace(ranks[r].step_numbers[i], &ranks[r].durations_ns[i]);
    }
  }
  for (const auto& [number, first] : by_number[0]) {
    std::vector<const std::vector<TimeNs>*> lists{first};
    for (size_t r = 1; r < n; ++r) {
      auto it = by_number[r].find(number);
      if (it == by_number[r].end()) break;
      lists.push_back(it->second);
    }
    if (lists.size() != n) continue;
    size_t differs = 0;
    for (size_t r = 1; r < n && differs == 0; ++r) {
      if (lists[r]->size() != first->size()) differs = r;
    }
    if (differs != 0) {
      if (out.steps_mismatched++ == 0) {
        out.mismatch = fmt::format("step {}: rank {} has {}, rank {} has {}", number,
                                   rank_names[0], first->size(), rank_names[differs],
                                   lists[differs]->size());
      }
      continue;
    }
    if (first->empty()) continue;
    ++out.steps_matched;
    if (out.first_step < 0) out.first_step = number;
    out.last_step = number;
    for (size_t k = 0; k < first->size(); ++k) {
      size_t fastest = 0;
      for (size_t r = 1; r < n; ++r) {
        if ((*lists[r])[k] < (*lists[fastest])[k]) fastest = r;
      }
      const TimeNs transfer_ns = (*lists[fastest])[k];
      TimeNs second_ns = -1;
      for (size_t r = 0; r < n; ++r) {
        if (r != fastest && (second_ns < 0 || (*lists[r])[k] < second_ns)) second_ns = (*lists[r])[k];
      }
      out.transfer_ns = SaturatingAddNs(out.transfer_ns, transfer_ns);
      ++out.collectives_matched;
      bool anyone_waited = false;
      for (size_t r = 0; r < n; ++r) {
        out.collective_ns[r] = SaturatingAddNs(out.collective_ns[r], (*lists[r])[k]);
        out.waiting_ns[r] = SaturatingAddNs(out.waiting_ns[r], (*lists[r])[k] - transfer_ns);
        anyone_waited |= (*lists[r])[k] > transfer_ns;
      }
      // Equal durations name no late rank.
      if (anyone_waited) {
        ++out.arrived_last[fastest];
        out.held_up_ns[fastest] = SaturatingAddNs(out.held_up_ns[fastest], second_ns - transfer_ns);
      }
    }
  }
  return out;
}

}  // namespace tracelint
