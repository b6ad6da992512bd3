#include "analyzer/analysis/trace_integrity.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/idle_attribution.h"
#include "tests/support/analysed.h"
#include "tests/support/scenario.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::DeviceSpec;
using testing::Scenario;
using testing::ScenarioEvent;

using testing::Analyse;
using testing::Analysed;

const IntegrityCheck& CheckOf(const TraceIntegrity& t, std::string_view id) {
  for (const IntegrityCheck& c : t.checks) {
    if (c.id == id) return c;
  }
  static const IntegrityCheck kMissing{"missing", CheckStatus::kFailed, 0, 0, "", ""};
  ADD_FAILURE() << "no check " << id;
  return kMissing;
}

bool Withheld(const TraceIntegrity& t, std::string_view cause) {
  for (const WithheldCause& w : t.withheld) {
    if (w.cause == cause) return true;
  }
  return false;
}

// A healthy profile: 5 steps of a data-loader fetch and 10 op + kernel pairs.
Scenario Healthy(int steps = 5) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= steps; ++k) {
    s.BeginStep(k).DataLoaderNext(100 * kNsPerUs);
    s.OpKernels("aten::mm", "ampere_sgemm_128x64_nn", 10, 200 * kNsPerUs, 10 * kNsPerUs);
    s.Sync().EndStep();
  }
  return s;
}

bool IsDeviceCat(const ScenarioEvent& e) {
  return e.cat == "kernel" || e.cat == "gpu_memcpy" || e.cat == "gpu_memset";
}

TEST(TraceIntegrityTest, HealthyTraceIsTrusted) {
  auto a = Analyse(Healthy());
  const TraceIntegrity& t = a->integrity();
  EXPECT_EQ(t.verdict, IntegrityVerdict::kTrusted) << t.summary;
  EXPECT_EQ(t.summary, "trusted");
  EXPECT_EQ(t.max_confidence, 2);
  EXPECT_EQ(t.max_claim_share, 1.0);
  EXPECT_TRUE(t.withheld.empty());
  for (const IntegrityCheck& c : t.checks) {
    EXPECT_TRUE(c.status == CheckStatus::kOk || c.status == CheckStatus::kNotApplicable)
        << c.id << ": " << c.reason;
  }
  EXPECT_EQ(t.checks.size(), 12u);
  // A cut file is limited here; analyze_command_test reads a cut trace.
  EXPECT_EQ(CheckOf(t, "complete_file").status, CheckStatus::kOk);
}

TEST(TraceIntegrityTest, FewEventsAreAFragment) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.BeginStep(1).HostOp("aten::copy_", kNsPerMs).Kernel("k", kNsPerMs).Sync().EndStep();
  auto a = Analyse(s);
  const TraceIntegrity& t = a->integrity();
  EXPECT_EQ(CheckOf(t, "fragment").status, CheckStatus::kFailed);
  EXPECT_EQ(t.verdict, IntegrityVerdict::kUntrusted);
  EXPECT_TRUE(t.fragment());
  EXPECT_EQ(t.max_claim_share, 1.0) << "nothing is claimed from a fragment to cap";
  EXPECT_EQ(t.max_confidence, 0);
  EXPECT_NE(t.summary.find("a fragment"), std::string::npos) << t.summary;
}

// XSpace: one step number found at disjoint times (two workers' replicas in
// one host file). The step spans the pause between the parts, so idle in it
// is the stitching: every idle cause is withheld, not only capped.
TEST(TraceIntegrityTest, StepStitchedFromDisjointTimesWithholdsIdleCauses) {
  Scenario s = Healthy(8);
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  ASSERT_TRUE(tl.ok()) << tl.status();
  tl->mutable_diagnostics().Add("xspace_step_spans_disjoint", Severity::kWarning,
                                "one step number found at disjoint times");
  AnalysisContext ctx(*tl);
  const TraceIntegrity& t = ctx.trace_integrity();
  EXPECT_EQ(CheckOf(t, "step_markers").status, CheckStatus::kLimited);
  EXPECT_EQ(t.max_claim_share, kWindowMaxClaimShare);
  std::vector<std::string> withheld;
  for (const WithheldCause& w : t.withheld) withheld.push_back(w.cause);
  EXPECT_EQ(withheld.size(), static_cast<size_t>(kIdleCauseCount - 1));
  EXPECT_NE(std::find(withheld.begin(), withheld.end(), "host_silent"), withheld.end());
  EXPECT_EQ(std::find(withheld.begin(), withheld.end(), "unattributed"), withheld.end());
}

