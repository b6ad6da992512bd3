#include "rules/optimizer_advice.h"

#include <algorithm>

#include "analyzer/base/strings.h"
#include "fmt/format.h"

namespace tracelint::rules_internal {
namespace {

// Ancestors walked from a launch or an idle piece's host op; optimizer
// annotations sit a few levels above the ops that launch.
constexpr int kMaxDepth = 64;

bool IsDeviceWork(EventKind k) {
  return k == EventKind::kKernel || k == EventKind::kMemset || k == EventKind::kMemcpy;
}

}  // namespace

OptimizerPart OptimizerPartOf(const Timeline& tl, SliceId host_slice) {
  const SliceColumns& c = tl.slices();
  SliceId s = host_slice;
  for (int depth = 0; s != kNoIndex && depth < kMaxDepth; ++depth, s = c.parent[s]) {
    if (!tl.HasFlag(s, kFlagOptimizer)) continue;
    std::string_view name = tl.str(c.name[s]);
    if (name.starts_with("Optimizer.zero_grad")) return OptimizerPart::kZeroGrad;
    if (name.starts_with("Optimizer.step")) return OptimizerPart::kStep;
  }
  return OptimizerPart::kNone;
}

OptimizerIdle OptimizerIdleOf(const Timeline& tl, const StepSet& steps,
                              const IdleAttribution& idle, IdleCause cause) {
  OptimizerIdle out;
  TimeNs total_ns = 0, zero_grad_ns = 0, step_ns = 0;
  for (const IdlePiece& p : idle.pieces) {
    if (p.cause != cause) continue;
    const TimeNs ns = p.end_ns - p.start_ns;
    total_ns += ns;
    switch (OptimizerPartOf(tl, p.host_slice)) {
      case OptimizerPart::kZeroGrad: zero_grad_ns += ns; break;
      case OptimizerPart::kStep: step_ns += ns; break;
      case OptimizerPart::kNone: break;
    }
  }
  if (total_ns <= 0 || (zero_grad_ns == 0 && step_ns == 0) || steps.steps.empty()) return out;
  out.zero_grad_share = static_cast<double>(zero_grad_ns) / total_ns;
  out.step_share = static_cast<double>(step_ns) / total_ns;

  // Device work the annotations launched inside the steady steps.
  const SliceColumns& c = tl.slices();
  int64_t zero_grad_kernels = 0, step_kernels = 0;
  for (SliceId k = 0; k < c.size(); ++k) {
    if (!IsDeviceWork(c.kind[k]) || c.launch[k] == kNoIndex) continue;
    if (StepIndexAt(steps, c.ts_ns[c.launch[k]]) < 0) continue;
    switch (OptimizerPartOf(tl, c.launch[k])) {
      case OptimizerPart::kZeroGrad: ++zero_grad_kernels; break;
      case OptimizerPart::kStep: {
        ++step_kernels;
        std::string_view name = tl.str(c.name[k]);
        if (Contains(name, "multi_tensor_apply")) out.multi_tensor = true;
        if (Contains(name, "Fused") || Contains(name, "fused_adam") ||
            Contains(name, "fused_sgd")) {
          out.fused = true;
        }
        break;
      }
      case OptimizerPart::kNone: break;
    }
  }
  const double n = static_cast<double>(steps.steps.size());
  out.zero_grad_kernels_per_step = zero_grad_kernels / n;
  out.step_kernels_per_step = step_kernels / n;
  return out;
}

void AddOptimizerAdvice(const OptimizerIdle& o, Finding& f) {
  std::string advice;
  if (o.zero_grad_share >= kOptimizerAdviceMinShare) {
    f.evidence.push_back({fmt::format("{:.0f}% of it inside Optimizer.zero_grad ({:.0f} device "
                                      "operations per step)",
                                      100 * o.zero_grad_share, o.zero_grad_kernels_per_step),
                          o.zero_grad_share, kOptimizerAdviceMinShare, "share"});
    if (o.zero_grad_kernels_per_step >= 1) {
      advice += fmt::format(
          " {:.0f}% of this idle is in Optimizer.zero_grad, which zeroes every gradient with a "
          "kernel of its own ({:.0f} per step): call optimizer.zero_grad(set_to_none=True) "
          "(the default from PyTorch 2.0), which drops the gradients instead.",
          100 * o.zero_grad_share, o.zero_grad_kernels_per_step);
    }
  }
  if (o.step_share >= kOptimizerAdviceMinShare) {
    f.evidence.push_back({fmt::format("{:.0f}% of it inside Optimizer.step ({:.0f} device "
                                      "operations per step{})",
                                      100 * o.step_share, o.step_kernels_per_step,
                                      o.fused          ? ", fused"
                                      : o.multi_tensor ? ", multi-tensor"
                                                       : ", one parameter at a time"),
                          o.step_share, kOptimizerAdviceMinShare, "share"});
    if (!o.multi_tensor && o.step_kernels_per_step >= 1) {
      advice += fmt::format(
          " {:.0f}% of this idle is in Optimizer.step, which updates the parameters one at a "
          "time ({:.0f} kernels per step): construct the optimizer with fused=True (Adam, "
          "AdamW, SGD) or foreach=True so all parameters update in a few kernels.",
          100 * o.step_share, o.step_kernels_per_step);
    } else if (o.multi_tensor && !o.fused) {
      advice += fmt::format(
          " {:.0f}% of this idle is in Optimizer.step, already multi-tensor (foreach): "
          "fused=True (Adam, AdamW, SGD) moves the rest of the update off the host.",
          100 * o.step_share);
    }
  }
  if (advice.empty()) return;
  // Where the optimizer holds most of the idle its fix comes first, so the
  // one-line summary names it; otherwise it follows the cause's own fix.
  if (std::max(o.zero_grad_share, o.step_share) >= 0.5) {
    f.fix = advice.substr(1) + " Beyond the optimizer: " + f.fix;
  } else {
    f.fix += advice;
  }
}

}  // namespace tracelint::rules_internal
