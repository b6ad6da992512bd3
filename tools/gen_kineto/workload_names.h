#ifndef TRACELINT_TOOLS_GEN_KINETO_WORKLOAD_NAMES_H_
#define TRACELINT_TOOLS_GEN_KINETO_WORKLOAD_NAMES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tracelint::gen {

// What a generated kernel looks like in the trace. Launch geometry and the
// occupancy figures follow from grid/block on a 108-SM A100, the device of
// the reference trace (HTA nccl_data).
struct KernelSpec {
  std::string name;
  int64_t mean_dur_ns = 0;
  int32_t registers_per_thread = 0;
  int32_t shared_memory_bytes = 0;
  int32_t grid[3] = {1, 1, 1};
  int32_t block[3] = {1, 1, 1};
};

// Kernel families the simulated ResNet/DDP step launches. Each family holds
// several variants (tile sizes, dtypes, functors) so that a step shows about
// as many distinct kernel names as the reference trace (70).
struct KernelCatalog {
  std::vector<KernelSpec> conv_fprop;
  std::vector<KernelSpec> conv_dgrad;
  std::vector<KernelSpec> conv_wgrad;
  std::vector<KernelSpec> bn_forward;
  std::vector<KernelSpec> bn_backward;
  std::vector<KernelSpec> elementwise;    // relu, add, mul, fill, copy
  std::vector<KernelSpec> reduce;         // loss, softmax, norms
  std::vector<KernelSpec> optimizer;      // SGD updates
  std::vector<KernelSpec> nccl_allreduce;
  std::vector<KernelSpec> nccl_broadcast;
};

// Built once per generator; deterministic.
KernelCatalog BuildKernelCatalog();

// Python frames for the forward pass (with_stack-style python_function
// events): call sites and module classes.
extern const char* const kPythonSites[];
extern const int kPythonSiteCount;
extern const char* const kPythonModules[];
extern const int kPythonModuleCount;

}  // namespace tracelint::gen

#endif  // TRACELINT_TOOLS_GEN_KINETO_WORKLOAD_NAMES_H_
