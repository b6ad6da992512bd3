#include "rules/kernel_efficiency.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/roofline.h"
#include "analyzer/analysis/steps.h"
#include "fmt/format.h"
#include "rules/launch_context.h"

namespace tracelint {
namespace {

using rules_internal::Percent;
using rules_internal::SafeShare;

constexpr std::string_view kMinSavingShare = "MinSavingShare";
constexpr std::string_view kGemmTarget = "GemmTarget";
constexpr std::string_view kAttentionTarget = "AttentionTarget";
constexpr std::string_view kMemoryTarget = "MemoryTarget";
constexpr size_t kMaxTopItems = 5;

// Size classes by the op's roofline time per call (docs: "Targets").
constexpr double kLargeNs = 20 * kNsPerUs;
constexpr double kMediumNs = 5 * kNsPerUs;
constexpr double kSmallNs = 1 * kNsPerUs;

bool IsMatrix(DeviceFamily f) {
  return f == DeviceFamily::kGemm || f == DeviceFamily::kGroupedGemm ||
         f == DeviceFamily::kAttention || f == DeviceFamily::kConvFwd ||
         f == DeviceFamily::kConvBwd;
}

double FamilyTarget(DeviceFamily f, const RuleOptions& options) {
  if (f == DeviceFamily::kAttention) return options.Get(kAttentionTarget);
  if (IsMatrix(f)) return options.Get(kGemmTarget);
  return options.Get(kMemoryTarget);
}

// One finding's worth: a compute family and dtype.
struct Judged {
  DeviceFamily family = DeviceFamily::kOther;
  ComputeDtype dtype = ComputeDtype::kUnknown;
  std::vector<double> saving_steps;  // per analysed step
  double saving_ns = 0;
  double owned_bound_ns = 0;   // its judged ops' time in device-bound steps
  double roofline_ns = 0;      // ... at the roof
  std::vector<std::pair<double, size_t>> ops;  // (saving, group index)
};

std::string Label(DeviceFamily f, ComputeDtype d) {
  RooflineFamily rf;
  rf.family = std::string(DeviceFamilyName(f));
  rf.dtype = std::string(ComputeDtypeName(d));
  return FamilyLabel(rf);
}

std::string Fix(DeviceFamily f, bool memory_bound, const JobProfile& job) {
  const bool torch = job.is_pytorch();
  const std::string compile =
      torch ? "torch.compile" : job.framework == JobFramework::kJax ? "jax.jit over the whole step"
                                                                     : "the framework's compiler";
  switch (f) {
    case DeviceFamily::kGemm:
      if (memory_bound) {
        return job.is_inference()
                   ? "These GEMMs are bound by reading their weights (few rows per call, as in "
                     "decode): batch more requests per step so each weight read serves more "
                     "tokens, and cut the bytes with fp8 or int4 weight-only quantization."
                   : "These GEMMs are bound by memory (skinny shapes): raise the (micro-)batch or "
                     "sequence length so each GEMM has more rows, or fuse the small ones (fused "
                     "QKV / gate-up projections).";
      }
      return fmt::format(
          "Give the GEMMs shapes the libraries tile well: dimensions that are multiples of "
          "64-128, fewer and larger GEMMs (fused QKV / gate-up projections, a larger "
          "batch){}.",
          torch ? ", and let torch.compile(mode=\"max-autotune\") pick the kernel for the "
                  "shapes that stay slow (on ROCm, tune hipBLASLt for them)"
                : "");
    case DeviceFamily::kGroupedGemm:
      return "Use grouped GEMM kernels for the experts (torch._grouped_mm, fused MoE kernels of "
             "vLLM/SGLang/TensorRT-LLM) rather than one GEMM per expert, and raise the tokens "
             "per expert (larger batches, capacity factor) so each group has whole tiles.";
    case DeviceFamily::kAttention:
      return torch ? "Use a faster attention backend for these shapes: FlashAttention-3 or cuDNN "
                     "attention on Hopper/Blackwell (torch.nn.attention.sdpa_kernel("
                     "SDPBackend.CUDNN_ATTENTION)), the CK/aiter flash kernels on ROCm; keep head "
                     "dims at 64/128, and pack variable-length sequences (varlen) instead of "
                     "padding them."
                   : "Use the fused (flash) attention kernels of the framework for these shapes, "
                     "keep head dims at 64/128, and pack variable-length sequences instead of "
                     "padding them.";
    case DeviceFamily::kConvFwd:
    case DeviceFamily::kConvBwd:
      return torch ? "Run the convolutions in channels_last (model.to(memory_format="
                     "torch.channels_last)) with torch.backends.cudnn.benchmark = True, in bf16, "
                     "with channel counts that are multiples of 8 (64 on AMD)."
                   : "Use NHWC layout, autotuned convolution algorithms, bf16, and channel counts "
                     "that are multiples of 8.";
    case DeviceFamily::kOptimizer:
      return torch ? "Use a fused optimizer (torch.optim.AdamW(..., fused=True)) or foreach=True, "
                     "so the update is a few multi-tensor kernels instead of one per parameter."
                   : "Use the framework's fused optimizer update.";
    case DeviceFamily::kEmbedding:
      return "Use fused embedding lookups (FBGEMM's table-batched embeddings), sort or dedupe "
             "indices, and keep embedding tables in bf16/fp16.";
    default:
      break;
  }
  return fmt::format(
      "These memory-bound kernels move their bytes well below the device's bandwidth: fuse "
      "chains of pointwise, normalization and softmax ops with {} so each tensor is read once, "
      "use fused kernels (fused RMSNorm/LayerNorm, fused softmax + cross-entropy), and avoid "
      "copies of non-contiguous tensors (transposes followed by .contiguous()).",
      compile);
}

}  // namespace

double SizeClassTarget(double target, double roofline_ns) {
  if (roofline_ns >= kLargeNs) return target;
  if (roofline_ns >= kMediumNs) return 0.7 * target;
  if (roofline_ns >= kSmallNs) return 0.4 * target;
  return 0;
}

std::vector<RuleOptionSpec> KernelEfficiencyRule::options() const {
  return {
      {std::string(kMinSavingShare), 0.03, "share",
       "Fire when a compute family's time above its target reaches this share of the step "
       "(steps bound by the device only).",
       0, 1},
      {std::string(kGemmTarget), 0.5, "share",
       "Efficiency expected of large GEMM, grouped GEMM and convolution ops (of the peak the "
       "efficiency uses); smaller ops get 0.7x and 0.4x of it.",
       0, 1},
      {std::string(kAttentionTarget), 0.3, "share",
       "Efficiency expected of large attention ops; smaller ones get 0.7x and 0.4x of it.", 0,
       1},
      {std::string(kMemoryTarget), 0.6, "share",
       "Efficiency expected of large memory-bound ops (normalization, softmax, pointwise, "
       "reductions, embedding, optimizer); smaller ones get 0.7x and 0.4x of it.",
       0, 1},
  };
}

RuleOutcome KernelEfficiencyRule::Check(AnalysisContext& ctx, const RuleOptions& options) const {
  RuleOutcome outcome;
  if (!rules_internal::HasDeviceActivityAndSteps(ctx, outcome)) return outcome;
  const RooflineAnalysis& roofline = ctx.roofline();
  const RankRoofline& summary = roofline.summary;
  const RooflineWork& work = roofline.work;
  if (!work.has_peak) {
    outcome.applicable = false;
    outcome.not_judged_reason = fmt::format("no roofline: {}", summary.no_peak_reason);
    return outcome;
  }
  bool any_model = false;
  for (const RooflineGroup& g : work.groups) any_model |= g.efficiency >= 0;
  if (!any_model) {
    outcome.applicable = false;
    outcome.not_judged_reason =
        "no compute op of the analysed steps is modelled (profile with record_shapes=True so "
        "ops carry their input shapes)";
    return outcome;
  }
  const StepSet& steps = ctx.steps();
  const size_t n = steps.steps.size();
  const double devices =
      std::max<double>(1, static_cast<double>(ctx.device_activity().size()));
  const double step_total_ns = static_cast<double>(steps.TotalNs());
  size_t bound_steps = 0;
  for (size_t i = 0; i < n && i < work.device_bound.size(); ++i) bound_steps += work.device_bound[i];

  // Per family and dtype: the time its judged ops spend above their
  // size-class target, in device-bound steps, on the busy time left to it.
  std::map<std::pair<int, int>, Judged> judged;
  for (size_t gi = 0; gi < work.groups.size(); ++gi) {
    const RooflineGroup& g = work.groups[gi];
    if (g.efficiency < 0 || g.owned_steps.empty()) continue;
    const double target = SizeClassTarget(FamilyTarget(g.family, options), g.roofline_ns_per_call);
    if (target <= 0) continue;
    Judged& j = judged[{static_cast<int>(g.family), static_cast<int>(g.dtype)}];
    j.family = g.family;
    j.dtype = g.dtype;
    if (j.saving_steps.empty()) j.saving_steps.assign(n, 0);
    const double factor = g.efficiency < target ? 1.0 - g.efficiency / target : 0;
    double op_saving = 0;
    for (const auto& [step, owned_ns] : g.owned_steps) {
      if (step >= n || !work.device_bound[step]) continue;
      j.owned_bound_ns += owned_ns;
      j.roofline_ns += owned_ns * std::min(1.0, g.efficiency);
      const double s = owned_ns * factor;
      j.saving_steps[step] += s;
      op_saving += s;
    }
    j.saving_ns += op_saving;
    if (op_saving > 0) j.ops.emplace_back(op_saving, gi);
  }

  const double min_share = options.Get(kMinSavingShare);
  for (auto& [key, j] : judged) {
    const double share = SafeShare(j.saving_ns, step_total_ns * devices);
    if (j.saving_ns <= 0 || share < min_share) continue;
    std::sort(j.ops.begin(), j.ops.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    const std::string label = Label(j.family, j.dtype);
    const RooflineFamily* fam = nullptr;
    for (const RooflineFamily& f : summary.families) {
      if (f.family == DeviceFamilyName(j.family) && f.dtype == ComputeDtypeName(j.dtype) &&
          (fam == nullptr || f.device_ns_per_step > fam->device_ns_per_step)) {
        fam = &f;
      }
    }
    // The efficiency of the judged ops' time, as one figure.
    const double efficiency = SafeShare(j.roofline_ns, j.owned_bound_ns);
    double memory_ns = 0;
    for (const auto& [saving, gi] : j.ops) {
      if (work.all_ops[gi].bound == "memory") memory_ns += saving;
    }
    const bool memory_bound = memory_ns * 2 > j.saving_ns;
    const double target = FamilyTarget(j.family, options);

    Finding f;
    f.cause = std::string(DeviceFamilyName(j.family));
    if (j.dtype != ComputeDtype::kUnknown) f.cause += "_" + std::string(ComputeDtypeName(j.dtype));
    f.recoverable_ns_per_step =
        static_cast<TimeNs>(j.saving_ns / (static_cast<double>(n) * devices));
    f.recoverable_share = std::min(1.0, share);
    for (double s : j.saving_steps) f.recoverable_ns_steps.push_back(static_cast<TimeNs>(s / devices));
    // The saving rests on the op model, the peak table and a target.
    f.confidence = Confidence::kModelled;
    f.title = fmt::format("{} runs at {} of its roofline (target {}): up to {} of the step ({})",
                          label, Percent(efficiency), Percent(target), Percent(share),
                          summary.device);
    f.message = fmt::format(
        "{} ops take {} per step on the busy time this rule owns (after tensor-cores-idle and "
        "kernel-small-grids; overlapping streams counted once), at {} of the roofline of {} ({} "
        "peaks). At the target efficiency for their sizes ({} for large ops, less for small "
        "ones) they would take {} less per step, in the {} of {} steps the device bounds "
        "(compute kernels busy at least {:.0f}% of the step); a modelled bound from the op "
        "model's FLOPs and bytes.{}",
        label, FormatDurationNs(static_cast<TimeNs>(j.owned_bound_ns / std::max<size_t>(1, n))),
        Percent(efficiency), summary.device, summary.peak_kind, Percent(target),
        FormatDurationNs(f.recoverable_ns_per_step), bound_steps, n, 100 * kDeviceBoundShare,
        rules_internal::StepCaveat(steps));
    f.evidence.push_back({fmt::format("{} time above target {} of step (threshold {})", label,
                                      Percent(share), Percent(min_share)),
                          share, min_share, "share"});
    f.evidence.push_back({fmt::format("efficiency of the judged ops {} (target {} for large ops)",
                                      Percent(efficiency), Percent(target)),
                          efficiency, target, "share"});
    if (fam != nullptr) {
      f.evidence.push_back(
          {fmt::format("{} takes {} of the step; {} of its time is modelled; {:.3g} TFLOP/s, "
                       "{:.3g} TB/s (peaks {:.4g} TFLOP/s, {:.3g} TB/s)",
                       label, Percent(fam->share_of_step), Percent(fam->modelled_share),
                       fam->achieved_tflops, fam->achieved_tbps, fam->peak_tflops,
                       fam->peak_tbps),
           fam->share_of_step, 0, "share"});
    }
    for (size_t i = 0; i < j.ops.size() && i < kMaxTopItems; ++i) {
      const RooflineOp& op = work.all_ops[j.ops[i].second];
      TopItem item;
      item.name = op.name;
      item.total_ns = static_cast<TimeNs>(j.ops[i].first / std::max<size_t>(1, n));
      item.count = op.calls;
      item.detail = fmt::format(
          "{}{}; {:.3g} TFLOP/s, {:.3g} TB/s, {} of its roof ({}-bound, target {}); kernel {}",
          op.params.empty() ? op.shapes : op.params, op.dtype.empty() ? "" : " " + op.dtype,
          op.achieved_tflops, op.achieved_tbps, Percent(std::max(0.0, op.efficiency)), op.bound,
          Percent(SizeClassTarget(target, work.groups[j.ops[i].second].roofline_ns_per_call)),
          op.kernel);
      f.location.top_items.push_back(std::move(item));
    }
    f.fix = Fix(j.family, memory_bound, ctx.job_profile());
    f.location.first_step = steps.steps.front().number;
    f.location.last_step = steps.steps.back().number;
    outcome.findings.push_back(std::move(f));
  }
  // Largest saving first; the engine ranks across rules.
  std::sort(outcome.findings.begin(), outcome.findings.end(),
            [](const Finding& a, const Finding& b) {
              return a.recoverable_ns_per_step > b.recoverable_ns_per_step;
            });
  return outcome;
}

}  // namespace tracelint
