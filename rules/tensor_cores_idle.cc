#include "rules/tensor_cores_idle.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analyzer/model/accelerator.h"
#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/device_activity.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/interval_set.h"
#include "analyzer/analysis/kernel_classify.h"
#include "analyzer/analysis/roofline.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/base/strings.h"
#include "fmt/format.h"
#include "rules/launch_context.h"
#include "rules/tensor_cores_matrix_units.h"

namespace tracelint {
namespace {

using rules_internal::ArgText;
using rules_internal::FindLaunchContext;
using rules_internal::LaunchContext;
using rules_internal::NormalizeDtype;
using rules_internal::Percent;
using rules_internal::QuotedItems;
using rules_internal::SafeShare;
using rules_internal::StepIndexAt;

constexpr std::string_view kMinNonTcShare = "MinNonTcShare";
constexpr std::string_view kAssumedSpeedup = "AssumedSpeedup";
constexpr std::string_view kMinStepShare = "MinStepShare";
constexpr size_t kMaxTopItems = 5;

// Why a device cannot be judged, or "" when it can.
std::string CannotJudge(const Timeline& tl, int device) {
  std::string_view accelerator = AcceleratorName(tl.metadata());
  if (accelerator != "GPU") {
    // TPUs and MTIA have matrix units of their own, not Tensor Cores.
    return fmt::format("{} {} is not a GPU; Tensor Core use is judged on NVIDIA GPUs only",
                       accelerator, device);
  }
  const DeviceInfo* info = tl.metadata().FindDevice(device);
  if (info == nullptr || !info->has_tensor_cores_known()) {
    return fmt::format("device {} has no device properties (compute capability unknown)",
                       device);
  }
  if (!rules_internal::IsNvidia(*info)) {
    return fmt::format("device {} ({}) is not an NVIDIA GPU; Tensor Core use is judged on "
                       "NVIDIA devices only",
                       device, info->name.empty() ? info->vendor : info->name);
  }
  if (info->compute_major < 7) {
    return fmt::format("device {} ({}, compute capability {}.{}) has no Tensor Cores", device,
                       info->name, info->compute_major, info->compute_minor);
  }
  return "";
}

std::string_view Generation(const DeviceInfo& info) {
  const int cc = info.compute_major * 10 + info.compute_minor;
  if (cc >= 100) return "Blackwell";
  if (cc >= 90) return "Hopper";
  if (cc == 89) return "Ada";
  if (cc >= 80) return "Ampere";
  if (cc == 75) return "Turing";
  return "Volta";
}

// The first entry of "Input type" that names a tensor dtype, as written
// ("float", "c10::BFloat16"), which is what ClassifyKernel expects.
std::string OpDtypeText(const Timeline& tl, SliceId op) {
  for (const std::string& item : QuotedItems(ArgText(tl, op, "Input type"))) {
    if (!NormalizeDtype(item).empty()) return item;
  }
  return "";
}

// True when some dimension in an "Input Dims" list is not a multiple of 8,
// which keeps cuBLAS off Tensor Cores for 16-bit operands on older versions.
bool HasDimNotMultipleOf8(std::string_view dims) {
  int64_t value = -1;
  for (char ch : dims) {
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      value = (value < 0 ? 0 : value * 10) + (ch - '0');
      continue;
    }
    if (value > 1 && value % 8 != 0) return true;
    value = -1;
  }
  return value > 1 && value % 8 != 0;
}

enum class DtypeGroup : uint8_t { kFp32 = 0, kLowPrecision, kUnknown };

struct Group {
  TopItem item;
  DtypeGroup dtype = DtypeGroup::kUnknown;
  TimeNs longest_kernel_ns = -1;
  std::string kernel;
  std::string dims;
};

struct DeviceTc {
  int device = -1;
  const DeviceInfo* info = nullptr;
  // No device properties: the compute capability is the floor the kernel
  // names prove (token), exact only for Hopper/Blackwell prefixes.
  bool arch_from_names = false;
  bool arch_exact = false;
  std::string arch_token;
  TimeNs busy_ns = 0;        // |kernels| in steps
  TimeNs candidate_ns = 0;   // |GEMM/conv/attention judged| in steps
  TimeNs tc_ns = 0;          // ... on Tensor Cores
  TimeNs non_tc_ns = 0;      // ... not on Tensor Cores
  TimeNs unjudged_ns = 0;    // neither name nor dtype decides
  TimeNs unjudged_no_op_ns = 0;  // ... launched outside any op: no dtype to read
  TimeNs unjudged_fp32_ns = 0;   // ... float32, which may run as TF32
  TimeNs fp64_ns = 0;        // not candidates
  std::array<TimeNs, 3> non_tc_by_dtype{};  // summed durations, by DtypeGroup
  std::map<std::string, Group> groups;
  SliceId worst = kNoIndex;
};

DeviceTc MeasureDevice(AnalysisContext& ctx, const DeviceActivity& da, const DeviceInfo* info,
                       const ArchitectureHint* arch = nullptr) {
  const Timeline& tl = ctx.timeline();
  const StepSet& steps = ctx.steps();
  const SliceColumns& c = tl.slices();
  DeviceTc out;
  out.device = da.device;
  out.info = info;
  if (arch != nullptr) {
    out.arch_from_names = true;
    out.arch_exact = arch->exact;
    out.arch_token = arch->token;
  }
  const bool has_tf32 = info->compute_major >= 8;
  // A floor below Ampere from kernel names does not prove the GPU lacks TF32.
  const bool tf32_known = has_tf32 || arch == nullptr || arch->exact;
  std::vector<Interval> tc, non_tc, unjudged, unjudged_no_op, unjudged_fp32, fp64;
  absl::flat_hash_map<std::pair<StringId, std::string>, KernelClass> classified;
  absl::flat_hash_map<StringId, std::string> dtype_by_input_type;
  out.busy_ns = steps.OverlapNs(da.kernels);
  for (TrackId t = 0; t < tl.tracks().size(); ++t) {
    const Track& track = tl.tracks()[t];
    if (track.kind != TrackKind::kDeviceStream || track.device != da.device) continue;
    auto [begin, end] = tl.track_range(t);
    for (SliceId s = begin; s < end; ++s) {
      if (c.kind[s] != EventKind::kKernel || StepIndexAt(steps, c.ts_ns[s]) < 0) continue;
      const std::string_view name = tl.str(c.name[s]);
      const LaunchContext launch = FindLaunchContext(tl, s);
      // Ops repeat their "Input type" text every step: parse each text once.
      std::string dtype_text;
      const Arg* input_type = launch.op == kNoIndex ? nullptr : tl.FindArg(launch.op, "Input type");
      if (input_type != nullptr && input_type->value.type == ArgValue::Type::kString) {
        auto [known, added] = dtype_by_input_type.try_emplace(input_type->value.s);
        if (added) known->second = OpDtypeText(tl, launch.op);
        dtype_text = known->second;
      } else {
        dtype_text = OpDtypeText(tl, launch.op);
      }
      // Kernel names and op dtypes repeat every step: classify each pair once.
      auto [cached, inserted] = classified.try_emplace(std::make_pair(c.name[s], dtype_text));
      if (inserted) cached->second = ClassifyKernel(name, dtype_text);
      const KernelClass kc = cached->second;
      if (kc.family != KernelFamily::kGemm && kc.family != KernelFamily::kConv &&
          kc.family != KernelFamily::kAttention) {
        continue;
      }
      const Interval span{c.ts_ns[s], c.end_ns(s)};
      const DtypeClass dclass = ClassifyDtype(dtype_text);
      // Double precision is a choice of accuracy, not a missed speed-up.
      if (dclass == DtypeClass::kFp64 ||
          (dclass == DtypeClass::kUnknown && ContainsIgnoreCase(name, "dgemm"))) {
        fp64.push_back(span);
        continue;
      }
      TensorCoreUse tc_use = kc.tc;
      // Without TF32 (before Ampere) an fp32 op cannot reach Tensor Cores.
      if (tc_use == TensorCoreUse::kUnknown && dclass == DtypeClass::kFp32 && !has_tf32 &&
          tf32_known) {
        tc_use = TensorCoreUse::kNo;
      }
      if (tc_use == TensorCoreUse::kUnknown) {
        unjudged.push_back(span);
        if (launch.op == kNoIndex) unjudged_no_op.push_back(span);
        if (dclass == DtypeClass::kFp32) unjudged_fp32.push_back(span);
        continue;
      }
      if (tc_use == TensorCoreUse::kYes) {
        tc.push_back(span);
        continue;
      }
      non_tc.push_back(span);
      const DtypeGroup group = dclass == DtypeClass::kFp32      ? DtypeGroup::kFp32
                               : dclass == DtypeClass::kUnknown ? DtypeGroup::kUnknown
                                                                : DtypeGroup::kLowPrecision;
      TimeNs& by_dtype_ns = out.non_tc_by_dtype[static_cast<int>(group)];
      by_dtype_ns = SaturatingAddNs(by_dtype_ns, span.length_ns());
      const std::string op_name =
          launch.op != kNoIndex ? std::string(tl.str(c.name[launch.op])) : std::string(name);
      const std::string dims = ArgText(tl, launch.op, "Input Dims");
      const std::string dtype = NormalizeDtype(dtype_text);
      Group& g = out.groups[fmt::format("{}|{}|{}", op_name, dims, dtype)];
      if (g.item.count == 0) {
        g.item.name = op_name;
        g.dims = dims;
        g.dtype = group;
      }
      g.item.total_ns = SaturatingAddNs(g.item.total_ns, span.length_ns());
      ++g.item.count;
      if (span.length_ns() > g.longest_kernel_ns) {
        g.longest_kernel_ns = span.length_ns();
        g.kernel = std::string(name);
        g.item.detail = fmt::format(
            "{}{}{}; kernel {} ({})", dtype.empty() ? "dtype unknown" : dtype,
            dims.empty() ? "" : " ", dims, g.kernel, KernelFamilyName(kc.family));
      }
      if (out.worst == kNoIndex || span.length_ns() > c.dur_ns[out.worst]) out.worst = s;
    }
  }
  auto in_steps = [&steps](std::vector<Interval> spans) {
    return steps.OverlapNs(IntervalSet::FromUnsorted(std::move(spans)));
  };
  out.tc_ns = in_steps(tc);
  out.non_tc_ns = in_steps(non_tc);
  out.unjudged_ns = in_steps(unjudged);
  out.unjudged_no_op_ns = in_steps(std::move(unjudged_no_op));
  out.unjudged_fp32_ns = in_steps(std::move(unjudged_fp32));
  out.fp64_ns = in_steps(fp64);
  out.candidate_ns = in_steps([&] {
    std::vector<Interval> all = tc;
    all.insert(all.end(), non_tc.begin(), non_tc.end());
    return all;
  }());
  return out;
}

// Fix texts by job (docs: rules/docs/tensor-cores-idle.md lists them).
// Inference needs no loss scaling and no training wording; TF and JAX have
// their own mixed-precision switches.
std::string Fix(const DeviceTc& d, DtypeGroup dominant, bool odd_dims, const JobProfile& job) {
  const bool has_tf32 = d.info->compute_major >= 8;
  const bool has_bf16 = has_tf32;
  std::string fix;
  if (dominant == DtypeGroup::kLowPrecision) {
    fix = "These ops are already 16-bit but miss Tensor Cores: make GEMM/conv dimensions "
          "(batch, hidden, channels, sequence) multiples of 8 and keep cuBLAS/cuDNN current.";
  } else if (job.framework == JobFramework::kTensorFlow) {
    fix = fmt::format(
        "Enable Keras mixed precision: tf.keras.mixed_precision.set_global_policy(\"{}\"){}; "
        "keep the final layer's outputs in float32.",
        has_bf16 ? "mixed_bfloat16" : "mixed_float16",
        has_tf32 ? " (TF32 is on by default for float32 matmuls: check "
                   "tf.config.experimental.enable_tensor_float_32_execution was not turned off)"
                 : "");
  } else if (job.framework == JobFramework::kJax) {
    fix = fmt::format(
        "Compute in {0}: run layers with dtype=jnp.{0} (flax/equinox; keep params in float32){1}.",
        has_bf16 ? "bfloat16" : "float16",
        has_tf32 ? ", or let float32 matmuls use TF32 with "
                   "jax.default_matmul_precision(\"tensorfloat32\")"
                 : "");
  } else if (!job.is_pytorch()) {
    fix = fmt::format(
        "Compute in {0}: run the matmuls and convolutions in {0} with the framework's "
        "mixed-precision mode{1}{2}.",
        has_bf16 ? "bfloat16" : "float16",
        job.is_inference() ? "" : ", keeping the loss and the final outputs in float32",
        has_tf32 ? ", or at least let float32 matmuls and convolutions use TF32" : "");
  } else if (job.is_inference()) {
    fix = fmt::format(
        "Serve the model in {}: load the weights in that dtype (model.to(torch.{})) or run "
        "under torch.autocast(device_type=\"cuda\", dtype=torch.{}); inference needs no loss "
        "scaling.{}",
        has_bf16 ? "bfloat16" : "float16", has_bf16 ? "bfloat16" : "float16",
        has_bf16 ? "bfloat16" : "float16",
        has_tf32 ? " For layers that must stay float32, enable TF32: "
                   "torch.backends.cuda.matmul.allow_tf32 = True (or "
                   "torch.set_float32_matmul_precision(\"high\"))."
                 : "");
  } else if (has_tf32) {
    fix = "Train under torch.autocast(device_type=\"cuda\", dtype=torch.bfloat16) (bf16 needs "
          "no loss scaling), or at least enable TF32 for float32 matmuls and convolutions: "
          "torch.backends.cuda.matmul.allow_tf32 = True and torch.backends.cudnn.allow_tf32 = "
          "True (or torch.set_float32_matmul_precision(\"high\")).";
  } else {
    fix = fmt::format(
        "Train under torch.autocast(device_type=\"cuda\", dtype=torch.float16) with "
        "torch.amp.GradScaler(\"cuda\"): {} GPUs (compute capability {}.{}) have float16 "
        "Tensor Cores but no TF32 or bfloat16.",
        Generation(*d.info), d.info->compute_major, d.info->compute_minor);
  }
  if (odd_dims && dominant != DtypeGroup::kLowPrecision) {
    fix += " Some shapes are not multiples of 8: pad them so Tensor Core kernels apply.";
  }
  return fix;
}

}  // namespace

