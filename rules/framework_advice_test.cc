// Fix texts in the words of the user's framework (docs/devices-and-advice.md):
// the same generated trace labelled PyTorch, TensorFlow or JAX goes through
// every rule and the ranking; the ranking must not change, the advice must.
// A JAX or TensorFlow user has no .item(), DataLoader or torch.profiler to
// change, so those words never reach them.

#include <string>
#include <vector>

#include "tests/support/scenario.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/rule_test_util.h"
#include "testdata/rules/case_studies.h"

namespace tracelint {
namespace {

using rules2_test::RankingOf;
using testing::CopyOptions;
using testing::DeviceSpec;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing::KernelOptions;
using ::testing::Not;
using testing::Scenario;

std::vector<Finding> Ranked(Scenario s, std::string_view framework) {
  s.Framework(framework);
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  EXPECT_TRUE(tl.ok()) << tl.status();
  return tl.ok() ? rules2_test::RankedFindings(*tl) : std::vector<Finding>{};
}

const Finding &Get(const std::vector<Finding> &findings, std::string_view rule,
                   std::string_view cause) {
  for (const Finding &f : findings) {
    if (f.rule_id == rule && f.cause == cause) return f;
  }
  static const Finding kNone;
  ADD_FAILURE() << "no " << rule << "/" << cause << " finding";
  return kNone;
}

// PyTorch's own API in a fix text: never shown to a JAX or TensorFlow user.
void ExpectNoPyTorchWords(const std::string &fix) {
  for (const char *word : {"torch", "DataLoader", "pin_memory", "non_blocking", "CUDA stream",
                           "with_stack", "nonzero"}) {
    EXPECT_THAT(fix, Not(HasSubstr(word))) << "in: " << fix;
  }
}

// Every finding's fix, not only the one a test looks at.
void ExpectNoPyTorchWordsAnywhere(const std::vector<Finding> &findings) {
  for (const Finding &f : findings) {
    SCOPED_TRACE(f.rule_id + "/" + f.cause);
    ExpectNoPyTorchWords(f.fix);
  }
}

// A trace that names no framework (a Chrome trace of another tool: ""), or
// only XLA: the same ranking, advice in no framework's API.
void ExpectNeutralAdvice(Scenario s, const std::vector<Finding> &torch) {
  for (std::string_view framework : {"", "TensorFlow/JAX (XLA)"}) {
    SCOPED_TRACE(std::string("framework \"") + std::string(framework) + "\"");
    const std::vector<Finding> other = Ranked(s, framework);
    EXPECT_THAT(RankingOf(other), ElementsAreArray(RankingOf(torch)));
    ExpectNoPyTorchWordsAnywhere(other);
    for (const Finding &f : other) {
      for (const char *word : {"tf.", "jax.", "Keras"}) {
        EXPECT_THAT(f.fix, Not(HasSubstr(word))) << f.rule_id << ": " << f.fix;
      }
    }
  }
}

// loss.item() + logging every step and a NumPy post-processing op.
TEST(FrameworkAdvice, SyncAndHostOpAdviceFollowsTheFramework) {
  const std::vector<Finding> torch = Ranked(case_studies::ItemInLoop(), "PyTorch");
  const std::vector<Finding> tf = Ranked(case_studies::ItemInLoop(), "TensorFlow");
  const std::vector<Finding> jax = Ranked(case_studies::ItemInLoop(), "JAX");
  ASSERT_THAT(RankingOf(torch), ::testing::Contains("host-side-ops/sync_call"))
      << rules2_test::Describe(torch);
  ASSERT_THAT(RankingOf(torch), ::testing::Contains("host-side-ops/host_side_op"));
  EXPECT_THAT(RankingOf(tf), ElementsAreArray(RankingOf(torch)))
      << "the framework changes words only";
  EXPECT_THAT(RankingOf(jax), ElementsAreArray(RankingOf(torch)));

  EXPECT_THAT(Get(torch, "host-side-ops", "sync_call").fix, HasSubstr(".item()"));
  const std::string &tf_sync = Get(tf, "host-side-ops", "sync_call").fix;
  EXPECT_THAT(tf_sync, HasSubstr("tf.function"));
  EXPECT_THAT(tf_sync, HasSubstr("every N steps"));
  ExpectNoPyTorchWords(tf_sync);
  const std::string &jax_sync = Get(jax, "host-side-ops", "sync_call").fix;
  EXPECT_THAT(jax_sync, HasSubstr("jax.device_get"));
  EXPECT_THAT(jax_sync, HasSubstr("jitted"));
  ExpectNoPyTorchWords(jax_sync);

  EXPECT_THAT(Get(torch, "host-side-ops", "host_side_op").fix, HasSubstr("torch ops"));
  const std::string &tf_host = Get(tf, "host-side-ops", "host_side_op").fix;
  EXPECT_THAT(tf_host, HasSubstr("tf.data"));
  ExpectNoPyTorchWords(tf_host);
  const std::string &jax_host = Get(jax, "host-side-ops", "host_side_op").fix;
  EXPECT_THAT(jax_host, HasSubstr("jax.numpy"));
  ExpectNoPyTorchWords(jax_host);
  ExpectNoPyTorchWordsAnywhere(tf);
  ExpectNoPyTorchWordsAnywhere(jax);
  ExpectNeutralAdvice(case_studies::ItemInLoop(), torch);
}

// Per step: 20 ms of compute, then a pageable 1 MiB host-to-device copy whose
// staging (2 ms) leaves the GPU idle.
Scenario PageableCopies() {
  Scenario s;
  s.Device(DeviceSpec::A100());
  CopyOptions staging;
  staging.launch_ns = 2 * kNsPerMs;
  for (int k = 0; k < 4; ++k) {
    s.BeginStep(k).OpKernels("aten::mm", "ampere_bf16_s16816gemm_bf16_128x128", 10, 2 * kNsPerMs,
                             10 * kNsPerUs);
    s.Sync()
        .BeginOp("aten::copy_")
        .CopyH2D(1 << 20, 100 * kNsPerUs, MemorySpace::kPageable, staging);
    s.End().EndStep();
  }
  return s;
}

TEST(FrameworkAdvice, HostToDeviceCopyAdviceFollowsTheFramework) {
  const std::vector<Finding> torch = Ranked(PageableCopies(), "PyTorch");
  const std::vector<Finding> tf = Ranked(PageableCopies(), "TensorFlow");
  const std::vector<Finding> jax = Ranked(PageableCopies(), "JAX");
  ASSERT_THAT(RankingOf(torch), ::testing::Contains("h2d-copy-dominance/pageable_copy"))
      << rules2_test::Describe(torch);
  EXPECT_THAT(RankingOf(tf), ElementsAreArray(RankingOf(torch)));
  EXPECT_THAT(RankingOf(jax), ElementsAreArray(RankingOf(torch)));

  EXPECT_THAT(Get(torch, "h2d-copy-dominance", "pageable_copy").fix, HasSubstr("pin_memory"));
  const std::string &tf_fix = Get(tf, "h2d-copy-dominance", "pageable_copy").fix;
  EXPECT_THAT(tf_fix, HasSubstr("prefetch_to_device"));
  ExpectNoPyTorchWords(tf_fix);
  const std::string &jax_fix = Get(jax, "h2d-copy-dominance", "pageable_copy").fix;
  EXPECT_THAT(jax_fix, HasSubstr("jax.device_put"));
  ExpectNoPyTorchWords(jax_fix);
  ExpectNoPyTorchWordsAnywhere(tf);
  ExpectNoPyTorchWordsAnywhere(jax);
  ExpectNeutralAdvice(PageableCopies(), torch);
}

// A first launch that loads its module (40 ms with the device idle), then
// steady GPU-bound steps: a one-time finding whose fix says where the
// framework's profiler should start.
Scenario ModuleLoadingThenSteady() {
  Scenario s;
  s.Device(DeviceSpec::A100());
  KernelOptions slow_first;
  slow_first.launch_ns = 40 * kNsPerMs;
  s.BeginStep(0).BeginOp("aten::mm");
  s.Kernel("ampere_bf16_s16816gemm_bf16_128x128", kNsPerMs, slow_first).End().Sync().EndStep();
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k).OpKernels("aten::mm", "ampere_bf16_s16816gemm_bf16_128x128", 20, kNsPerMs,
                             10 * kNsPerUs);
    s.Sync().EndStep();
  }
  return s;
}

