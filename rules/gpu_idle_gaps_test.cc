#include "rules/gpu_idle_gaps.h"

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/rule_test_util.h"
#include "testdata/rules/case_studies.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using rule_test::FindCause;
using rule_test::RunRule;
using testing::DeviceSpec;
using testing::Scenario;

// Steps of `loader_ns` DataLoader then 10 ms of queued kernels: the GPU is
// idle loader_ns / (loader_ns + ~10.1 ms) of each step.
Scenario LoaderShare(TimeNs loader_ns) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k).DataLoaderNext(loader_ns);
    s.OpKernels("aten::mm", "ampere_bf16_s16816gemm_bf16_128x128", 10, kNsPerMs, 10 * kNsPerUs);
    s.Sync().EndStep();
  }
  return s;
}

double IdleShareOf(const RuleOutcome& out) {
  return out.findings.empty() ? 0 : out.findings[0].evidence[0].value;
}

TEST(GpuIdleGapsTest, FiresOnDataLoaderStarvation) {
  GpuIdleGapsRule rule;
  RuleOutcome out = RunRule(rule, case_studies::DataLoaderStarvation());
  ASSERT_TRUE(out.applicable);
  const Finding* f = FindCause(out, "data_loader");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->recoverable_ns_per_step, case_studies::kLoaderNs, case_studies::kLoaderNs * 0.05);
  // One value per steady step (what diff tests a change with), each the
  // loader stall of that step; their mean is the mean shown.
  ASSERT_FALSE(f->recoverable_ns_steps.empty());
  TimeNs sum_ns = 0;
  for (TimeNs ns : f->recoverable_ns_steps) {
    EXPECT_NEAR(ns, case_studies::kLoaderNs, case_studies::kLoaderNs * 0.05);
    sum_ns += ns;
  }
  EXPECT_NEAR(sum_ns / static_cast<TimeNs>(f->recoverable_ns_steps.size()),
              f->recoverable_ns_per_step, 1000);
  EXPECT_EQ(SeverityForShare(f->recoverable_share), FindingSeverity::kHigh);
  EXPECT_EQ(f->confidence, Confidence::kMeasured);
  EXPECT_THAT(f->fix, HasSubstr("num_workers"));
  EXPECT_THAT(f->evidence[0].text, HasSubstr("(threshold 10%)"));
  ASSERT_FALSE(f->location.top_items.empty());
  EXPECT_EQ(f->location.top_items[0].name,
            "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  EXPECT_EQ(f->location.first_step, 1);
  EXPECT_EQ(f->location.track, fmt::format("thread {}", testing::kMainTid));
  EXPECT_GT(f->location.end_ns, f->location.start_ns);
  // Sync-charged idle belongs to host-side-ops: never claimed here.
  EXPECT_EQ(FindCause(out, "sync_call"), nullptr);
  // Every step's stall is in the same op: one line for them, not five.
  EXPECT_THAT(f->message, ::testing::ContainsRegex(
                              "Worst gaps: [0-9]+ gaps of [0-9.]+( ms|-[0-9.]+ ms) in "
                              "enumerate\\(DataLoader\\)#_SingleProcessDataLoaderIter.__next__, "
                              "steps 1-[0-9]+\\."))
      << f->message;
}

// Worst gaps list distinct places: gaps in the same op are one entry with
// their count, size and steps; another op is its own entry.
TEST(GpuIdleGapsTest, WorstGapsAreGroupedByPlace) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 5; ++k) {
    s.BeginStep(k).DataLoaderNext(12 * kNsPerMs);
    s.OpKernels("aten::mm", "ampere_bf16_s16816gemm_bf16_128x128", 10, kNsPerMs, 10 * kNsPerUs);
    s.Sync().EndStep();
  }
  GpuIdleGapsRule rule;
  RuleOutcome out = RunRule(rule, s);
  const Finding* loader = FindCause(out, "data_loader");
  ASSERT_NE(loader, nullptr);
  EXPECT_THAT(loader->message,
              ::testing::ContainsRegex(
                  "Worst gaps: 5 gaps of 1[12]\\.[0-9]+( ms|-1[12]\\.[0-9]+ ms) in "
                  "enumerate\\(DataLoader\\)#_SingleProcessDataLoaderIter.__next__, steps 1-5\\."))
      << loader->message;
}

