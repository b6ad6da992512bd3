#ifndef TRACELINT_TESTS_SUPPORT_SCENARIO_XSPACE_H_
#define TRACELINT_TESTS_SUPPORT_SCENARIO_XSPACE_H_

// Writes a testing::Scenario as a serialized XSpace, the way the TensorFlow
// / XLA profiler would record the same situation, so a cross-format test can
// feed one scenario through both the Kineto and the XSpace parsers:
//
//   host scopes        -> /host:CPU line (id = tid) TraceMe events; a
//                         ProfilerStep#N scope becomes a "train" event with
//                         step_num N (tf.profiler.experimental.Trace(...,
//                         step_num=N)); Python frames get the '$' prefix
//   runtime calls      -> /host:CUPTI line with the same id, correlation_id
//   kernels / copies   -> /device:GPU:N "Stream #S(...)" lines with
//                         correlation_id, kernel_details, memcpy_details,
//                         Memset_details
//   device specs       -> /device:GPU:N plane stats
//
// Only signals both formats carry are written (no External id, no flows).

#include <string>

#include "absl/status/statusor.h"
#include "analyzer/base/time.h"
#include "tests/support/scenario.h"

namespace tracelint::testing {

struct ScenarioXSpaceOptions {
  // Added to every timestamp (a second host whose clock runs ahead).
  TimeNs shift_ns = 0;
  // Host event name carrying step_num for each ProfilerStep#N scope.
  std::string step_event_name = "train";
};

// Fails when the scenario has an unclosed scope.
absl::StatusOr<std::string> ScenarioToXSpace(const Scenario& scenario,
                                             const ScenarioXSpaceOptions& options = {});

}  // namespace tracelint::testing

#endif  // TRACELINT_TESTS_SUPPORT_SCENARIO_XSPACE_H_