TEST(TraceIntegrityTest, NoStepMarkersCapClaimsAtHalfTheWindow) {
  Scenario s = Healthy(8);
  s.Edit([](ScenarioEvent& e) { return !e.name.starts_with("ProfilerStep#"); });
  auto a = Analyse(s);
  const TraceIntegrity& t = a->integrity();
  const IntegrityCheck& markers = CheckOf(t, "step_markers");
  EXPECT_EQ(markers.status, CheckStatus::kLimited);
  EXPECT_NE(markers.reason.find("no step markers"), std::string::npos) << markers.reason;
  EXPECT_EQ(CheckOf(t, "fragment").status, CheckStatus::kOk);
  EXPECT_EQ(t.max_claim_share, kWindowMaxClaimShare);
  EXPECT_EQ(t.max_confidence, 2);  // the window is measured as it is
  EXPECT_EQ(t.verdict, IntegrityVerdict::kLimited);
}

TEST(TraceIntegrityTest, GpuOnlyCaptureWithholdsHostCauses) {
  Scenario s = Healthy(12);  // enough device events not to be a fragment
  s.Edit(IsDeviceCat);
  auto a = Analyse(s);
  const TraceIntegrity& t = a->integrity();
  EXPECT_EQ(CheckOf(t, "host_events").status, CheckStatus::kLimited);
  EXPECT_EQ(t.verdict, IntegrityVerdict::kLimited);
  for (std::string_view cause : {"data_loader", "sync_call", "host_side_op", "launch_overhead",
                                 "launch_stall", "other_host_work", "host_silent"}) {
    EXPECT_TRUE(Withheld(t, cause)) << cause;
  }
  EXPECT_FALSE(Withheld(t, "device_wait_other"));
}

TEST(TraceIntegrityTest, HostOnlyCaptureHasNoDeviceEvents) {
  Scenario s = Healthy();
  s.Edit([](ScenarioEvent& e) { return !IsDeviceCat(e); });
  auto a = Analyse(s);
  const TraceIntegrity& t = a->integrity();
  EXPECT_EQ(CheckOf(t, "device_events").status, CheckStatus::kLimited);
  EXPECT_NE(CheckOf(t, "device_events").reason.find("host-only"), std::string::npos);
  EXPECT_EQ(CheckOf(t, "host_events").status, CheckStatus::kNotApplicable);
  EXPECT_EQ(CheckOf(t, "launch_links").status, CheckStatus::kNotApplicable);
  EXPECT_EQ(t.verdict, IntegrityVerdict::kLimited);
}

TEST(TraceIntegrityTest, FilteredFileWithoutRuntimeCalls) {
  Scenario s = Healthy();
  s.Edit([](ScenarioEvent& e) { return e.cat != "cuda_runtime"; });
  auto a = Analyse(s);
  const TraceIntegrity& t = a->integrity();
  EXPECT_EQ(CheckOf(t, "filtered").status, CheckStatus::kLimited);
  EXPECT_EQ(CheckOf(t, "launch_links").status, CheckStatus::kLimited);
  EXPECT_EQ(CheckOf(t, "launch_links").value, 1.0);
  EXPECT_EQ(t.max_confidence, 0);
}

TEST(TraceIntegrityTest, KernelsWithoutLaunches) {
  Scenario s = Healthy();
  // Lost correlation ids: the runtime calls stay, the links go.
  s.Edit([](ScenarioEvent& e) {
    if (IsDeviceCat(e)) e.correlation = 0;
    return true;
  });
  auto a = Analyse(s);
  const TraceIntegrity& t = a->integrity();
  EXPECT_EQ(CheckOf(t, "filtered").status, CheckStatus::kOk);
  const IntegrityCheck& links = CheckOf(t, "launch_links");
  EXPECT_EQ(links.status, CheckStatus::kLimited);
  EXPECT_EQ(links.value, 1.0);
  EXPECT_EQ(links.threshold, kUnlinkedLimitedShare);
  EXPECT_EQ(t.verdict, IntegrityVerdict::kLimited);
}

