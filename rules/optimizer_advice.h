#ifndef TRACELINT_RULES_OPTIMIZER_ADVICE_H_
#define TRACELINT_RULES_OPTIMIZER_ADVICE_H_

// Host-bound idle that falls inside PyTorch's optimizer annotations
// (Optimizer.zero_grad#..., Optimizer.step#...) has fixes of its own that
// the generic "compile the model" advice misses (docs/design/domain.md, "More rules
// users expect": single-tensor optimizers, zero_grad memsets instead of
// set_to_none). gpu-idle-gaps charges the time; this says where it fell
// and what the optimizer's kernels show.

#include <cstdint>
#include <string>

#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/engine/finding.h"
#include "analyzer/model/timeline.h"

namespace tracelint::rules_internal {

// The share of a cause's idle under one optimizer annotation from which it
// gets its own advice.
inline constexpr double kOptimizerAdviceMinShare = 0.20;

enum class OptimizerPart : uint8_t { kNone, kZeroGrad, kStep };

// Which optimizer annotation, if any, encloses a host slice.
OptimizerPart OptimizerPartOf(const Timeline& tl, SliceId host_slice);

struct OptimizerIdle {
  double zero_grad_share = 0;  // of the cause's idle
  double step_share = 0;
  // Device work launched under each annotation, per steady step.
  double zero_grad_kernels_per_step = 0;
  double step_kernels_per_step = 0;
  bool multi_tensor = false;  // step launched multi_tensor_apply kernels (foreach or fused)
  bool fused = false;         // ... fused ones (FusedAdam/FusedSGD functors, fused_adam)
};

OptimizerIdle OptimizerIdleOf(const Timeline& tl, const StepSet& steps,
                              const IdleAttribution& idle, IdleCause cause);

// Adds the evidence and the fix sentences the shares call for; nothing
// below kOptimizerAdviceMinShare.
void AddOptimizerAdvice(const OptimizerIdle& o, Finding& f);

}  // namespace tracelint::rules_internal

#endif  // TRACELINT_RULES_OPTIMIZER_ADVICE_H_
