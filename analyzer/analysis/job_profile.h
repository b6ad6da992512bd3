#ifndef TRACELINT_ANALYZER_ANALYSIS_JOB_PROFILE_H_
#define TRACELINT_ANALYZER_ANALYSIS_JOB_PROFILE_H_

// What kind of job a rank's trace shows, so rules give advice that fits it:
// training or inference, which framework, which collectives it uses
// (docs/devices-and-advice.md, "Advice that fits the job").

#include <cstdint>
#include <string>
#include <string_view>

#include "analyzer/model/timeline.h"

namespace tracelint {

enum class JobKind : uint8_t {
  kUnknown = 0,  // no evidence either way (keep the generic advice)
  kTraining,     // a backward pass or an optimizer step is in the trace
  kInference,    // framework ops but no backward and no optimizer
};

enum class JobFramework : uint8_t { kPyTorch = 0, kTensorFlow, kJax, kOther };

enum class CollectiveKind : uint8_t {
  kAllReduce = 0, kAllGather, kReduceScatter, kAllToAll, kBroadcast, kSendRecv, kOther,
};
inline constexpr int kCollectiveKindCount = static_cast<int>(CollectiveKind::kOther) + 1;

struct JobProfile {
  JobKind kind = JobKind::kUnknown;
  JobFramework framework = JobFramework::kPyTorch;
  int64_t backward_ops = 0;   // autograd evaluate_function / *Backward ops
  int64_t optimizer_ops = 0;  // Optimizer.step / zero_grad annotations
  // Distinct kernel names only a backward pass launches (cuDNN dgrad/wgrad,
  // *_backward): the evidence of training in a trace with no framework ops
  // (a CUPTI capture, or PyTorch's profiler without ProfilerActivity.CPU).
  int64_t backward_kernels = 0;
  // Framework ops (cpu_op) in the trace. Without them, a forward-only
  // trace is not evidence of inference: nothing recorded the host's ops.
  int64_t host_ops = 0;
  // The host side holds only CUDA/HIP API calls (and annotations): time
  // between them is code nobody recorded, and the advice says how to see it.
  bool host_api_only = false;
  // Written by `tracelint capture` (RunMetadata::tracelint_capture).
  bool capture = false;
  // The framework came from kernel names (PyTorch's at::native kernels),
  // not from the trace's metadata.
  bool framework_from_kernels = false;
  // Names only LLM generation or serving leaves (a KV cache, paged or
  // split-KV attention, prefill, vLLM/SGLang/FlashInfer, a decoder-only
  // model's modules): LLM advice is given only with this evidence.
  bool llm = false;
  // JAX: jitted functions called from Python (PjitFunction(...) host
  // events): the step is already compiled, and idle between calls is the
  // per-call dispatch, not eager op-by-op execution.
  int64_t jitted_calls = 0;
  std::string jitted_name;  // the most called one ("PjitFunction(train_step)")
  // Collective device kernels by kind, over the whole trace.
  int64_t collective_count[kCollectiveKindCount] = {};
  TimeNs collective_ns[kCollectiveKindCount] = {};
  // The kind with the most collective kernel time; kOther when none.
  CollectiveKind dominant_collective = CollectiveKind::kOther;
  int64_t collective_total() const;
  bool is_inference() const { return kind == JobKind::kInference; }
  bool is_pytorch() const { return framework == JobFramework::kPyTorch; }
};

JobProfile ComputeJobProfile(const Timeline& tl);

// The collective a kernel or host op runs, from its name
// ("ncclDevKernel_AllGather_RING_LL", "nccl:_reduce_scatter_base",
// "multimem_all_reduce_kernel"); kOther when the name does not say.
CollectiveKind CollectiveKindOf(std::string_view name);
std::string_view CollectiveKindName(CollectiveKind k);  // "all_reduce", ...
std::string_view JobKindName(JobKind k);                // "training", ...
std::string_view JobFrameworkName(JobFramework f);      // "PyTorch", ...

// How to start the profiler after warm-up, in the job's own API (the
// capture's --delay for a `tracelint capture`).
std::string_view ProfileAfterWarmupAdvice(const JobProfile& job);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_JOB_PROFILE_H_
