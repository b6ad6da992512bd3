#include "analyzer/analysis/idle_attribution.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/device_activity.h"
#include "analyzer/analysis/interval_set.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/model/accelerator.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

// Host-side facts the attribution needs, computed once per timeline.
class HostIndex {
 public:
  explicit HostIndex(const Timeline& tl) : tl_(tl) {
    const SliceColumns& c = tl.slices();
    launches_below_.assign(c.size(), false);
    activity_of_launch_.assign(c.size(), kNoIndex);
    for (SliceId s = 0; s < c.size(); ++s) {
      if (!IsDeviceActivity(c.kind[s]) || c.launch[s] == kNoIndex) continue;
      SliceId launch = c.launch[s];
      if (activity_of_launch_[launch] == kNoIndex) activity_of_launch_[launch] = s;
      has_dispatch_ops_ = has_dispatch_ops_ || tl.HasFlag(launch, kFlagDeviceOpDispatch);
      // An op "launches" when any call below it put work on the device.
      for (SliceId p = launch; p != kNoIndex && !launches_below_[p]; p = c.parent[p]) {
        launches_below_[p] = true;
      }
    }
    absl::flat_hash_map<TrackId, std::vector<Interval>> spans;  // by ThreadOf
    for (SliceId s = 0; s < c.size(); ++s) {
      if (tl.HasFlag(s, kFlagProfilerCode) && c.dur_ns[s] > 0) {
        spans[ThreadOf(c.track[s])].push_back({c.ts_ns[s], c.end_ns(s)});
      }
    }
    for (auto& [track, intervals] : spans) {
      profiler_code_.emplace(track, IntervalSet::FromUnsorted(std::move(intervals)));
    }
  }

  // Innermost slice of `track` covering instant t, or kNoIndex.
  SliceId InnermostAt(TrackId track, TimeNs t) const {
    const SliceColumns& c = tl_.slices();
    auto [first, last] = tl_.track_range(track);
    const TimeNs* begin = c.ts_ns.data() + first;
    const TimeNs* end = c.ts_ns.data() + last;
    // Same-start slices sort outermost first, so upper_bound - 1 is the
    // innermost of them; an earlier slice that already ended leads up its
    // parent chain to the innermost one that covers t (proper nesting).
    const TimeNs* it = std::upper_bound(begin, end, t);
    if (it == begin) return kNoIndex;
    SliceId s = first + static_cast<SliceId>(it - begin) - 1;
    while (s != kNoIndex && c.end_ns(s) <= t) s = c.parent[s];
    return s;
  }

