#include "rules/gpu_idle_gaps.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/device_activity.h"
#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/memory_usage.h"
#include "analyzer/analysis/stats.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/base/strings.h"
#include "analyzer/model/accelerator.h"
#include "fmt/format.h"
#include "rules/gpu_idle_gaps_fixes.h"
#include "rules/idle_findings.h"
#include "rules/launch_context.h"
#include "rules/optimizer_advice.h"
#include "rules/step_tail_advice.h"

namespace tracelint {
namespace {

using rules_internal::CauseSummary;
using rules_internal::HostCode;
using rules_internal::IdleFixFor;
using rules_internal::OwnedCause;
using rules_internal::IdleScope;
using rules_internal::SafeShare;
using rules_internal::ShareText;

constexpr std::string_view kMinIdleShare = "MinIdleShare";
constexpr std::string_view kMinCauseShare = "MinCauseShare";
constexpr std::string_view kLaunchGapNs = "LaunchGapNs";
constexpr std::string_view kWorstGaps = "WorstGaps";

// "step 4", "steps 1-5", "steps 1, 3, 7-9": ascending step numbers.
std::string StepList(const std::vector<int64_t>& numbers, std::string_view word) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < numbers.size();) {
    size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
    parts.push_back(j > i ? fmt::format("{}-{}", numbers[i], numbers[j])
                          : fmt::format("{}", numbers[i]));
    i = j + 1;
  }
  return fmt::format("{}{} {}", word, numbers.size() == 1 ? "" : "s", fmt::join(parts, ", "));
}
constexpr TimeNs kDefaultLaunchGapNs = 50 * kNsPerUs;
// Other-host-work idle that is mostly inside the model's ops is eager dispatch.
constexpr double kInModelCodeMinShare = 0.5;

// A fix that says to raise the batch size is only as good as the memory
// left for it: where the trace recorded the allocator, say what it showed,
// and steer away from a larger batch on a device already full.
void AddMemoryContext(const MemoryUsage& memory, std::string_view accel, Finding& f) {
  if (!Contains(f.fix, "batch size") && !Contains(f.fix, "batch more")) return;
  const DeviceMemoryUsage* m = memory.Fullest();
  if (m == nullptr) return;
  const std::string device = fmt::format("{} {}", accel, m->device);
  const double held = m->held_share.value_or(0);
  if (m->state == MemoryState::kPressure) {
    f.evidence.push_back({fmt::format("{} holds {:.0f}% of its memory at the peak: a larger "
                                      "batch will not fit",
                                      device, 100 * held),
                          held, kMemoryPressureMinShare, "share"});
    f.fix += fmt::format(" {} already holds {:.0f}% of its memory, so a larger batch will not "
                         "fit: prefer graphs and fusion.",
                         device, 100 * held);
  } else if (m->state == MemoryState::kHeadroom) {
    const double allocated = m->peak_allocated_share.value_or(0);
    // "0%" would read as no memory recorded; it is a small model on a big GPU.
    const std::string held_text = allocated < 0.01 ? std::string("under 1%")
                                                   : fmt::format("{:.0f}%", 100 * allocated);
    f.evidence.push_back({fmt::format("{} holds {} of its memory at the peak: a larger "
                                      "batch fits",
                                      device, held_text),
                          allocated, kMemoryHeadroomMaxShare, "share"});
  }
}

// Idle that one step holds most of is a periodic stall (a checkpoint, an
// evaluation, garbage collection, logging every N steps), not a cost of
// every step, and its fix differs: say so before the cause's own fix. Needs
// enough steps for "one of them" to mean something.
constexpr size_t kMinStepsForOneStepStall = 4;
constexpr double kOneStepStallMinShare = 0.5;

