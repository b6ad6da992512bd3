#include "analyzer/analysis/trace_integrity.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/device_activity.h"
#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/base/strings.h"
#include "analyzer/model/diagnostic_catalog.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace tracelint {
namespace {

constexpr int kInferred = 0;  // Confidence::kInferred

// What one pass over the slices counts.
struct Census {
  int64_t events = 0;
  int64_t host_ops = 0;        // cpu_op / user annotation, step markers excluded
  int64_t runtime_calls = 0;   // cuda/hip runtime and driver calls
  int64_t dispatch_launches = 0;  // framework ops linked to device work (TF1)
  int64_t device_activities = 0;
  int64_t unlinked = 0;        // device activities with no launch call
  int64_t launch_calls = 0;    // kernel launch calls (graph launches excluded)
  int64_t empty_launches = 0;  // of those, with no device activity
  int64_t dropped_markers = 0;
  int64_t skewed = 0;          // started before their launch call began
  TimeNs max_skew_ns = 0;
  // Launch links where gaps are analysed: an unlinked activity that starts
  // inside the analysed steps leaves a gap there unattributed, one outside
  // them (launched before the trace began, running ahead of the first step)
  // ends no analysed gap. The whole trace when no step is analysed.
  int64_t step_activities = 0;
  int64_t step_unlinked = 0;
  int64_t step_graph_replayed = 0;
  int64_t unlinked_outside_steps = 0;
};

Census Count(const Timeline& tl, const StepSet& analysed) {
  const SliceColumns& c = tl.slices();
  // In start order. A step's end may run past the next one's start (its
  // device work); a time there is inside the later step, which is checked.
  auto in_steps = [&](TimeNs ts_ns) {
    return analysed.steps.empty() || StepIndexAt(analysed, ts_ns) >= 0;
  };
  Census n;
  n.events = static_cast<int64_t>(c.size());
  std::vector<bool> has_activity(c.size(), false);
  for (SliceId s = 0; s < c.size(); ++s) {
    if (IsDeviceActivity(c.kind[s]) && c.launch[s] != kNoIndex) has_activity[c.launch[s]] = true;
  }
  for (SliceId s = 0; s < c.size(); ++s) {
    EventKind k = c.kind[s];
    if (IsDeviceActivity(k)) {
      ++n.device_activities;
      SliceId launch = c.launch[s];
      bool counted = in_steps(c.ts_ns[s]);
      n.step_activities += counted;
      if (launch == kNoIndex) {
        ++n.unlinked;
        ++(counted ? n.step_unlinked : n.unlinked_outside_steps);
        continue;
      }
      if (counted && tl.HasFlag(launch, kFlagGraphLaunch)) ++n.step_graph_replayed;
      TimeNs early_ns = c.ts_ns[launch] - c.ts_ns[s];
      if (early_ns > kSkewToleranceNs) {
        ++n.skewed;
        n.max_skew_ns = std::max(n.max_skew_ns, early_ns);
      }
      continue;
    }
    if (k == EventKind::kRuntime || k == EventKind::kDriver) {
      ++n.runtime_calls;
      // Kernel launches only: copy and memset calls may legitimately move
      // nothing (zero bytes).
      std::string_view name = tl.str(c.name[s]);
      if (tl.HasFlag(s, kFlagLaunch) && !tl.HasFlag(s, kFlagGraphLaunch) &&
          ContainsIgnoreCase(name, "Launch")) {
        ++n.launch_calls;
        if (!has_activity[s]) ++n.empty_launches;
      }
    }
    if ((k == EventKind::kCpuOp || k == EventKind::kUserAnnotation) &&
        !tl.HasFlag(s, kFlagStepMarker)) {
      ++n.host_ops;
      if (has_activity[s] && tl.HasFlag(s, kFlagDeviceOpDispatch)) ++n.dispatch_launches;
    }
    // Profilers that lose records say so with an event of their own
    // ("CUPTI dropped records", buffer overflow markers).
    if ((k == EventKind::kOverhead || k == EventKind::kInstant || k == EventKind::kOther) &&
        (ContainsIgnoreCase(tl.str(c.name[s]), "dropped") ||
         ContainsIgnoreCase(tl.str(c.name[s]), "overflow"))) {
      ++n.dropped_markers;
    }
  }
  n.dropped_markers += tl.diagnostics().Count(kDiagXSpaceProfilerError);
  return n;
}

IntegrityCheck Check(std::string id, CheckStatus status, double value, double threshold,
                     std::string unit, std::string reason) {
  return {std::move(id), status, value, threshold, std::move(unit), std::move(reason)};
}

// Host-attributed idle causes: what a capture without host events cannot tell.
const std::vector<IdleCause>& HostCauses() {
  static const std::vector<IdleCause> causes = {
      IdleCause::kDataLoader,     IdleCause::kSyncCall,       IdleCause::kPageableCopy,
      IdleCause::kHostSideOp,     IdleCause::kLaunchOverhead, IdleCause::kLaunchStall,
      IdleCause::kAllocator,      IdleCause::kJobSubmission,  IdleCause::kOtherHostWork,
      IdleCause::kHostSilent};
  return causes;
}

struct MissingWork {
  int64_t calls = 0;
  TimeNs idle_ns = 0;            // device idle inside those waits
  TimeNs longest_wait_ns = 0;
  TimeNs longest_idle_ns = 0;
  std::string longest_name;
  std::vector<std::pair<TimeNs, TimeNs>> windows;

