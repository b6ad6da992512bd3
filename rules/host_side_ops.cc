#include "rules/host_side_ops.h"

#include <map>
#include <string>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/device_activity.h"
#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/model/accelerator.h"
#include "fmt/format.h"
#include "rules/idle_findings.h"
#include "rules/launch_context.h"

namespace tracelint {
namespace {

using rules_internal::CauseSummary;
using rules_internal::IdleScope;
using rules_internal::SafeShare;
using rules_internal::ShareText;
using rules_internal::StepIndexAt;

constexpr std::string_view kMinSelfNs = "MinSelfNs";
constexpr std::string_view kMinIdleShare = "MinIdleShare";
constexpr std::string_view kTopItems = "TopItems";

bool IsSyncish(const Timeline& tl, SliceId s) {
  return tl.HasFlag(s, kFlagSyncCall) || tl.HasFlag(s, kFlagImplicitSync);
}

// The outermost synchronizing slice above (or at) `s`: `aten::item` rather
// than the cudaStreamSynchronize it leads to.
SliceId OutermostSync(const Timeline& tl, SliceId s) {
  SliceId found = kNoIndex;
  for (SliceId p = s; p != kNoIndex; p = tl.slices().parent[p]) {
    if (IsSyncish(tl, p)) found = p;
  }
  return found;
}

std::vector<TimeNs> SelfTimes(const Timeline& tl) {
  const SliceColumns& c = tl.slices();
  std::vector<TimeNs> self(c.dur_ns.begin(), c.dur_ns.end());
  for (SliceId s = 0; s < c.size(); ++s) {
    if (c.parent[s] != kNoIndex) self[c.parent[s]] -= c.dur_ns[s];
  }
  return self;
}

struct SyncCounts {
  std::map<std::string, int64_t> by_name;  // outermost sync calls inside steps
  int64_t total = 0;
};

SyncCounts CountSyncs(const Timeline& tl, const StepSet& steps) {
  SyncCounts out;
  const SliceColumns& c = tl.slices();
  for (SliceId s = 0; s < c.size(); ++s) {
    if (!IsSyncish(tl, s) || OutermostSync(tl, s) != s) continue;
    if (StepIndexAt(steps, c.ts_ns[s]) < 0) continue;
    ++out.by_name[std::string(tl.str(c.name[s]))];
    ++out.total;
  }
  return out;
}

struct RoundTrips {
  int64_t count = 0;
  std::string example;  // "Memcpy DtoH -> aten::foo -> Memcpy HtoD"
};

CopyDirection DirectionOfLaunch(const Timeline& tl, SliceId launch,
                                const std::vector<SliceId>& activity_of_launch) {
  SliceId a = activity_of_launch[launch];
  if (a == kNoIndex || tl.slices().kind[a] != EventKind::kMemcpy) return CopyDirection::kUnknown;
  const DeviceDetails* d = tl.details(a);
  return d == nullptr ? CopyDirection::kUnknown : d->direction;
}

// D2H copy, then host ops that launch nothing, then an H2D copy, on one
// thread inside one step: data taken to the host to be computed there.
RoundTrips FindRoundTrips(const Timeline& tl, const StepSet& steps,
                          const std::vector<TimeNs>& self_ns) {
  RoundTrips out;
  const SliceColumns& c = tl.slices();
  std::vector<SliceId> activity_of_launch(c.size(), kNoIndex);
  std::vector<bool> launches_below(c.size(), false);
  for (SliceId s = 0; s < c.size(); ++s) {
    if (!IsDeviceActivity(c.kind[s]) || c.launch[s] == kNoIndex) continue;
    activity_of_launch[c.launch[s]] = s;
    for (SliceId p = c.launch[s]; p != kNoIndex; p = c.parent[p]) launches_below[p] = true;
  }
  for (TrackId t = 0; t < tl.tracks().size(); ++t) {
    if (tl.tracks()[t].kind != TrackKind::kHostThread) continue;
    auto [first, last] = tl.track_range(t);
    SliceId d2h = kNoIndex;
    SliceId host_op = kNoIndex;
    for (SliceId s = first; s < last; ++s) {
      if (activity_of_launch[s] != kNoIndex) {
        CopyDirection dir = DirectionOfLaunch(tl, s, activity_of_launch);
        if (dir == CopyDirection::kDtoH) {
          d2h = s;
          host_op = kNoIndex;
        } else if (dir == CopyDirection::kHtoD && d2h != kNoIndex && host_op != kNoIndex &&
                   StepIndexAt(steps, c.ts_ns[d2h]) == StepIndexAt(steps, c.ts_ns[s]) &&
                   StepIndexAt(steps, c.ts_ns[s]) >= 0) {
          if (out.count++ == 0) {
            out.example = fmt::format("{} -> {} -> {}", tl.str(c.name[activity_of_launch[d2h]]),
                                      tl.str(c.name[host_op]),
                                      tl.str(c.name[activity_of_launch[s]]));
          }
          d2h = kNoIndex;
        } else {
          d2h = kNoIndex;  // other device work in between: not a round trip
        }
        continue;
      }
      if (d2h != kNoIndex && c.ts_ns[s] >= c.end_ns(d2h) &&
          (c.kind[s] == EventKind::kCpuOp || c.kind[s] == EventKind::kUserAnnotation) &&
          !launches_below[s] && self_ns[s] > 0 && !IsSyncish(tl, s) &&
          host_op == kNoIndex) {
        host_op = s;
      }
    }
  }
  return out;
}

// The advice names the framework's own calls: a JAX or TensorFlow user has no
// .item() or torch.where to change.
std::string SyncFix(const JobProfile& job) {
  switch (job.framework) {
    case JobFramework::kTensorFlow:
      return "Keep values on the device: update metrics inside the tf.function "
             "(tf.keras.metrics, tf.Variable) and read them with .numpy() every N steps, not "
             "every step; avoid tf.py_function and data-dependent shapes (tf.boolean_mask, "
             "tf.where with one argument) in the step.";
    case JobFramework::kJax:
      return "Keep values on the device: do not call float()/.item()/jax.device_get/"
             ".block_until_ready() or print device arrays inside the loop (read metrics every N "
             "steps); keep shapes static (jnp.where with a fill value instead of boolean "
             "indexing) so the step stays one jitted call.";
    case JobFramework::kOther:
      return "Keep values on the device: read results back to the host every N steps, not "
             "every step, copy them asynchronously into pinned memory, keep shapes independent "
             "of the data, and drop explicit device synchronization from the loop.";
    default:
      break;
  }
  if (job.is_inference()) {
    // Generation loops only where the trace shows LLM names.
    return fmt::format(
        "Keep values on the GPU between iterations: copy results back once per batch "
        "(non_blocking into pinned memory) instead of .item()/.tolist() inside the loop, "
        "check conditions with tensor ops{}, and drop explicit torch.cuda.synchronize() from "
        "it.",
        job.llm ? " (in a generation loop, sample and test the stop criteria on the GPU)" : "");
  }
  return "Keep values on the GPU: accumulate metrics as tensors and call .item()/.cpu() every N "
         "steps (or after the loop); replace data-dependent shapes (nonzero, boolean masks) "
         "with torch.where; drop explicit torch.cuda.synchronize() from the loop; use "
         "non_blocking copies into pinned memory.";
}

std::string HostOpFix(const JobProfile& job) {
  switch (job.framework) {
    case JobFramework::kTensorFlow:
      return "Do the computation in TensorFlow ops inside the tf.function (no NumPy or "
             "tf.py_function on .numpy() values), pin it to the GPU, or move it into the "
             "tf.data pipeline (map with num_parallel_calls=tf.data.AUTOTUNE).";
    case JobFramework::kJax:
      return "Do the computation with jax.numpy inside the jitted step instead of NumPy on "
             "host values, or move it into the input pipeline ahead of the step.";
    case JobFramework::kOther:
      return "Do the computation on the device with the framework's own ops instead of "
             "NumPy/Python on host copies, or move it out of the step (precompute, an input "
             "pipeline worker, every N steps).";
    default:
      return "Do the computation on the device (create tensors with device=..., use torch ops "
             "instead of NumPy/Python on .cpu() values), or move it out of the step (precompute, "
             "a DataLoader worker, every N steps).";
  }
}

}  // namespace

std::vector<RuleOptionSpec> HostSideOpsRule::options() const {
  return {
      {std::string(kMinSelfNs), 100000, "ns",
       "shortest self time of a host op (with no GPU launches) reported", 0, 1e12},
      {std::string(kMinIdleShare), 0.02, "share",
       "share of the step the GPU must idle on a cause for a finding", 0, 1},
      {std::string(kTopItems), 5, "count", "ops listed per finding", 1, 100},
  };
}

RuleOutcome HostSideOpsRule::Check(AnalysisContext& ctx, const RuleOptions& options) const {
  RuleOutcome outcome;
  const Timeline& tl = ctx.timeline();
  // "GPU", or the TPU/MTIA the trace ran on: the findings name the device.
  const std::string_view accel = AcceleratorName(tl.metadata());
  if (!rules_internal::HasDeviceActivityAndSteps(ctx, outcome)) return outcome;
  const StepSet& steps = ctx.steps();
  const std::vector<DeviceActivity>& devices = ctx.device_activity();
  const IdleAttribution& idle = ctx.idle_attribution();
  IdleScope scope = rules_internal::ScopeOf(steps, devices.size());
  std::vector<TimeNs> self_ns = SelfTimes(tl);
  TimeNs min_self_ns = static_cast<TimeNs>(options.Get(kMinSelfNs));
  double min_share = options.Get(kMinIdleShare);
  size_t top_n = static_cast<size_t>(options.Get(kTopItems));
  SyncCounts syncs = CountSyncs(tl, steps);
  RoundTrips trips = FindRoundTrips(tl, steps, self_ns);
  double steps_n = static_cast<double>(scope.steps);

  auto base_evidence = [&](Finding& f, const CauseSummary& s) {
    f.evidence.push_back({fmt::format("{} idle in {}: {} (threshold {:.1f}%)", accel, f.cause,
                                      ShareText(s.share), min_share * 100),
                          s.share, min_share, "share"});
  };
  auto add_round_trips = [&](Finding& f) {
    if (trips.count == 0) return;
    f.evidence.push_back({fmt::format("{} D2H -> host -> H2D round trips per step, e.g. {}",
                                      rules_internal::CountPerStep(trips.count / steps_n),
                                      trips.example),
                          trips.count / steps_n, 0, "count"});
  };

  // Synchronizing calls: the host stops until the device drains.
  CauseSummary sync = rules_internal::SummarizeIdle(
      tl, idle, scope, [](const IdlePiece& p) { return p.cause == IdleCause::kSyncCall; },
      top_n, [](const IdlePiece& p) { return p.cause_slice; });
  if (sync.total_ns > 0 && sync.share >= min_share) {
    Finding f;
    f.cause = std::string(IdleCauseName(IdleCause::kSyncCall));
    f.recoverable_ns_per_step = sync.per_step_ns;
    f.recoverable_ns_steps = sync.step_values_ns;
    f.recoverable_share = sync.share;
    std::string names;
    for (const auto& [name, n] : syncs.by_name) {
      names += fmt::format("{}{} x{}", names.empty() ? "" : ", ", name, n);
    }
    f.title = fmt::format("Synchronizing calls inside the step leave the {} idle {}", accel,
                          ShareText(sync.share));
    const std::string calls =
        rules_internal::CountPerStep(SafeShare(static_cast<double>(syncs.total), steps_n));
    const std::string_view plural = calls == "1" ? "" : "s";
    f.message = fmt::format(
        "{0} synchronizing call{5} per step ({1}) make{6} the host wait for the {2}, so the {2} "
        "then waits for the host to queue the next work: {3} per step.{4}",
        calls, names, accel,
        FormatDurationNs(sync.per_step_ns), rules_internal::StepCaveat(steps), plural,
        plural.empty() ? "s" : "");
    base_evidence(f, sync);
    f.evidence.push_back({fmt::format("{} synchronizing call{} per step", calls, plural),
                          SafeShare(static_cast<double>(syncs.total), steps_n), 0, "count"});
    add_round_trips(f);
    f.location = rules_internal::LocateIdle(tl, steps, sync);
    f.fix = SyncFix(ctx.job_profile());
    outcome.findings.push_back(std::move(f));
  }

  // Host ops with long self time that launch nothing.
  CauseSummary host = rules_internal::SummarizeIdle(
      tl, idle, scope,
      [&](const IdlePiece& p) {
        return p.cause == IdleCause::kHostSideOp && p.host_slice != kNoIndex &&
               self_ns[p.host_slice] >= min_self_ns;
      },
      top_n);
  if (host.total_ns > 0 && host.share >= min_share) {
    Finding f;
    f.cause = std::string(IdleCauseName(IdleCause::kHostSideOp));
    f.recoverable_ns_per_step = host.per_step_ns;
    f.recoverable_ns_steps = host.step_values_ns;
    f.recoverable_share = host.share;
    // XSpace op events say nothing of the device work they queue (no
    // External id); "launches nothing" rests on no correlated call below
    // the op on its thread, which TF ops dispatching elsewhere also show.
    f.confidence = tl.metadata().format == "xspace" ? Confidence::kInferred
                                                     : Confidence::kMeasured;
    std::string lead = host.top_ops.empty() ? std::string("host ops") : host.top_ops[0].name;
    f.title = fmt::format("Host-side ops ({}) run while the {} idles {}", lead, accel,
                          ShareText(host.share));
    f.message = fmt::format(
        "Ops that launch no {0} work and run at least {1} on the host sit between device "
        "work; the {0} waits {2} per step for them.{3}",
        accel, FormatDurationNs(min_self_ns), FormatDurationNs(host.per_step_ns),
        rules_internal::StepCaveat(steps));
    base_evidence(f, host);
    f.evidence.push_back({fmt::format("self time at least {} (MinSelfNs)",
                                      FormatDurationNs(min_self_ns)),
                          static_cast<double>(min_self_ns), static_cast<double>(min_self_ns),
                          "ns"});
    // Said once: under the sync finding when there is one.
    if (outcome.findings.empty()) add_round_trips(f);
    f.location = rules_internal::LocateIdle(tl, steps, host);
    f.fix = HostOpFix(ctx.job_profile());
    outcome.findings.push_back(std::move(f));
  }
  double unattributed_share = SafeShare(
      static_cast<double>(idle.total_ns[static_cast<int>(IdleCause::kUnattributed)]),
      static_cast<double>(steps.TotalNs()) * scope.devices);
  if (outcome.findings.empty() && unattributed_share >= min_share) {
    outcome.applicable = false;
    outcome.not_judged_reason = fmt::format(
        "{} of {} idle comes {}: whether the host was syncing or computing cannot be told",
        ShareText(unattributed_share), accel, UnattributedIdleWhere(tl, idle));
  }
  return outcome;
}

}  // namespace tracelint