// True when it gave the stall's advice.
bool AddOneStepStall(const CauseSummary& summary, const StepSet& steps, Finding& f) {
  const std::vector<TimeNs>& v = summary.step_values_ns;
  if (!HasSteps(steps) || v.size() < kMinStepsForOneStepStall || v.size() != steps.steps.size()) {
    return false;
  }
  TimeNs total = 0;
  size_t worst = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    total += v[i];
    if (v[i] > v[worst]) worst = i;
  }
  if (total <= 0) return false;
  const double share = static_cast<double>(v[worst]) / total;
  if (share < kOneStepStallMinShare) return false;
  const TimeNs median =
      static_cast<TimeNs>(std::llround(Median(std::vector<double>(v.begin(), v.end()))));
  const int64_t number = steps.steps[worst].number;
  const std::string label = steps.source == StepSource::kInferred
                                ? fmt::format("iteration {}", number)
                                : fmt::format("step {}", number);
  f.evidence.push_back({fmt::format("{:.0f}% of it falls in {} alone ({}; the median step "
                                    "has {})",
                                    100 * share, label, FormatDurationNs(v[worst]),
                                    FormatDurationNs(median)),
                        share, kOneStepStallMinShare, "share"});
  // At the window's edge the profiler's own start or stop is a suspect too.
  const std::string edge =
      worst == 0              ? "; it is the trace's first step, where the profiler's start can "
                                "show up as well"
      : worst + 1 == v.size() ? "; it is the trace's last step, where the profiler's stop can "
                                "show up as well"
                              : "";
  f.fix = fmt::format(
      "Most of this idle is in one step ({}, one of {} steady steps): a stall in that "
      "step, not a cost of every step. Look for what runs every N steps (checkpoint saving, "
      "evaluation, logging or metric reads, garbage collection) and make it asynchronous or "
      "rarer{}. Otherwise: {}",
      label, v.size(), edge, f.fix);
  return true;
}

// A stall inside graph launch calls is the graph's submission, not module
// loading or the allocator: the host submits a large graph node by node
// while the device has nothing queued.
// Of a cause's idle, the share whose piece names a graph launch call in
// `slice` (the call the host was in, or the launch of the work that ended
// the gap), one such call, and the number of gaps it covers.
struct GraphShare {
  double share = 0;
  SliceId example = kNoIndex;
  int64_t gaps = 0;
};
GraphShare GraphLaunchShare(const Timeline& tl, const IdleAttribution& idle, IdleCause cause,
                            SliceId IdlePiece::*slice) {
  GraphShare out;
  TimeNs total_ns = 0, graph_ns = 0;
  int last_gap = -1;
  for (const IdlePiece& p : idle.pieces) {
    if (p.cause != cause) continue;
    total_ns += p.end_ns - p.start_ns;
    const SliceId s = p.*slice;
    if (s != kNoIndex && tl.HasFlag(s, kFlagGraphLaunch)) {
      graph_ns += p.end_ns - p.start_ns;
      out.example = s;
      if (p.gap != last_gap) ++out.gaps;
      last_gap = p.gap;
    }
  }
  if (total_ns > 0) out.share = static_cast<double>(graph_ns) / static_cast<double>(total_ns);
  return out;
}

void AddGraphLaunchStall(const Timeline& tl, const IdleAttribution& idle, Finding& f) {
  const GraphShare g = GraphLaunchShare(tl, idle, IdleCause::kLaunchStall, &IdlePiece::cause_slice);
  if (g.example == kNoIndex || g.share < 0.5) return;
  const double share = g.share;
  const SliceId example = g.example;
  const std::string_view name = tl.str(tl.slices().name[example]);
  f.evidence.push_back({fmt::format("{:.0f}% of it inside graph launch calls ({})", share * 100,
                                    name),
                        share, 0.5, "share"});
  f.fix = fmt::format(
      "Most of it is inside {} calls: the host was still submitting the graph while the "
      "device had nothing queued. A graph's first launch also uploads it: upload it ahead "
      "({}) or replay it once before profiling. When every replay is this slow, submission "
      "grows with the graph's node count: fuse kernels to shrink the graph, and launch the "
      "next replay before waiting on this one so its submission overlaps device work.",
      name, name.starts_with("hip") ? "hipGraphUpload" : "cudaGraphUpload");
}

