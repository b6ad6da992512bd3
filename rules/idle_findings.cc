#include "rules/idle_findings.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

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
  // Kept pieces, sorted below rather than counted in maps: a long trace has
  // millions of pieces and a map node (and a name string) per piece cost
  // more than the attribution that made them.
  struct Kept {
    int gap;
    SliceId op;
    int step_index;
    TimeNs start_ns;
    TimeNs end_ns;
  };
  std::vector<Kept> kept;
  std::vector<TimeNs> step_sums(scope.step_ns.size(), 0);
  for (const IdlePiece& p : idle.pieces) {
    if (!keep(p)) continue;
    TimeNs len = p.end_ns - p.start_ns;
    out.total_ns += len;
    if (p.step_index >= 0 && static_cast<size_t>(p.step_index) < step_sums.size()) {
      step_sums[p.step_index] += len;
    }
    ++out.pieces;
    kept.push_back({p.gap, op_of ? op_of(p) : p.host_slice, p.step_index, p.start_ns, p.end_ns});
  }
  // Host ops by name (interned: one id per name): their time and how many
  // distinct ops (not pieces).
  {
    constexpr StringId kNoHostEventId = std::numeric_limits<StringId>::max();
    const SliceColumns& c = tl.slices();
    struct ByName {
      StringId name;
      SliceId op;
      TimeNs ns;
    };
    std::vector<ByName> by_name;
    by_name.reserve(kept.size());
    for (const Kept& k : kept) {
      by_name.push_back({k.op == kNoIndex ? kNoHostEventId : c.name[k.op], k.op,
                         k.end_ns - k.start_ns});
    }
    std::sort(by_name.begin(), by_name.end(), [](const ByName& x, const ByName& y) {
      return std::tie(x.name, x.op) < std::tie(y.name, y.op);
    });
    for (size_t i = 0; i < by_name.size();) {
      TopItem item;
      item.name = by_name[i].name == kNoHostEventId ? std::string(kNoHostEvent)
                                                    : std::string(tl.str(by_name[i].name));
      size_t j = i;
      for (; j < by_name.size() && by_name[j].name == by_name[i].name; ++j) {
        item.total_ns += by_name[j].ns;
        if (j == i || by_name[j].op != by_name[j - 1].op) ++item.count;
      }
      out.top_ops.push_back(std::move(item));
      i = j;
    }
  }
  // Gaps in id order; each gap's host op is the one holding most of it (the
  // lowest slice id of equals).
  std::sort(kept.begin(), kept.end(), [](const Kept& x, const Kept& y) {
    return std::tie(x.gap, x.op) < std::tie(y.gap, y.op);
  });
  for (size_t i = 0; i < kept.size();) {
    GapSummary g;
    g.gap = kept[i].gap;
    g.step_index = kept[i].step_index;
    g.start_ns = kept[i].start_ns;
    TimeNs best_ns = -1;
    size_t j = i;
    while (j < kept.size() && kept[j].gap == g.gap) {
      const SliceId op = kept[j].op;
      TimeNs op_ns = 0;
      for (; j < kept.size() && kept[j].gap == g.gap && kept[j].op == op; ++j) {
        g.start_ns = std::min(g.start_ns, kept[j].start_ns);
        g.end_ns = std::max(g.end_ns, kept[j].end_ns);
        op_ns += kept[j].end_ns - kept[j].start_ns;
      }
      g.cause_ns += op_ns;
      if (op_ns > best_ns) {
        best_ns = op_ns;
        g.host_op = op;
      }
    }
    out.worst_gaps.push_back(g);
    i = j;
  }
  if (scope.steps > 0) {
    TimeNs denom = static_cast<TimeNs>(scope.steps) * scope.devices;
    out.per_step_ns = std::min(out.total_ns / denom, scope.mean_step_ns);
    for (size_t i = 0; i < step_sums.size(); ++i) {
      out.step_values_ns.push_back(std::min(step_sums[i] / scope.devices, scope.step_ns[i]));
    }
  }
  out.share = SafeShare(static_cast<double>(out.per_step_ns), static_cast<double>(scope.mean_step_ns));
  std::sort(out.top_ops.begin(), out.top_ops.end(), [](const TopItem& a, const TopItem& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  if (out.top_ops.size() > top_n) out.top_ops.resize(top_n);
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