// Without step markers the worst gaps name no step ("at step window" read
// as nonsense), and a gap with nothing on the host says so in words.
TEST(GpuIdleGapsTest, WorstGapsOfAWindowNameNoStep) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 0; k < 4; ++k) {
    s.DataLoaderNext(5 * kNsPerMs);
    s.OpKernels("aten::mm", "ampere_bf16_s16816gemm_bf16_128x128", 10, kNsPerMs, 10 * kNsPerUs);
    s.Sync();
    s.Idle(3 * kNsPerMs);
  }
  GpuIdleGapsRule rule;
  RuleOutcome out = RunRule(rule, s);
  const Finding* loader = FindCause(out, "data_loader");
  ASSERT_NE(loader, nullptr);
  EXPECT_THAT(loader->message, HasSubstr("Worst gaps: 4 gaps of 5.0"));
  // The worst-gaps sentence names no step (the window is not one).
  size_t worst = loader->message.find("Worst gaps:");
  ASSERT_NE(worst, std::string::npos);
  std::string gaps = loader->message.substr(worst, loader->message.find(". ", worst) - worst);
  EXPECT_THAT(gaps, Not(HasSubstr("step"))) << gaps;
}

// A worst gap with nothing on the host says so in words.
TEST(GpuIdleGapsTest, AGapWithNoHostEventSaysSo) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k).Idle(6 * kNsPerMs);
    s.OpKernels("aten::mm", "ampere_bf16_s16816gemm_bf16_128x128", 10, kNsPerMs, 10 * kNsPerUs);
    s.Sync().EndStep();
  }
  GpuIdleGapsRule rule;
  RuleOutcome out = RunRule(rule, s);
  const Finding* silent = FindCause(out, "host_silent");
  ASSERT_NE(silent, nullptr);
  // Only step 1's gap has nothing on the host (the later ones follow the
  // sync): one gap, named with its step.
  EXPECT_THAT(silent->message, HasSubstr(" at step 1 with no host event"));
  EXPECT_THAT(silent->message, Not(HasSubstr("(no host event)")));
}

// With no host op recorded (the profiler without ProfilerActivity.CPU),
// host silence is the recording's blind spot: the fix says how to record
// the host, not with_stack alone.
// Steps that open with host silence, launching kernels from no op.
Scenario SilenceWithoutOps(std::string_view framework, bool capture) {
  Scenario s;
  s.Device(DeviceSpec::A100()).Framework(framework);
  if (capture) s.TracelintCapture();
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k).Idle(6 * kNsPerMs);
    for (int i = 0; i < 10; ++i) s.Kernel("ampere_bf16_s16816gemm_bf16_128x128", kNsPerMs);
    s.Sync().EndStep();
  }
  return s;
}

TEST(GpuIdleGapsTest, HostSilenceWithOnlyApiCallsSaysToRecordTheHost) {
  GpuIdleGapsRule rule;
  RuleOutcome out = RunRule(rule, SilenceWithoutOps("PyTorch", false));
  const Finding* silent = FindCause(out, "host_silent");
  ASSERT_NE(silent, nullptr);
  EXPECT_THAT(silent->fix, HasSubstr("ProfilerActivity.CPU"));
  EXPECT_THAT(silent->fix, Not(HasSubstr("Python without with_stack")));
}

// The same silence in a `tracelint capture` trace: NVTX ranges or a
// sampling profiler, in PyTorch's words only for PyTorch.
TEST(GpuIdleGapsTest, HostSilenceInACaptureSaysToMarkTheHost) {
  for (std::string_view framework : {"PyTorch", ""}) {
    GpuIdleGapsRule rule;
    RuleOutcome out = RunRule(rule, SilenceWithoutOps(framework, true));
    const Finding* silent = FindCause(out, "host_silent");
    ASSERT_NE(silent, nullptr) << framework;
    EXPECT_THAT(silent->fix, HasSubstr("the capture cannot see")) << framework;
    EXPECT_THAT(silent->fix, HasSubstr(framework.empty() ? "nvtxRangePushA" : "torch.cuda.nvtx"));
  }
}

TEST(GpuIdleGapsTest, QuietWhenTheGpuIsBusy) {
  GpuIdleGapsRule rule;
  RuleOutcome out = RunRule(rule, case_studies::Healthy());
  EXPECT_TRUE(out.applicable);
  EXPECT_TRUE(out.findings.empty());
}