// The step already replays graphs: the launch-bound advice ("capture it
// with CUDA Graphs") would be wrong. Idle before a replay's work that the
// host launched late is the host's time between replays.
void AddGraphReplayLaunches(const Timeline& tl, const IdleAttribution& idle, int64_t steps,
                            Finding& f) {
  const GraphShare g =
      GraphLaunchShare(tl, idle, IdleCause::kLaunchOverhead, &IdlePiece::host_thread_slice);
  if (g.example == kNoIndex || g.share < 0.5) return;
  const std::string_view name = tl.str(tl.slices().name[g.example]);
  const bool amd = name.starts_with("hip");
  const double per_step =
      static_cast<double>(g.gaps) / static_cast<double>(std::max<int64_t>(1, steps));
  f.evidence.push_back({fmt::format("{:.0f}% of it before the work of {} graph replays, "
                                    "launched late by the host ({}, {:.0f} per step)",
                                    g.share * 100, amd ? "HIP" : "CUDA", name, per_step),
                        g.share, 0.5, "share"});
  f.fix = fmt::format(
      "The step already replays {} graphs, and the device waits for the host to launch the "
      "next one: each replay holds too little work to cover the host time between replays "
      "(the {} call itself and the Python around it). Capture more of the step in one graph "
      "(the whole forward or decode loop rather than one module call), batch more inputs per "
      "replay, and queue the next replay before reading results back.",
      amd ? "HIP" : "CUDA", name);
}

// The allocator calls inside the judged steps, counted and timed per step,
// by name: "hipFree x272 per step, 1.02 s per step".
void AddAllocatorCalls(const Timeline& tl, const StepSet& steps, Finding& f) {
  const SliceColumns& c = tl.slices();
  std::map<std::string_view, std::pair<int64_t, TimeNs>> by_name;
  int64_t calls = 0;
  TimeNs total_ns = 0;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (!tl.HasFlag(s, kFlagAllocator) || StepIndexAt(steps, c.ts_ns[s]) < 0) continue;
    auto& [n, ns] = by_name[tl.str(c.name[s])];
    ++n;
    ns += c.dur_ns[s];
    ++calls;
    total_ns += c.dur_ns[s];
  }
  if (calls == 0 || steps.steps.empty()) return;
  const TimeNs count = static_cast<TimeNs>(steps.steps.size());
  std::vector<std::pair<std::string_view, std::pair<int64_t, TimeNs>>> sorted(by_name.begin(),
                                                                              by_name.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
  std::string parts;
  for (size_t i = 0; i < sorted.size() && i < 4; ++i) {
    parts += fmt::format("{}{} x{:.0f} ({})", parts.empty() ? "" : ", ", sorted[i].first,
                         static_cast<double>(sorted[i].second.first) / count,
                         FormatDurationNs(sorted[i].second.second / count));
  }
  f.evidence.push_back({fmt::format("{:.0f} allocator calls per step taking {} per step: {}",
                                    static_cast<double>(calls) / count,
                                    FormatDurationNs(total_ns / count), parts),
                        static_cast<double>(calls) / count, 0, "count"});
}

// Profiling overhead worth a line of its own in the evidence.
constexpr double kProfilerNoteMinShare = 0.01;

// Where a cause's idle time falls on the host: inside the model's own code
// (a framework operator, or a module's forward as Python records it), and
// inside code torch.compile already compiled ("Torch-Compiled Region").
struct HostCodeShares {
  double in_model = 0;
  double compiled = 0;
  double dispatched = 0;  // inside ops a graph executor dispatches to the device
};

