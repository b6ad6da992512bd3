#include "rules/all_rules.h"

#include <memory>

#include "rules/comm_clustered_allreduce.h"
#include "rules/gpu_idle_gaps.h"
#include "rules/h2d_copy_dominance.h"
#include "rules/host_side_ops.h"
#include "rules/kernel_efficiency.h"
#include "rules/kernel_small_grids.h"
#include "rules/tensor_cores_idle.h"
#include "rules/warmup_one_time_cost.h"

namespace tracelint {

// One line per rule; the id here is the rule's only name (docs/<id>.md).
void RegisterAllRules(RuleRegistry& registry) {
  registry.Register("gpu-idle-gaps", std::make_unique<GpuIdleGapsRule>());
  registry.Register("host-side-ops", std::make_unique<HostSideOpsRule>());
  registry.Register("h2d-copy-dominance", std::make_unique<H2dCopyDominanceRule>());
  registry.Register("comm-clustered-allreduce", std::make_unique<CommClusteredAllreduceRule>());
  registry.Register("kernel-small-grids", std::make_unique<KernelSmallGridsRule>());
  registry.Register("tensor-cores-idle", std::make_unique<TensorCoresIdleRule>());
  registry.Register("kernel-efficiency", std::make_unique<KernelEfficiencyRule>());
  registry.Register("warmup-one-time-cost", std::make_unique<WarmupOneTimeCostRule>());
}

}  // namespace tracelint