  // Boundaries of host slices of `track` strictly inside (a, b), sorted.
  // Into *out (cleared first), reused across gaps.
  void CutsInside(TrackId track, TimeNs a, TimeNs b, std::vector<TimeNs>* out) const {
    std::vector<TimeNs>& cuts = *out;
    const SliceColumns& c = tl_.slices();
    cuts.clear();
    for (SliceId s = InnermostAt(track, a); s != kNoIndex; s = c.parent[s]) {
      if (c.end_ns(s) < b) cuts.push_back(c.end_ns(s));
    }
    auto [first, last] = tl_.track_range(track);
    const TimeNs* begin = c.ts_ns.data() + first;
    const TimeNs* end = c.ts_ns.data() + last;
    for (const TimeNs* it = std::upper_bound(begin, end, a); it != end && *it < b; ++it) {
      SliceId s = first + static_cast<SliceId>(it - begin);
      cuts.push_back(c.ts_ns[s]);
      if (c.end_ns(s) < b) cuts.push_back(c.end_ns(s));
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    std::erase_if(cuts, [&](TimeNs t) { return t <= a || t >= b; });
  }

  // Whether t lies inside the profiler's own code on `track`: torch.profiler's
  // step, record_function's enter and exit, in Python or as the profiler::
  // ops they call. By time, not by parent: `__exit__` outlives the
  // annotation it closes.
  bool InProfilerCode(TrackId track, TimeNs t) const {
    auto it = profiler_code_.find(ThreadOf(track));
    return it != profiler_code_.end() && it->second.OverlapNs(t, t + 1) > 0;
  }

  bool launches_below(SliceId s) const { return launches_below_[s]; }
  // Ops launch device work themselves (TF1 timelines): the executor runs
  // them on a pool of threads, as in XSpace.
  bool has_dispatch_ops() const { return has_dispatch_ops_; }
  SliceId activity_of_launch(SliceId s) const { return activity_of_launch_[s]; }

 private:
  const Timeline& tl_;
  std::vector<bool> launches_below_;
  std::vector<SliceId> activity_of_launch_;
  bool has_dispatch_ops_ = false;
  absl::flat_hash_map<TrackId, IntervalSet> profiler_code_;  // by ThreadOf

  // The thread's own track: `__exit__` frames that outlive the range they
  // close sit on the nesting repair's overflow tracks.
  TrackId ThreadOf(TrackId track) const {
    while (tl_.tracks()[track].overflow_of != kNoIndex) track = tl_.tracks()[track].overflow_of;
    return track;
  }
};

bool IsHostOp(EventKind k) { return k == EventKind::kCpuOp || k == EventKind::kUserAnnotation; }

// XLA's runtime dispatching a compiled executable (PJRT, TFRT, the GPU
// executable's thunks, TPU program enqueues), recorded as TraceMe frames on
// the Python and executor threads. It launches nothing the trace links, but
// it is the dispatch of the jitted call, not a host-side computation to move
// into the step: other host work (dispatch), never a host-side op.
bool IsXlaRuntimeDispatch(std::string_view name) {
  for (std::string_view prefix :
       {"PjRt", "PJRT_", "TfrtTpu", "TfrtGpu", "TfrtCpu", "BufferSequencingEvent::",
        "GpuExecutable::", "Thunks::", "ThenExecuteCallback", "ExecuteReplicated",
        "DoEnqueueProgram", "EnqueueContinuationProgram", "tpu::System::", "LocalExecutable::"}) {
    if (name.starts_with(prefix)) return true;
  }
  return false;
}

// The memcpy a blocking copy call waits for, when it is pageable.
const DeviceDetails* PageableCopyOf(const Timeline& tl, const HostIndex& index, SliceId call) {
  SliceId activity = index.activity_of_launch(call);
  if (activity == kNoIndex || tl.slices().kind[activity] != EventKind::kMemcpy) return nullptr;
  const DeviceDetails* d = tl.details(activity);
  if (d == nullptr) return nullptr;
  return d->src == MemorySpace::kPageable || d->dst == MemorySpace::kPageable ? d : nullptr;
}

// A call that blocks the host until the device catches up.
bool IsBlockingCall(const Timeline& tl, const HostIndex& index, SliceId s) {
  if (tl.HasFlag(s, kFlagSyncCall) || tl.HasFlag(s, kFlagImplicitSync)) return true;
  const DeviceDetails* d = PageableCopyOf(tl, index, s);
  return d != nullptr && d->direction == CopyDirection::kDtoH;
}

// Step 3 of docs/design/domain.md's attribution, for one piece whose host situation is
// the slice stack ending at `innermost` (kNoIndex: nothing on the thread).
IdleCause HostCause(const Timeline& tl, const HostIndex& index, SliceId innermost,
                    TimeNs gap_ns, SliceId drained_by, const IdleAttributionOptions& options,
                    SliceId* host_op, SliceId* cause_slice) {
  const SliceColumns& c = tl.slices();
  SliceId data_loader = kNoIndex, sync = kNoIndex, pageable = kNoIndex;
  SliceId allocator = kNoIndex, submission = kNoIndex;
  bool in_launch_work = false;
  bool any_work = false;
  SliceId op = kNoIndex;
  for (SliceId s = innermost; s != kNoIndex; s = c.parent[s]) {
    if (tl.HasFlag(s, kFlagStepMarker)) continue;  // the marker itself is not work
    any_work = true;
    // Walking outwards, the last assignment keeps the outermost slice
    // (aten::item rather than the cudaStreamSynchronize inside it).
    if (tl.HasFlag(s, kFlagDataLoader)) data_loader = s;
    if (tl.HasFlag(s, kFlagSyncCall) || tl.HasFlag(s, kFlagImplicitSync)) sync = s;
    EventKind k = c.kind[s];
    if (k == EventKind::kRuntime || k == EventKind::kDriver) {
      if (const DeviceDetails* d = PageableCopyOf(tl, index, s)) {
        // A pageable D2H blocks like a sync; a pageable H2D is its own cause.
        if (d->direction == CopyDirection::kDtoH) {
          sync = s;
        } else {
          pageable = s;
        }
      }
      if (tl.HasFlag(s, kFlagLaunch)) in_launch_work = true;
      if (tl.HasFlag(s, kFlagAllocator)) allocator = s;
      if (tl.HasFlag(s, kFlagJobSubmission)) submission = s;
    }
    if (IsHostOp(k) && op == kNoIndex) op = s;
  }
  *host_op = op;
  *cause_slice = kNoIndex;
  auto decided = [cause_slice](SliceId s, IdleCause cause) {
    *cause_slice = s;
    return cause;
  };
  if (data_loader != kNoIndex) return decided(data_loader, IdleCause::kDataLoader);
  if (sync != kNoIndex) return decided(sync, IdleCause::kSyncCall);
  if (pageable != kNoIndex) return decided(pageable, IdleCause::kPageableCopy);
  // Inside an allocator call: freeing synchronizes the device, and growing
  // the pool maps memory, whatever op asked for it.
  if (allocator != kNoIndex) return decided(allocator, IdleCause::kAllocator);
  if (submission != kNoIndex) return decided(submission, IdleCause::kJobSubmission);
  // Inside a launch call that took far longer than a launch costs: the
  // runtime stalled (module loading, allocator, driver), whatever the host
  // did before it. Blocking calls were decided above.
  if (innermost != kNoIndex && tl.HasFlag(innermost, kFlagLaunch) &&
      c.dur_ns[innermost] >= kLaunchStallNs) {
    return decided(innermost, IdleCause::kLaunchStall);
  }
  // The host was blocked in a sync when the GPU ran dry, so whatever it does
  // next is exposed: the sync, not that work, emptied the queue.
  if (drained_by != kNoIndex) return decided(drained_by, IdleCause::kSyncCall);
  // Self time of an op that launches nothing: the innermost slice is the op.
  // An op placed on the device that launched nothing (a TF1 shape or
  // identity op) computed nothing on the host either: dispatch work.
  if (innermost != kNoIndex && innermost == op && !index.launches_below(op) &&
      c.dur_ns[op] >= options.host_op_min_ns && !tl.HasFlag(op, kFlagDeviceOpDispatch) &&
      !IsXlaRuntimeDispatch(tl.str(c.name[op]))) {
    return decided(op, IdleCause::kHostSideOp);
  }
  // Short gaps while the host is issuing work: the launch path itself, or
  // the dispatch of an op that launches (launch-bound steps).
  if (gap_ns < options.launch_gap_ns &&
      (in_launch_work || (op != kNoIndex && index.launches_below(op)))) {
    return IdleCause::kLaunchOverhead;
  }
  if (any_work) return IdleCause::kOtherHostWork;
  return IdleCause::kHostSilent;
}

// XSpace and TF1 timelines: TF runs ops on a pool of executor threads, and JAX
// dispatches from the Python thread through executor threads, so the op the
// device waits for (a PyFunc, a decode, a PjitFunction) is usually not on
// the thread that launches the next kernel. This covers the host timeline with disjoint
// segments, each owned by an op (cpu_op) that launches nothing; a later op
// that outlasts the current owner takes over. Kineto keeps ops and their
// launches on one thread, where the launching thread alone decides.
class OtherThreadOps {
 public:
  struct Segment {
    TimeNs start_ns;
    TimeNs end_ns;
    SliceId op;
  };