TEST(GpuIdleGapsTest, MinIdleShareBothSides) {
  GpuIdleGapsRule rule;
  Scenario s = LoaderShare(2 * kNsPerMs);  // about 16% idle
  RuleOutcome at_default = RunRule(rule, s);
  ASSERT_EQ(at_default.findings.size(), 1u);
  double share = IdleShareOf(at_default);
  EXPECT_GT(share, 0.15);
  EXPECT_LT(share, 0.17);
  EXPECT_EQ(RunRule(rule, s, {{"MinIdleShare", share - 0.005}}).findings.size(), 1u);
  EXPECT_TRUE(RunRule(rule, s, {{"MinIdleShare", share + 0.005}}).findings.empty());
  // And with the default threshold, traces on each side of 10%.
  EXPECT_FALSE(RunRule(rule, LoaderShare(1200 * kNsPerUs)).findings.empty());  // ~10.6%
  EXPECT_TRUE(RunRule(rule, LoaderShare(1000 * kNsPerUs)).findings.empty());   // ~9.0%
}

// Severity follows the one scale of docs/design/contract.md (SeverityForShare): high
// from 15% of the step, medium from 5%.
TEST(GpuIdleGapsTest, SeverityFollowsTheContractScale) {
  GpuIdleGapsRule rule;
  RuleOutcome high = RunRule(rule, LoaderShare(2 * kNsPerMs));  // ~16.7%
  ASSERT_EQ(high.findings.size(), 1u);
  EXPECT_GE(high.findings[0].recoverable_share, kHighSeverityShare);
  EXPECT_EQ(SeverityForShare(high.findings[0].recoverable_share), FindingSeverity::kHigh);
  RuleOutcome medium = RunRule(rule, LoaderShare(1500 * kNsPerUs));  // ~13%
  ASSERT_EQ(medium.findings.size(), 1u);
  EXPECT_LT(medium.findings[0].recoverable_share, kHighSeverityShare);
  EXPECT_EQ(SeverityForShare(medium.findings[0].recoverable_share), FindingSeverity::kMedium);
}

TEST(GpuIdleGapsTest, MinCauseShareDropsSmallCauses) {
  GpuIdleGapsRule rule;
  Scenario s = LoaderShare(3 * kNsPerMs);
  RuleOutcome out = RunRule(rule, s);
  ASSERT_EQ(out.findings.size(), 1u);
  double share = out.findings[0].recoverable_share;
  EXPECT_EQ(RunRule(rule, s, {{"MinCauseShare", share - 0.005}}).findings.size(), 1u);
  EXPECT_TRUE(RunRule(rule, s, {{"MinCauseShare", share + 0.005}}).findings.empty());
}

TEST(GpuIdleGapsTest, LaunchGapNsSeparatesLaunchOverheadFromHostWork) {
  GpuIdleGapsRule rule;
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 3; ++k) {
    // 200 tiny kernels, each 2 us of work behind 25 us of dispatch.
    s.BeginStep(k).OpKernels("aten::add", "vectorized_elementwise_kernel", 200, 2 * kNsPerUs,
                             20 * kNsPerUs);
    s.EndStep();
  }
  RuleOutcome out = RunRule(rule, s);
  const Finding* launch = FindCause(out, "launch_overhead");
  ASSERT_NE(launch, nullptr);
  EXPECT_GT(launch->recoverable_share, 0.9);
  EXPECT_THAT(launch->fix, HasSubstr("CUDA Graphs"));
  // 23 us gaps: a cutoff just above keeps them launch overhead, just below
  // turns them into other host work.
  EXPECT_NE(FindCause(RunRule(rule, s, {{"LaunchGapNs", 23001}}), "launch_overhead"), nullptr);
  RuleOutcome strict = RunRule(rule, s, {{"LaunchGapNs", 22999}});
  EXPECT_EQ(FindCause(strict, "launch_overhead"), nullptr);
  EXPECT_NE(FindCause(strict, "other_host_work"), nullptr);
}

