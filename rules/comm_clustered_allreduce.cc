#include "rules/comm_clustered_allreduce.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/cross_rank.h"
#include "analyzer/analysis/collective_matching.h"
#include "analyzer/analysis/device_activity.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/interval_set.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/model/accelerator.h"
#include "fmt/format.h"
#include "rules/idle_findings.h"
#include "rules/comm_late_rank.h"
#include "rules/launch_context.h"

namespace tracelint {
namespace {

using rules_internal::ArgText;
using rules_internal::NormalizeDtype;
using rules_internal::Percent;
using rules_internal::SafeShare;
using rules_internal::StepIndexAt;

constexpr std::string_view kMinTailShare = "MinTailShare";
constexpr std::string_view kMinExposedShare = "MinExposedShare";
constexpr std::string_view kBucketCapMb = "BucketCapMb";
constexpr std::string_view kMinLateRankShare = "MinLateRankShare";
constexpr size_t kMaxTopItems = 5;

struct Collective {
  SliceId slice = kNoIndex;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::string name;          // "allreduce", "AllGather", ...
  int64_t msg_bytes = -1;    // -1 when the trace does not say
  bool after_backward = false;  // launched by the main thread, not by a DDP hook
};

struct StepComm {
  std::vector<Collective> collectives;
  std::vector<Interval> backward_kernels;
  TimeNs last_backward_end_ns = -1;  // -1: no backward kernel in the step
};

// Everything measured on one device, summed over analysed steps.
struct DeviceComm {
  int device = -1;
  TimeNs collective_ns = 0;          // sum of collective durations in steps
  TimeNs backward_step_coll_ns = 0;  // same, only steps that have a backward
  TimeNs tail_ns = 0;                // collectives starting after backward
  TimeNs exposed_ns = 0;             // |M - C| in steps
  TimeNs hideable_tail_ns = 0;
  TimeNs unhideable_tail_ns = 0;
  TimeNs non_tail_exposed_ns = 0;    // exposed outside the tail that compute could hide
  TimeNs exposed_beyond_compute_ns = 0;  // exposed time with no compute left to hide it
  TimeNs wait_ns = 0;                // idle: device-side wait on a collective
  int64_t collective_count = 0;      // collectives in steps
  int64_t known_bytes = 0;           // their message bytes, where the trace says
  TimeNs known_bytes_ns = 0;         // the time of the collectives with known bytes
  int64_t tail_manual_count = 0;     // tail collectives launched outside backward
  int64_t tail_count = 0;
  int steps_with_backward = 0;
  std::map<std::pair<std::string, bool>, TopItem> items;  // (name, in tail)
  SliceId worst = kNoIndex;          // longest exposed tail (else any) collective
  TimeNs worst_exposed_ns = -1;
  bool worst_in_tail = false;