  OtherThreadOps(const Timeline& tl, const HostIndex& index) {
    const SliceColumns& c = tl.slices();
    std::vector<SliceId> ops;
    for (SliceId s = 0; s < c.size(); ++s) {
      if (c.kind[s] == EventKind::kCpuOp && !index.launches_below(s) && c.dur_ns[s] > 0 &&
          tl.tracks()[c.track[s]].kind == TrackKind::kHostThread &&
          !tl.HasFlag(s, kFlagDeviceOpDispatch) && !IsXlaRuntimeDispatch(tl.str(c.name[s]))) {
        ops.push_back(s);
      }
    }
    std::sort(ops.begin(), ops.end(), [&](SliceId x, SliceId y) {
      return std::tie(c.ts_ns[x], x) < std::tie(c.ts_ns[y], y);
    });
    Cover(c, ops, segments_);
    // JAX and XLA record their dispatch as TraceMe annotations on the Python
    // thread and the executor threads (PjitFunction, ...Execute), not on the
    // stream threads that launch: host work all the same, not silence.
    std::vector<SliceId> work;
    for (SliceId s = 0; s < c.size(); ++s) {
      const EventKind k = c.kind[s];
      if ((k == EventKind::kCpuOp || k == EventKind::kUserAnnotation ||
           k == EventKind::kPythonFunction) &&
          c.dur_ns[s] > 0 && !tl.HasFlag(s, kFlagStepMarker) &&
          tl.tracks()[c.track[s]].kind == TrackKind::kHostThread) {
        work.push_back(s);
      }
    }
    std::sort(work.begin(), work.end(), [&](SliceId x, SliceId y) {
      return std::tie(c.ts_ns[x], x) < std::tie(c.ts_ns[y], y);
    });
    Cover(c, work, work_);
  }

