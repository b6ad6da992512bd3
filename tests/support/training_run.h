#ifndef TRACELINT_TESTS_SUPPORT_TRAINING_RUN_H_
#define TRACELINT_TESTS_SUPPORT_TRAINING_RUN_H_

// Generated training runs for `diff` tests: the same small step program with
// seeded, deterministic run-to-run noise, so pairs of runs can differ by
// exactly one cause (a slower kernel, a data loader stall) or by noise only.

#include <cstdint>
#include <map>
#include <random>
#include <string>

#include "tests/support/scenario.h"

namespace tracelint::testing {

struct TrainingRun {
  int steps = 12;
  uint64_t seed = 1;
  TimeNs gemm_ns = 8 * kNsPerMs;         // the main kernel of each step
  TimeNs data_loader_ns = 0;             // 0: the batch is ready (no stall)
  double noise = 0.02;                   // uniform +-share on every duration
  int rank = -1;                         // >= 0: distributedInfo of a rank
  int world_size = 1;
  // Step number -> extra host time before its kernels (a slow step: the
  // GPU waits), e.g. the few outlier steps of an otherwise faster run.
  std::map<int, TimeNs> slow_steps;
  DeviceSpec device = DeviceSpec::A100();
  bool other_program = false;  // other op and kernel names (a different model)
};

inline Scenario MakeTrainingRun(const TrainingRun& r) {
  Scenario s;
  s.Device(r.device);
  if (r.rank >= 0) s.Distributed(r.rank, r.world_size);
  // Raw mt19937_64 output is specified by the standard (distributions are
  // not), so the noise is the same on every platform.
  std::mt19937_64 rng(r.seed);
  auto jitter = [&](TimeNs ns) {
    double u = static_cast<double>(rng() % 1000001) / 1000000.0;  // 0..1
    return ns + static_cast<TimeNs>(static_cast<double>(ns) * r.noise * (2 * u - 1));
  };
  for (int k = 0; k < r.steps; ++k) {
    s.BeginStep(k + 1);
    if (r.data_loader_ns > 0) s.DataLoaderNext(jitter(r.data_loader_ns));
    s.Spend(jitter(200 * kNsPerUs));
    if (auto slow = r.slow_steps.find(k + 1); slow != r.slow_steps.end()) s.Spend(slow->second);
    if (r.other_program) {
      s.BeginOp("aten::embedding_bag").Kernel("embedding_bag_kernel", jitter(r.gemm_ns)).End();
      s.BeginOp("fbgemm::jagged_to_padded_dense")
          .Kernel("jagged_dense_kernel", jitter(kNsPerMs))
          .End();
    } else {
      s.BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", jitter(r.gemm_ns)).End();
      s.BeginOp("aten::relu").Kernel("vectorized_elementwise_kernel", jitter(kNsPerMs)).End();
    }
    s.Sync().EndStep();
  }
  return s;
}

inline std::string TrainingRunJson(const TrainingRun& r) {
  absl::StatusOr<std::string> json = MakeTrainingRun(r).ToKinetoJson();
  return json.ok() ? *json : std::string();
}

}  // namespace tracelint::testing

#endif  // TRACELINT_TESTS_SUPPORT_TRAINING_RUN_H_
