#include "testdata/rules/case_studies.h"

#include <algorithm>
#include <vector>

namespace tracelint::case_studies {
namespace {

using testing::DeviceSpec;
using testing::Scenario;

// Tensor Core kernel names keep tensor-cores-idle out of these traces.
constexpr std::string_view kConvKernel =
    "sm80_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwc_tilesize128x128x32";
constexpr std::string_view kGemmKernel = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn";
constexpr std::string_view kOptimizerKernel =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel";

// 10 convolutions of 1 ms, each op dispatching for 30 us: the host stays
// ahead of the GPU, so the forward pass itself leaves no gap.
void Forward(Scenario& s) {
  s.BeginPython("train.py(42): train_step");
  s.OpKernels("aten::cudnn_convolution", kConvKernel, 10, kNsPerMs, 30 * kNsPerUs);
  s.End();
}

Scenario LoaderSteps(bool markers, bool correlation) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  if (!correlation) s.WithoutCorrelation();
  for (int k = 1; k <= kSteps; ++k) {
    if (markers) s.BeginStep(k);
    s.DataLoaderNext(kLoaderNs);
    Forward(s);
    s.Item();
    s.BeginOp("aten::add_").Spend(kAfterItemHostNs).Kernel(kOptimizerKernel, kNsPerMs).End();
    s.Sync();
    if (markers) s.EndStep();
  }
  return s;
}

}  // namespace

Scenario DataLoaderStarvation() { return LoaderSteps(true, true); }
Scenario NoStepMarkers() { return LoaderSteps(false, true); }
Scenario NoCorrelation() { return LoaderSteps(true, false); }

Scenario ItemInLoop() {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= kSteps; ++k) {
    s.BeginStep(k);
    s.OpKernels("aten::mm", kGemmKernel, 6, 2 * kNsPerMs, 30 * kNsPerUs);
    // total_loss += loss.item(); print(...): the queue drains, then the
    // host formats and logs while the GPU has nothing to do.
    s.Item();
    s.BeginAnnotation("log_metrics").Spend(kLogAfterItemNs).End();
    // Two more matmuls queue 4 ms; the numpy op runs 5 ms on the host.
    s.OpKernels("aten::mm", kGemmKernel, 2, 2 * kNsPerMs, 30 * kNsPerUs);
    TimeNs queued_until_ns = s.stream_free_ns();
    TimeNs numpy_ns = queued_until_ns - s.now() + kNumpyIdleNs;
    s.HostOp("aten::numpy_T", numpy_ns);
    s.Kernel(kOptimizerKernel, kNsPerMs);
    s.Sync();
    s.EndStep();
  }
  return s;
}

Scenario Healthy() {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= kSteps; ++k) {
    s.BeginStep(k);
    s.OpKernels("aten::mm", kGemmKernel, 20, kNsPerMs, 30 * kNsPerUs);
    s.EndStep();
  }
  s.Sync();
  return s;
}

Scenario CpuOnly() {
  Scenario s;
  for (int k = 1; k <= kSteps; ++k) {
    s.BeginStep(k).DataLoaderNext(2 * kNsPerMs).HostOp("aten::mm", 5 * kNsPerMs).EndStep();
  }
  return s;
}

Scenario GraphReplay() {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= kSteps; ++k) {
    s.BeginStep(k).DataLoaderNext(kLoaderNs);
    s.GraphLaunch({{std::string(kConvKernel), 4 * kNsPerMs},
                   {std::string(kGemmKernel), 4 * kNsPerMs},
                   {std::string(kOptimizerKernel), kNsPerMs}});
    s.Sync().EndStep();
  }
  return s;
}

Scenario GraphReplayGaps() {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= kSteps; ++k) {
    s.BeginStep(k);
    s.GraphLaunch({{std::string(kConvKernel), 4 * kNsPerMs},
                   {std::string(kGemmKernel), 4 * kNsPerMs},
                   {std::string(kOptimizerKernel), kNsPerMs}});
    s.Sync().EndStep();
  }
  // Each replay's GEMM node starts 3 ms after the node before it ends;
  // everything later moves with it, and what spans it (the sync, the step)
  // lasts that much longer.
  constexpr TimeNs kNodeGapNs = 3 * kNsPerMs;
  std::vector<TimeNs> gemm_starts;
  s.Edit([&](testing::ScenarioEvent& e) {
    if (e.name == kGemmKernel) gemm_starts.push_back(e.ts_ns);
    return true;
  });
  std::sort(gemm_starts.begin(), gemm_starts.end());
  s.Edit([&](testing::ScenarioEvent& e) {
    const TimeNs before = std::upper_bound(gemm_starts.begin(), gemm_starts.end(), e.ts_ns) -
                          gemm_starts.begin();
    // Starts strictly inside the event: the node before ends at one.
    const TimeNs through = std::max<TimeNs>(
        before, std::lower_bound(gemm_starts.begin(), gemm_starts.end(), e.ts_ns + e.dur_ns) -
                    gemm_starts.begin());
    e.ts_ns += before * kNodeGapNs;
    e.dur_ns += (through - before) * kNodeGapNs;
    return true;
  });
  return s;
}

std::vector<CaseStudy> AllCaseStudies() {
  return {
      {"dataloader_starvation",
       "single-process DataLoader starves the GPU; loss.item() before the optimizer",
       DataLoaderStarvation()},
      {"item_in_loop", "loss.item() and logging every step; a numpy op on the host",
       ItemInLoop()},
      {"healthy", "GPU kept busy", Healthy()},
      {"cpu_only", "no GPU activity", CpuOnly()},
      {"no_step_markers", "the DataLoader case without ProfilerStep markers", NoStepMarkers()},
      {"no_correlation", "the DataLoader case without correlation ids", NoCorrelation()},
      {"graph_replay", "CUDA graph replays launched late, after a slow DataLoader",
       GraphReplay()},
      {"graph_replay_gaps", "CUDA graph replays with gaps between their nodes",
       GraphReplayGaps()},
  };
}

}  // namespace tracelint::case_studies