  // Segments overlapping [a, b), in time order: ops that launch nothing,
  // or (work) any recorded host work.
  std::vector<Segment> Overlapping(TimeNs a, TimeNs b) const { return Find(segments_, a, b); }
  std::vector<Segment> WorkOverlapping(TimeNs a, TimeNs b) const { return Find(work_, a, b); }

 private:
  // Disjoint segments over `sorted` slices (by start): a later slice that
  // outlasts the current owner takes over.
  static void Cover(const SliceColumns& c, const std::vector<SliceId>& sorted,
                    std::vector<Segment>& out) {
    for (SliceId s : sorted) {
      TimeNs start_ns = c.ts_ns[s];
      TimeNs end_ns = c.end_ns(s);
      if (!out.empty() && start_ns < out.back().end_ns) {
        if (end_ns <= out.back().end_ns) continue;  // nested or shorter: owner stays
        out.back().end_ns = start_ns;
        if (out.back().end_ns <= out.back().start_ns) out.pop_back();
      }
      out.push_back({start_ns, end_ns, s});
    }
  }

  static std::vector<Segment> Find(const std::vector<Segment>& segments, TimeNs a, TimeNs b) {
    std::vector<Segment> out;
    auto it = std::upper_bound(segments.begin(), segments.end(), a,
                               [](TimeNs t, const Segment& g) { return t < g.end_ns; });
    for (; it != segments.end() && it->start_ns < b; ++it) out.push_back(*it);
    return out;
  }

  std::vector<Segment> segments_;  // disjoint, sorted
  std::vector<Segment> work_;      // disjoint, sorted
};

struct DeviceSlices {
  std::vector<std::pair<TimeNs, SliceId>> by_start;  // activities sorted by (ts, id)
  std::vector<std::pair<TimeNs, SliceId>> by_end;    // activities sorted by (end, id)
};

// A device-side wait is on a collective when the work that ends it is one,
// or the work that ended the device's previous busy period was one.
IdleCause DeviceWaitCause(const Timeline& tl, const DeviceSlices& ds, SliceId next,
                          TimeNs gap_start_ns) {
  bool collective = tl.HasFlag(next, kFlagCollective);
  auto prev_it = std::lower_bound(ds.by_end.begin(), ds.by_end.end(),
                                  std::make_pair(gap_start_ns, SliceId{0}));
  for (auto it = prev_it; it != ds.by_end.end() && it->first == gap_start_ns; ++it) {
    if (tl.HasFlag(it->second, kFlagCollective)) collective = true;
  }
  return collective ? IdleCause::kDeviceWaitCollective : IdleCause::kDeviceWaitOther;
}

}  // namespace

std::string_view IdleCauseName(IdleCause cause) {
  switch (cause) {
    case IdleCause::kDataLoader: return "data_loader";
    case IdleCause::kSyncCall: return "sync_call";
    case IdleCause::kPageableCopy: return "pageable_copy";
    case IdleCause::kHostSideOp: return "host_side_op";
    case IdleCause::kLaunchOverhead: return "launch_overhead";
    case IdleCause::kLaunchStall: return "launch_stall";
    case IdleCause::kAllocator: return "allocator";
    case IdleCause::kJobSubmission: return "job_submission";
    case IdleCause::kOtherHostWork: return "other_host_work";
    case IdleCause::kHostSilent: return "host_silent";
    case IdleCause::kDeviceWaitCollective: return "device_wait_collective";
    case IdleCause::kDeviceWaitOther: return "device_wait_other";
    case IdleCause::kProfilerOverhead: return "profiler_overhead";
    case IdleCause::kUnattributed: return "unattributed";
  }
  return "unattributed";
}

