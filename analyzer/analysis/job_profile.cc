#include "analyzer/analysis/job_profile.h"

#include <map>

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/base/strings.h"

namespace tracelint {
namespace {

// Op names that only a backward pass or an optimizer produces, besides the
// kFlagBackward/kFlagOptimizer ones classify.cc sets.
bool IsBackwardName(std::string_view name) {
  return Contains(name, "Backward") || Contains(name, "_backward") ||
         name.starts_with("autograd::");
}
// Lower-case fragments of kernel names that only a backward pass launches:
// cuDNN's data and weight gradient convolutions and batch-norm backward,
// and PyTorch's *_backward kernels. A forward or inference step has none.
constexpr std::string_view kBackwardKernelMarkers[] = {"backward", "dgrad", "wgrad", "bn_bw"};

bool IsBackwardKernelName(std::string_view lower) {
  for (std::string_view marker : kBackwardKernelMarkers) {
    if (lower.find(marker) != std::string_view::npos) return true;
  }
  return false;
}

bool IsOptimizerName(std::string_view name) {
  return name.starts_with("Optimizer.") || name.starts_with("aten::_fused_adam") ||
         Contains(name, "zero_grad");
}

// Lower-case fragments of op, kernel, module and Python frame names that
// only LLM generation or serving produce. Generic transformer parts
// (attention, layer norm, GEMMs) are no evidence: encoders and vision
// models have them too.
constexpr std::string_view kLlmMarkers[] = {
    "kv_cache",    "kvcache",        "past_key_value", "paged_attention", "pagedattention",
    "reshape_and_cache", "splitkv",  "prefill",        "vllm",            "sglang",
    "flashinfer",  "tensorrt_llm",   "transformers/generation", "generationmixin",
    "llama",       "mistral",        "mixtral",        "qwen",            "gemma",
    "deepseek",    "gpt2",           "gptneox",        "causallm",
};

bool IsLlmName(std::string_view lower) {
  for (std::string_view marker : kLlmMarkers) {
    if (lower.find(marker) != std::string::npos) return true;
  }
  return false;
}

// NCCL runs all_to_all as SendRecv kernels and some kernels name no
// collective; the host op that launched them does ("nccl:all_to_all",
// record_param_comms with "Collective name").
CollectiveKind KindFromLaunchingOp(const Timeline& tl, SliceId kernel) {
  const SliceColumns& c = tl.slices();
  SliceId s = c.launch[kernel];
  for (int depth = 0; s != kNoIndex && depth < 16; ++depth, s = c.parent[s]) {
    if (!tl.HasFlag(s, kFlagCollective)) continue;
    if (const Arg* a = tl.FindArg(s, "Collective name");
        a != nullptr && a->value.type == ArgValue::Type::kString) {
      CollectiveKind k = CollectiveKindOf(tl.str(a->value.s));
      if (k != CollectiveKind::kOther) return k;
    }
    CollectiveKind k = CollectiveKindOf(tl.str(c.name[s]));
    if (k != CollectiveKind::kOther) return k;
  }
  return CollectiveKind::kOther;
}

}  // namespace

CollectiveKind CollectiveKindOf(std::string_view name) {
  // Spellings: NCCL kernels "AllReduce", host ops "all_reduce",
  // "_allgather_base", custom kernels "allreduce".
  auto has = [&](std::string_view a, std::string_view b) {
    return ContainsIgnoreCase(name, a) || ContainsIgnoreCase(name, b);
  };
  if (has("all_to_all", "alltoall")) return CollectiveKind::kAllToAll;
  if (has("reduce_scatter", "reducescatter")) return CollectiveKind::kReduceScatter;
  if (has("all_gather", "allgather")) return CollectiveKind::kAllGather;
  if (has("all_reduce", "allreduce") || ContainsIgnoreCase(name, "cross_device_reduce")) {
    return CollectiveKind::kAllReduce;
  }
  if (ContainsIgnoreCase(name, "broadcast")) return CollectiveKind::kBroadcast;
  if (has("sendrecv", "send_recv") || ContainsIgnoreCase(name, "_send") ||
      ContainsIgnoreCase(name, "_recv")) {
    return CollectiveKind::kSendRecv;
  }
  return CollectiveKind::kOther;
}

int64_t JobProfile::collective_total() const {
  int64_t n = 0;
  for (int64_t c : collective_count) n += c;
  return n;
}

JobProfile ComputeJobProfile(const Timeline& tl) {
  JobProfile p;
  const std::string& fw = tl.metadata().framework;
  if (fw == "TensorFlow") {
    p.framework = JobFramework::kTensorFlow;
  } else if (fw == "JAX") {
    p.framework = JobFramework::kJax;
  } else if (fw == "PyTorch") {
    p.framework = JobFramework::kPyTorch;
  } else {
    // Unknown ("": a Chrome trace of another tool, an XSpace without
    // framework names) or "TensorFlow/JAX (XLA)": no PyTorch advice.
    p.framework = JobFramework::kOther;
  }
  const SliceColumns& c = tl.slices();
  p.capture = tl.metadata().tracelint_capture;
  // A capture of any CUDA program names no framework; PyTorch's kernels
  // name it. Other traces keep what their metadata says (an unnamed Chrome
  // trace gets advice in no framework's API).
  const bool framework_unknown = fw.empty() && p.capture;
  int64_t api_calls = 0, python_frames = 0;
  std::map<StringId, int64_t> jitted_by_name;
  // Names repeat (one per launch): each distinct name is matched once.
  std::vector<bool> name_seen(tl.strings().size(), false);
  std::string lower;
  for (SliceId s = 0; s < c.size(); ++s) {
    EventKind k = c.kind[s];
    std::string_view name = tl.str(c.name[s]);
    if (k == EventKind::kRuntime || k == EventKind::kDriver) ++api_calls;
    if (k == EventKind::kPythonFunction) ++python_frames;
    if (c.name[s] < name_seen.size() && !name_seen[c.name[s]]) {
      name_seen[c.name[s]] = true;
      lower.assign(name);
      for (char& ch : lower) ch = AsciiLower(ch);
      if (!p.llm) p.llm = IsLlmName(lower);
      if (k == EventKind::kKernel) {
        if (IsBackwardKernelName(lower)) ++p.backward_kernels;
        if (framework_unknown && !p.framework_from_kernels &&
            name.find("at::native::") != std::string_view::npos) {
          p.framework = JobFramework::kPyTorch;
          p.framework_from_kernels = true;
        }
      }
    }
    if (k == EventKind::kCpuOp) ++p.host_ops;
    if (name.starts_with("PjitFunction(") &&
        tl.tracks()[c.track[s]].kind == TrackKind::kHostThread) {
      ++p.jitted_calls;
      ++jitted_by_name[c.name[s]];
    }
    if (k == EventKind::kCpuOp || k == EventKind::kUserAnnotation) {
      if (tl.HasFlag(s, kFlagBackward) || IsBackwardName(name)) ++p.backward_ops;
      if (tl.HasFlag(s, kFlagOptimizer) || IsOptimizerName(name)) ++p.optimizer_ops;
    } else if (k == EventKind::kKernel && tl.HasFlag(s, kFlagCollective)) {
      CollectiveKind kind = CollectiveKindOf(name);
      if (kind == CollectiveKind::kSendRecv || kind == CollectiveKind::kOther) {
        CollectiveKind from_op = KindFromLaunchingOp(tl, s);
        if (from_op != CollectiveKind::kOther) kind = from_op;
      }
      int i = static_cast<int>(kind);
      ++p.collective_count[i];
      p.collective_ns[i] = SaturatingAddNs(p.collective_ns[i], c.dur_ns[s]);
    }
  }
  int64_t most_calls = 0;
  for (const auto& [name, n] : jitted_by_name) {
    if (n > most_calls || (n == most_calls && tl.str(name) < p.jitted_name)) {
      most_calls = n;
      p.jitted_name = std::string(tl.str(name));
    }
  }
  // TF and JAX traces name gradients in their op/HLO names.
  if (p.framework != JobFramework::kPyTorch) {
    for (SliceId s = 0; s < c.size() && p.backward_ops == 0; ++s) {
      std::string_view name = tl.str(c.name[s]);
      if (Contains(name, "gradients/") || Contains(name, "transpose(jvp(")) ++p.backward_ops;
    }
  }
  p.host_api_only = api_calls > 0 && p.host_ops == 0 && python_frames == 0;
  if (p.backward_ops > 0 || p.optimizer_ops > 0 || p.backward_kernels > 0) {
    p.kind = JobKind::kTraining;
  } else if (p.host_ops > 0 && p.framework == JobFramework::kPyTorch &&
             !p.framework_from_kernels) {
    // PyTorch records every op; none of a backward pass or an optimizer
    // over a whole trace means the model only ran forward. Annotations
    // alone (ProfilerStep#, NVTX ranges) record no op.
    p.kind = JobKind::kInference;
  }
  TimeNs best_ns = 0;
  for (int i = 0; i < kCollectiveKindCount; ++i) {
    if (p.collective_ns[i] > best_ns) {
      best_ns = p.collective_ns[i];
      p.dominant_collective = static_cast<CollectiveKind>(i);
    }
  }
  return p;
}

std::string_view CollectiveKindName(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::kAllReduce: return "all_reduce";
    case CollectiveKind::kAllGather: return "all_gather";
    case CollectiveKind::kReduceScatter: return "reduce_scatter";
    case CollectiveKind::kAllToAll: return "all_to_all";
    case CollectiveKind::kBroadcast: return "broadcast";
    case CollectiveKind::kSendRecv: return "send_recv";
    case CollectiveKind::kOther: return "other";
  }
  return "other";
}

std::string_view JobKindName(JobKind k) {
  switch (k) {
    case JobKind::kTraining: return "training";
    case JobKind::kInference: return "inference";
    case JobKind::kUnknown: return "unknown";
  }
  return "unknown";
}

std::string_view JobFrameworkName(JobFramework f) {
  switch (f) {
    case JobFramework::kPyTorch: return "PyTorch";
    case JobFramework::kTensorFlow: return "TensorFlow";
    case JobFramework::kJax: return "JAX";
    case JobFramework::kOther: return "other";
  }
  return "other";
}

std::string_view ProfileAfterWarmupAdvice(const JobProfile& job) {
  if (job.capture) return "tracelint capture --delay S, with S past the first steps";
  switch (job.framework) {
    case JobFramework::kPyTorch: return "torch.profiler.schedule(wait=1, warmup=2, active=3)";
    case JobFramework::kTensorFlow:
      return "tf.profiler.experimental.start after warm-up, or the Keras TensorBoard "
             "callback's profile_batch=(10, 15)";
    case JobFramework::kJax:
      return "jax.profiler.start_trace once the jitted step has run a few times";
    case JobFramework::kOther: break;
  }
  return "start the profiler once the step has run a few times";
}

}  // namespace tracelint
