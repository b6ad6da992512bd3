#include "rules/idle_findings.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "fmt/format.h"
#include "rules/launch_context.h"

namespace tracelint::rules_internal {
namespace {

constexpr size_t kMaxPythonFrames = 8;
constexpr std::string_view kNoHostEvent = "(no host event)";

}  // namespace

IdleScope ScopeOf(const StepSet& steps, size_t device_count) {
  IdleScope scope;
  scope.steps = steps.steps.size();
  scope.devices = std::max<int>(1, static_cast<int>(device_count));
  for (const Step& s : steps.steps) scope.step_ns.push_back(s.duration_ns());
  if (scope.steps > 0) scope.mean_step_ns = steps.TotalNs() / static_cast<TimeNs>(scope.steps);
  return scope;
}

std::string CountPerStep(double count) {
  double whole = std::round(count);
  if (std::fabs(count - whole) < 0.05) return fmt::format("{:.0f}", whole);
  return fmt::format("{:.1f}", count);
}

std::string ShareText(double share) { return fmt::format("{:.1f}% of step", share * 100); }

CauseSummary SummarizeIdle(const Timeline& tl, const IdleAttribution& idle,
                           const IdleScope& scope,
                           const std::function<bool(const IdlePiece&)>& keep, size_t top_n,
                           const std::function<SliceId(const IdlePiece&)>& op_of) {
  CauseSummary out;
  std::map<std::string, TopItem> by_op;
  std::map<std::string, std::set<SliceId>> op_slices;  // count ops, not pieces
  std::map<int, GapSummary> by_gap;
  std::map<int, std::map<SliceId, TimeNs>> gap_ops;
  std::vector<TimeNs> step_sums(scope.step_ns.size(), 0);
  for (const IdlePiece& p : idle.pieces) {
    if (!keep(p)) continue;
    TimeNs len = p.end_ns - p.start_ns;
    out.total_ns += len;
    if (p.step_index >= 0 && static_cast<size_t>(p.step_index) < step_sums.size()) {
      step_sums[p.step_index] += len;
    }
    ++out.pieces;
    SliceId op = op_of ? op_of(p) : p.host_slice;
    std::string name =
        op == kNoIndex ? std::string(kNoHostEvent) : std::string(tl.str(tl.slices().name[op]));
    TopItem& item = by_op[name];
    item.name = name;
    item.total_ns += len;
    op_slices[name].insert(op);
    item.count = static_cast<int64_t>(op_slices[name].size());
    GapSummary& g = by_gap[p.gap];
    if (g.gap < 0) {
      g.gap = p.gap;
      g.step_index = p.step_index;
      g.start_ns = p.start_ns;
    }
    g.start_ns = std::min(g.start_ns, p.start_ns);
    g.end_ns = std::max(g.end_ns, p.end_ns);
    g.cause_ns += len;
    gap_ops[p.gap][op] += len;
  }
  if (scope.steps > 0) {
    TimeNs denom = static_cast<TimeNs>(scope.steps) * scope.devices;
    out.per_step_ns = std::min(out.total_ns / denom, scope.mean_step_ns);
    for (size_t i = 0; i < step_sums.size(); ++i) {
      out.step_values_ns.push_back(std::min(step_sums[i] / scope.devices, scope.step_ns[i]));
    }
  }
  out.share = SafeShare(static_cast<double>(out.per_step_ns), static_cast<double>(scope.mean_step_ns));
  for (auto& [name, item] : by_op) out.top_ops.push_back(item);
  std::sort(out.top_ops.begin(), out.top_ops.end(), [](const TopItem& a, const TopItem& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  if (out.top_ops.size() > top_n) out.top_ops.resize(top_n);
  for (auto& [id, g] : by_gap) {
    TimeNs best = -1;
    for (const auto& [op, ns] : gap_ops[id]) {
      if (ns > best) {
        best = ns;
        g.host_op = op;
      }
    }
    out.worst_gaps.push_back(g);
  }
  std::sort(out.worst_gaps.begin(), out.worst_gaps.end(),
            [](const GapSummary& a, const GapSummary& b) {
              return a.cause_ns != b.cause_ns ? a.cause_ns > b.cause_ns : a.start_ns < b.start_ns;
            });
  // Groups by place over every gap, in the order of their worst gap.
  std::map<std::string, size_t> group_of;
  for (const GapSummary& g : out.worst_gaps) {
    std::string place = g.host_op == kNoIndex ? std::string(kNoHostEvent)
                                              : std::string(tl.str(tl.slices().name[g.host_op]));
    auto [it, fresh] = group_of.emplace(place, out.gap_groups.size());
    if (fresh) {
      GapGroup& group = out.gap_groups.emplace_back();
      group.host_op = g.host_op;
      group.min_ns = g.cause_ns;
    }
    GapGroup& group = out.gap_groups[it->second];
    ++group.count;
    group.total_ns += g.cause_ns;
    group.min_ns = std::min(group.min_ns, g.cause_ns);
    group.max_ns = std::max(group.max_ns, g.cause_ns);
    if (g.step_index >= 0) group.step_indices.push_back(g.step_index);
  }
  for (GapGroup& group : out.gap_groups) {
    std::sort(group.step_indices.begin(), group.step_indices.end());
    group.step_indices.erase(std::unique(group.step_indices.begin(), group.step_indices.end()),
                             group.step_indices.end());
  }
  std::stable_sort(out.gap_groups.begin(), out.gap_groups.end(),
                   [](const GapGroup& a, const GapGroup& b) { return a.total_ns > b.total_ns; });
  if (out.gap_groups.size() > top_n) out.gap_groups.resize(top_n);
  if (out.worst_gaps.size() > top_n) out.worst_gaps.resize(top_n);
  for (TopItem& item : out.top_ops) {
    item.detail = fmt::format("{} per step",
                              FormatDurationNs(scope.steps == 0 ? 0
                                                   : item.total_ns / static_cast<TimeNs>(
                                                         scope.steps * scope.devices)));
  }
  return out;
}

FindingLocation LocateIdle(const Timeline& tl, const StepSet& steps, const CauseSummary& summary) {
  FindingLocation loc;
  int first = -1, last = -1;
  for (const GapSummary& g : summary.worst_gaps) {
    if (g.step_index < 0) continue;
    first = first < 0 ? g.step_index : std::min(first, g.step_index);
    last = std::max(last, g.step_index);
  }
  if (first >= 0 && HasSteps(steps)) {
    loc.first_step = steps.steps[first].number;
    loc.last_step = steps.steps[last].number;
  }
  if (!summary.worst_gaps.empty()) {
    const GapSummary& worst = summary.worst_gaps.front();
    loc.start_ns = worst.start_ns;
    loc.end_ns = worst.end_ns;
    if (worst.host_op != kNoIndex) {
      loc.track = HostThreadName(tl, worst.host_op);
      loc.python_stack = PythonStack(tl, worst.host_op, kMaxPythonFrames);
    }
  }
  loc.top_items = summary.top_ops;
  return loc;
}

}  // namespace tracelint::rules_internal