TEST(GpuIdleGapsTest, SaysWhatItCouldNotJudge) {
  GpuIdleGapsRule rule;
  RuleOutcome cpu = RunRule(rule, case_studies::CpuOnly());
  EXPECT_FALSE(cpu.applicable);
  EXPECT_THAT(cpu.not_judged_reason, HasSubstr("CPU-only"));
  for (const Scenario& s : {case_studies::NoCorrelation(), case_studies::GraphReplayGaps()}) {
    RuleOutcome out = RunRule(rule, s);
    EXPECT_FALSE(out.applicable);
    EXPECT_THAT(out.not_judged_reason, HasSubstr("no linked launch"));
  }
  // Replays the host launched late are judged as any launch.
  EXPECT_NE(FindCause(RunRule(rule, case_studies::GraphReplay()), "data_loader"), nullptr);
}

TEST(GpuIdleGapsTest, NoStepMarkersGivesOneWindowAndSaysSo) {
  GpuIdleGapsRule rule;
  RuleOutcome out = RunRule(rule, case_studies::NoStepMarkers());
  const Finding* f = FindCause(out, "data_loader");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->message, HasSubstr("No step markers"));
  EXPECT_EQ(f->location.first_step, -1);
  // One window of six loader stalls.
  EXPECT_NEAR(f->recoverable_ns_per_step, case_studies::kSteps * case_studies::kLoaderNs,
              case_studies::kSteps * case_studies::kLoaderNs * 0.05);
  EXPECT_EQ(f->recoverable_ns_steps.size(), 1u);  // one sample: diff's 20% rule
}

// `steps` steps of 10 ms of kernels after a 1 ms DataLoader wait, except
// step `slow` (0-based), whose wait is `slow_ns`.
Scenario OneSlowLoaderStep(int steps, int slow, TimeNs slow_ns) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 0; k < steps; ++k) {
    s.BeginStep(k + 1).DataLoaderNext(k == slow ? slow_ns : kNsPerMs);
    s.OpKernels("aten::mm", "ampere_bf16_s16816gemm_bf16_128x128", 10, kNsPerMs, 10 * kNsPerUs);
    s.Sync().EndStep();
  }
  return s;
}

std::string OneStepEvidence(const Finding& f) {
  for (const Evidence& e : f.evidence) {
    if (e.text.find("alone") != std::string::npos) return e.text;
  }
  return "";
}

// Idle one step holds most of (>= 50%, from 4 steps) is a stall of that
// step: said in the evidence, and first in the fix. With 4 steady steps no
// step is an outlier (that needs 5), so the stalled step stays judged.
TEST(GpuIdleGapsTest, IdleInOneStepIsCalledAStallOfThatStep) {
  GpuIdleGapsRule rule;
  // 6 ms of 9 ms (67%) in step 3 of 4.
  Scenario stall = OneSlowLoaderStep(4, 2, 6 * kNsPerMs);
  rules2_test::ExpectTestdataMatches(stall, "idle_one_step_stall.json");
  RuleOutcome above = RunRule(rule, stall);
  const Finding* f = FindCause(above, "data_loader");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(OneStepEvidence(*f),
            "67% of it falls in step 3 alone (6.000 ms; the median step has 1.000 ms)");
  EXPECT_THAT(f->fix, ::testing::StartsWith("Most of this idle is in one step (step 3, one of 4 "
                                            "steady steps)"));
  EXPECT_THAT(f->fix, Not(HasSubstr("profiler's")));
  EXPECT_THAT(f->fix, HasSubstr("Otherwise: Load batches in parallel"));
  // 2.5 ms of 5.5 ms (45%): below the line, the cause's own fix alone.
  RuleOutcome below = RunRule(rule, OneSlowLoaderStep(4, 2, 2500 * kNsPerUs));
  ASSERT_NE(FindCause(below, "data_loader"), nullptr);
  EXPECT_EQ(OneStepEvidence(*FindCause(below, "data_loader")), "");
  // Three steps are too few to tell a stall from the steps' spread.
  RuleOutcome few = RunRule(rule, OneSlowLoaderStep(3, 1, 20 * kNsPerMs));
  ASSERT_NE(FindCause(few, "data_loader"), nullptr);
  EXPECT_EQ(OneStepEvidence(*FindCause(few, "data_loader")), "");
  // The last step: the profiler's stop is a suspect too.
  RuleOutcome last = RunRule(rule, OneSlowLoaderStep(4, 3, 8 * kNsPerMs));
  ASSERT_NE(FindCause(last, "data_loader"), nullptr);
  EXPECT_THAT(FindCause(last, "data_loader")->fix, HasSubstr("the trace's last step"));
}

