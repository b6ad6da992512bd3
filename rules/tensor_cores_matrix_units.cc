// tensor-cores-idle's mixed-precision finding on matrix units other than
// NVIDIA's Tensor Cores (rules/docs/tensor-cores-idle.md, "AMD and MTIA"):
// AMD Matrix Cores (MFMA, CDNA; WMMA on RDNA3) and MTIA's matrix engines run
// 16-bit and 8-bit GEMMs several times faster than float32. Where the
// dtype of GEMM/conv/attention work is known (the launching op's "Input
// type"), float32 work there is the cause `fp32_matrix_units`. A TPU stays
// "could not judge": XLA picks its precision, and its traces give no op
// dtype to read.
#include "rules/tensor_cores_matrix_units.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/device_activity.h"
#include "analyzer/analysis/interval_set.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/kernel_classify.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/model/accelerator.h"
#include "fmt/format.h"
#include "rules/launch_context.h"

namespace tracelint::rules_internal {
namespace {

constexpr size_t kMaxTopItems = 5;

struct MatrixDevice {
  int device = -1;
  TimeNs busy_ns = 0;   // |kernels| in steps
  TimeNs fp32_ns = 0;   // |float32 GEMM/conv/attention| in steps
  TimeNs low_ns = 0;    // |16/8-bit GEMM/conv/attention| in steps
  TimeNs unknown_ns = 0;  // |GEMM/conv/attention of unknown dtype| in steps
  std::map<std::string, TopItem> ops;  // float32 work by op and shapes
  SliceId worst = kNoIndex;
};

// The dtype class of a dtype the kernel's name states. TF32-style inputs
// (xf32) already run on the matrix units.
DtypeClass DtypeOfName(ComputeDtype dtype) {
  switch (dtype) {
    case ComputeDtype::kFp32: return DtypeClass::kFp32;
    case ComputeDtype::kFp64: return DtypeClass::kFp64;
    case ComputeDtype::kInt8: return DtypeClass::kInt8;
    case ComputeDtype::kFp8:
    case ComputeDtype::kMxfp8:
    case ComputeDtype::kMxfp4:
    case ComputeDtype::kNvfp4: return DtypeClass::kFp8;
    case ComputeDtype::kTf32:
    case ComputeDtype::kBf16:
    case ComputeDtype::kFp16: return DtypeClass::k16Bit;
    case ComputeDtype::kUnknown: break;
  }
  return DtypeClass::kUnknown;
}

// The first entry of "Input type" that names a tensor dtype.
std::string OpDtype(const Timeline& tl, SliceId op) {
  if (op == kNoIndex) return "";
  for (const std::string& item : QuotedItems(ArgText(tl, op, "Input type"))) {
    if (!NormalizeDtype(item).empty()) return item;
  }
  return "";
}

MatrixDevice Measure(AnalysisContext& ctx, const DeviceActivity& da) {
  const Timeline& tl = ctx.timeline();
  const StepSet& steps = ctx.steps();
  const SliceColumns& c = tl.slices();
  MatrixDevice out;
  out.device = da.device;
  out.busy_ns = steps.OverlapNs(da.kernels);
  std::vector<Interval> fp32, low, unknown;
  absl::flat_hash_map<StringId, KernelClass> family_of;
  for (TrackId t = 0; t < tl.tracks().size(); ++t) {
    const Track& track = tl.tracks()[t];
    if (track.kind != TrackKind::kDeviceStream || track.device != da.device) continue;
    auto [begin, end] = tl.track_range(t);
    for (SliceId s = begin; s < end; ++s) {
      if (c.kind[s] != EventKind::kKernel || StepIndexAt(steps, c.ts_ns[s]) < 0) continue;
      auto [it, added] = family_of.try_emplace(c.name[s]);
      if (added) it->second = ClassifyKernel(tl.str(c.name[s]));
      const KernelFamily family = it->second.family;
      if (family != KernelFamily::kGemm && family != KernelFamily::kConv &&
          family != KernelFamily::kAttention) {
        continue;
      }
      const LaunchContext launch = FindLaunchContext(tl, s);
      const std::string dtype_text = OpDtype(tl, launch.op);
      DtypeClass dclass = ClassifyDtype(dtype_text);
      // No op dtype: the one the kernel's name states (rocBLAS/hipBLASLt/
      // Tensile/CK names, kernel_classify.h).
      if (dclass == DtypeClass::kUnknown) dclass = DtypeOfName(it->second.dtype);
      const Interval span{c.ts_ns[s], c.end_ns(s)};
      if (dclass == DtypeClass::kFp64) continue;  // a choice of accuracy
      if (dclass == DtypeClass::kUnknown) {
        unknown.push_back(span);
        continue;
      }
      if (dclass != DtypeClass::kFp32) {
        low.push_back(span);
        continue;
      }
      fp32.push_back(span);
      // Judged from the kernel's name alone, the kernel names the row.
      const std::string op_name =
          std::string(tl.str(c.name[launch.op != kNoIndex ? launch.op : s]));
      const std::string dims =
          launch.op != kNoIndex ? ArgText(tl, launch.op, "Input Dims") : std::string();
      TopItem& item = out.ops[fmt::format("{}|{}", op_name, dims)];
      if (item.count == 0) {
        item.name = op_name;
        item.detail = fmt::format("float32{}{}; kernel {} ({})", dims.empty() ? "" : " ", dims,
                                  tl.str(c.name[s]), KernelFamilyName(family));
      }
      item.total_ns = SaturatingAddNs(item.total_ns, span.length_ns());
      ++item.count;
      if (out.worst == kNoIndex || span.length_ns() > c.dur_ns[out.worst]) out.worst = s;
    }
  }
  auto in_steps = [&steps](std::vector<Interval> spans) {
    return steps.OverlapNs(IntervalSet::FromUnsorted(std::move(spans)));
  };
  out.fp32_ns = in_steps(std::move(fp32));
  out.low_ns = in_steps(std::move(low));
  out.unknown_ns = in_steps(std::move(unknown));
  return out;
}

std::string UnitsName(std::string_view accelerator) {
  return accelerator == "MTIA" ? "MTIA's matrix engines" : "AMD Matrix Cores";
}

std::string Fix(std::string_view accelerator, const JobProfile& job) {
  if (accelerator == "MTIA") {
    return "Run the model's matmuls in float16/bfloat16 (or int8 where accuracy allows) on "
           "MTIA: load the weights in that dtype (model.to(torch.float16)) or run under "
           "torch.autocast for the MTIA device; keep only the layers that need it in "
           "float32.";
  }
  if (!job.is_pytorch()) {
    return "Compute in bfloat16: AMD Matrix Cores run bfloat16/float16 GEMMs several times "
           "faster than float32; use the framework's mixed-precision mode (keep the loss and "
           "the final outputs in float32).";
  }
  if (job.is_inference()) {
    return "Serve the model in bfloat16 on the AMD GPU: load the weights in that dtype "
           "(model.to(torch.bfloat16)) or run under torch.autocast(device_type=\"cuda\", "
           "dtype=torch.bfloat16) (ROCm builds use the \"cuda\" device type); inference "
           "needs no loss scaling.";
  }
  return "Train under torch.autocast(device_type=\"cuda\", dtype=torch.bfloat16) (ROCm builds "
         "use the \"cuda\" device type; bf16 needs no loss scaling): AMD Matrix Cores run "
         "bfloat16 GEMMs and convolutions several times faster than float32. On MI300 "
         "float32 matmuls may also use TF32-like xf32 where the library allows it.";
}

}  // namespace

bool HasMatrixUnitsToJudge(const Timeline& tl, int device) {
  const std::string_view accelerator = AcceleratorName(tl.metadata());
  if (accelerator == "MTIA") return true;
  if (accelerator != "GPU") return false;
  const DeviceInfo* info = tl.metadata().FindDevice(device);
  if (info != nullptr) return EqualsIgnoreCase(info->vendor, "AMD");
  const std::vector<DeviceInfo>& devices = tl.metadata().devices;
  return !devices.empty() && std::all_of(devices.begin(), devices.end(), [](const DeviceInfo& d) {
    return EqualsIgnoreCase(d.vendor, "AMD");
  });
}

RuleOutcome CheckMatrixUnits(AnalysisContext& ctx, const RuleOptions& options,
                             const std::vector<int>& device_ids,
                             const MatrixUnitOptions& names) {
  RuleOutcome outcome;
  const Timeline& tl = ctx.timeline();
  const StepSet& steps = ctx.steps();
  if (!HasCompleteSteps(steps, outcome)) return outcome;
  const std::string accelerator(AcceleratorName(tl.metadata()));
  std::vector<MatrixDevice> measured;
  for (const DeviceActivity& da : ctx.device_activity()) {
    if (std::find(device_ids.begin(), device_ids.end(), da.device) == device_ids.end()) continue;
    measured.push_back(Measure(ctx, da));
  }
  if (measured.empty()) return outcome;
  const MatrixDevice* d = &measured.front();
  for (const MatrixDevice& m : measured) {
    if (m.fp32_ns > d->fp32_ns) d = &m;
  }
  if (d->fp32_ns + d->low_ns + d->unknown_ns <= 0) {
    outcome.applicable = false;
    outcome.not_judged_reason = fmt::format(
        "no kernel on {} {} is named as a GEMM, convolution or attention (its device work does "
        "not say what it computes), so float32 work on {} cannot be told",
        accelerator, d->device, UnitsName(accelerator));
    return outcome;
  }
  const double min_share = options.Get(names.min_share);
  const double speedup = std::max(1.0, options.Get(names.speedup));
  const double share = SafeShare(d->fp32_ns, d->busy_ns);
  const double unknown_share = SafeShare(d->unknown_ns, d->busy_ns);
  if (d->fp32_ns <= 0 || share < min_share) {
    if (unknown_share >= min_share && unknown_share > share) {
      outcome.applicable = false;
      outcome.not_judged_reason = fmt::format(
          "{} of {} busy time is GEMM/conv/attention whose dtype the trace does not say (no "
          "op \"Input type\": record shapes), so float32 work on {} cannot be told",
          Percent(unknown_share), accelerator, UnitsName(accelerator));
    }
    return outcome;
  }
  const int64_t n = static_cast<int64_t>(steps.steps.size());
  const TimeNs step_total_ns = steps.TotalNs();
  const int64_t device_count =
      std::max<int64_t>(1, static_cast<int64_t>(ctx.device_activity().size()));
  double rank_saving_ns = 0;
  for (const MatrixDevice& m : measured) rank_saving_ns += m.fp32_ns * (1.0 - 1.0 / speedup);
  if (SafeShare(d->fp32_ns * (1.0 - 1.0 / speedup), step_total_ns) < options.Get(names.min_step)) {
    return outcome;
  }
  Finding f;
  f.cause = "fp32_matrix_units";
  f.recoverable_ns_per_step =
      static_cast<TimeNs>(rank_saving_ns / static_cast<double>(n * device_count));
  f.recoverable_share =
      SafeShare(rank_saving_ns, static_cast<double>(step_total_ns) * device_count);
  f.confidence = Confidence::kModelled;
  const DeviceInfo* info = tl.metadata().FindDevice(d->device);
  const std::string device_name = info != nullptr && !info->name.empty()
                                      ? info->name
                                      : fmt::format("{} {}", accelerator, d->device);
  f.title = fmt::format("{} of {} busy time is float32 GEMM/conv/attention ({}): {} run 16-bit "
                        "faster",
                        Percent(share), accelerator, device_name, UnitsName(accelerator));
  f.message = fmt::format(
      "On {} {}, GEMM/convolution/attention kernels that compute in float32 run {} per "
      "step ({} per step of such work is already 16-bit or 8-bit). {} run bfloat16/float16 "
      "several times faster than float32; assuming {:g}x (a modelled bound), about {} per "
      "step would be saved{}.",
      accelerator, d->device, FormatDurationNs(d->fp32_ns / n), FormatDurationNs(d->low_ns / n),
      UnitsName(accelerator), speedup, FormatDurationNs(f.recoverable_ns_per_step),
      device_count > 1
          ? fmt::format(" (the mean over the rank's {} devices, as the idle findings are)",
                        device_count)
          : std::string());
  if (d->unknown_ns > 0) {
    f.message += fmt::format(" A further {} per step states no dtype (op or kernel name) and "
                             "was not judged.",
                             FormatDurationNs(d->unknown_ns / n));
  }
  f.message += StepCaveat(steps);
  f.evidence.push_back({fmt::format("float32 GEMM/conv/attention {} of busy time (threshold {})",
                                    Percent(share), Percent(min_share)),
                        share, min_share, "share"});
  f.evidence.push_back({fmt::format("the dtype is the launching op's \"Input type\", else "
                                    "the one the kernel name states ({} per step 16/8-bit, {} "
                                    "per step unknown)",
                                    FormatDurationNs(d->low_ns / n),
                                    FormatDurationNs(d->unknown_ns / n)),
                        SafeShare(d->low_ns, d->busy_ns), 0, "share"});
  f.evidence.push_back({fmt::format("Assumed 16-bit speed-up {:g}x", speedup), speedup, 0,
                        "factor"});
  std::vector<TopItem> items;
  for (const auto& [key, item] : d->ops) items.push_back(item);
  std::sort(items.begin(), items.end(), [](const TopItem& a, const TopItem& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return a.name < b.name;
  });
  if (items.size() > kMaxTopItems) items.resize(kMaxTopItems);
  f.location.top_items = std::move(items);
  f.location.first_step = steps.steps.front().number;
  f.location.last_step = steps.steps.back().number;
  if (d->worst != kNoIndex) {
    f.location.track = StreamName(tl, d->worst);
    f.location.start_ns = tl.slices().ts_ns[d->worst];
    f.location.end_ns = tl.slices().end_ns(d->worst);
  }
  f.fix = Fix(accelerator, ctx.job_profile());
  outcome.findings.push_back(std::move(f));
  return outcome;
}

}  // namespace tracelint::rules_internal