IdleAttribution ComputeIdleAttribution(AnalysisContext& ctx) {
  return ComputeIdleAttribution(ctx, IdleAttributionOptions{});
}

IdleAttribution ComputeIdleAttribution(AnalysisContext& ctx,
                                       const IdleAttributionOptions& options) {
  return ComputeIdleAttribution(ctx, options, ctx.steps());
}

IdleAttribution ComputeIdleAttribution(AnalysisContext& ctx, const IdleAttributionOptions& options,
                                       const StepSet& steps) {
  const Timeline& tl = ctx.timeline();
  const SliceColumns& c = tl.slices();
  IdleAttribution out;
  out.per_step_ns.assign(steps.steps.size(), {});
  if (steps.steps.empty()) return out;
  HostIndex index(tl);
  const bool inference = ctx.job_profile().is_inference();
  std::optional<OtherThreadOps> other_thread_ops;
  if (tl.metadata().format == "xspace" || index.has_dispatch_ops()) {
    other_thread_ops.emplace(tl, index);
  }

  std::vector<DeviceSlices> by_device;
  std::vector<int> device_ids;
  for (const DeviceActivity& d : ctx.device_activity()) device_ids.push_back(d.device);
  by_device.resize(device_ids.size());
  for (SliceId s = 0; s < c.size(); ++s) {
    if (!IsDeviceActivity(c.kind[s])) continue;
    int device = tl.tracks()[c.track[s]].device;
    auto it = std::find(device_ids.begin(), device_ids.end(), device);
    if (it == device_ids.end()) continue;
    DeviceSlices& ds = by_device[it - device_ids.begin()];
    ds.by_start.emplace_back(c.ts_ns[s], s);
    ds.by_end.emplace_back(c.end_ns(s), s);
  }
  // At least one piece per gap, and a device has about as many gaps as
  // activities: reserving that spares most of the vector's regrowth (each
  // a fresh, page-faulted copy of millions of pieces on long traces).
  size_t activities = 0;
  for (const DeviceSlices& ds : by_device) activities += ds.by_start.size();
  out.pieces.reserve(activities + steps.steps.size() * by_device.size());
  for (DeviceSlices& ds : by_device) {
    std::sort(ds.by_start.begin(), ds.by_start.end());
    std::sort(ds.by_end.begin(), ds.by_end.end());
  }

  int gap_counter = 0;
  std::vector<TimeNs> cuts;  // one gap's, reused
  for (size_t di = 0; di < device_ids.size(); ++di) {
    const DeviceActivity& activity = ctx.device_activity()[di];
    const DeviceSlices& ds = by_device[di];
    for (size_t si = 0; si < steps.steps.size(); ++si) {
      const Step& step = steps.steps[si];
      IntervalSet idle = activity.all.ComplementWithin(step.start_ns, step.end_ns);
      // One-time work cut out of the step is no cause's (docs/steady-state.md).
      if (!step.cut.empty()) idle = idle.Subtract(IntervalSet::FromUnsorted(step.cut));
      for (const Interval& gap : idle.intervals()) {
        int gap_id = gap_counter++;
        auto emit = [&](TimeNs a, TimeNs b, IdleCause cause, SliceId host, SliceId next,
                        SliceId thread_slice, SliceId cause_slice = kNoIndex) {
          if (b <= a) return;
          out.per_step_ns[si][static_cast<int>(cause)] += b - a;
          out.total_ns[static_cast<int>(cause)] += b - a;
          out.total_idle_ns += b - a;
          // A cut at a host boundary that changes nothing the piece says (a
          // runtime call inside the same op) extends the last piece: one-line
          // inference traces would otherwise get 5 pieces where 1 says it all.
          if (!out.pieces.empty()) {
            IdlePiece& last = out.pieces.back();
            if (last.end_ns == a && last.gap == gap_id && last.device == activity.device &&
                last.cause == cause && last.host_slice == host && last.next_activity == next &&
                last.host_thread_slice == thread_slice && last.cause_slice == cause_slice) {
              last.end_ns = b;
              return;
            }
          }
          out.pieces.push_back({activity.device, static_cast<int>(si), a, b, cause, host, next,
                                gap_id, thread_slice, cause_slice});
        };
        // The activity that ends the gap: the first one starting at its end.
        auto next_it = std::lower_bound(ds.by_start.begin(), ds.by_start.end(),
                                        std::make_pair(gap.end_ns, SliceId{0}));
        SliceId next = next_it == ds.by_start.end() ? kNoIndex : next_it->second;
        SliceId thread_slice = kNoIndex;
        if (next != kNoIndex) {
          SliceId launch = c.launch[next];
          // Step 4: without a linked launch nothing is guessed. A graph
          // replay's kernels share its launch call (cudaGraphLaunch). When
          // the call had not returned as the gap began, the host was late to
          // replay the graph, and steps 1-3 apply. Once it returned, the
          // replay's own order decides (its dependencies, waits on other
          // streams, work missing from the trace), which the trace does not
          // show: not guessed either.
          if (launch == kNoIndex ||
              (tl.HasFlag(launch, kFlagGraphLaunch) && c.end_ns(launch) <= gap.start_ns)) {
            emit(gap.start_ns, gap.end_ns, IdleCause::kUnattributed, kNoIndex, next, kNoIndex);
            continue;
          }
          // Step 2 (HTA): queued before the gap began, so the device waited.
          // "Queued" means the launch call had returned: a call still running
          // at the gap's start is host time (a launch stall when it is slow).
          if (c.end_ns(launch) <= gap.start_ns) {
            emit(gap.start_ns, gap.end_ns, DeviceWaitCause(tl, ds, next, gap.start_ns), kNoIndex,
                 next, launch);
            continue;
          }
          thread_slice = launch;
        } else if (step.marker != kNoIndex) {
          // Idle at the end of the step with no later device work: the
          // thread that runs the step is the one to examine.
          thread_slice = step.marker;
        } else {
          emit(gap.start_ns, gap.end_ns, IdleCause::kUnattributed, kNoIndex, kNoIndex, kNoIndex);
          out.unmarked_tail_ns += gap.end_ns - gap.start_ns;
          continue;
        }
        // Step 1 and 3: cut at host event boundaries on the launching thread.
        TrackId track = c.track[thread_slice];
        SliceId drained_by = kNoIndex;  // outermost blocking call at the gap's start
        for (SliceId h = index.InnermostAt(track, gap.start_ns - 1); h != kNoIndex;
             h = c.parent[h]) {
          if (IsBlockingCall(tl, index, h)) drained_by = h;
        }
        // The end of an inference step: the blocking read of its result
        // (`.cpu()`, `.item()`) drained nothing the host could have queued,
        // since the next request's work depends on what the host does now;
        // the idle belongs to that.
        if (inference && gap.end_ns >= step.end_ns) drained_by = kNoIndex;
        // Removing the sync lets the host run ahead by at most the GPU work
        // it waited for (from the call's start to the gap's start), so after
        // the call returns the sync owns at most that much of the gap; the
        // rest belongs to what the host does then.
        TimeNs drain_until_ns = gap.start_ns;
        index.CutsInside(track, gap.start_ns, gap.end_ns, &cuts);
        if (drained_by != kNoIndex) {
          TimeNs waited_ns = std::max<TimeNs>(0, gap.start_ns - c.ts_ns[drained_by]);
          drain_until_ns = std::max(gap.start_ns, c.end_ns(drained_by)) + waited_ns;
          if (drain_until_ns < gap.end_ns) {
            cuts.insert(std::upper_bound(cuts.begin(), cuts.end(), drain_until_ns), drain_until_ns);
          }
        }
        cuts.push_back(gap.end_ns);
        TimeNs a = gap.start_ns;
        for (TimeNs b : cuts) {
          if (b <= a) continue;
          SliceId innermost = index.InnermostAt(track, a);
          SliceId host_op = kNoIndex;
          SliceId cause_slice = kNoIndex;
          SliceId drained = a < drain_until_ns ? drained_by : kNoIndex;
          // Pieces are cut at every host slice boundary: one instant tells
          // whether the whole piece is in the profiler's code.
          IdleCause cause = drained == kNoIndex && index.InProfilerCode(track, a)
                                ? IdleCause::kProfilerOverhead
                                : HostCause(tl, index, innermost, gap.length_ns(), drained,
                                            options, &host_op, &cause_slice);
          if (host_op == kNoIndex && innermost != kNoIndex &&
              !tl.HasFlag(innermost, kFlagStepMarker)) {
            host_op = innermost;  // a runtime call or Python frame outside any op
          }
          if (cause == IdleCause::kHostSilent && other_thread_ops.has_value()) {
            // The launching thread is silent: an op another thread runs
            // meanwhile is what the device waits for.
            // What is left: other host work recorded on another thread
            // (framework dispatch), else silence.
            auto silent_or_work = [&](TimeNs from, TimeNs to) {
              TimeNs u = from;
              for (const OtherThreadOps::Segment& w : other_thread_ops->WorkOverlapping(from, to)) {
                TimeNs w_from = std::max(u, w.start_ns);
                TimeNs w_to = std::min(to, w.end_ns);
                emit(u, w_from, IdleCause::kHostSilent, kNoIndex, next, thread_slice);
                emit(w_from, w_to, IdleCause::kOtherHostWork, w.op, next, thread_slice);
                u = w_to;
              }
              emit(u, to, IdleCause::kHostSilent, kNoIndex, next, thread_slice);
            };
            TimeNs t = a;
            for (const OtherThreadOps::Segment& g : other_thread_ops->Overlapping(a, b)) {
              TimeNs from = std::max(t, g.start_ns);
              TimeNs to = std::min(b, g.end_ns);
              silent_or_work(t, from);
              // An input pipeline op (IteratorGetNext) is the input's.
              emit(from, to,
                   tl.HasFlag(g.op, kFlagDataLoader) ? IdleCause::kDataLoader
                                                     : IdleCause::kHostSideOp,
                   g.op, next, thread_slice, g.op);
              t = to;
            }
            silent_or_work(t, b);
            a = b;
            continue;
          }
          emit(a, b, cause, host_op, next, thread_slice, cause_slice);
          a = b;
        }
      }
    }
  }
  // Starts are distinct per device, so the order is total. Emitted in
  // order already when the devices are listed by number (the usual case).
  auto by_device_then_start = [](const IdlePiece& x, const IdlePiece& y) {
    return std::tie(x.device, x.start_ns) < std::tie(y.device, y.start_ns);
  };
  if (!std::is_sorted(out.pieces.begin(), out.pieces.end(), by_device_then_start)) {
    std::sort(out.pieces.begin(), out.pieces.end(), by_device_then_start);
  }
  idle_internal::ChargeInferredCauses(tl, out);
  return out;
}

