#include "rules/gpu_idle_gaps.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

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
#include "rules/idle_findings.h"
#include "rules/launch_context.h"
#include "rules/optimizer_advice.h"
#include "rules/step_tail_advice.h"

namespace tracelint {
namespace {

using rules_internal::CauseSummary;
using rules_internal::IdleScope;
using rules_internal::SafeShare;
using rules_internal::ShareText;

constexpr std::string_view kMinIdleShare = "MinIdleShare";
constexpr std::string_view kMinCauseShare = "MinCauseShare";
constexpr std::string_view kLaunchGapNs = "LaunchGapNs";
constexpr std::string_view kWorstGaps = "WorstGaps";

// "step 4", "steps 1-5", "steps 1, 3, 7-9": ascending step numbers.
std::string StepList(const std::vector<int64_t>& numbers) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < numbers.size();) {
    size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
    parts.push_back(j > i ? fmt::format("{}-{}", numbers[i], numbers[j])
                          : fmt::format("{}", numbers[i]));
    i = j + 1;
  }
  return fmt::format("step{} {}", numbers.size() == 1 ? "" : "s", fmt::join(parts, ", "));
}
constexpr TimeNs kDefaultLaunchGapNs = 50 * kNsPerUs;
// Other-host-work idle that is mostly inside the model's ops is eager dispatch.
constexpr double kInModelCodeMinShare = 0.5;

// Where other-host-work idle falls, which decides its fix.
enum class HostCode : uint8_t { kUnknown, kEagerModel, kCompiledModel, kBetweenModelCalls };

struct OwnedCause {
  IdleCause cause;
  std::string_view what;  // for titles: "waiting for the data loader"
  std::string_view fix;
};

