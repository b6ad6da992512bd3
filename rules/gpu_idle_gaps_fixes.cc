#include "rules/gpu_idle_gaps_fixes.h"

#include "fmt/format.h"

namespace tracelint::rules_internal {
namespace {

constexpr std::array<OwnedCause, kOwnedIdleCauses> kOwned = {{
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
    {IdleCause::kAllocator, "inside device memory allocator calls",
     "The allocator stalls the GPU every step (cudaFree/hipFree synchronize the device; "
     "cudaMalloc and cuMemMap grow the pool): keep PyTorch's caching allocator on (no "
     "PYTORCH_NO_CUDA_MEMORY_CACHING), take torch.cuda.empty_cache() out of the loop, set "
     "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so the pool grows without freeing, and "
     "allocate workspaces (cuBLAS/cuDNN/custom kernels) once and reuse them instead of per "
     "call."},
    {IdleCause::kJobSubmission, "while the host prepares and submits device jobs",
     "The host prepares and submits a job per op while the device waits: fuse ops so fewer, "
     "larger jobs are submitted (torch.compile for the device), use foreach / fused optimizer "
     "implementations (torch.optim with foreach=True or fused=True), and batch more work per "
     "step."},
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
    case IdleCause::kAllocator:
      return "The allocator stalls the GPU every step (frees synchronize the device, "
             "allocations grow the pool): keep a caching allocator on, do not release cached "
             "memory inside the loop, let the pool grow without freeing (PyTorch: "
             "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True), and allocate workspaces once "
             "and reuse them.";
    case IdleCause::kJobSubmission:
      return "The host prepares and submits a job per op while the device waits: fuse ops so "
             "fewer, larger jobs are submitted, use foreach / fused optimizer implementations, "
             "and batch more work per step.";
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

// JAX code that is already jitted (PjitFunction calls in the trace): "jit
// it" would be no advice. What the GPU waits on between calls is each
// call's dispatch from Python.
std::string JittedDispatchFix(const JobProfile& job) {
  return fmt::format(
      "The step is already jitted ({} calls of {} in the trace): the GPU waits between calls "
      "on each call's dispatch from Python (argument flattening and checks, transfers, "
      "launching the executable). Do more work per call (several steps in one jitted "
      "function with lax.scan or lax.fori_loop, or a larger batch), keep arguments on the "
      "device and donate them (donate_argnums), and keep Python work and "
      "block_until_ready/jax.device_get out of the loop.",
      job.jitted_calls, job.jitted_name);
}

// The fix for a cause, for the job at hand: TensorFlow and JAX have their
// own input pipelines and profilers (never with_stack=True), inference has
// requests and decode steps, not DataLoader epochs and training loops.
// rules/docs/gpu-idle-gaps.md lists every variant.
}  // namespace

std::string IdleFixFor(const OwnedCause& owned, const JobProfile& job, HostCode where) {
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
        return "The step is launch-bound: compile it with XLA (tf.function(jit_compile=True); "
               "in a TF1 session, global_jit_level = tf.OptimizerOptions.ON_1 in its config) so "
               "ops fuse into fewer kernels, or raise the batch size.";
      }
      if (jax && job.jitted_calls > 0) return JittedDispatchFix(job);
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
      if (tf && where == HostCode::kGraphDispatch) {
        return "The TensorFlow executor dispatches the graph's GPU ops one at a time and spends "
               "longer on each op's host side than its kernels take: fuse them with XLA "
               "(tf.function(jit_compile=True); in a TF1 session, global_jit_level = "
               "tf.OptimizerOptions.ON_1 in its config), or raise the batch size so each op "
               "does more work.";
      }
      if (tf) {
        return "Move Python out of the step: wrap it in tf.function (jit_compile=True where "
               "ops allow) and keep logging and metric reads every N steps.";
      }
      if (jax && job.jitted_calls > 0) return JittedDispatchFix(job);
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

const std::array<OwnedCause, kOwnedIdleCauses>& OwnedIdleCauses() { return kOwned; }

}  // namespace tracelint::rules_internal