HostCodeShares HostCodeSharesOf(const Timeline& tl, const IdleAttribution& idle,
                                IdleCause cause) {
  const SliceColumns& c = tl.slices();
  TimeNs total_ns = 0, in_model_ns = 0, compiled_ns = 0, dispatched_ns = 0;
  for (const IdlePiece& p : idle.pieces) {
    if (p.cause != cause) continue;
    TimeNs ns = p.end_ns - p.start_ns;
    total_ns += ns;
    bool in_model = false, compiled = false, dispatched = false;
    for (SliceId s = p.host_slice; s != kNoIndex; s = c.parent[s]) {
      // The optimizer's own ops (aten::zero_, aten::add_ per parameter) are
      // no model code: optimizer_advice.h speaks for them.
      if (tl.HasFlag(s, kFlagOptimizer)) {
        in_model = compiled = false;
        break;
      }
      std::string_view name = tl.str(c.name[s]);
      if (c.kind[s] == EventKind::kCpuOp && name.starts_with("aten::")) in_model = true;
      if (c.kind[s] == EventKind::kPythonFunction &&
          (name.starts_with("nn.Module:") || name.ends_with(": forward") ||
           name.ends_with("_call_impl"))) {
        in_model = true;
      }
      if (name.starts_with("Torch-Compiled Region")) compiled = in_model = true;
      if (tl.HasFlag(s, kFlagDeviceOpDispatch)) dispatched = in_model = true;
    }
    if (in_model) in_model_ns += ns;
    if (compiled) compiled_ns += ns;
    if (dispatched) dispatched_ns += ns;
  }
  const double total = static_cast<double>(total_ns);
  return {SafeShare(static_cast<double>(in_model_ns), total),
          SafeShare(static_cast<double>(compiled_ns), total),
          SafeShare(static_cast<double>(dispatched_ns), total)};
}

std::string CauseBreakdown(const IdleAttribution& idle, TimeNs step_total_ns, int devices) {
  std::string out;
  for (int i = 0; i < kIdleCauseCount; ++i) {
    if (idle.total_ns[i] == 0) continue;
    double share = SafeShare(static_cast<double>(idle.total_ns[i]),
                             static_cast<double>(step_total_ns) * devices);
    out += fmt::format("{}{} {:.1f}%", out.empty() ? "" : ", ",
                       IdleCauseName(static_cast<IdleCause>(i)), share * 100);
  }
  return out;
}

}  // namespace

std::vector<RuleOptionSpec> GpuIdleGapsRule::options() const {
  return {
      {std::string(kMinIdleShare), 0.10, "share",
       "GPU idle share of the step at which the rule fires", 0, 1},
      {std::string(kMinCauseShare), 0.02, "share",
       "smallest share of the step an owned cause needs for its own finding", 0, 1},
      {std::string(kLaunchGapNs), static_cast<double>(kDefaultLaunchGapNs), "ns",
       "gaps shorter than this while the host launches work count as launch overhead "
       "(HTA's launch cutoff)",
       0, 1e12},
      {std::string(kWorstGaps), 5, "count", "worst gaps and host ops listed per finding", 1,
       100},
  };
}