constexpr std::array<OwnedCause, 6> kOwned = {{
    {IdleCause::kDataLoader, "waiting for the DataLoader",
     "Load batches in parallel with the step: DataLoader(num_workers=N>0, pin_memory=True, "
     "persistent_workers=True, prefetch_factor=2..4); move decoding/augmentation to the GPU "
     "(e.g. DALI) if workers cannot keep up."},
    {IdleCause::kLaunchOverhead, "between kernel launches (launch-bound)",
     "The step is launch-bound: capture it with CUDA Graphs (torch.cuda.graphs / "
     "torch.compile(mode=\"reduce-overhead\")), fuse small ops (torch.compile), or raise the "
     "batch size so each kernel does more work."},
    {IdleCause::kLaunchStall, "inside slow launch calls (runtime stall)",
     "A launch call took far longer than a launch costs: the runtime stalled. First-launch "
     "module loading: warm up (run a few steps) before profiling, or load modules eagerly "
     "(CUDA_MODULE_LOADING=EAGER). Allocator: keep the caching allocator warm, avoid "
     "torch.cuda.empty_cache() in the loop, and try "
     "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against fragmentation."},
    {IdleCause::kOtherHostWork, "while the host runs framework and Python code",
     "Move the host work off the step's critical path: precompute outside the loop, "
     "torch.compile the Python-heavy region, or overlap it with GPU work by launching the "
     "next kernels first."},
    {IdleCause::kHostSilent, "while the host records no events",
     "The host was busy in code the profiler did not record (Python without with_stack, "
     "other threads, I/O, GC): profile with with_stack=True or py-spy to find it, then move "
     "it off the step."},
    {IdleCause::kDeviceWaitOther, "on device-side waits (streams, events)",
     "Work queued on the GPU waits for another stream or event: check cross-stream "
     "dependencies (wait_stream, events) and put independent work on its own stream."},
}};

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
  if (!steps.from_markers || v.size() < kMinStepsForOneStepStall || v.size() != steps.steps.size()) {
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
  f.evidence.push_back({fmt::format("{:.0f}% of it falls in step {} alone ({}; the median step "
                                    "has {})",
                                    100 * share, number, FormatDurationNs(v[worst]),
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
      "Most of this idle is in one step (step {}, one of {} steady steps): a stall in that "
      "step, not a cost of every step. Look for what runs every N steps (checkpoint saving, "
      "evaluation, logging or metric reads, garbage collection) and make it asynchronous or "
      "rarer{}. Otherwise: {}",
      number, v.size(), edge, f.fix);
  return true;
}

// Advice in no framework's API: for a TensorFlow or JAX cause without a
// variant of its own, and for a trace of an unknown framework (a Chrome
// trace of another tool), where PyTorch's calls would not apply.
std::string NeutralFix(IdleCause cause) {
  switch (cause) {
    case IdleCause::kDataLoader:
      return "Load input in parallel with the step and prefetch it to the device: more loader "
             "workers or threads, pinned host buffers, and decoding or augmentation on the GPU "
             "if the loaders cannot keep up.";
    case IdleCause::kLaunchOverhead:
      return "The step is launch-bound: fuse small ops into fewer kernels (compile the step "
             "with the framework's graph compiler), replay repeated launch sequences as CUDA "
             "Graphs, or raise the batch size so each kernel does more work.";
    case IdleCause::kLaunchStall:
      return "A launch call took far longer than a launch costs: the runtime stalled "
             "(first-launch module loading, allocator growth). Warm up (run a few steps) "
             "before profiling, load modules eagerly (CUDA_MODULE_LOADING=EAGER), and keep "
             "the allocator from giving memory back and growing again inside the loop.";
    case IdleCause::kOtherHostWork:
      return "Move the host work off the step's critical path: precompute outside the loop, "
             "compile the Python-heavy region, or overlap it with GPU work by launching the "
             "next kernels first.";
    case IdleCause::kHostSilent:
      return "The host was busy in code the profiler did not record (Python, other threads, "
             "I/O, GC): sample it with py-spy (or the profiler's Python tracing) to find it, "
             "then move it off the step.";
    case IdleCause::kDeviceWaitOther:
      return "Work queued on the GPU waits for another stream or event: check cross-stream "
             "dependencies and put independent work on its own stream.";
    default:
      return "";
  }
}

// Host silence in a trace whose host side is only CUDA/HIP API calls is the
// recording's blind spot, not a hint of hidden Python: the framework's
// dispatch and the program's own code run between the calls unrecorded.
std::string ApiOnlyHostSilentFix(const JobProfile& job) {
  if (job.capture) {
    return fmt::format(
        "The host ran code between its CUDA calls that the capture cannot see (tracelint "
        "capture records CUDA API calls and NVTX ranges only): mark the step's host phases "
        "with NVTX ranges ({}) or sample the host with py-spy or perf to find it, then move "
        "it off the step or overlap it with GPU work.",
        job.is_pytorch() ? "torch.cuda.nvtx.range" : "nvtxRangePushA/nvtxRangePop");
  }
  if (job.is_pytorch()) {
    return "The trace records no host ops (the profiler ran without ProfilerActivity.CPU), so "
           "what the host did between its CUDA calls is unknown: profile with "
           "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] and with_stack=True to "
           "see it.";
  }
  return "The trace records the host only as CUDA/HIP API calls, so what it did between them "
         "is unknown: trace the host's own code (the framework's CPU activity, NVTX ranges, or "
         "a sampling profiler) to find it, then move it off the step.";
}

// The fix for a cause, for the job at hand: TensorFlow and JAX have their
// own input pipelines and profilers (never with_stack=True), inference has
// requests and decode steps, not DataLoader epochs and training loops.
// rules/docs/gpu-idle-gaps.md lists every variant.
std::string FixFor(const OwnedCause& owned, const JobProfile& job, HostCode where) {
  const bool tf = job.framework == JobFramework::kTensorFlow;
  const bool jax = job.framework == JobFramework::kJax;
  if (owned.cause == IdleCause::kHostSilent && job.host_api_only) return ApiOnlyHostSilentFix(job);
  if (!job.is_pytorch() && !tf && !jax) return NeutralFix(owned.cause);
  switch (owned.cause) {
    case IdleCause::kDataLoader:
      if (tf) {
        return "Make the tf.data pipeline keep up: map(..., num_parallel_calls=tf.data.AUTOTUNE), "
               ".cache() after expensive reads, .prefetch(tf.data.AUTOTUNE) at the end, and "
               "check it with the profiler's input-pipeline analysis.";
      }
      if (jax) {
        return "Feed batches ahead of the step: load with parallel workers (grain or "
               "tf.data with AUTOTUNE) and prefetch to the device (e.g. "
               "flax.jax_utils.prefetch_to_device or jax.device_put of the next batch).";
      }
      // A PyTorch DataLoader is there, training or batch inference alike:
      // its own advice fits both.
      break;
    case IdleCause::kLaunchOverhead:
      if (tf) {
        return "The step is launch-bound: compile it with XLA (tf.function(jit_compile=True)) "
               "so ops fuse into fewer kernels, or raise the batch size.";
      }
      if (jax) {
        return "The step is launch-bound: jit the whole step (one jax.jit over the loop body, "
               "lax.scan for loops) instead of dispatching small ops, or raise the batch size.";
      }
      if (job.is_inference() && job.llm) {
        return "The inference step is launch-bound: capture it with CUDA Graphs "
               "(torch.compile(mode=\"reduce-overhead\") or torch.cuda.graphs); when serving "
               "LLMs, run decode steps as CUDA graphs (the engine's graph mode), batch more "
               "requests per step (continuous batching) and keep prefill apart from decode "
               "(chunked prefill) so each step does more work per launch.";
      }
      if (job.is_inference()) {
        return "The inference step is launch-bound: capture it with CUDA Graphs "
               "(torch.compile(mode=\"reduce-overhead\") or torch.cuda.graphs), compile it "
               "to fuse small ops, and batch more inputs per step so each kernel does more "
               "work per launch.";
      }
      break;
    case IdleCause::kOtherHostWork:
      if (tf) {
        return "Move Python out of the step: wrap it in tf.function (jit_compile=True where "
               "ops allow) and keep logging and metric reads every N steps.";
      }
      if (jax) {
        return "Move host work out of the step: jit it, avoid jax.device_get/.block_until_"
               "ready/printing device values inside the loop, and log every N steps.";
      }
      if (where == HostCode::kCompiledModel) {
        // Already compiled: what remains is Python between its graphs.
        return "The model is already compiled, yet the host runs Python inside the compiled "
               "region while the GPU waits: graph breaks and hooks (offloading, logging, "
               "module walks) run eagerly between the compiled graphs. Find them with "
               "TORCH_LOGS=graph_breaks or torch._dynamo.explain, move hooks out of the "
               "forward, and capture the result with CUDA Graphs "
               "(torch.compile(mode=\"reduce-overhead\")).";
      }
      if (where == HostCode::kEagerModel) {
        // The idle falls inside the model's own ops and modules: eager
        // dispatch is slower than the kernels it launches (a small model
        // or batch), which graphs and compilation remove.
        if (job.is_inference()) {
          return "The host runs the model's Python and operator dispatch slower than the GPU "
                 "runs its kernels (eager mode on a small model or batch): capture the forward "
                 "with CUDA Graphs (torch.compile(mode=\"reduce-overhead\") or "
                 "torch.cuda.graphs), compile it to fuse small ops, and batch more requests per "
                 "step so each kernel does more work.";
        }
        return "The host runs the model's Python and operator dispatch slower than the GPU runs "
               "its kernels (eager mode on a small model or batch): torch.compile the model "
               "(fewer, fused kernels; mode=\"reduce-overhead\" adds CUDA Graphs) or raise the "
               "batch size so each kernel does more work.";
      }
      if (job.is_inference() && job.llm) {
        return "Host work between inference steps (pre/post-processing, sampling, "
               "detokenization, request scheduling) stalls the GPU: overlap it with the next "
               "step's launches, keep sampling and KV-cache bookkeeping on the GPU, and "
               "post-process responses on another thread.";
      }
      if (job.is_inference()) {
        return "Host work between inference steps (input preparation, output conversion and "
               "post-processing) stalls the GPU: launch the next batch before post-processing "
               "this one, keep the conversion on the GPU, and post-process on another thread.";
      }
      break;
    case IdleCause::kHostSilent:
      if (tf || jax) {
        return fmt::format(
            "The host was busy in code the profiler did not record (Python, I/O, GC): trace "
            "the host with {} and Python tracing on, or py-spy, then move that work off "
            "the step.",
            tf ? "tf.profiler.experimental.start(logdir, "
                 "options=tf.profiler.experimental.ProfilerOptions(python_tracer_level=1))"
               : "jax.profiler.start_trace(logdir) (with create_perfetto_trace=True)");
      }
      break;
    default:
      break;
  }
  // The table's fixes name PyTorch's calls.
  return tf || jax ? NeutralFix(owned.cause) : std::string(owned.fix);
}

// A stall inside graph launch calls is the graph's submission, not module
// loading or the allocator: the host submits a large graph node by node
// while the device has nothing queued.
void AddGraphLaunchStall(const Timeline& tl, const IdleAttribution& idle, Finding& f) {
  TimeNs total_ns = 0, graph_ns = 0;
  SliceId example = kNoIndex;
  for (const IdlePiece& p : idle.pieces) {
    if (p.cause != IdleCause::kLaunchStall) continue;
    total_ns += p.end_ns - p.start_ns;
    if (p.cause_slice != kNoIndex && tl.HasFlag(p.cause_slice, kFlagGraphLaunch)) {
      graph_ns += p.end_ns - p.start_ns;
      example = p.cause_slice;
    }
  }
  if (total_ns <= 0 || 2 * graph_ns < total_ns) return;
  const double share = static_cast<double>(graph_ns) / static_cast<double>(total_ns);
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

// Profiling overhead worth a line of its own in the evidence.
constexpr double kProfilerNoteMinShare = 0.01;

// Where a cause's idle time falls on the host: inside the model's own code
// (a framework operator, or a module's forward as Python records it), and
// inside code torch.compile already compiled ("Torch-Compiled Region").
struct HostCodeShares {
  double in_model = 0;
  double compiled = 0;
};

HostCodeShares HostCodeSharesOf(const Timeline& tl, const IdleAttribution& idle,
                                IdleCause cause) {
  const SliceColumns& c = tl.slices();
  TimeNs total_ns = 0, in_model_ns = 0, compiled_ns = 0;
  for (const IdlePiece& p : idle.pieces) {
    if (p.cause != cause) continue;
    TimeNs ns = p.end_ns - p.start_ns;
    total_ns += ns;
    bool in_model = false, compiled = false;
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
    }
    if (in_model) in_model_ns += ns;
    if (compiled) compiled_ns += ns;
  }
  return {SafeShare(static_cast<double>(in_model_ns), static_cast<double>(total_ns)),
          SafeShare(static_cast<double>(compiled_ns), static_cast<double>(total_ns))};
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
  for (const OwnedCause& owned : kOwned) {
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
    for (const rules_internal::GapGroup& g : summary.gap_groups) {
      std::vector<int64_t> numbers;
      if (steps.from_markers) {
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
        where = g.count > 1 ? fmt::format(", {}", StepList(numbers))
                            : fmt::format(" at step {}", numbers.front());
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
      f.evidence.push_back(
          {fmt::format("{} could not be attributed: it comes {}", ShareText(unattributed_share),
                       UnattributedIdleWhere(tl, *idle)),
           unattributed_share, 0, "share"});
    }
    HostCode where = HostCode::kUnknown;
    if (owned.cause == IdleCause::kOtherHostWork) {
      HostCodeShares shares = HostCodeSharesOf(tl, *idle, owned.cause);
      where = shares.compiled >= kInModelCodeMinShare   ? HostCode::kCompiledModel
              : shares.in_model >= kInModelCodeMinShare ? HostCode::kEagerModel
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
    f.fix = FixFor(owned, ctx.job_profile(), where);
    if (owned.cause == IdleCause::kLaunchStall) AddGraphLaunchStall(tl, *idle, f);
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
    outcome.not_judged_reason = fmt::format(
        "{} idle {}, of which {} comes {}: the host cause cannot be told", accel,
        ShareText(idle_share), ShareText(unattributed_share), UnattributedIdleWhere(tl, *idle));
  }
  return outcome;
}

}  // namespace tracelint