  TimeNs saving_ns() const { return hideable_tail_ns + non_tail_exposed_ns + wait_ns; }
  double tail_share() const { return SafeShare(tail_ns, backward_step_coll_ns); }
};

int64_t DtypeBytes(std::string_view dtype) {
  const std::string d = NormalizeDtype(dtype);
  if (d == "float64" || d == "int64") return 8;
  if (d == "float32" || d == "int32") return 4;
  if (d == "float16" || d == "bfloat16" || d == "int16") return 2;
  if (d == "fp8" || d == "uint8" || d == "int8" || d == "bool") return 1;
  return -1;
}

// "ncclKernel_AllReduce_RING_LL_Sum_float(...)" and
// "ncclDevKernel_AllGather_RING_LL(...)" -> "AllReduce" / "AllGather".
std::string NameFromKernel(std::string_view kernel) {
  for (std::string_view prefix : {"ncclDevKernel_", "ncclKernel_"}) {
    size_t at = kernel.find(prefix);
    if (at == std::string_view::npos) continue;
    std::string_view rest = kernel.substr(at + prefix.size());
    return std::string(rest.substr(0, rest.find_first_of("_(")));
  }
  return std::string(kernel.substr(0, kernel.find('(')));
}

// Collective name and message size from the kernel's own args (PyTorch 2.2+)
// or from the host collective op that launched it.
void DescribeCollective(const Timeline& tl, SliceId kernel, Collective& out) {
  const SliceColumns& c = tl.slices();
  SliceId host_op = kNoIndex;
  for (SliceId p = c.launch[kernel] == kNoIndex ? kNoIndex : c.parent[c.launch[kernel]];
       p != kNoIndex; p = c.parent[p]) {
    if (tl.HasFlag(p, kFlagCollective)) {
      host_op = p;
      break;
    }
  }
  for (SliceId source : {kernel, host_op}) {
    if (source == kNoIndex) continue;
    if (out.name.empty()) out.name = ArgText(tl, source, "Collective name");
    if (out.msg_bytes < 0) {
      const Arg* in = tl.FindArg(source, "In msg nelems");
      const Arg* outn = tl.FindArg(source, "Out msg nelems");
      const int64_t elem = DtypeBytes(ArgText(tl, source, "dtype"));
      int64_t nelems = -1;
      if (in != nullptr) nelems = std::max(nelems, in->value.AsInt().value_or(-1));
      if (outn != nullptr) nelems = std::max(nelems, outn->value.AsInt().value_or(-1));
      if (nelems >= 0 && elem > 0) out.msg_bytes = nelems * elem;
    }
  }
  if (out.name.empty() && host_op != kNoIndex) {
    std::string_view host_name = tl.str(c.name[host_op]);
    if (host_name.starts_with("nccl:")) out.name = std::string(host_name.substr(5));
  }
  if (out.name.empty()) out.name = NameFromKernel(tl.str(c.name[kernel]));
}

// Host threads that run autograd's backward (they hold evaluate_function
// slices but no step marker); their launches are backward work.
std::set<TrackId> AutogradThreads(const Timeline& tl) {
  std::set<TrackId> backward, has_step;
  const SliceColumns& c = tl.slices();
  for (SliceId s = 0; s < c.size(); ++s) {
    const Track& t = tl.tracks()[c.track[s]];
    const TrackId origin = t.overflow_of == kNoIndex ? c.track[s] : t.overflow_of;
    if (tl.HasFlag(s, kFlagBackward)) backward.insert(origin);
    if (tl.HasFlag(s, kFlagStepMarker)) has_step.insert(origin);
  }
  std::set<TrackId> out;
  for (TrackId t : backward) {
    if (!has_step.contains(t)) out.insert(t);
  }
  return out;
}

bool IsBackwardLaunch(const Timeline& tl, SliceId device_slice,
                      const std::set<TrackId>& autograd_threads) {
  const SliceColumns& c = tl.slices();
  const SliceId launch = c.launch[device_slice];
  if (launch == kNoIndex) return false;
  const Track& t = tl.tracks()[c.track[launch]];
  const TrackId origin = t.overflow_of == kNoIndex ? c.track[launch] : t.overflow_of;
  if (autograd_threads.contains(origin)) return true;
  return rules_internal::FindLaunchContext(tl, device_slice).backward;
}

DeviceComm MeasureDevice(AnalysisContext& ctx, const DeviceActivity& da,
                         const std::set<TrackId>& autograd_threads, double bucket_bytes) {
  const Timeline& tl = ctx.timeline();
  const StepSet& steps = ctx.steps();
  const SliceColumns& c = tl.slices();
  DeviceComm out;
  out.device = da.device;
  std::vector<StepComm> per_step(steps.steps.size());
  for (TrackId t = 0; t < tl.tracks().size(); ++t) {
    const Track& track = tl.tracks()[t];
    if (track.kind != TrackKind::kDeviceStream || track.device != da.device) continue;
    auto [begin, end] = tl.track_range(t);
    for (SliceId s = begin; s < end; ++s) {
      if (c.kind[s] != EventKind::kKernel) continue;
      const int step = StepIndexAt(steps, c.ts_ns[s]);
      if (step < 0) continue;
      StepComm& sc = per_step[step];
      const bool backward = IsBackwardLaunch(tl, s, autograd_threads);
      if (tl.HasFlag(s, kFlagCollective)) {
        Collective coll;
        coll.slice = s;
        coll.start_ns = c.ts_ns[s];
        coll.end_ns = c.end_ns(s);
        DescribeCollective(tl, s, coll);
        coll.after_backward = !backward;
        sc.collectives.push_back(std::move(coll));
      } else if (backward) {
        sc.backward_kernels.push_back({c.ts_ns[s], c.end_ns(s)});
        sc.last_backward_end_ns = std::max(sc.last_backward_end_ns, c.end_ns(s));
      }
    }
  }
  const IntervalSet exposed = da.collective_kernels.Subtract(da.compute_kernels);
  for (size_t i = 0; i < per_step.size(); ++i) {
    const Step& step = steps.steps[i];
    StepComm& sc = per_step[i];
    const TimeNs step_exposed_ns = step.OverlapNs(exposed);
    out.exposed_ns += step_exposed_ns;
    TimeNs coll_ns = 0;
    for (const Collective& coll : sc.collectives) {
      coll_ns = SaturatingAddNs(coll_ns, coll.end_ns - coll.start_ns);
      ++out.collective_count;
      if (coll.msg_bytes > 0) {
        out.known_bytes += coll.msg_bytes;
        out.known_bytes_ns = SaturatingAddNs(out.known_bytes_ns, coll.end_ns - coll.start_ns);
      }
    }
    out.collective_ns = SaturatingAddNs(out.collective_ns, coll_ns);

    std::vector<Interval> tail;
    const Collective* last = nullptr;
    if (sc.last_backward_end_ns >= 0) {
      ++out.steps_with_backward;
      out.backward_step_coll_ns = SaturatingAddNs(out.backward_step_coll_ns, coll_ns);
      for (const Collective& coll : sc.collectives) {
        if (coll.start_ns < sc.last_backward_end_ns) continue;
        tail.push_back({coll.start_ns, coll.end_ns});
        out.tail_ns = SaturatingAddNs(out.tail_ns, coll.end_ns - coll.start_ns);
        ++out.tail_count;
        if (coll.after_backward) ++out.tail_manual_count;
        if (last == nullptr || coll.start_ns > last->start_ns) last = &coll;
      }
    }
    const TimeNs tail_exposed_ns =
        IntervalSet::FromUnsorted(tail).Subtract(da.compute_kernels).TotalNs();
    TimeNs hideable_ns = 0;
    if (last != nullptr) {
      // DDP splits gradients into buckets; only the last bucket cannot overlap
      // backward. A collective bigger than one bucket would shrink to one.
      const TimeNs last_exposed_ns =
          (last->end_ns - last->start_ns) -
          da.compute_kernels.OverlapNs(last->start_ns, last->end_ns);
      double keep = 1.0;
      if (last->msg_bytes > 0) {
        keep = std::min(1.0, bucket_bytes / static_cast<double>(last->msg_bytes));
      }
      const TimeNs unhideable_ns = static_cast<TimeNs>(last_exposed_ns * keep);
      // Overlap can hide at most as much as the backward compute lasts.
      const TimeNs backward_busy_ns =
          IntervalSet::FromUnsorted(sc.backward_kernels).TotalNs();
      hideable_ns = std::clamp<TimeNs>(tail_exposed_ns - unhideable_ns, 0, backward_busy_ns);
      out.hideable_tail_ns += hideable_ns;
      out.unhideable_tail_ns += tail_exposed_ns - hideable_ns;
    }
    // Overlap hides communication only behind compute: the step's compute
    // not already spent hiding the tail caps the exposed time it can win.
    const TimeNs non_tail_ns = std::max<TimeNs>(0, step_exposed_ns - tail_exposed_ns);
    const TimeNs room_ns = std::max<TimeNs>(
        0, step.OverlapNs(da.compute_kernels) - hideable_ns);
    out.non_tail_exposed_ns += std::min(non_tail_ns, room_ns);
    out.exposed_beyond_compute_ns += non_tail_ns - std::min(non_tail_ns, room_ns);

    for (const Collective& coll : sc.collectives) {
      const bool in_tail = sc.last_backward_end_ns >= 0 &&
                           coll.start_ns >= sc.last_backward_end_ns;
      const TimeNs coll_exposed_ns = (coll.end_ns - coll.start_ns) -
                                     da.compute_kernels.OverlapNs(coll.start_ns, coll.end_ns);
      TopItem& item = out.items[{coll.name, in_tail}];
      if (item.count == 0) {
        item.name = coll.name;
        item.detail = fmt::format(
            "{}{}", in_tail ? "starts after the last backward kernel" : "during the step",
            coll.msg_bytes > 0 ? fmt::format(", {:.1f} MiB per call", coll.msg_bytes / 1048576.0)
                               : std::string());
      }
      item.total_ns = SaturatingAddNs(item.total_ns, coll.end_ns - coll.start_ns);
      ++item.count;
      // Prefer a tail collective as the location: that is what the fix moves.
      if ((in_tail && !out.worst_in_tail) ||
          (in_tail == out.worst_in_tail && coll_exposed_ns > out.worst_exposed_ns)) {
        out.worst = coll.slice;
        out.worst_exposed_ns = coll_exposed_ns;
        out.worst_in_tail = in_tail;
      }
    }
  }
  for (const IdlePiece& piece : ctx.idle_attribution().pieces) {
    if (piece.device == da.device && piece.step_index >= 0 &&
        piece.cause == IdleCause::kDeviceWaitCollective) {
      out.wait_ns += piece.end_ns - piece.start_ns;
    }
  }
  return out;
}

// Fix texts follow the job and its collectives (rules/docs/
// comm-clustered-allreduce.md lists them): DDP bucketing is advice for
// data-parallel training with all_reduce only.
constexpr int64_t kManySmallAllReducesPerStep = 20;
constexpr TimeNs kSmallAllReduceNs = 50 * kNsPerUs;
// Hundreds of all_reduce calls per step are one per parameter, whatever
// their size: DDP's buckets make a handful (model size / bucket_cap_mb).
constexpr int64_t kUnbucketedAllReducesPerStep = 100;

std::string Fix(const DeviceComm& d, bool tail_fires, const JobProfile& job, int64_t steps) {
  const int all_reduce = static_cast<int>(CollectiveKind::kAllReduce);
  const int64_t all_reduce_count = job.collective_count[all_reduce];
  const bool many_small_all_reduce =
      steps > 0 && all_reduce_count / steps >= kManySmallAllReducesPerStep &&
      job.collective_ns[all_reduce] / std::max<int64_t>(1, all_reduce_count) < kSmallAllReduceNs;
  if (job.framework == JobFramework::kTensorFlow) {
    return "Let the distribution strategy pack and overlap gradients: "
           "tf.distribute.MirroredStrategy(cross_device_ops=tf.distribute.NcclAllReduce("
           "num_packs=N)) or MultiWorkerMirroredStrategy with "
           "CommunicationOptions(bytes_per_pack=...), and compile the step with XLA "
           "(jit_compile=True) so collectives overlap compute.";
  }
  if (job.framework == JobFramework::kJax) {
    return "Keep the whole step in one jit over sharded arrays so XLA schedules collectives "
           "beside compute (XLA_FLAGS=--xla_gpu_enable_latency_hiding_scheduler=true), and "
           "combine small collectives (--xla_gpu_all_reduce_combine_threshold_bytes).";
  }
  if (!job.is_pytorch()) {
    // A framework the trace does not name: what to do, in no one's API.
    return "Overlap communication with compute: start each collective as soon as its inputs "
           "are ready (reduce gradients in buckets during the backward pass, not all after "
           "it), combine many small collectives into fewer large ones, and keep synchronizing "
           "calls off the communication path.";
  }
  if (job.is_inference()) {
    return "Inference collectives (tensor/expert parallelism) sit on the critical path of "
           "every request: use the serving engine's custom or symmetric-memory all-reduce for "
           "small messages (one-shot/two-shot, NVLink multimem), overlap communication with "
           "the next layer's compute, or lower the tensor-parallel degree when communication "
           "outweighs compute.";
  }
  switch (job.dominant_collective) {
    case CollectiveKind::kAllToAll:
      return "The all_to_all of sparse embeddings waits on the step: pipeline the embedding "
             "lookups so the next batch's all_to_all overlaps the dense forward/backward "
             "(TorchRec TrainPipelineSparseDist), communicate embeddings in fp16/bf16 "
             "(quantized comms), and balance the sharding plan so no rank holds up the "
             "exchange.";
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
      return "FSDP's all_gather/reduce_scatter are exposed: prefetch parameters "
             "(FSDP(forward_prefetch=True, backward_prefetch=BackwardPrefetch.BACKWARD_PRE), "
             "or FSDP2 fully_shard with explicit prefetching), wrap larger units so each "
             "collective carries more, keep reduce_scatter in bf16 (MixedPrecision("
             "reduce_dtype=torch.bfloat16)), and keep the last blocks unsharded after forward "
             "(reshard_after_forward=False).";
    default:
      break;
  }
  const bool unbucketed = steps > 0 && all_reduce_count / steps >= kUnbucketedAllReducesPerStep;
  if (unbucketed) {
    return fmt::format(
        "About {} all_reduce calls per step: one per parameter, not bucketed, each paying a "
        "launch and a latency and none overlapping backward as a bucket would. Bucket them: "
        "wrap the model in DistributedDataParallel (it buckets gradients into bucket_cap_mb "
        "buffers and overlaps them with backward) or shard it with FSDP/FSDP2 "
        "(fully_shard), instead of all-reducing each parameter's gradient yourself; where a "
        "manual loop must stay, coalesce the gradients into one flat buffer "
        "(torch.distributed all_reduce_coalesced, or torch._utils._flatten_dense_tensors).",
        all_reduce_count / steps);
  }
  if (many_small_all_reduce) {
    return fmt::format(
        "About {} small all_reduce calls per step (mean {}) each pay a launch and a "
        "latency: bucket them (wrap the model in DistributedDataParallel, which buckets "
        "gradients into bucket_cap_mb buffers) or coalesce them "
        "(torch.distributed all_reduce_coalesced / flatten the tensors into one buffer).",
        all_reduce_count / steps,
        FormatDurationNs(job.collective_ns[all_reduce] / std::max<int64_t>(1, all_reduce_count)));
  }
  std::string fix;
  if (tail_fires && d.tail_manual_count > 0) {
    fix = "Let DistributedDataParallel overlap the gradient all-reduce with backward instead of "
          "calling all_reduce after backward() (or register a DDP communication hook); ";
  } else if (tail_fires) {
    fix = "Make gradient buckets ready earlier so they overlap backward: ";
  } else {
    fix = "Overlap communication with compute: ";
  }
  fix +=
      "tune bucket_cap_mb (default 25) so buckets fill during backward, set "
      "gradient_as_bucket_view=True and static_graph=True when the graph does not change, keep "
      "synchronizing calls out of communication hooks, and consider a bf16/fp16 compression "
      "hook to halve the bytes on the wire.";
  return fix;
}
}  // namespace

std::vector<RuleOptionSpec> CommClusteredAllreduceRule::options() const {
  return {
      {std::string(kMinTailShare), 0.5, "share",
       "Fire when this share of a step's collective time starts after the last backward "
       "compute kernel.",
       0, 1},
      {std::string(kMinExposedShare), 0.05, "share",
       "Fire when communication not overlapped by compute kernels reaches this share of the "
       "step.",
       0, 1},
      {std::string(kBucketCapMb), 25, "MiB",
       "DDP bucket size assumed for the last bucket, which cannot overlap backward.", 0.001,
       1e6},
      {std::string(kMinLateRankShare), 0.05, "share",
       "With all ranks loaded, fire late_rank when the ranks' waiting in collectives differs by "
       "this share of the step (most minus least waiting).",
       0, 1},
  };
}

RuleOutcome CommClusteredAllreduceRule::Check(AnalysisContext& ctx,
                                              const RuleOptions& options) const {
  RuleOutcome outcome;
  if (!rules_internal::HasDeviceActivityAndSteps(ctx, outcome)) return outcome;
  const std::vector<DeviceActivity>& devices = ctx.device_activity();
  const StepSet& steps = ctx.steps();
  bool any_collective = false;
  for (const DeviceActivity& da : devices) any_collective |= !da.collective_kernels.empty();
  if (!any_collective) return outcome;  // nothing communicates: judged, no problem

  const Timeline& tl = ctx.timeline();
  const std::set<TrackId> autograd_threads = AutogradThreads(tl);
  const double bucket_bytes = options.Get(kBucketCapMb) * 1048576.0;
  std::vector<DeviceComm> measured;
  for (const DeviceActivity& da : devices) {
    measured.push_back(MeasureDevice(ctx, da, autograd_threads, bucket_bytes));
  }
  const DeviceComm* d = &measured.front();
  for (const DeviceComm& m : measured) {
    if (m.saving_ns() > d->saving_ns()) d = &m;
  }

  const TimeNs step_total_ns = steps.TotalNs();
  const int64_t n = static_cast<int64_t>(steps.steps.size());
  const double min_tail = options.Get(kMinTailShare);
  const double min_exposed = options.Get(kMinExposedShare);
  const double exposed_share = SafeShare(d->exposed_ns, step_total_ns);
  const bool tail_fires = d->tail_ns > 0 && d->tail_share() >= min_tail;
  const bool exposed_fires = d->exposed_ns > 0 && exposed_share >= min_exposed;

  bool host_backward = false;
  for (SliceId s = 0; s < tl.slice_count() && !host_backward; ++s) {
    host_backward = tl.HasFlag(s, kFlagBackward);
  }
  std::string tail_caveat;
  if (d->steps_with_backward == 0) {
    tail_caveat = host_backward
                      ? "Backward ops are present but none of their kernels is linked to its "
                        "launch (missing correlation or graph replay), so collectives after "
                        "backward could not be judged. "
                      : "No backward pass in this trace, so only exposed communication was "
                        "judged. ";
  }
  if ((!tail_fires && !exposed_fires) || d->saving_ns() <= 0) {
    if (d->steps_with_backward == 0 && host_backward && !exposed_fires) {
      outcome.applicable = false;
      outcome.not_judged_reason = tail_caveat;
    }
    return outcome;
  }

  // A rank's idle findings are per device on average (idle_findings.cc), so
  // the saving is too: the worst device's exposed collectives beside another
  // device's idle time could otherwise claim more than the step between them.
  // The rule still fires on the worst device, which the message names.
  const int64_t device_count = static_cast<int64_t>(measured.size());
  TimeNs saving_ns = 0;
  for (const DeviceComm& m : measured) saving_ns += std::max<TimeNs>(0, m.saving_ns());
  Finding f;
  f.cause = tail_fires ? "clustered_after_backward" : "exposed_communication";
  f.recoverable_ns_per_step = saving_ns / n / device_count;
  f.recoverable_share = SafeShare(saving_ns, step_total_ns * device_count);
  f.confidence = d->hideable_tail_ns > 0 ? Confidence::kModelled : Confidence::kMeasured;
  f.title = tail_fires
                ? fmt::format("{} of collective time runs after backward; {} per step recoverable",
                              Percent(d->tail_share()), FormatDurationNs(f.recoverable_ns_per_step))
                : Percent(exposed_share) == Percent(f.recoverable_share)
                    ? fmt::format("Exposed communication takes {} of the step",
                                  Percent(exposed_share))
                    // One finding, one number: when the exposed share (the
                    // worst device's) and the recoverable share differ, the
                    // title names both as what they are.
                    : fmt::format("Exposed communication takes {} of the step on device {}; up to "
                                  "{} of the step is recoverable",
                                  Percent(exposed_share), d->device,
                                  Percent(f.recoverable_share));
  if (tail_fires) {
    f.message = fmt::format(
        "On device {}, {} collectives per step ({} of the collective time) start after the "
        "last backward compute kernel, when nothing is left to overlap them{}. Bucketing would "
        "hide all but the last bucket: {} per step of the tail could overlap backward, {} "
        "cannot. ",
        d->device, rules_internal::CountPerStep(SafeShare(d->tail_count, d->steps_with_backward)),
        Percent(d->tail_share()),
        d->tail_manual_count > 0
            ? fmt::format("; {} per step were launched outside backward (a manual "
                          "all_reduce after backward()?)",
                          rules_internal::CountPerStep(
                              SafeShare(d->tail_manual_count, d->steps_with_backward)))
            : std::string(),
        FormatDurationNs(d->hideable_tail_ns / n), FormatDurationNs(d->unhideable_tail_ns / n));
  } else {
    f.message = fmt::format("On device {}, collective kernels run with no compute beside them "
                            "{} of the step. ",
                            d->device, Percent(exposed_share));
  }
  f.message += fmt::format(
      "Exposed communication is {} of the step; the {} also waits on collectives {} of the "
      "step. ",
      Percent(exposed_share), AcceleratorName(ctx.timeline().metadata()),
      Percent(SafeShare(d->wait_ns, step_total_ns)));
  f.message += tail_caveat;
  if (Percent(exposed_share) != Percent(f.recoverable_share)) {
    f.message += fmt::format(
        "Recoverable: {} of the step ({} per step): the tail bucketing can hide, the exposed "
        "time outside the tail and the waits on collectives{}. ",
        Percent(f.recoverable_share), FormatDurationNs(f.recoverable_ns_per_step),
        d->exposed_beyond_compute_ns > 0 ? ", not the uncovered part named below" : "");
  }
  if (device_count > 1) {
    f.message += fmt::format(
        "The saving is averaged over the rank's {} devices, as the idle findings are. ",
        device_count);
  }
  f.message += rules_internal::StepCaveat(steps);
  while (!f.message.empty() && f.message.back() == ' ') f.message.pop_back();

  f.evidence.push_back({fmt::format("Collective time starting after backward {} (threshold {})",
                                    Percent(d->tail_share()), Percent(min_tail)),
                        d->tail_share(), min_tail, "share"});
  f.evidence.push_back({fmt::format("Exposed communication {} of step (threshold {})",
                                    Percent(exposed_share), Percent(min_exposed)),
                        exposed_share, min_exposed, "share"});
  f.evidence.push_back({fmt::format("Device-side wait on collectives {} per step",
                                    FormatDurationNs(d->wait_ns / n)),
                        static_cast<double>(d->wait_ns / n), 0, "ns"});
  f.evidence.push_back({fmt::format("Collective time {} per step", FormatDurationNs(
                                                                       d->collective_ns / n)),
                        static_cast<double>(d->collective_ns / n), 0, "ns"});
  f.evidence.push_back({fmt::format("{:.1f} collectives per step{}",
                                    SafeShare(d->collective_count, n),
                                    d->known_bytes > 0
                                        ? fmt::format(", {:.1f} MiB per step",
                                                      d->known_bytes / 1048576.0 / n)
                                        : std::string()),
                        SafeShare(d->collective_count, n), 0, "count"});
  if (d->known_bytes > 0 && d->known_bytes_ns > 0) {
    // Algorithmic bandwidth (NCCL's algbw): message bytes over kernel time.
    const double algbw_gbs =
        static_cast<double>(d->known_bytes) / static_cast<double>(d->known_bytes_ns);
    f.evidence.push_back({fmt::format("Algorithmic bandwidth {:.1f} GB/s (message bytes over "
                                      "collective kernel time)",
                                      algbw_gbs),
                          algbw_gbs, 0, "GB/s"});
  }
  if (d->exposed_beyond_compute_ns > 0) {
    f.message += fmt::format(
        " {} per step of exposed communication has no compute beside it to hide behind and is "
        "not counted as recoverable.",
        FormatDurationNs(d->exposed_beyond_compute_ns / n));
  }
  f.fix = Fix(*d, tail_fires, ctx.job_profile(), n);

  f.location.first_step = steps.steps.front().number;
  f.location.last_step = steps.steps.back().number;
  if (d->worst != kNoIndex) {
    f.location.track = rules_internal::StreamName(tl, d->worst);
    f.location.start_ns = tl.slices().ts_ns[d->worst];
    f.location.end_ns = tl.slices().end_ns(d->worst);
    const SliceId launch = tl.slices().launch[d->worst];
    if (launch != kNoIndex) f.location.python_stack = rules_internal::PythonStack(tl, launch, 8);
  }
  std::vector<TopItem> items;
  for (const auto& [key, item] : d->items) items.push_back(item);
  std::sort(items.begin(), items.end(), [](const TopItem& a, const TopItem& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    if (a.name != b.name) return a.name < b.name;
    return a.detail < b.detail;
  });
  if (items.size() > kMaxTopItems) items.resize(kMaxTopItems);
  f.location.top_items = std::move(items);
  outcome.findings.push_back(std::move(f));
  return outcome;
}

std::vector<Evidence> CommClusteredAllreduceRule::CrossRankEvidence(
    const std::vector<const RankCrossData*>& ranks, const std::vector<int>& rank_names,
    size_t located) const {
  std::vector<RankCollectives> collected;
  for (const RankCrossData* r : ranks) collected.push_back(r->collectives);
  const CollectiveSplit split = MatchCollectives(collected, rank_names);
  const std::string skipped =
      split.mismatch.empty() ? std::string()
                             : fmt::format("collective counts differ across ranks in {} "
                                           "step(s) (first: {})",
                                           split.steps_mismatched, split.mismatch);
  if (split.steps_matched == 0) {
    return {{fmt::format("Collectives not split into waiting and transfer: {}",
                         skipped.empty() ? std::string("no step with collectives is on every rank")
                                         : skipped),
             static_cast<double>(split.steps_mismatched), 0, "count"}};
  }
  const int64_t n = split.steps_matched;
  const int last = split.MostOftenLast();
  std::string text = fmt::format(
      "Collectives per step on rank {}: {}, of which waiting for a late rank {} and transfer {}",
      rank_names[located], FormatDurationNs(split.collective_ns[located] / n),
      FormatDurationNs(split.waiting_ns[located] / n), FormatDurationNs(split.transfer_ns / n));
  text += last >= 0 ? fmt::format(" (rank {} arrives last most often)", rank_names[last])
                    : std::string(" (no rank arrives late)");
  if (!skipped.empty()) text += fmt::format("; {}, not matched", skipped);
  return {{std::move(text), static_cast<double>(split.waiting_ns[located] / n), 0, "ns"}};
}

std::vector<Finding> CommClusteredAllreduceRule::CrossRankFindings(
    const std::vector<const RankCrossData*>& ranks, const std::vector<int>& rank_names,
    const RuleOptions& options, std::vector<Finding> merged) const {
  return SplitOutLateRank(ranks, rank_names, options.Get(kMinLateRankShare), std::move(merged));
}

}  // namespace tracelint