  void Add(std::string_view name, TimeNs start_ns, TimeNs end_ns, TimeNs idle,
           TimeNs gap_start_ns) {
    ++calls;
    idle_ns += idle;
    // The window opens where the device went idle: idle charged to the
    // launch call just before the wait (a graph launch whose replay was not
    // recorded) is the same missing work.
    windows.emplace_back(std::min(gap_start_ns, start_ns), end_ns);
    if (end_ns - start_ns > longest_wait_ns) {
      longest_wait_ns = end_ns - start_ns;
      longest_idle_ns = idle;
      longest_name = std::string(name);
    }
  }
};

// The pure wait calls (not copies, whose host staging leaves the device idle
// on purpose).
bool IsSynchronizeCall(std::string_view name) { return Contains(name, "Synchronize"); }

// Where the device idle around `t_ns` began: the end of the last activity on
// any device before it.
TimeNs IdleSince(const std::vector<DeviceActivity>& devices, TimeNs t_ns) {
  TimeNs since_ns = t_ns;
  bool any = false;
  for (const DeviceActivity& d : devices) {
    const std::vector<Interval>& iv = d.all.intervals();
    auto it = std::upper_bound(iv.begin(), iv.end(), t_ns,
                               [](TimeNs t, const Interval& i) { return t < i.start_ns; });
    if (it == iv.begin()) continue;
    TimeNs end_ns = std::min(std::prev(it)->end_ns, t_ns);
    since_ns = any ? std::max(since_ns, end_ns) : end_ns;
    any = true;
  }
  return since_ns;
}

// Synchronizing calls that wait while every device of the rank is idle: a
// wait needs device work to wait for, so that work is missing from the file
// (sliced out, dropped by the profiler, or shifted by clock skew).
// `long_waits` holds waits of kMissingWorkIdleNs or more; `short_waits`
// shorter synchronize calls of kMissingWorkShortIdleNs or more, judged only
// when there is no long one.
struct MissingWorkFound {
  MissingWork long_waits;
  MissingWork short_waits;
};

MissingWorkFound FindMissingWork(AnalysisContext& ctx) {
  const Timeline& tl = ctx.timeline();
  const SliceColumns& c = tl.slices();
  MissingWorkFound out;
  const std::vector<DeviceActivity>& devices = ctx.device_activity();
  if (devices.empty()) return out;
  // A short wait counts against the analysed steps only when it is in one:
  // start-up and warm-up waits are not steady work.
  const StepSet& steps = ctx.steps();
  auto in_steps = [&](SliceId s) { return StepIndexAt(steps, c.ts_ns[s]) >= 0; };
  auto idle_in = [&](SliceId s) {
    TimeNs busy_ns = 0;
    for (const DeviceActivity& d : devices) {
      busy_ns = std::max(busy_ns, d.all.OverlapNs(c.ts_ns[s], c.end_ns(s)));
    }
    return c.dur_ns[s] - busy_ns;
  };
  for (SliceId s = 0; s < c.size(); ++s) {
    if (!tl.HasFlag(s, kFlagSyncCall) && !tl.HasFlag(s, kFlagImplicitSync)) continue;
    if (c.dur_ns[s] < kMissingWorkShortIdleNs) continue;
    // An implicit sync op contains its sync call; count the outermost once.
    bool nested = false;
    for (SliceId p = c.parent[s]; p != kNoIndex; p = c.parent[p]) {
      if (tl.HasFlag(p, kFlagSyncCall) || tl.HasFlag(p, kFlagImplicitSync)) nested = true;
    }
    const TimeNs idle_ns = idle_in(s);
    if (2 * idle_ns < c.dur_ns[s]) continue;
    const std::string_view name = tl.str(c.name[s]);
    if (!nested && idle_ns >= kMissingWorkIdleNs) {
      out.long_waits.Add(name, c.ts_ns[s], c.end_ns(s), idle_ns, IdleSince(devices, c.ts_ns[s]));
    } else if (idle_ns >= kMissingWorkShortIdleNs && tl.HasFlag(s, kFlagSyncCall) &&
               IsSynchronizeCall(name) && in_steps(s)) {
      out.short_waits.Add(name, c.ts_ns[s], c.end_ns(s), idle_ns,
                          IdleSince(devices, c.ts_ns[s]));
    }
  }
  return out;
}

// Idle causes with at least kMissingWorkCauseShare of their time inside
// the windows where device work is missing.
std::vector<IdleCause> CausesInWindows(const IdleAttribution& idle,
                                       const std::vector<std::pair<TimeNs, TimeNs>>& windows) {
  std::vector<TimeNs> inside(kIdleCauseCount, 0);
  for (const IdlePiece& p : idle.pieces) {
    for (const auto& [a, b] : windows) {
      TimeNs from = std::max(a, p.start_ns);
      TimeNs to = std::min(b, p.end_ns);
      if (to > from) inside[static_cast<int>(p.cause)] += to - from;
    }
  }
  std::vector<IdleCause> out;
  for (int i = 0; i < kIdleCauseCount; ++i) {
    TimeNs total = idle.total_ns[i];
    if (total > 0 && static_cast<double>(inside[i]) >=
                         kMissingWorkCauseShare * static_cast<double>(total)) {
      out.push_back(static_cast<IdleCause>(i));
    }
  }
  return out;
}

// Steps whose device work is far below the median step's: device records
// are missing from them (the trailing incomplete step is already dropped).
IntegrityCheck StepWorkCheck(const StepSet& steps) {
  if (!HasSteps(steps) || steps.steps.size() < 3) {
    return Check("step_device_work", CheckStatus::kNotApplicable, 0, kStepWorkMinShare, "count",
                 "fewer than 3 complete steps to compare");
  }
  std::vector<int64_t> counts;
  for (const Step& s : steps.steps) counts.push_back(s.device_activities);
  std::vector<int64_t> sorted = counts;
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  int64_t median = sorted[sorted.size() / 2];
  std::vector<int64_t> short_steps;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (static_cast<double>(counts[i]) < kStepWorkMinShare * static_cast<double>(median)) {
      short_steps.push_back(steps.steps[i].number);
    }
  }
  if (short_steps.empty()) {
    return Check("step_device_work", CheckStatus::kOk, 0, 1, "count",
                 fmt::format("every step has at least {:.0f}% of the median step's {} device "
                             "activities",
                             kStepWorkMinShare * 100, median));
  }
  return Check("step_device_work", CheckStatus::kLimited, static_cast<double>(short_steps.size()),
               1, "count",
               fmt::format("{} step(s) ({}) have under {:.0f}% of the median step's {} device "
                           "activities: device records are missing from them",
                           short_steps.size(), fmt::join(short_steps, ", "),
                           kStepWorkMinShare * 100, median));
}