RuleOutcome GpuIdleGapsRule::Check(AnalysisContext& ctx, const RuleOptions& options) const {
  RuleOutcome outcome;
  const Timeline& tl = ctx.timeline();
  // "GPU", or the TPU/MTIA the trace ran on: the findings name the device.
  const std::string_view accel = AcceleratorName(tl.metadata());
  if (!rules_internal::HasDeviceActivityAndSteps(ctx, outcome)) return outcome;
  const StepSet& steps = ctx.steps();
  const std::vector<DeviceActivity>& devices = ctx.device_activity();
  TimeNs launch_gap_ns = static_cast<TimeNs>(options.Get(kLaunchGapNs));
  IdleAttribution recomputed;
  const IdleAttribution* idle = &ctx.idle_attribution();
  if (launch_gap_ns != kDefaultLaunchGapNs) {
    // Only moves time between two causes this rule owns (idle_attribution.h).
    recomputed = ComputeIdleAttribution(ctx, IdleAttributionOptions{launch_gap_ns});
    idle = &recomputed;
  }
  IdleScope scope = rules_internal::ScopeOf(steps, devices.size());
  double idle_share = SafeShare(static_cast<double>(idle->total_idle_ns),
                                static_cast<double>(steps.TotalNs()) * scope.devices);
  double min_idle = options.Get(kMinIdleShare);
  if (idle_share < min_idle) return outcome;

  double unattributed_share =
      SafeShare(static_cast<double>(idle->total_ns[static_cast<int>(IdleCause::kUnattributed)]),
                static_cast<double>(steps.TotalNs()) * scope.devices);
  std::string breakdown = CauseBreakdown(*idle, steps.TotalNs(), scope.devices);
  const double profiler_share = SafeShare(
      static_cast<double>(idle->total_ns[static_cast<int>(IdleCause::kProfilerOverhead)]),
      static_cast<double>(steps.TotalNs()) * scope.devices);
  size_t top_n = static_cast<size_t>(options.Get(kWorstGaps));
  for (const OwnedCause& owned : rules_internal::OwnedIdleCauses()) {
    CauseSummary summary = rules_internal::SummarizeIdle(
        tl, *idle, scope, [&](const IdlePiece& p) { return p.cause == owned.cause; }, top_n);
    if (summary.total_ns == 0 || summary.share < options.Get(kMinCauseShare)) continue;
    Finding f;
    f.cause = std::string(IdleCauseName(owned.cause));
    f.recoverable_ns_per_step = summary.per_step_ns;
    f.recoverable_ns_steps = summary.step_values_ns;
    f.recoverable_share = summary.share;
    f.confidence = Confidence::kMeasured;
    f.title = fmt::format("{} idle {} {}", accel, ShareText(summary.share), owned.what);
    // One line per place: "6.1 ms at step 6 in aten::mm", "5 gaps of 12.0 ms
    // in enumerate(DataLoader)#...__next__, steps 1-5", "2.0 ms with no host
    // event" (a window).
    std::string worst;
    // Marked steps are "step N", inferred iterations "iteration N"; a window
    // has no number.
    const std::string_view step_word =
        steps.source == StepSource::kInferred ? "iteration" : "step";
    for (const rules_internal::GapGroup& g : summary.gap_groups) {
      std::vector<int64_t> numbers;
      if (HasSteps(steps)) {
        for (int index : g.step_indices) numbers.push_back(steps.steps[index].number);
      }
      std::string place = g.host_op == kNoIndex
                              ? std::string(" with no host event")
                              : fmt::format(" in {}", tl.str(tl.slices().name[g.host_op]));
      std::string size = FormatDurationNs(g.max_ns);
      if (g.count > 1) {
        size = FormatDurationNs(g.min_ns) == size
                   ? fmt::format("{} gaps of {}", g.count, size)
                   : fmt::format("{} gaps of {}-{}", g.count, FormatDurationNs(g.min_ns), size);
      }
      std::string where;
      if (!numbers.empty()) {
        where = g.count > 1 ? fmt::format(", {}", StepList(numbers, step_word))
                            : fmt::format(" at {} {}", step_word, numbers.front());
      }
      worst += fmt::format("{}{}{}{}", worst.empty() ? "" : "; ", size,
                           g.count > 1 ? place : where, g.count > 1 ? where : place);
    }
    f.message = fmt::format(
        "The {} is idle {}; {} ({} per step) is charged to this cause. Worst gaps: {}.{}",
        accel, ShareText(idle_share), ShareText(summary.share), FormatDurationNs(summary.per_step_ns),
        worst, rules_internal::StepCaveat(steps));
    f.evidence.push_back({fmt::format("{} idle {} (threshold {:.0f}%)", accel,
                                      ShareText(idle_share), min_idle * 100),
                          idle_share, min_idle, "share"});
    f.evidence.push_back({fmt::format("idle {}: {}", f.cause, ShareText(summary.share)),
                          summary.share, 0, "share"});
    f.evidence.push_back({fmt::format("idle by cause: {}", breakdown), idle_share, 0, "share"});
    if (profiler_share >= kProfilerNoteMinShare) {
      f.evidence.push_back(
          {fmt::format("{} is idle inside the profiler's own code (torch.profiler's step, "
                       "record_function enter/exit): profiling overhead an unprofiled run does "
                       "not pay, charged to no finding",
                       ShareText(profiler_share)),
           profiler_share, kProfilerNoteMinShare, "share"});
    }
    if (unattributed_share > 0) {
      const std::string inferred = InferredUnattributedText(*idle);
      f.evidence.push_back(
          {fmt::format("{} could not be attributed: it comes {}{}", ShareText(unattributed_share),
                       UnattributedIdleWhere(tl, *idle),
                       inferred.empty() ? "" : fmt::format(" ({}; not a saving)", inferred)),
           unattributed_share, 0, "share"});
    }
    HostCode where = HostCode::kUnknown;
    if (owned.cause == IdleCause::kOtherHostWork) {
      HostCodeShares shares = HostCodeSharesOf(tl, *idle, owned.cause);
      where = shares.compiled >= kInModelCodeMinShare     ? HostCode::kCompiledModel
              : shares.dispatched >= kInModelCodeMinShare ? HostCode::kGraphDispatch
              : shares.in_model >= kInModelCodeMinShare   ? HostCode::kEagerModel
                                                          : HostCode::kBetweenModelCalls;
      f.evidence.push_back(
          {fmt::format("{:.0f}% of it inside the model's operators and modules{}", shares.in_model * 100,
                       shares.compiled > 0
                           ? fmt::format(" ({:.0f}% inside torch.compile'd regions)",
                                         shares.compiled * 100)
                           : std::string()),
           shares.in_model, kInModelCodeMinShare, "share"});
    }
    f.location = rules_internal::LocateIdle(tl, steps, summary);
    f.fix = IdleFixFor(owned, ctx.job_profile(), where);
    if (owned.cause == IdleCause::kLaunchStall) AddGraphLaunchStall(tl, *idle, f);
    if (owned.cause == IdleCause::kLaunchOverhead) {
      AddGraphReplayLaunches(tl, *idle, static_cast<int64_t>(steps.steps.size()), f);
    }
    if (owned.cause == IdleCause::kAllocator) AddAllocatorCalls(tl, steps, f);
    // The optimizer's or a one-step stall's advice, when given, leads the
    // fix; the step-tail advice then adds only its evidence.
    bool fix_taken = false;
    if (ctx.job_profile().is_pytorch() && (owned.cause == IdleCause::kOtherHostWork ||
                                           owned.cause == IdleCause::kLaunchOverhead)) {
      const std::string plain_fix = f.fix;
      rules_internal::AddOptimizerAdvice(
          rules_internal::OptimizerIdleOf(tl, steps, *idle, owned.cause), f);
      fix_taken = f.fix != plain_fix;
    }
    AddMemoryContext(ctx.memory_usage(), accel, f);
    fix_taken |= AddOneStepStall(summary, steps, f);
    if (owned.cause == IdleCause::kOtherHostWork || owned.cause == IdleCause::kHostSilent) {
      rules_internal::AddStepTailAdvice(
          rules_internal::StepTailOf(steps, devices, *idle, owned.cause), accel,
          ctx.job_profile(), fix_taken, f);
    }
    outcome.findings.push_back(std::move(f));
  }
  if (outcome.findings.empty() && unattributed_share >= min_idle) {
    outcome.applicable = false;
    const std::string inferred = InferredUnattributedText(*idle);
    outcome.not_judged_reason = fmt::format(
        "{} idle {}, of which {} comes {}: the host cause cannot be told{}", accel,
        ShareText(idle_share), ShareText(unattributed_share), UnattributedIdleWhere(tl, *idle),
        inferred.empty() ? "" : fmt::format(" ({}; no saving is claimed)", inferred));
  }
  return outcome;
}

}  // namespace tracelint