std::string NoLaunchLinkWhy(const Timeline& tl) {
  const RunMetadata& md = tl.metadata();
  if (md.format == "xspace") {
    return "XLA executables whose device ops the trace does not link to a host launch";
  }
  if (md.format == "chrome-json") {
    // TF1 timelines and xprof's trace viewer JSON keep no correlation ids.
    return "a Chrome trace that does not link device work to host launches";
  }
  if (AcceleratorName(md) == "MTIA") {
    return "device jobs the trace does not link to a host launch: missing correlation ids";
  }
  bool amd = std::any_of(md.devices.begin(), md.devices.end(),
                         [](const DeviceInfo& d) { return d.vendor == "AMD"; });
  return amd ? "HIP graph replay or missing correlation ids"
             : "CUDA graph replay or missing correlation ids";
}

std::string UnattributedIdleWhere(const Timeline& tl, const IdleAttribution& idle) {
  const TimeNs unlinked_ns =
      idle.total_ns[static_cast<int>(IdleCause::kUnattributed)] - idle.unmarked_tail_ns;
  std::string before =
      fmt::format("before device work with no linked launch ({})", NoLaunchLinkWhy(tl));
  constexpr std::string_view kTail =
      "after the last device work of a window with no step markers (no thread is known to run "
      "the step)";
  if (idle.unmarked_tail_ns <= 0) return before;
  if (unlinked_ns <= 0) return std::string(kTail);
  return fmt::format("{} or {}", before, kTail);
}

}  // namespace tracelint
