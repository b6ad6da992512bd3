// From the collection pass's sums to the roofline (roofline.h): peaks,
// rates, bounds and efficiencies per family and per op, and the modelled
// FLOP utilization.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/device_peaks.h"
#include "analyzer/analysis/roofline.h"
#include "analyzer/analysis/roofline_internal.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/model/accelerator.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

using roofline_internal::Collected;
using roofline_internal::FamilyAcc;
using roofline_internal::GroupAcc;

bool IsMatrix(DeviceFamily f) {
  return f == DeviceFamily::kGemm || f == DeviceFamily::kGroupedGemm ||
         f == DeviceFamily::kAttention || f == DeviceFamily::kConvFwd ||
         f == DeviceFamily::kConvBwd;
}

// The peaks work of `dtype` in `family` is measured against. TPUs compute
// matrix work in bf16 whatever XLA's op says, so an unknown dtype there is
// bf16.
PeakChoice PeakFor(const DevicePeak* peak, DeviceFamily family, ComputeDtype dtype) {
  if (peak == nullptr) return {};
  const bool matrix = IsMatrix(family);
  if (matrix && dtype == ComputeDtype::kUnknown && peak->vendor == "Google") {
    dtype = ComputeDtype::kBf16;
  }
  return ChoosePeak(*peak, dtype, matrix);
}

// Rates in TFLOP/s and TB/s from FLOPs or bytes over nanoseconds.
double PerNsToTera(double amount, double ns) { return ns > 0 ? amount / ns / 1e3 : 0; }

struct Roof {
  std::string bound;
  double efficiency = -1;
  // Above the roof: the model or the peak does not fit these kernels, so no
  // efficiency is given ("compute" or "memory": which roof was passed).
  std::string above;
};

// Roofline time / measured time = max(compute utilization, bandwidth
// utilization): the efficiency against the roof at the work's intensity.
// Kernels cannot beat the roof, so a rate above it means the model counts
// more work than they do (Winograd and FFT convolutions, masked attention),
// the dtype's peak is not the one they ran at, or (memory) the data came
// from cache: the number would be wrong, and is withheld.
Roof Judge(double achieved_tflops, double achieved_tbps, bool flops_known, bool bytes_known,
           const PeakChoice& p, bool matrix) {
  Roof r;
  const double compute = flops_known && p.tflops > 0 ? achieved_tflops / p.tflops : -1;
  const double memory = bytes_known && p.tbps > 0 ? achieved_tbps / p.tbps : -1;
  if (matrix && compute < 0) return r;  // matrix work needs its compute peak
  if (compute < 0 && memory < 0) return r;
  if (compute > 1 || memory > 1) {
    r.above = compute > 1 ? "compute" : "memory";
    return r;
  }
  r.efficiency = std::max(compute, memory);
  r.bound = compute >= memory ? "compute" : "memory";
  return r;
}

std::string AboveRoofNote(const RooflineFamily& f, const std::string& above) {
  if (above == "compute") {
    return fmt::format(
        "{}: {:.3g} TFLOP/s is above its {:.3g} TFLOP/s peak, so the op model counts more work "
        "than these kernels do (Winograd/FFT convolutions, masking) or they run at a faster "
        "precision than their dtype says: no efficiency is given",
        FamilyLabel(f), f.achieved_tflops, f.peak_tflops);
  }
  return fmt::format(
      "{}: {:.3g} TB/s is above the {:.3g} TB/s memory bandwidth, so its data came from cache: "
      "no efficiency is given",
      FamilyLabel(f), f.achieved_tbps, f.peak_tbps);
}

}  // namespace

std::string FamilyLabel(const RooflineFamily& f) {
  std::string name = f.family == "gemm"           ? "GEMM"
                     : f.family == "grouped_gemm" ? "grouped GEMM"
                     : f.family == "conv_fwd"     ? "conv fwd"
                     : f.family == "conv_bwd"     ? "conv bwd"
                     : f.family == "copy"         ? "copies"
                                                  : f.family;
  if (!f.variant.empty()) name += fmt::format(" ({})", f.variant);
  if (!f.dtype.empty() && f.compute) name += " " + f.dtype;
  return name;
}