// Device work with no launch outside the analysed steps (launched before
// the trace began, running ahead of the first step) ends no analysed gap:
// it is named, but does not limit the trace.
TEST(TraceIntegrityTest, UnlinkedWorkOutsideTheStepsDoesNotLimit) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  s.OpKernels("aten::mm", "inherited_gemm", 20, 100 * kNsPerUs, 10 * kNsPerUs).Sync();
  s.Idle(kNsPerMs);
  for (int k = 1; k <= 5; ++k) {
    s.BeginStep(k).DataLoaderNext(100 * kNsPerUs);
    s.OpKernels("aten::mm", "ampere_sgemm_128x64_nn", 10, 200 * kNsPerUs, 10 * kNsPerUs);
    s.Sync().EndStep();
  }
  std::vector<int64_t> lost;
  for (const ScenarioEvent& e : s.events()) {
    if (e.name == "inherited_gemm") lost.push_back(e.correlation);
  }
  ASSERT_EQ(lost.size(), 20u);
  s.Edit([&](ScenarioEvent& e) {
    if (e.correlation == 0 || std::find(lost.begin(), lost.end(), e.correlation) == lost.end()) {
      return true;
    }
    if (e.cat == "cuda_runtime") return false;  // its launch fell before the trace
    e.correlation = 0;
    return true;
  });
  auto a = Analyse(s);
  const TraceIntegrity& t = a->integrity();
  const IntegrityCheck& links = CheckOf(t, "launch_links");
  EXPECT_EQ(links.status, CheckStatus::kOk) << links.reason;
  EXPECT_EQ(links.value, 0.0);
  EXPECT_EQ(links.reason,
            "0 of 50 device activities in the analysed steps have no launch call; 20 unlinked "
            "outside them (launched before the trace began, or between steps) end no analysed "
            "gap");
  EXPECT_EQ(t.verdict, IntegrityVerdict::kTrusted) << t.summary;
}

TEST(TraceIntegrityTest, LaunchesWithoutDeviceWork) {
  Scenario s = Healthy();
  // The kernels of every step but the first were not recorded.
  TimeNs first_step_end_ns = 0;
  for (const ScenarioEvent& e : s.events()) {
    if (e.name == "ProfilerStep#1") first_step_end_ns = e.ts_ns + e.dur_ns;
  }
  s.Edit([&](ScenarioEvent& e) { return !(e.cat == "kernel" && e.ts_ns > first_step_end_ns); });
  auto a = Analyse(s);
  const TraceIntegrity& t = a->integrity();
  const IntegrityCheck& empty = CheckOf(t, "empty_launches");
  EXPECT_EQ(empty.status, CheckStatus::kLimited) << empty.reason;
  EXPECT_DOUBLE_EQ(empty.value, 0.8);
  EXPECT_EQ(t.max_confidence, 0);
  EXPECT_THAT(empty.reason, HasSubstr("device idle is overstated"));

  // No kernel recorded at all: no device idle to overstate.
  Scenario none = Healthy();
  none.Edit([](ScenarioEvent& e) { return e.cat != "kernel"; });
  auto b = Analyse(none);
  const IntegrityCheck& all_empty = CheckOf(b->integrity(), "empty_launches");
  EXPECT_EQ(all_empty.status, CheckStatus::kLimited) << all_empty.reason;
  EXPECT_THAT(all_empty.reason, Not(HasSubstr("overstated")));
}