TEST(FrameworkAdvice, OneTimeCostAdviceFollowsTheFramework) {
  const std::vector<Finding> torch = Ranked(ModuleLoadingThenSteady(), "PyTorch");
  const std::vector<Finding> tf = Ranked(ModuleLoadingThenSteady(), "TensorFlow");
  const std::vector<Finding> jax = Ranked(ModuleLoadingThenSteady(), "JAX");
  ASSERT_THAT(RankingOf(torch), ::testing::Contains("warmup-one-time-cost/module_loading"))
      << rules2_test::Describe(torch);
  EXPECT_THAT(RankingOf(tf), ElementsAreArray(RankingOf(torch)));
  EXPECT_THAT(RankingOf(jax), ElementsAreArray(RankingOf(torch)));

  EXPECT_THAT(Get(torch, "warmup-one-time-cost", "module_loading").fix,
              HasSubstr("torch.profiler.schedule"));
  const std::string &tf_fix = Get(tf, "warmup-one-time-cost", "module_loading").fix;
  EXPECT_THAT(tf_fix, HasSubstr("tf.profiler.experimental.start"));
  EXPECT_THAT(tf_fix, HasSubstr("profile_batch"));
  ExpectNoPyTorchWords(tf_fix);
  const std::string &jax_fix = Get(jax, "warmup-one-time-cost", "module_loading").fix;
  EXPECT_THAT(jax_fix, HasSubstr("jax.profiler.start_trace"));
  ExpectNoPyTorchWords(jax_fix);
  ExpectNoPyTorchWordsAnywhere(tf);
  ExpectNoPyTorchWordsAnywhere(jax);
  ExpectNeutralAdvice(ModuleLoadingThenSteady(), torch);
}

}  // namespace
}  // namespace tracelint