void Withhold(TraceIntegrity& out, IdleCause cause, const std::string& reason) {
  std::string name(IdleCauseName(cause));
  for (const WithheldCause& w : out.withheld) {
    if (w.cause == name) return;
  }
  out.withheld.push_back({std::move(name), reason});
}

}  // namespace

std::string_view IntegrityVerdictName(IntegrityVerdict v) {
  switch (v) {
    case IntegrityVerdict::kTrusted: return "trusted";
    case IntegrityVerdict::kLimited: return "limited";
    case IntegrityVerdict::kUntrusted: return "untrusted";
  }
  return "untrusted";
}

std::string_view CheckStatusName(CheckStatus s) {
  switch (s) {
    case CheckStatus::kOk: return "ok";
    case CheckStatus::kNotApplicable: return "n/a";
    case CheckStatus::kLimited: return "limited";
    case CheckStatus::kFailed: return "failed";
  }
  return "failed";
}

TraceIntegrity ComputeTraceIntegrity(AnalysisContext& ctx) {
  const Timeline& tl = ctx.timeline();
  const StepSet& steps = ctx.all_steps();  // a warm-up-only window is not a fragment
  Census n = Count(tl, ctx.steps());
  TraceIntegrity out;
  auto lower = [&out](int confidence) { out.max_confidence = std::min(out.max_confidence, confidence); };

  // fragment: a handful of events, or step markers without one complete step.
  // Two complete steps of a small model are a profile, not a fragment.
  bool few_events = n.events < kFragmentMinEvents &&
                    (!HasSteps(steps) || steps.steps.size() < 2);
  bool no_step = steps.steps.empty() && (HasSteps(steps) || steps.dropped_incomplete > 0);
  if (few_events || no_step) {
    out.fragment_reason =
        few_events
            ? (n.events == 0
                   ? std::string("no event tracelint models (the import diagnostics name what "
                                 "was skipped)")
                   : fmt::format("only {} events: too few to stand for a step of the job (a "
                                 "fragment or a micro-benchmark)",
                                 n.events))
                   : "step markers but no complete step: a fragment of the job";
    out.checks.push_back(Check("fragment", CheckStatus::kFailed, static_cast<double>(n.events),
                               static_cast<double>(kFragmentMinEvents), "count",
                               out.fragment_reason));
    lower(kInferred);
  } else {
    out.checks.push_back(Check("fragment", CheckStatus::kOk, static_cast<double>(n.events),
                               static_cast<double>(kFragmentMinEvents), "count",
                               fmt::format("{} events, {} complete step(s){}", n.events,
                                           steps.steps.size(),
                                           steps.source == StepSource::kMarker ? ""
                                           : steps.source == StepSource::kInferred
                                               ? " (inferred iterations, no markers)"
                                               : " (one window, no markers)")));
  }

  // complete_file: a cut file (salvaged up to the cut) is analysed from the
  // steps its write order proves were read whole (read_coverage.h); the
  // rest is dropped, so what remains is trusted but is not the whole run.
  const RunMetadata& md = tl.metadata();
  if (md.truncated) {
    out.checks.push_back(Check(
        "complete_file", CheckStatus::kLimited, 1, 1, "count",
        fmt::format("the file is cut short at byte {} ({} events read): findings come from {}",
                    md.truncated_at_byte, md.events_read,
                    HasSteps(steps)
                        ? fmt::format("the {} step(s) read whole; {} incomplete step(s) dropped",
                                      steps.steps.size(), steps.dropped_incomplete)
                        : std::string("the part of the window read whole"))));
  } else {
    out.checks.push_back(Check("complete_file", CheckStatus::kOk, 0, 1, "count",
                               "the file was read to its end"));
  }

  // step_markers: without markers (or with markers the profiler stitched
  // from disjoint times) the "step" is a window that may hold start-up,
  // teardown and pauses: no steady step to claim most of.
  int64_t disjoint = tl.diagnostics().Count(kDiagXSpaceStepSpansDisjoint);
  if (n.events >= kFragmentMinEvents && steps.source == StepSource::kInferred &&
      !steps.steps.empty()) {
    // Iterations inferred from repeats split the window where the job
    // repeats itself: no start-up or pause inside them to cap claims for,
    // but their bounds are inferred, so findings carry one confidence
    // level less (the engine lowers them).
    out.checks.push_back(Check(
        "step_markers", CheckStatus::kLimited, static_cast<double>(steps.steps.size()), 1,
        "count",
        fmt::format("no step markers: {} iterations inferred from what repeats; findings built "
                    "on them carry one confidence level less",
                    steps.steps.size())));
    out.confidence_levels_down = 1;
  } else if (n.events >= kFragmentMinEvents && (!steps.from_markers || disjoint > 0)) {
    out.checks.push_back(Check(
        "step_markers", CheckStatus::kLimited, steps.from_markers ? static_cast<double>(disjoint) : 0,
        1, "count",
        steps.from_markers
            ? fmt::format("{} step number(s) found at disjoint times: a step spans the pause "
                          "between them, so claims are capped at {:.0f}% of the step",
                          disjoint, kWindowMaxClaimShare * 100)
            : fmt::format("no step markers: one window over the whole trace, which may hold "
                          "start-up and pauses, so claims are capped at {:.0f}% of it",
                          kWindowMaxClaimShare * 100)));
    out.max_claim_share = std::min(out.max_claim_share, kWindowMaxClaimShare);
    if (steps.from_markers && disjoint > 0) {
      // Each part runs while the other device (or worker) idles, and the
      // pause between the parts is in the step too: what looks like idle
      // there is the stitching, so no idle cause can be charged with it.
      const std::string why =
          "a step stitched from disjoint times holds the pause between its parts, so its idle "
          "time cannot be told from that pause";
      for (int i = 0; i < kIdleCauseCount; ++i) {
        if (static_cast<IdleCause>(i) != IdleCause::kUnattributed) {
          Withhold(out, static_cast<IdleCause>(i), why);
        }
      }
    }
  } else {
    out.checks.push_back(Check("step_markers",
                               steps.from_markers ? CheckStatus::kOk : CheckStatus::kNotApplicable,
                               static_cast<double>(steps.steps.size()), 1, "count",
                               steps.from_markers
                                   ? fmt::format("{} complete step(s) from markers",
                                                 steps.steps.size())
                                   : "a fragment: see above"));
  }

  // host_events: a device-only capture cannot say what the host did.
  bool has_host = n.host_ops + n.runtime_calls > 0;
  if (n.device_activities == 0) {
    out.checks.push_back(Check("host_events", CheckStatus::kNotApplicable,
                               static_cast<double>(n.host_ops + n.runtime_calls), 1, "count",
                               "no device work to explain"));
  } else if (!has_host) {
    std::string why = "device-only capture: no host events, so no idle time can be charged to a host "
                      "cause";
    out.checks.push_back(Check("host_events", CheckStatus::kLimited, 0, 1, "count", why));
    for (IdleCause cause : HostCauses()) Withhold(out, cause, why);
  } else {
    out.checks.push_back(Check("host_events", CheckStatus::kOk,
                               static_cast<double>(n.host_ops + n.runtime_calls), 1, "count",
                               fmt::format("{} host ops, {} runtime calls", n.host_ops,
                                           n.runtime_calls)));
  }

  // device_events: a host-only capture has nothing for the device rules.
  if (n.device_activities == 0) {
    out.checks.push_back(Check("device_events", CheckStatus::kLimited, 0, 1, "count",
                               has_host ? "host-only capture: no device activity, so no GPU "
                                          "finding can be judged"
                                        : "no device activity"));
  } else {
    out.checks.push_back(Check("device_events", CheckStatus::kOk,
                               static_cast<double>(n.device_activities), 1, "count",
                               fmt::format("{} device activities", n.device_activities)));
  }

  // filtered: host ops and device work kept, every runtime call removed.
  if (n.dispatch_launches > 0 && n.runtime_calls == 0) {
    // TF1 timelines: no runtime calls, but the ops link to their work.
    out.checks.push_back(Check("filtered", CheckStatus::kOk,
                               static_cast<double>(n.dispatch_launches), 1, "count",
                               fmt::format("no runtime calls; {} ops linked to their device work "
                                           "by node name",
                                           n.dispatch_launches)));
  } else if (n.device_activities > 0 && n.host_ops > 0 && n.runtime_calls == 0) {
    // TF1 timelines and xprof's Chrome JSON never hold them: not a filter.
    out.checks.push_back(Check("filtered", CheckStatus::kLimited, 0, 1, "count",
                               md.format == "chrome-json"
                                   ? "host ops and device work but no runtime calls (this "
                                     "Chrome trace's producer does not record them); idle time "
                                     "cannot be tied to launches"
                                   : "host ops and device work but no runtime calls: a filtered "
                                     "or re-serialized file; idle time cannot be tied to "
                                     "launches"));
    lower(kInferred);
  } else {
    out.checks.push_back(Check("filtered", n.device_activities > 0 ? CheckStatus::kOk
                                                                   : CheckStatus::kNotApplicable,
                               static_cast<double>(n.runtime_calls), 1, "count",
                               fmt::format("{} runtime calls", n.runtime_calls)));
  }

  // launch_links: device work with no launch (dropped records, graph replays
  // without their launch, lost correlation ids): its gaps are unattributed.
  // Counted where gaps are analysed: in the steps.
  double unlinked_share = n.step_activities > 0
                              ? static_cast<double>(n.step_unlinked) / n.step_activities
                              : 0;
  if (n.device_activities == 0) {
    out.checks.push_back(Check("launch_links", CheckStatus::kNotApplicable, 0,
                               kUnlinkedLimitedShare, "share", "no device work"));
  } else {
    bool limited = unlinked_share >= kUnlinkedLimitedShare;
    bool in_steps = !ctx.steps().steps.empty();
    bool window = !HasSteps(ctx.steps());
    out.checks.push_back(Check(
        "launch_links", limited ? CheckStatus::kLimited : CheckStatus::kOk, unlinked_share,
        kUnlinkedLimitedShare, "share",
        fmt::format("{} of {} device activities{} have no launch call{}{}{}", n.step_unlinked,
                    n.step_activities,
                    !in_steps ? "" : window ? " in the analysed window" : " in the analysed steps",
                    n.step_graph_replayed > 0
                        ? fmt::format(" ({} more are graph replays)", n.step_graph_replayed)
                        : std::string(),
                    limited ? ": the idle time they end is unattributed" : "",
                    n.unlinked_outside_steps > 0
                        ? fmt::format("; {} unlinked outside {} (launched before the trace "
                                      "began, or {}) end no analysed gap",
                                      n.unlinked_outside_steps, window ? "it" : "them",
                                      window ? "cut from its edges" : "between steps")
                        : std::string())));
  }

  // empty_launches: launch calls whose device work never shows up.
  double empty_share =
      n.launch_calls > 0 ? static_cast<double>(n.empty_launches) / n.launch_calls : 0;
  if (n.launch_calls == 0) {
    out.checks.push_back(Check("empty_launches", CheckStatus::kNotApplicable, 0,
                               kEmptyLaunchLimitedShare, "share", "no kernel launch calls"));
  } else if (empty_share >= kEmptyLaunchLimitedShare &&
             n.empty_launches >= kEmptyLaunchMinCount) {
    out.checks.push_back(Check(
        "empty_launches", CheckStatus::kLimited, empty_share, kEmptyLaunchLimitedShare, "share",
        fmt::format("{} of {} kernel launch calls have no device activity: device records were "
                    "dropped, or the launches were captured into a graph{}",
                    n.empty_launches, n.launch_calls,
                    // With no device activity at all there is no device idle to overstate.
                    n.device_activities > 0 ? "; device idle is overstated" : "")));
    lower(kInferred);
  } else {
    out.checks.push_back(Check("empty_launches", CheckStatus::kOk, empty_share,
                               kEmptyLaunchLimitedShare, "share",
                               fmt::format("{} of {} kernel launch calls have no device activity",
                                           n.empty_launches, n.launch_calls)));
  }

  // dropped_records: the profiler said it lost records.
  if (n.dropped_markers > 0) {
    out.checks.push_back(Check("dropped_records", CheckStatus::kLimited,
                               static_cast<double>(n.dropped_markers), 1, "count",
                               fmt::format("{} dropped-record marker(s): some activity is missing, "
                                           "so idle time may be overstated",
                                           n.dropped_markers)));
    lower(kInferred);
  } else {
    out.checks.push_back(Check("dropped_records", CheckStatus::kOk, 0, 1, "count",
                               "no dropped-record markers"));
  }

  // clock_skew: device work that starts before the call that launched it.
  int64_t linked = n.device_activities - n.unlinked;
  if (linked == 0) {
    out.checks.push_back(Check("clock_skew", CheckStatus::kNotApplicable, 0,
                               static_cast<double>(kSkewToleranceNs), "ns",
                               "no launch-linked device work to compare clocks"));
  } else if (n.skewed == 0) {
    out.checks.push_back(Check("clock_skew", CheckStatus::kOk, 0,
                               static_cast<double>(kSkewToleranceNs), "ns",
                               "no device work starts before its launch"));
  } else {
    bool failed = n.max_skew_ns >= kSkewFailedNs;
    std::string why = fmt::format(
        "{} of {} linked device activities start before their launch call (up to {}): host and "
        "device clocks disagree",
        n.skewed, linked, FormatDurationNs(n.max_skew_ns));
    out.checks.push_back(Check("clock_skew", failed ? CheckStatus::kFailed : CheckStatus::kLimited,
                               static_cast<double>(n.max_skew_ns),
                               static_cast<double>(kSkewToleranceNs), "ns", why));
    lower(kInferred);
    if (failed) {
      // Every idle cause compares the two clocks (the launched-before test,
      // the host events cut into a device gap): none can be told.
      for (int i = 0; i < kIdleCauseCount; ++i) {
        if (static_cast<IdleCause>(i) != IdleCause::kUnattributed) {
          Withhold(out, static_cast<IdleCause>(i), why);
        }
      }
    }
  }

  // missing_device_work: waits on an idle device.
  MissingWorkFound found = FindMissingWork(ctx);
  const MissingWork& missing = found.long_waits;
  const MissingWork& short_waits = found.short_waits;
  const TimeNs steps_ns = ctx.steps().TotalNs();
  const bool short_counts =
      !short_waits.windows.empty() && steps_ns > 0 &&
      static_cast<double>(short_waits.idle_ns) >=
          kMissingWorkShortShare * static_cast<double>(steps_ns);
  if (missing.calls > 0) {
    std::string why = fmt::format(
        "{} synchronizing call(s) wait with the device idle for {} in all (longest: {} of {}): "
        "device work is missing from the file (a sliced trace or clock skew)",
        missing.calls, FormatDurationNs(missing.idle_ns), missing.longest_name,
        FormatDurationNs(missing.longest_wait_ns));
    out.checks.push_back(Check("missing_device_work", CheckStatus::kFailed,
                               static_cast<double>(missing.idle_ns),
                               static_cast<double>(kMissingWorkIdleNs), "ns", why));
    for (IdleCause cause : CausesInWindows(ctx.idle_attribution(), missing.windows)) {
      Withhold(out, cause, why);
    }
  } else if (short_counts) {
    std::string why = fmt::format(
        "{} synchronize call(s) wait with the device idle for {} in all, {:.0f}% of the "
        "analysed time (longest: {}, idle {} of {}): the device work they waited for is not "
        "in the file (records dropped, or the capture ended inside a graph replay) or the host "
        "thread was descheduled; that idle is not charged to a cause",
        short_waits.windows.size(), FormatDurationNs(short_waits.idle_ns),
        100.0 * static_cast<double>(short_waits.idle_ns) / static_cast<double>(steps_ns),
        short_waits.longest_name, FormatDurationNs(short_waits.longest_idle_ns),
        FormatDurationNs(short_waits.longest_wait_ns));
    out.checks.push_back(Check("missing_device_work", CheckStatus::kLimited,
                               static_cast<double>(short_waits.idle_ns),
                               kMissingWorkShortShare * static_cast<double>(steps_ns), "ns", why));
    lower(kInferred);
    for (IdleCause cause : CausesInWindows(ctx.idle_attribution(), short_waits.windows)) {
      Withhold(out, cause, why);
    }
  } else {
    out.checks.push_back(Check("missing_device_work",
                               n.device_activities > 0 ? CheckStatus::kOk
                                                       : CheckStatus::kNotApplicable,
                               0, static_cast<double>(kMissingWorkIdleNs), "ns",
                               "no synchronizing call waits on an idle device"));
  }

  out.checks.push_back(StepWorkCheck(ctx.steps()));
  // Idle in a step without its device work is overstated.
  if (out.checks.back().status == CheckStatus::kLimited) lower(kInferred);

  // Verdict and one line.
  std::vector<std::string> reasons;
  for (const IntegrityCheck& check : out.checks) {
    if (check.status == CheckStatus::kFailed) {
      out.verdict = IntegrityVerdict::kUntrusted;
      reasons.push_back(check.reason);
    } else if (check.status == CheckStatus::kLimited) {
      if (out.verdict == IntegrityVerdict::kTrusted) out.verdict = IntegrityVerdict::kLimited;
      reasons.push_back(check.reason);
    }
  }
  out.summary = std::string(IntegrityVerdictName(out.verdict));
  if (!reasons.empty()) out.summary += fmt::format(": {}", fmt::join(reasons, "; "));
  return out;
}

}  // namespace tracelint