TEST(TraceIntegrityTest, DroppedRecordMarker) {
  Scenario s = Healthy();
  // Kineto writes what the profiler lost as an event of its own.
  s.HostOp("CUPTI dropped records", kNsPerUs);
  s.Edit([](ScenarioEvent& e) {
    if (e.name == "CUPTI dropped records") e.cat = "overhead";
    return true;
  });
  auto a = Analyse(s);
  const TraceIntegrity& t = a->integrity();
  EXPECT_EQ(CheckOf(t, "dropped_records").status, CheckStatus::kLimited);
  EXPECT_EQ(CheckOf(t, "dropped_records").value, 1);
  EXPECT_EQ(t.max_confidence, 0);
  EXPECT_EQ(t.verdict, IntegrityVerdict::kLimited);
}

TEST(TraceIntegrityTest, ClockSkew) {
  for (TimeNs shift_ns : {20 * kNsPerUs, 3 * kNsPerMs}) {
    Scenario s = Healthy();
    // The device clock runs behind the host's.
    s.Edit([shift_ns](ScenarioEvent& e) {
      if (IsDeviceCat(e)) e.ts_ns -= shift_ns;
      return true;
    });
    auto a = Analyse(s);
    const TraceIntegrity& t = a->integrity();
    const IntegrityCheck& skew = CheckOf(t, "clock_skew");
    bool large = shift_ns >= kSkewFailedNs;
    EXPECT_EQ(skew.status, large ? CheckStatus::kFailed : CheckStatus::kLimited) << shift_ns;
    EXPECT_GE(skew.value, static_cast<double>(shift_ns - 10 * kNsPerUs));
    EXPECT_EQ(t.max_confidence, 0);
    EXPECT_EQ(Withheld(t, "device_wait_other"), large);
    EXPECT_EQ(Withheld(t, "sync_call"), large);
    EXPECT_EQ(Withheld(t, "data_loader"), large);
  }
}

TEST(TraceIntegrityTest, SyncWaitingOnAnIdleDeviceMeansMissingWork) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k).OpKernels("aten::mm", "gemm", 10, 200 * kNsPerUs, 10 * kNsPerUs).Sync();
    // The sync waits 300 ms for work the file does not hold.
    if (k == 2) s.HostCall("cudaStreamSynchronize", 300 * kNsPerMs);
    s.EndStep();
  }
  auto a = Analyse(s);
  const TraceIntegrity& t = a->integrity();
  const IntegrityCheck& missing = CheckOf(t, "missing_device_work");
  EXPECT_EQ(missing.status, CheckStatus::kFailed);
  EXPECT_GE(missing.value, static_cast<double>(299 * kNsPerMs));
  EXPECT_EQ(t.verdict, IntegrityVerdict::kUntrusted);
  EXPECT_TRUE(Withheld(t, "sync_call"));
  EXPECT_FALSE(Withheld(t, "other_host_work"));
  // The same wait with the device busy is an ordinary sync.
  Scenario busy;
  busy.Device(DeviceSpec::A100());
  busy.BeginStep(1).Kernel("long", 300 * kNsPerMs).Sync().EndStep();
  for (int k = 2; k <= 4; ++k) {
    busy.BeginStep(k).OpKernels("aten::mm", "gemm", 10, 200 * kNsPerUs, 10 * kNsPerUs).Sync();
    busy.EndStep();
  }
  auto b = Analyse(busy);
  EXPECT_EQ(CheckOf(b->integrity(), "missing_device_work").status, CheckStatus::kOk);
}

// Inference-sized steps: a graph replay whose recorded kernels stop early,
// then a wait of `wait_ns` on the idle device (the replay's records were
// dropped), after `busy_ns` of recorded kernels.
Scenario ShortWaits(TimeNs wait_ns, TimeNs busy_ns, std::string_view api = "hipStreamSynchronize") {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k).OpKernels("aten::mm", "gemm", 4, 10 * kNsPerUs, busy_ns / 4).Sync();
    s.GraphLaunch({{"triton_poi_fused_0", 100 * kNsPerUs}, {"attn_fwd", 200 * kNsPerUs}});
    s.HostCall(api, wait_ns).EndStep();
  }
  return s;
}