std::string DominantFamilyText(const RankRoofline& r) {
  const RooflineFamily* top = nullptr;
  for (const RooflineFamily& f : r.families) {
    if (f.compute && (top == nullptr || f.device_ns_per_step > top->device_ns_per_step)) top = &f;
  }
  if (top == nullptr || top->device_ns_per_step <= 0) return "";
  std::string text = fmt::format("{} {:.0f}% of the step", FamilyLabel(*top),
                                 100 * top->share_of_step);
  if (top->efficiency >= 0) {
    text += fmt::format(" at {:.0f}% of {}", 100 * top->efficiency,
                        r.peak_kind == "max achievable" ? "its max achievable" : "peak");
  } else if (top->modelled_share <= 0) {
    text += " (not modelled)";
  } else if (!r.no_peak_reason.empty()) {
    text += " (no peak for this device)";
  }
  return text;
}

RooflineAnalysis ComputeRoofline(AnalysisContext& ctx) {
  RooflineAnalysis out;
  RankRoofline& r = out.summary;
  RooflineWork& w = out.work;
  const Timeline& tl = ctx.timeline();
  const StepSet& steps = ctx.steps();
  const size_t n = steps.steps.size();
  r.steps = static_cast<int64_t>(n);
  for (const Step& st : steps.steps) r.step_numbers.push_back(st.number);
  if (n == 0 || ctx.device_activity().empty()) return out;
  Collected col = roofline_internal::Collect(ctx);
  r.devices = static_cast<int>(col.devices.size());
  w.device_count = r.devices;
  const double total_step_ns = static_cast<double>(steps.TotalNs());
  r.step_ns = total_step_ns / static_cast<double>(n);
  double busy = 0;
  for (double b : col.busy_ns) busy += b;
  r.busy_ns_per_step = busy / static_cast<double>(n);
  w.compute_busy_ns = col.compute_busy_ns;
  w.device_bound.assign(n, false);
  const double devices = std::max(1, r.devices);
  for (size_t i = 0; i < n; ++i) {
    const double step_ns = static_cast<double>(steps.steps[i].duration_ns());
    w.device_bound[i] = col.compute_busy_ns[i] >= kDeviceBoundShare * step_ns * devices;
  }

  // The device's peaks: one table entry for every device with activity.
  const DevicePeak* peak = nullptr;
  bool any_info = false;
  for (int d : col.devices) {
    const DeviceInfo* info = tl.metadata().FindDevice(d);
    if (info == nullptr || info->name.empty()) continue;
    any_info = true;
    const DevicePeak* p = FindDevicePeak(info->name, info->total_memory_bytes);
    if (p == nullptr) {
      r.no_peak_reason = fmt::format("no peak table entry for \"{}\"", info->name);
      peak = nullptr;
      break;
    }
    if (peak != nullptr && p != peak) {
      r.no_peak_reason = "the rank's devices differ";
      peak = nullptr;
      break;
    }
    peak = p;
    r.device_in_trace = info->name;
  }
  w.architecture = col.architecture;
  if (col.architecture.compute_major >= 0) {
    r.architecture = fmt::format("compute capability {}{}.{} ({} kernels)",
                                 col.architecture.exact ? "" : ">= ",
                                 col.architecture.compute_major, col.architecture.compute_minor,
                                 col.architecture.token);
  }
  if (!any_info && r.no_peak_reason.empty()) {
    peak = FindDevicePeakForArchitecture(col.architecture);
    if (peak == nullptr) {
      r.no_peak_reason =
          col.architecture.compute_major >= 0
              ? fmt::format("the trace names no device (no deviceProperties), and its kernel "
                            "names show only an architecture, {}, which several devices share",
                            r.architecture)
              : std::string("the trace names no device (no deviceProperties)");
    }
  }
  if (peak != nullptr) {
    r.device = std::string(peak->name);
    r.peak_kind = peak->achievable_tbps > 0 ? "max achievable" : "datasheet";
    w.has_peak = true;
  } else {
    r.device_in_trace.clear();
    if (r.no_peak_reason.empty()) r.no_peak_reason = "the device is unknown";
  }

  // Families.
  std::vector<std::string> above_roof;  // notes, in the families' order
  double matrix_ns = 0, matrix_modelled_ns = 0, matrix_flops = 0;
  const RooflineFamily* dominant_matrix = nullptr;
  for (const FamilyAcc& a : col.families) {
    RooflineFamily f;
    f.family = std::string(DeviceFamilyName(a.family));
    f.dtype = std::string(ComputeDtypeName(a.dtype));
    f.variant = std::string(AttentionKindName(a.attention));
    f.compute = IsComputeFamily(a.family);
    f.matrix = IsMatrix(a.family);
    double total = 0;
    for (double ns : a.device_ns_steps) total += ns;
    if (total <= 0) continue;
    f.device_ns_steps = a.device_ns_steps;
    f.device_ns_per_step = total / static_cast<double>(n);
    f.flops_per_step = a.flops / static_cast<double>(n);
    f.bytes_per_step = a.bytes / static_cast<double>(n);
    f.modelled_ns_per_step = a.modelled_ns / static_cast<double>(n);
    f.share_of_step = total / (total_step_ns * devices);
    f.share_of_busy = busy > 0 ? total / busy : 0;
    f.modelled_share = a.modelled_ns / total;
    f.achieved_tflops = PerNsToTera(a.flops, a.modelled_ns);
    f.achieved_tbps = PerNsToTera(a.bytes, a.bytes_known_ns);
    // Communication, copies and memset have no roofline of their own.
    const PeakChoice p = f.compute ? PeakFor(peak, a.family, a.dtype) : PeakChoice();
    f.peak_tflops = p.tflops;
    f.peak_tbps = p.tbps;
    if (a.modelled_ns > 0) {
      const Roof roof = Judge(f.achieved_tflops, f.achieved_tbps, a.flops > 0,
                              a.bytes_known_ns > 0, p, f.matrix);
      f.bound = roof.bound;
      f.efficiency = roof.efficiency;
      if (!roof.above.empty()) above_roof.push_back(AboveRoofNote(f, roof.above));
    }
    r.families.push_back(std::move(f));
  }
  std::stable_sort(r.families.begin(), r.families.end(), [](const auto& a, const auto& b) {
    return a.device_ns_per_step > b.device_ns_per_step;
  });
  for (const RooflineFamily& f : r.families) {
    if (!f.matrix) continue;
    matrix_ns += f.device_ns_per_step;
    matrix_modelled_ns += f.modelled_ns_per_step;
    matrix_flops += f.flops_per_step;
    if (dominant_matrix == nullptr) dominant_matrix = &f;
  }

  // Ops.
  int ops_above_roof = 0;
  for (GroupAcc& g : col.groups) {
    RooflineOp op = std::move(g.op);
    op.family = std::string(DeviceFamilyName(g.family));
    op.dtype = std::string(ComputeDtypeName(g.dtype));
    op.device_ns_per_step = g.raw_ns / static_cast<double>(n);
    RooflineGroup group;
    group.family = g.family;
    group.dtype = g.dtype;
    if (g.model.has_value() && g.modelled_calls > 0 && g.modelled_raw_ns > 0) {
      const OpModel& m = *g.model;
      op.modelled = true;
      op.from_kineto_flops = m.from_kineto_flops;
      op.params = m.params;
      op.flops_per_call = m.flops;
      op.bytes_per_call = m.bytes;
      const double calls = static_cast<double>(g.modelled_calls);
      op.achieved_tflops = PerNsToTera(m.flops * calls, g.modelled_raw_ns);
      if (m.bytes >= 0) {
        op.achieved_tbps = PerNsToTera(m.bytes * calls, g.modelled_raw_ns);
        if (m.bytes > 0) op.intensity = m.flops / m.bytes;
      }
      // The kernels' dtype decides the peak (an fp32 op may run as TF32).
      const ComputeDtype dtype = g.dtype != ComputeDtype::kUnknown ? g.dtype : m.dtype;
      const PeakChoice p = PeakFor(peak, g.family, dtype);
      op.peak_tflops = p.tflops;
      op.peak_tbps = p.tbps;
      const Roof roof = Judge(op.achieved_tflops, op.achieved_tbps, m.flops > 0, m.bytes >= 0, p,
                              IsMatrix(g.family));
      op.bound = roof.bound;
      op.efficiency = roof.efficiency;
      if (!roof.above.empty()) ++ops_above_roof;
      group.efficiency = roof.efficiency;
      group.flops_per_call = m.flops;
      group.bytes_per_call = m.bytes;
      const double compute_ns = p.tflops > 0 ? m.flops / (p.tflops * 1e3) : 0;
      const double memory_ns = p.tbps > 0 && m.bytes > 0 ? m.bytes / (p.tbps * 1e3) : 0;
      group.roofline_ns_per_call = std::max(compute_ns, memory_ns);
    }
    group.owned_steps = std::move(g.owned_steps);
    w.all_ops.push_back(std::move(op));
    w.groups.push_back(std::move(group));
  }
  // Largest first; the groups follow their ops.
  std::vector<size_t> order(w.all_ops.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return w.all_ops[a].device_ns_per_step > w.all_ops[b].device_ns_per_step;
  });
  std::vector<RooflineOp> ops;
  std::vector<RooflineGroup> groups;
  for (size_t i : order) {
    ops.push_back(std::move(w.all_ops[i]));
    groups.push_back(std::move(w.groups[i]));
    groups.back().op = ops.size() - 1;
  }
  w.all_ops = std::move(ops);
  w.groups = std::move(groups);
  for (size_t i = 0; i < w.all_ops.size() && i < kMaxRooflineOps; ++i) {
    r.top_ops.push_back(w.all_ops[i]);
  }

  // Modelled FLOP utilization: datasheet peak of the dominant matrix dtype.
  if (matrix_ns > 0) {
    r.matrix_modelled_share = matrix_modelled_ns / matrix_ns;
    if (dominant_matrix != nullptr && peak != nullptr) {
      ComputeDtype dtype = ComputeDtype::kUnknown;
      for (int d = 0; d < kComputeDtypeCount; ++d) {
        if (ComputeDtypeName(static_cast<ComputeDtype>(d)) == dominant_matrix->dtype) {
          dtype = static_cast<ComputeDtype>(d);
        }
      }
      if (dtype == ComputeDtype::kUnknown && peak->vendor == "Google") dtype = ComputeDtype::kBf16;
      const double datasheet = peak->tflops[static_cast<int>(dtype)];
      r.mfu_dtype = std::string(ComputeDtypeName(dtype));
      r.mfu_peak_tflops = datasheet;
      if (r.matrix_modelled_share >= kMinMfuModelledShare && datasheet > 0) {
        r.mfu = matrix_flops / (r.step_ns * devices * datasheet * 1e3);
        if (*r.mfu > 1) {
          r.notes.push_back(fmt::format(
              "the modelled FLOPs ({:.0f}% of the {} peak over the step) are more than the "
              "device can do: the model or the dtype does not fit these kernels, so no modelled "
              "FLOP utilization is given",
              100 * *r.mfu, r.mfu_dtype));
          r.mfu.reset();
        }
      }
    }
    if (r.matrix_modelled_share < kMinMfuModelledShare) {
      r.notes.push_back(fmt::format(
          "{:.0f}% of GEMM/attention/convolution time is modelled (shapes recorded and "
          "understood); the modelled FLOP utilization needs {:.0f}%",
          100 * r.matrix_modelled_share, 100 * kMinMfuModelledShare));
    }
  }
  for (std::string& note : above_roof) r.notes.push_back(std::move(note));
  if (ops_above_roof > 0) {
    r.notes.push_back(fmt::format(
        "{} op{} with shapes ran above {} roof (the model counts more work than the kernels "
        "do, or another precision or the cache served them): no efficiency is given for {}",
        ops_above_roof, ops_above_roof == 1 ? "" : "s", ops_above_roof == 1 ? "its" : "their",
        ops_above_roof == 1 ? "it" : "them"));
  }
  if (busy > 0 && col.unlinked_compute_ns >= 0.01 * busy) {
    r.notes.push_back(fmt::format("{:.1f}% of compute kernel time has no linked op, so no model",
                                  busy > 0 ? 100 * col.unlinked_compute_ns / busy : 0.0));
  }
  return out;
}

}  // namespace tracelint