// From 5 steady steps the stalled step is an outlier (docs/steady-state.md,
// "Outlier steps"): it leaves the saving, so the 1 ms the other steps wait
// (9% of the step) is below the rule's line and nothing is claimed per step.
TEST(GpuIdleGapsTest, AStalledOutlierStepLeavesTheSaving) {
  GpuIdleGapsRule rule;
  RuleOutcome outlier = RunRule(rule, OneSlowLoaderStep(5, 2, 6 * kNsPerMs));
  EXPECT_EQ(FindCause(outlier, "data_loader"), nullptr);
}

// Host work between kernels inside a Python frame: the user's own code, or
// record_function's __enter__ (the profiler's own cost).
Scenario HostWorkIn(std::string_view frame) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k).OpKernels("aten::mm", "gemm", 2, 10 * kNsPerUs, 500 * kNsPerUs);
    s.BeginPython("train.py(40): train_step").Spend(300 * kNsPerUs);
    s.BeginPython(frame).Spend(400 * kNsPerUs).End().End();
    s.OpKernels("aten::add", "elementwise", 1, 10 * kNsPerUs, 500 * kNsPerUs).Sync().EndStep();
  }
  return s;
}

TEST(GpuIdleGapsTest, IdleInsideTheProfilersOwnCodeIsNoSaving) {
  GpuIdleGapsRule rule;
  RuleOutcome user_out = RunRule(rule, HostWorkIn("train.py(52): log_metrics"));
  const Finding* user = FindCause(user_out, "other_host_work");
  ASSERT_NE(user, nullptr) << rules2_test::Describe(user_out.findings);
  RuleOutcome prof_out = RunRule(rule, HostWorkIn("torch/autograd/profiler.py(770): __enter__"));
  const Finding* prof = FindCause(prof_out, "other_host_work");
  ASSERT_NE(prof, nullptr) << rules2_test::Describe(prof_out.findings);
  // The 400 us a step inside the profiler's frame is no saving.
  EXPECT_EQ(user->recoverable_ns_per_step - prof->recoverable_ns_per_step, 400 * kNsPerUs);
  auto says = [](const Finding& f) {
    for (const Evidence& e : f.evidence) {
      if (e.text.find("inside the profiler's own code") != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(says(*prof));
  EXPECT_FALSE(says(*user));
}

// Steady graph replays whose launch call outlasts the graph's kernels (as
// ROCm's hipGraphLaunch submits node by node while the first nodes run):
// the device waits on the host's submission.
Scenario GraphReplays(TimeNs submit_ns) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k).OpKernels("aten::mm", "gemm", 2, 10 * kNsPerUs, 200 * kNsPerUs);
    s.GraphLaunch({{"triton_poi_fused_0", 100 * kNsPerUs}, {"triton_red_fused_1", 100 * kNsPerUs}});
    s.Idle(submit_ns);  // the call runs on: stretched below
    s.OpKernels("aten::add", "elementwise", 1, 10 * kNsPerUs, 100 * kNsPerUs).Sync().EndStep();
  }
  s.Edit([&](testing::ScenarioEvent& e) {
    if (e.name == "cudaGraphLaunch") e.dur_ns += submit_ns;
    return true;
  });
  return s;
}

TEST(GpuIdleGapsTest, StallInsideGraphLaunchesIsTheGraphsSubmission) {
  GpuIdleGapsRule rule;
  RuleOutcome out = RunRule(rule, GraphReplays(2 * kNsPerMs));
  const Finding* f = FindCause(out, "launch_stall");
  ASSERT_NE(f, nullptr) << rules2_test::Describe(out.findings) << out.not_judged_reason;
  EXPECT_THAT(f->fix, HasSubstr("inside cudaGraphLaunch calls"));
  EXPECT_THAT(f->fix, HasSubstr("cudaGraphUpload"));
  EXPECT_THAT(f->fix, Not(HasSubstr("CUDA_MODULE_LOADING")));
  bool evidence = false;
  for (const Evidence& e : f->evidence) {
    evidence |= e.text.find("inside graph launch calls (cudaGraphLaunch)") != std::string::npos;
  }
  EXPECT_TRUE(evidence);
  // Launch calls of the usual length: no stall at all.
  EXPECT_EQ(FindCause(RunRule(rule, GraphReplays(0)), "launch_stall"), nullptr);
}

