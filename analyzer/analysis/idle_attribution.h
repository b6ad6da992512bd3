#ifndef TRACELINT_ANALYZER_ANALYSIS_IDLE_ATTRIBUTION_H_
#define TRACELINT_ANALYZER_ANALYSIS_IDLE_ATTRIBUTION_H_

#include <array>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/model/timeline.h"

namespace tracelint {

class AnalysisContext;

// docs/design/domain.md, "Time accounting": every idle instant of a device inside a
// step is charged to exactly one cause; each cause has one owning rule.
//
// Per idle interval of a device inside a step:
//  - the device activity that ends it has no linked launch, or was replayed
//    by a graph launch: unattributed (never guessed);
//  - its launch call ended before the interval began (HTA's test, with the
//    call's end: a call still running when the device went idle had not
//    queued the work yet): a device-side wait (on a collective when that
//    activity, or one that ended at the interval's start, is a collective
//    kernel);
//  - otherwise the interval is cut at the boundaries of the host slices on
//    the launching thread (the step marker's thread for idle at the end of
//    a step) and each piece gets the first cause present, by priority:
//    data loader > inside a synchronizing call (incl. aten::item and a
//    pageable D2H copy) > inside a pageable H2D copy call > the GPU ran dry
//    while the host was blocked in a synchronizing call (after it returns,
//    for at most as long as it had waited: the host's possible lead) >
//    inside a device memory allocator call (cudaMalloc, cudaFree, hipFree,
//    cuMemMap: allocator) > inside a job submission call (MTIA) > inside a
//    launch call that itself took kLaunchStallNs or
//    more (the runtime stalled: module loading, allocator, driver) > self
//    time of an op that launches nothing > launch overhead
//    (interval shorter than launch_gap_ns while inside a launch call or an
//    op that launches) > other host work > host silent (only the step
//    marker, or nothing, on the thread). Ahead of all but a drained sync:
//    inside the profiler's own code (profiler_overhead).
enum class IdleCause : uint8_t {
  kDataLoader = 0,        // gpu-idle-gaps
  kSyncCall,              // host-side-ops
  kPageableCopy,          // h2d-copy-dominance
  kHostSideOp,            // host-side-ops
  kLaunchOverhead,        // gpu-idle-gaps
  kLaunchStall,           // gpu-idle-gaps: a slow launch call (runtime stall)
  // gpu-idle-gaps: inside a device memory allocator call (cudaMalloc,
  // cudaFree, hipFree, cuMemMap, ...): the allocator freeing and growing.
  kAllocator,
  // gpu-idle-gaps: inside a job submission call of an accelerator that
  // submits jobs (MTIA): the host preparing and submitting the next job.
  kJobSubmission,
  kOtherHostWork,         // gpu-idle-gaps
  kHostSilent,            // gpu-idle-gaps
  kDeviceWaitCollective,  // comm-clustered-allreduce
  kDeviceWaitOther,       // gpu-idle-gaps
  // Inside the profiler's own host code (torch.profiler's step,
  // record_function enter/exit): profiling cost, no rule's and no saving.
  kProfilerOverhead,
  kUnattributed,          // no linked launch: never guessed
};
inline constexpr int kIdleCauseCount = static_cast<int>(IdleCause::kUnattributed) + 1;
std::string_view IdleCauseName(IdleCause cause);  // "data_loader", ...

struct IdlePiece {
  int device = -1;
  int step_index = -1;            // index into StepSet::steps
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  IdleCause cause = IdleCause::kUnattributed;
  SliceId host_slice = kNoIndex;  // innermost host op covering the piece
  SliceId next_activity = kNoIndex;  // device activity that ends the gap
  int gap = -1;                   // pieces of one idle interval share this
  SliceId host_thread_slice = kNoIndex;  // launch (or step marker) whose thread was examined
  // The host slice that decided the cause: the DataLoader op, the
  // synchronizing call (for a drained queue, the one the host was blocked
  // in), the copy call, the host op; kNoIndex when none did.
  SliceId cause_slice = kNoIndex;
};

struct IdleAttribution {
  std::vector<IdlePiece> pieces;  // sorted by (device, start)
  // [step_index][cause] -> idle ns, summed over devices.
  std::vector<std::array<TimeNs, kIdleCauseCount>> per_step_ns;
  std::array<TimeNs, kIdleCauseCount> total_ns{};
  TimeNs total_idle_ns = 0;
  // Of total_ns[kUnattributed]: idle after the last device work of a window
  // with no step marker, where no thread is known to run the step.
  TimeNs unmarked_tail_ns = 0;
  // The unattributed idle by the cause the host suggests (docs/design/contract.md,
  // "Unlinked device work"): what the recorded host threads were doing
  // meanwhile, on any thread (data loader, a synchronizing call, the
  // allocator, a job submission, other recorded host work, or nothing
  // recorded: host silent). Inferred, never a saving: evidence and the
  // verdict's words only.
  std::array<TimeNs, kIdleCauseCount> inferred_ns{};
};

// The cause most of the unattributed idle is inferred to have (never
// kHostSilent: silence names nothing), with its share of the unattributed
// idle; kUnattributed when no cause covers at least half of it.
std::pair<IdleCause, double> InferredUnattributedCause(const IdleAttribution& idle);
// "inferred: while the host runs framework and host code (other_host_work)
// for 90% of it": the words evidence and the verdict use; empty when none.
std::string InferredUnattributedText(const IdleAttribution& idle);

namespace idle_internal {
// idle_inferred.cc: fills IdleAttribution::inferred_ns from the host's
// recorded work over the unattributed pieces.
void ChargeInferredCauses(const Timeline& tl, IdleAttribution& out);
}  // namespace idle_internal

// Why device work has no launch in the file, in the words of the trace's
// framework and vendor (a reason text, parenthesised by the caller).
std::string NoLaunchLinkWhy(const Timeline& tl);

// Where the unattributed idle lies, to follow "idle": "before device work
// with no linked launch (CUDA graph replay or missing correlation ids)",
// "after the last device work of a window with no step markers", or both.
std::string UnattributedIdleWhere(const Timeline& tl, const IdleAttribution& idle);

// A launch call at least this long is a stall in the runtime, not the
// normal 5-40 us launch cost (HTA's launch delay cutoff). A constant, not an
// option: it decides between causes of different owners (a stall after a
// synchronizing call), which a rule's own option must never move.
inline constexpr TimeNs kLaunchStallNs = 100 * kNsPerUs;

struct IdleAttributionOptions {
  // Below this gap length, idle inside launch work is launch overhead
  // (HTA's launch runtime cutoff); gpu-idle-gaps' LaunchGapNs option.
  TimeNs launch_gap_ns = 50 * kNsPerUs;
  // A host op that launches nothing is a host-side op only when it lasts
  // this long; shorter ones (aten::empty_strided, views, 5-20 us each) are
  // the framework's dispatch between launches, other host work. The floor
  // of host-side-ops' MinSelfNs.
  TimeNs host_op_min_ns = 100 * kNsPerUs;
};

// The cached AnalysisContext::idle_attribution() uses the default options.
// Changing launch_gap_ns only moves time between launch overhead and other
// host work, both owned by gpu-idle-gaps, so a rule may recompute with its
// own value without breaking the one-cause-per-instant accounting.
IdleAttribution ComputeIdleAttribution(AnalysisContext& ctx,
                                       const IdleAttributionOptions& options);
IdleAttribution ComputeIdleAttribution(AnalysisContext& ctx);
// Over the given steps instead of ctx.steps() (the outlier steps).
struct StepSet;
IdleAttribution ComputeIdleAttribution(AnalysisContext& ctx, const IdleAttributionOptions& options,
                                       const StepSet& steps);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_IDLE_ATTRIBUTION_H_