std::vector<RuleOptionSpec> TensorCoresIdleRule::options() const {
  return {
      {std::string(kMinNonTcShare), 0.10, "share",
       "Fire when GEMM/conv/attention time without Tensor Cores reaches this share of GPU "
       "busy time.",
       0, 1},
      {std::string(kAssumedSpeedup), 2, "factor",
       "Speed-up assumed for those kernels on Tensor Cores (FP32 -> TF32/BF16); the saving is "
       "time x (1 - 1/factor).",
       1, 100},
      {std::string(kMinStepShare), 0.01, "share",
       "Stay silent when the modelled saving is below this share of the step (the GPU is "
       "mostly idle, so Tensor Cores would not shorten the step noticeably).",
       0, 1},
  };
}

RuleOutcome TensorCoresIdleRule::Check(AnalysisContext& ctx, const RuleOptions& options) const {
  RuleOutcome outcome;
  const Timeline& tl = ctx.timeline();
  const std::vector<DeviceActivity>& devices = ctx.device_activity();
  std::vector<std::string> reasons;
  std::vector<DeviceTc> measured;
  const StepSet& steps = ctx.steps();
  std::vector<int> matrix_devices;  // AMD Matrix Cores, MTIA
  // Devices without properties described by their kernels' names (issue of
  // traces without deviceProperties): stable storage for their DeviceInfo.
  std::vector<DeviceInfo> inferred;
  inferred.reserve(devices.size());
  for (const DeviceActivity& da : devices) {
    if (da.kernel_count == 0) continue;
    std::string reason = CannotJudge(tl, da.device);
    const DeviceInfo* info = tl.metadata().FindDevice(da.device);
    if (!reason.empty() && AcceleratorName(tl.metadata()) == "GPU" &&
        (info == nullptr || !info->has_tensor_cores_known())) {
      const ArchitectureHint& arch = ctx.roofline().work.architecture;
      if (arch.compute_major >= 7) {
        DeviceInfo d = info != nullptr ? *info : DeviceInfo();
        d.id = da.device;
        d.vendor = "NVIDIA";  // the prefixes are cuBLAS/cuDNN/CUTLASS's
        d.compute_major = arch.compute_major;
        d.compute_minor = arch.compute_minor;
        inferred.push_back(std::move(d));
        measured.push_back(MeasureDevice(ctx, da, &inferred.back(), &arch));
        continue;
      }
    }
    if (!reason.empty()) {
      if (rules_internal::HasMatrixUnitsToJudge(tl, da.device)) {
        matrix_devices.push_back(da.device);
      }
      reasons.push_back(std::move(reason));
      continue;
    }
    measured.push_back(MeasureDevice(ctx, da, info));
  }
  if (measured.empty() && !matrix_devices.empty()) {
    return rules_internal::CheckMatrixUnits(ctx, options, matrix_devices,
                                            {kMinNonTcShare, kAssumedSpeedup, kMinStepShare});
  }
  if (measured.empty()) {
    outcome.applicable = false;
    outcome.not_judged_reason =
        reasons.empty() ? "no GPU kernels in this trace (CPU-only or device not traced)"
                        : reasons.front();
    return outcome;
  }
  if (!rules_internal::HasCompleteSteps(steps, outcome)) return outcome;
  const DeviceTc* d = &measured.front();
  for (const DeviceTc& m : measured) {
    if (m.non_tc_ns > d->non_tc_ns) d = &m;
  }
  const double min_share = options.Get(kMinNonTcShare);
  const double speedup = std::max(1.0, options.Get(kAssumedSpeedup));
  const double share = SafeShare(d->non_tc_ns, d->busy_ns);
  const double unjudged_share = SafeShare(d->unjudged_ns, d->busy_ns);
  if (d->non_tc_ns <= 0 || share < min_share) {
    if (unjudged_share >= min_share && unjudged_share > share) {
      outcome.applicable = false;
      // Say the reason that holds for most of it: the fix differs (record
      // shapes; launch through a framework op; check the TF32 setting).
      const char* why =
          d->unjudged_no_op_ns * 2 >= d->unjudged_ns
              ? "most of it launched outside any framework op, so no op dtype (a custom or "
                "extension kernel)"
          : d->unjudged_fp32_ns * 2 >= d->unjudged_ns ? "float32 that may run as TF32"
                                                      : "no shapes recorded";
      outcome.not_judged_reason = fmt::format(
          "{} of GPU busy time is GEMM/conv/attention whose Tensor Core use neither the kernel "
          "name nor the op dtype decides ({})",
          Percent(unjudged_share), why);
    }
    return outcome;
  }

  const int64_t n = static_cast<int64_t>(steps.steps.size());
  const TimeNs step_total_ns = steps.TotalNs();
  const double saving_ns = d->non_tc_ns * (1.0 - 1.0 / speedup);
  if (SafeShare(saving_ns, step_total_ns) < options.Get(kMinStepShare)) return outcome;
  const auto& by = d->non_tc_by_dtype;
  DtypeGroup dominant = DtypeGroup::kFp32;
  if (by[1] > by[0] && by[1] >= by[2]) dominant = DtypeGroup::kLowPrecision;
  if (by[2] > by[0] && by[2] > by[1]) dominant = DtypeGroup::kUnknown;

  // Fired by the worst device (the message names it), claimed as the mean
  // over the rank's devices like the idle findings: one device's FP32 GEMMs
  // beside another device's idle time must not add up past the step.
  const int64_t device_count = std::max<int64_t>(1, static_cast<int64_t>(devices.size()));
  double rank_saving_ns = 0;
  for (const DeviceTc& m : measured) rank_saving_ns += m.non_tc_ns * (1.0 - 1.0 / speedup);
  Finding f;
  f.cause = dominant == DtypeGroup::kLowPrecision ? "low_precision_no_tensor_cores"
            : dominant == DtypeGroup::kFp32       ? "fp32_no_tensor_cores"
                                                  : "no_tensor_cores";
  f.recoverable_ns_per_step =
      static_cast<TimeNs>(rank_saving_ns / static_cast<double>(n * device_count));
  f.recoverable_share =
      SafeShare(rank_saving_ns, static_cast<double>(step_total_ns) * device_count);
  // Without the op dtype the verdict rests on kernel names alone.
  f.confidence = dominant == DtypeGroup::kUnknown ? Confidence::kInferred : Confidence::kModelled;
  const DeviceInfo& info = *d->info;
  const std::string floor =
      d->arch_from_names ? fmt::format(" {}from kernel names", d->arch_exact ? "" : "or newer, ")
                         : std::string();
  f.title = fmt::format(
      "{} of GPU busy time is GEMM/conv/attention without Tensor Cores ({}, {} sm_{}{}{})",
      Percent(share), info.name.empty() ? fmt::format("device {}", d->device) : info.name,
      Generation(info), info.compute_major, info.compute_minor, floor);
  f.message = fmt::format(
      "On device {}, GEMM/convolution/attention kernels run {} per step, {} of it on Tensor "
      "Cores and {} on CUDA cores. Assuming Tensor Cores make them {:g}x faster (a modelled "
      "bound), about {} per step would be saved{}. ",
      d->device, FormatDurationNs(d->candidate_ns / n), FormatDurationNs(d->tc_ns / n),
      FormatDurationNs(d->non_tc_ns / n), speedup, FormatDurationNs(f.recoverable_ns_per_step),
      device_count > 1
          ? fmt::format(" (the mean over the rank's {} devices, as the idle findings are)",
                        device_count)
          : std::string());
  if (by[2] > 0) {
    f.message += fmt::format(
        "{} per step of it was judged from kernel names alone (no op dtype: shapes not "
        "recorded or no launch link). ",
        FormatDurationNs(by[2] / n));
  }
  if (d->unjudged_ns > 0) {
    f.message += fmt::format(
        "A further {} per step could not be judged (the name does not say and the dtype does "
        "not decide). ",
        FormatDurationNs(d->unjudged_ns / n));
  }
  f.message += rules_internal::StepCaveat(steps);
  while (!f.message.empty() && f.message.back() == ' ') f.message.pop_back();
  f.evidence.push_back({fmt::format("GEMM/conv/attention without Tensor Cores {} of busy time "
                                    "(threshold {})",
                                    Percent(share), Percent(min_share)),
                        share, min_share, "share"});
  f.evidence.push_back({fmt::format("Tensor Core eligible time {} of busy time, {} of it on "
                                    "Tensor Cores",
                                    Percent(SafeShare(d->candidate_ns, d->busy_ns)),
                                    Percent(SafeShare(d->tc_ns, d->candidate_ns))),
                        SafeShare(d->tc_ns, d->candidate_ns), 0, "share"});
  f.evidence.push_back({fmt::format("Compute capability {}{}.{} ({}){}",
                                    d->arch_from_names && !d->arch_exact ? ">= " : "",
                                    info.compute_major, info.compute_minor, Generation(info),
                                    d->arch_from_names
                                        ? fmt::format(", from the kernel names ({}); the trace "
                                                      "has no device properties",
                                                      d->arch_token)
                                        : std::string()),
                        info.compute_major + info.compute_minor / 10.0, 7.0, "count"});
  f.evidence.push_back({fmt::format("Assumed Tensor Core speed-up {:g}x", speedup), speedup, 0,
                        "factor"});

  std::vector<Group> groups;
  bool odd_dims = false;
  for (const auto& [key, g] : d->groups) {
    groups.push_back(g);
    odd_dims |= HasDimNotMultipleOf8(g.dims);
  }
  std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    if (a.item.total_ns != b.item.total_ns) return a.item.total_ns > b.item.total_ns;
    if (a.item.name != b.item.name) return a.item.name < b.item.name;
    return a.item.detail < b.item.detail;
  });
  for (size_t i = 0; i < groups.size() && i < kMaxTopItems; ++i) {
    f.location.top_items.push_back(groups[i].item);
  }
  f.fix = Fix(*d, dominant, odd_dims, ctx.job_profile());
  f.location.first_step = steps.steps.front().number;
  f.location.last_step = steps.steps.back().number;
  if (d->worst != kNoIndex) {
    f.location.track = rules_internal::StreamName(tl, d->worst);
    f.location.start_ns = tl.slices().ts_ns[d->worst];
    f.location.end_ns = tl.slices().end_ns(d->worst);
    const SliceId launch = tl.slices().launch[d->worst];
    if (launch != kNoIndex) f.location.python_stack = rules_internal::PythonStack(tl, launch, 8);
  }
  outcome.findings.push_back(std::move(f));
  return outcome;
}

}  // namespace tracelint