TEST(TraceIntegrityTest, ShortSynchronizeWaitsOnAnIdleDeviceLimitTheTrace) {
  // 5 ms of every ~6 ms step: the replay the sync waited for is not there.
  auto a = Analyse(ShortWaits(5 * kNsPerMs, 400 * kNsPerUs));
  const TraceIntegrity& t = a->integrity();
  const IntegrityCheck& missing = CheckOf(t, "missing_device_work");
  EXPECT_EQ(missing.status, CheckStatus::kLimited) << missing.reason;
  EXPECT_THAT(missing.reason, HasSubstr("4 synchronize call(s) wait with the device idle"));
  EXPECT_THAT(missing.reason, HasSubstr("hipStreamSynchronize"));
  EXPECT_EQ(t.verdict, IntegrityVerdict::kLimited);
  EXPECT_TRUE(Withheld(t, "sync_call"));

  // Each side of the 2 ms per-call line (the replay runs the first 0.3 ms of
  // the wait).
  EXPECT_EQ(CheckOf(Analyse(ShortWaits(2500 * kNsPerUs, 400 * kNsPerUs))->integrity(),
                    "missing_device_work").status,
            CheckStatus::kLimited);
  EXPECT_EQ(CheckOf(Analyse(ShortWaits(1900 * kNsPerUs, 400 * kNsPerUs))->integrity(),
                    "missing_device_work").status,
            CheckStatus::kOk);
  // Each side of the 10%-of-the-steps line: 5 ms in 40 ms steps (11%) and
  // 4 ms in 40 ms steps (9%).
  EXPECT_EQ(CheckOf(Analyse(ShortWaits(5 * kNsPerMs, 40 * kNsPerMs))->integrity(),
                    "missing_device_work").status,
            CheckStatus::kLimited);
  EXPECT_EQ(CheckOf(Analyse(ShortWaits(4 * kNsPerMs, 40 * kNsPerMs))->integrity(),
                    "missing_device_work").status,
            CheckStatus::kOk);
  // The same waits before the first step (start-up) are not steady work.
  Scenario startup;
  startup.Device(DeviceSpec::A100());
  for (int k = 0; k < 4; ++k) {
    startup.Kernel("init", 100 * kNsPerUs).HostCall("cudaDeviceSynchronize", 5 * kNsPerMs);
  }
  for (int k = 1; k <= 4; ++k) {
    startup.BeginStep(k).OpKernels("aten::mm", "gemm", 4, 10 * kNsPerUs, kNsPerMs).Sync();
    startup.EndStep();
  }
  EXPECT_EQ(CheckOf(Analyse(startup)->integrity(), "missing_device_work").status,
            CheckStatus::kOk);
  // A blocking copy leaves the device idle while the host stages pageable
  // memory: no evidence of missing work.
  EXPECT_EQ(CheckOf(Analyse(ShortWaits(5 * kNsPerMs, 400 * kNsPerUs, "cudaMemcpy"))->integrity(),
                    "missing_device_work").status,
            CheckStatus::kOk);
}

TEST(TraceIntegrityTest, StepWithMissingDeviceWork) {
  Scenario s = Healthy(5);
  // Step 3's kernels were not recorded (its launches were).
  TimeNs from_ns = 0, to_ns = 0;
  for (const ScenarioEvent& e : s.events()) {
    if (e.name == "ProfilerStep#3") {
      from_ns = e.ts_ns;
      to_ns = e.ts_ns + e.dur_ns;
    }
  }
  s.Edit([&](ScenarioEvent& e) {
    return !(IsDeviceCat(e) && e.ts_ns >= from_ns && e.ts_ns < to_ns);
  });
  auto a = Analyse(s);
  const TraceIntegrity& t = a->integrity();
  const IntegrityCheck& steps = CheckOf(t, "step_device_work");
  EXPECT_EQ(steps.status, CheckStatus::kLimited) << steps.reason;
  EXPECT_EQ(steps.value, 1);
  EXPECT_NE(steps.reason.find("(3)"), std::string::npos) << steps.reason;
}

TEST(TraceIntegrityTest, Names) {
  EXPECT_EQ(IntegrityVerdictName(IntegrityVerdict::kLimited), "limited");
  EXPECT_EQ(CheckStatusName(CheckStatus::kNotApplicable), "n/a");
}

}  // namespace
}  // namespace tracelint