// A launch-bound step with `allocated_bytes` resident on an A100 (none
// recorded when 0), as profile_memory=True records it.
Scenario LaunchBoundWithMemory(int64_t allocated_bytes) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  if (allocated_bytes > 0) s.Allocate(allocated_bytes).Idle(kNsPerMs);
  for (int k = 1; k <= 3; ++k) {
    s.BeginStep(k).OpKernels("aten::add", "vectorized_elementwise_kernel", 40, 2 * kNsPerUs,
                             20 * kNsPerUs);
    s.EndStep();
  }
  return s;
}

// "Raise the batch size" is only as good as the memory left for it: the
// finding says what the allocator showed, and on a full device steers to
// graphs and fusion instead.
TEST(GpuIdleGapsTest, BatchSizeAdviceWeighsDeviceMemory) {
  GpuIdleGapsRule rule;
  const int64_t device_bytes = DeviceSpec::A100().total_memory_bytes;
  auto memory_evidence = [](const Finding& f) -> std::string {
    for (const Evidence& e : f.evidence) {
      if (e.text.find("of its memory") != std::string::npos) return e.text;
    }
    return "";
  };
  Scenario unrecorded = LaunchBoundWithMemory(0);
  RuleOutcome plain_out = RunRule(rule, unrecorded);
  const Finding* plain = FindCause(plain_out, "launch_overhead");
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(memory_evidence(*plain), "");
  EXPECT_THAT(plain->fix, HasSubstr("batch more inputs per step"));  // forward only

  Scenario roomy = LaunchBoundWithMemory(device_bytes / 10);
  rules2_test::ExpectTestdataMatches(roomy, "memory_headroom_launch_bound.json");
  RuleOutcome roomy_out = RunRule(rule, roomy);
  const Finding* headroom = FindCause(roomy_out, "launch_overhead");
  ASSERT_NE(headroom, nullptr);
  EXPECT_EQ(memory_evidence(*headroom), "GPU 0 holds 10% of its memory at the peak: a larger "
                                        "batch fits");
  EXPECT_EQ(headroom->fix, plain->fix);
  // A small model on a big GPU: "under 1%", not a "0%" that reads as nothing
  // recorded.
  RuleOutcome tiny_out = RunRule(rule, LaunchBoundWithMemory(device_bytes / 500));
  const Finding* tiny = FindCause(tiny_out, "launch_overhead");
  ASSERT_NE(tiny, nullptr);
  EXPECT_EQ(memory_evidence(*tiny), "GPU 0 holds under 1% of its memory at the peak: a larger "
                                    "batch fits");

  Scenario full = LaunchBoundWithMemory(device_bytes / 100 * 95);
  rules2_test::ExpectTestdataMatches(full, "memory_full_launch_bound.json");
  RuleOutcome full_out = RunRule(rule, full);
  const Finding* pressure = FindCause(full_out, "launch_overhead");
  ASSERT_NE(pressure, nullptr);
  EXPECT_THAT(memory_evidence(*pressure), HasSubstr("95% of its memory"));
  EXPECT_THAT(pressure->fix, HasSubstr("a larger batch will not fit: prefer graphs and fusion"));
  // The time charged is the same whatever the memory: advice, not a saving.
  EXPECT_EQ(pressure->recoverable_ns_per_step, plain->recoverable_ns_per_step);

  // Between the lines (25%..90%), and for a cause whose fix is no batch
  // size, memory adds nothing.
  RuleOutcome middle_out = RunRule(rule, LaunchBoundWithMemory(device_bytes / 2));
  const Finding* middle = FindCause(middle_out, "launch_overhead");
  ASSERT_NE(middle, nullptr);
  EXPECT_EQ(memory_evidence(*middle), "");
  Scenario loader = LoaderShare(10 * kNsPerMs);
  loader.Allocate(device_bytes / 10);
  RuleOutcome loader_out = RunRule(rule, loader);
  const Finding* data = FindCause(loader_out, "data_loader");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(memory_evidence(*data), "");
}

}  // namespace
}  // namespace tracelint
