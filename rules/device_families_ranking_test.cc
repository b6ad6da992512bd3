// Device families of 2024-2026 hardware (docs/devices-and-advice.md,
// "Devices"), end to end: each trace written in its profiler's format, read
// by its parser, through every rule and the ranking, beside a contrasting
// trace. What makes the family (MTIA categories, ROCm's device numbering, a
// TPU's async copies) is only visible in the file, so these tests start
// from the file rather than from a Timeline.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/analysis/trace_integrity.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "analyzer/model/accelerator.h"
#include "analyzer/report/html_report.h"
#include "analyzer/report/report.h"
#include "analyzer/report/report_data.h"
#include "tests/support/scenario.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/test_files.h"
#include "parsers/kineto/kineto_parser.h"
#include "parsers/xplane/xplane_parser.h"
#include "rules/all_rules.h"
#include "tests/support/rule_test_util.h"
#include "tests/support/xspace_builder.h"

namespace tracelint {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using rules2_test::Describe;
using rules2_test::RankingOf;
using testing::DeviceSpec;
using testing::Scenario;
using testing::ScenarioArg;
using testing::ScenarioEvent;
using testing::XLineBuilder;
using testing::XPlaneBuilder;
using testing::XSpaceBuilder;

// What the user reads for one rank, with the timeline it came from.
struct Analyzed {
  std::unique_ptr<Timeline> tl;
  std::vector<Finding> findings;
  std::vector<RuleOutcome> not_judged;
  IntegrityVerdict integrity = IntegrityVerdict::kTrusted;
  std::vector<DeviceMetrics> summary;  // per device
  std::string accelerator;
  std::string verdict_line;  // the report's "Verdict: ..." line
  std::string text;          // the text report, 120 columns
  std::string html;          // the HTML report

  const DeviceMetrics& device0() const {
    static const DeviceMetrics kNone;
    EXPECT_EQ(summary.size(), 1u);
    return summary.empty() ? kNone : summary.front();
  }
  std::string NotJudged(std::string_view rule) const {
    for (const RuleOutcome& o : not_judged) {
      if (o.rule_id == rule) return o.not_judged_reason;
    }
    return "<judged>";
  }
};

Analyzed Analyze(absl::StatusOr<Timeline> parsed) {
  Analyzed out;
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (!parsed.ok()) return out;
  out.tl = std::make_unique<Timeline>(std::move(*parsed));
  out.accelerator = std::string(AcceleratorName(out.tl->metadata()));
  RuleRegistry registry;
  RegisterAllRules(registry);
  AnalysisContext ctx(*out.tl);
  std::vector<AnalysisContext*> ranks = {&ctx};
  absl::StatusOr<EngineResult> result = RunRules(registry, EngineOptions{}, ranks);
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return out;
  for (const std::string& w : result->warnings) ADD_FAILURE() << "engine warning: " << w;
  out.findings = result->findings;
  out.not_judged = result->not_judged;
  out.integrity = ctx.trace_integrity().verdict;
  out.summary = ctx.step_metrics().summary;
  ReportInput input;
  input.ranks = {out.tl.get()};
  input.contexts = {&ctx};
  AttachRecords(input);
  input.findings = result->findings;
  input.not_judged = result->not_judged;
  out.verdict_line = input.summary().verdict.line;
  input.options.text.width_columns = 120;
  out.text = RenderTextReport(input);
  out.html = RenderHtmlReport(input);
  return out;
}

// The scenario as the Kineto JSON file a profiler writes, read back by the
// Kineto parser (where deviceProperties and the categories are resolved).
Analyzed AnalyzeKineto(const Scenario& s) {
  absl::StatusOr<std::string> json = s.ToKinetoJson();
  EXPECT_TRUE(json.ok()) << json.status();
  if (!json.ok()) return {};
  testing::TempDir dir;
  return Analyze(ParseKinetoJsonFile(dir.Write("trace.json", *json), ParseOptions{}));
}

TimeNs CategoryNs(const DeviceMetrics& d, StepCategory c) {
  return d.breakdown_ns[static_cast<int>(c)];
}

// ---- MTIA

constexpr int kMtiaDevice = 17;  // MTIA traces name devices by system index

// Five steps starved by a 6 ms DataLoader fetch: an hccl all_reduce on the
// host, a pinned 1 MiB input copy and four 1 ms device jobs. The host never
// waits for the device, so the device idles for the rest of the fetch:
// gpu-idle-gaps' data_loader case on any accelerator. The collective runs
// while the device is idle, where the breakdown calls it communication
// (device work would take the instant first).
Scenario DataLoaderStarved(const DeviceSpec& device, int device_id) {
  Scenario s;
  s.Device(device);
  testing::CopyOptions copy;
  copy.stream = {device_id, testing::kComputeStream};
  testing::KernelOptions job;
  job.stream = copy.stream;
  for (int k = 1; k <= 5; ++k) {
    s.BeginStep(k).DataLoaderNext(6 * kNsPerMs).HostOp("hccl:all_reduce", 50 * kNsPerUs);
    s.CopyH2D(1 << 20, 100 * kNsPerUs, MemorySpace::kPinned, copy);
    s.OpKernels("aten::linear", "pe_exe", 4, kNsPerMs, 10 * kNsPerUs, job);
    s.EndStep();
  }
  return s;
}

// The same trace as MTIA's Kineto plugin records it: the runtime calls are
// mtia_runtime, the command processor's events mtia_ccp_events, the input
// copy a dma_request with its direction and size.
Scenario AsMtia(Scenario s) {
  s.Edit([](ScenarioEvent& e) {
    if (e.cat == "cuda_runtime") {
      e.cat = "mtia_runtime";
      e.name = "runFunction - job_prep_and_submit_for_execution";
    } else if (e.cat == "kernel") {
      e.cat = "mtia_ccp_events";
    } else if (e.cat == "gpu_memcpy") {
      e.cat = "mtia_ccp_events";
      e.name = "dma_request";
      for (ScenarioArg& a : e.args) {
        if (a.key == "bytes") a.key = "size";
      }
      e.args.push_back(ScenarioArg::String("direction", "HOST_TO_DEVICE"));
    }
    return true;
  });
  return s;
}

DeviceSpec Mtia() { return {0, "ARTEMIS", -1, -1, -1, 68'719'476'736, -1}; }

// The MTIA device is busy exactly as the A100 running the same trace: the
// same ranking, utilization and breakdown, integrity trusted (not a
// host-only capture); only tensor-cores-idle stays out, saying why.
TEST(DeviceFamiliesRanking, MtiaDeviceEventsAreDeviceActivity) {
  Analyzed cuda = AnalyzeKineto(DataLoaderStarved(DeviceSpec::A100(), 0));
  Analyzed mtia = AnalyzeKineto(AsMtia(DataLoaderStarved(Mtia(), kMtiaDevice)));
  ASSERT_NE(mtia.tl, nullptr);
  EXPECT_EQ(cuda.accelerator, "GPU");
  EXPECT_EQ(mtia.accelerator, "MTIA");
  ASSERT_EQ(mtia.tl->metadata().devices.size(), 1u);
  EXPECT_EQ(mtia.tl->metadata().devices[0].id, kMtiaDevice);

  EXPECT_THAT(RankingOf(cuda.findings), ElementsAre("gpu-idle-gaps/data_loader"))
      << Describe(cuda.findings);
  EXPECT_EQ(RankingOf(mtia.findings), RankingOf(cuda.findings)) << Describe(mtia.findings);
  ASSERT_EQ(mtia.findings.size(), 1u);
  EXPECT_EQ(mtia.findings[0].recoverable_ns_per_step, cuda.findings[0].recoverable_ns_per_step);
  // The words name the device the trace ran on.
  EXPECT_THAT(cuda.findings[0].title, HasSubstr("GPU idle"));
  EXPECT_THAT(mtia.findings[0].title, HasSubstr("MTIA idle"));
  EXPECT_THAT(mtia.findings[0].message, HasSubstr("The MTIA is idle"));
  EXPECT_EQ(mtia.integrity, IntegrityVerdict::kTrusted);
  EXPECT_EQ(cuda.integrity, IntegrityVerdict::kTrusted);

  const DeviceMetrics& m = mtia.device0();
  const DeviceMetrics& c = cuda.device0();
  EXPECT_EQ(m.device, kMtiaDevice);
  EXPECT_GT(m.gpu_utilization, 0.3);
  EXPECT_DOUBLE_EQ(m.gpu_utilization, c.gpu_utilization);
  EXPECT_EQ(m.kernel_ns, c.kernel_ns);
  // MTIA has no Tensor Cores: no share, not 0%.
  EXPECT_FALSE(m.tensor_core_kernel_share.has_value());
  // dma_request is a copy, the hccl op communication, as on the GPU.
  EXPECT_GT(CategoryNs(m, StepCategory::kMemcpy), 0);
  EXPECT_EQ(CategoryNs(m, StepCategory::kMemcpy), CategoryNs(c, StepCategory::kMemcpy));
  EXPECT_GT(CategoryNs(m, StepCategory::kCommunication), 0);
  EXPECT_EQ(CategoryNs(m, StepCategory::kCommunication),
            CategoryNs(c, StepCategory::kCommunication));

  // MTIA's matrix engines have faster paths than float32, but its device
  // work names no GEMM here, so the rule says why it cannot tell.
  EXPECT_THAT(mtia.NotJudged("tensor-cores-idle"),
              HasSubstr("float32 work on MTIA's matrix engines cannot be told"));
}

// ---- ROCm: the lone deviceProperties entry and the events' device id

constexpr int kRocmDevice = 2;

DeviceSpec Mi300x(int id) {
  return {id, "AMD Instinct MI300X", 9, 4, 304, 206'141'652'992, 2048};
}

// Starved FP32 GEMM steps on HIP (hipLaunchKernel, hipStreamSynchronize),
// the device numbered as ROCm numbers it.
Scenario RocmStarved(std::vector<DeviceSpec> properties, int device_id) {
  Scenario s;
  for (const DeviceSpec& d : properties) s.Device(d);
  testing::KernelOptions gemm;
  gemm.stream = {device_id, testing::kComputeStream};
  gemm.grid[0] = 152;  // half an MI300X wave: an SM efficiency of 50%
  for (int k = 1; k <= 5; ++k) {
    s.BeginStep(k).DataLoaderNext(2 * kNsPerMs);
    s.OpKernels("aten::mm", "Cijk_Ailk_Bljk_SB_MT128x128x16_MI32x32x2x1", 10, 400 * kNsPerUs,
                10 * kNsPerUs, gemm);
    s.Sync(gemm.stream).EndStep();
  }
  s.Edit([](ScenarioEvent& e) {
    if (e.name == "cudaLaunchKernel") e.name = "hipLaunchKernel";
    if (e.name == "cudaStreamSynchronize") e.name = "hipStreamSynchronize";
    return true;
  });
  return s;
}

// deviceProperties says id 0, the events say device 2: the entry is device
// 2's, so its name, SM count and the SM efficiency they allow are the same
// as in the trace whose events use id 0.
TEST(DeviceFamiliesRanking, RocmLoneDevicePropertiesEntryIsTheEventsDevice) {
  Analyzed as_zero = AnalyzeKineto(RocmStarved({Mi300x(0)}, 0));
  Analyzed rocm = AnalyzeKineto(RocmStarved({Mi300x(0)}, kRocmDevice));
  ASSERT_NE(rocm.tl, nullptr);
  const DeviceInfo* info = rocm.tl->metadata().FindDevice(kRocmDevice);
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->name, "AMD Instinct MI300X");
  EXPECT_EQ(info->vendor, "AMD");
  EXPECT_EQ(info->sm_count, 304);
  EXPECT_EQ(rocm.tl->diagnostics().Count("device_properties_id_matched"), 1);

  // Tensile's SB kernels are float32 GEMMs: on an MI300X's Matrix Cores the
  // mixed-precision finding (its own cause), as on the device numbered 0.
  EXPECT_THAT(RankingOf(rocm.findings),
              ElementsAre("gpu-idle-gaps/data_loader", "tensor-cores-idle/fp32_matrix_units"))
      << Describe(rocm.findings);
  EXPECT_EQ(RankingOf(as_zero.findings), RankingOf(rocm.findings));
  EXPECT_EQ(rocm.NotJudged("tensor-cores-idle"), "<judged>");

  const DeviceMetrics& d = rocm.device0();
  EXPECT_EQ(d.device, kRocmDevice);
  ASSERT_TRUE(d.est_sm_efficiency.has_value());
  ASSERT_TRUE(as_zero.device0().est_sm_efficiency.has_value());
  EXPECT_DOUBLE_EQ(*d.est_sm_efficiency, *as_zero.device0().est_sm_efficiency);
  EXPECT_DOUBLE_EQ(*d.est_sm_efficiency, 0.5 * d.gpu_utilization);
  // The lone entry makes device 2 an AMD GPU: Tensor Core share is n/a.
  EXPECT_FALSE(d.tensor_core_kernel_share.has_value());
}

// Two different entries for one device in the events: which is which is
// not known, so the ids stay as written and device 2 has no properties: SM
// efficiency is n/a. The kernels' own names still say enough: Tensile's
// "MI32x32x2x1" is a Matrix Core (MFMA) instruction, so the device has Matrix
// Cores and the float32 GEMMs get the mixed-precision finding.
TEST(DeviceFamiliesRanking, RocmAmbiguousDevicePropertiesKeepTheirIds) {
  const DeviceSpec mi250x{1, "AMD Instinct MI250X", 9, 0, 220, 68'702'699'520, 2048};
  Analyzed rocm = AnalyzeKineto(RocmStarved({Mi300x(0), mi250x}, kRocmDevice));
  ASSERT_NE(rocm.tl, nullptr);
  EXPECT_EQ(rocm.tl->metadata().FindDevice(kRocmDevice), nullptr);
  EXPECT_EQ(rocm.tl->diagnostics().Count("device_properties_id_matched"), 0);
  EXPECT_THAT(RankingOf(rocm.findings),
              ElementsAre("gpu-idle-gaps/data_loader", "tensor-cores-idle/fp32_matrix_units"))
      << Describe(rocm.findings);
  EXPECT_FALSE(rocm.device0().est_sm_efficiency.has_value());
}

// Eight identical entries (0-7) and events on HSA agent 9: whichever GPU it
// is, the entries describe it. The listed devices stay the eight.
TEST(DeviceFamiliesRanking, RocmIdenticalDevicePropertiesDescribeAnUnlistedId) {
  std::vector<DeviceSpec> eight;
  for (int id = 0; id < 8; ++id) eight.push_back(Mi300x(id));
  Analyzed rocm = AnalyzeKineto(RocmStarved(eight, 9));
  ASSERT_NE(rocm.tl, nullptr);
  const DeviceInfo* info = rocm.tl->metadata().FindDevice(9);
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->name, "AMD Instinct MI300X");
  EXPECT_EQ(info->sm_count, 304);
  EXPECT_EQ(rocm.tl->metadata().devices.size(), 8u);
  EXPECT_EQ(rocm.tl->diagnostics().Count("device_properties_identical"), 1);
  EXPECT_TRUE(rocm.device0().est_sm_efficiency.has_value());
  EXPECT_THAT(rocm.NotJudged("tensor-cores-idle"), Not(HasSubstr("no device properties")));
}

// ---- TPU: XSpace with XLA's async copies

constexpr int64_t kTpuStepNs = 10 * kNsPerMs;
constexpr int64_t kPsPerNs = 1000;

// Four jitted steps of 10 ms (host "train" events with step_num) on one
// TPU core: 4 ms and 1 ms of fusions, and an async copy whose copy-done
// waits 3 ms. `copy_start`/`copy_done` name the copy's two ops.
std::string TpuSteps(std::string_view copy_start, std::string_view copy_done) {
  XSpaceBuilder space;
  XLineBuilder host = space.AddPlane("/host:CPU").AddLine(1, "python", 0);
  XPlaneBuilder tpu = space.AddPlane("/device:TPU:0");
  tpu.Stat("device_type_string", "TPU v5 lite");
  XLineBuilder modules = tpu.AddLine(2, "XLA Modules", 0);
  XLineBuilder ops = tpu.AddLine(3, "XLA Ops", 0);
  auto ps = [](int64_t ns) { return ns * kPsPerNs; };
  for (int k = 1; k <= 4; ++k) {
    const int64_t start_ns = k * kTpuStepNs;
    host.AddEvent("train", ps(start_ns), ps(kTpuStepNs)).Stat("step_num", int64_t{k});
    modules.AddEvent("jit_train_step(1)", ps(start_ns + 500 * kNsPerUs), ps(9 * kNsPerMs));
    ops.AddEvent("fusion.1", ps(start_ns + 500 * kNsPerUs), ps(4 * kNsPerMs));
    ops.AddEvent(copy_start, ps(start_ns + 4'500 * kNsPerUs), ps(10 * kNsPerUs));
    ops.AddEvent("fusion.2", ps(start_ns + 4'510 * kNsPerUs), ps(1 * kNsPerMs));
    ops.AddEvent(copy_done, ps(start_ns + 5'510 * kNsPerUs), ps(3 * kNsPerMs));
  }
  return space.Serialize();
}

Analyzed AnalyzeXSpace(const std::string& bytes) {
  return Analyze(ParseXSpaceBytes(bytes, "/logs/plugins/profile/run/worker-0.xplane.pb"));
}

// The device is a TPU; copy-start/copy-done are copies: utilization is the
// fusions' 5 ms of the 10 ms step, the copies count only in "busy incl.
// copies" and Memcpy (and not in the kernel time the Tensor Core share
// divides by). The host records only the step events, so the trace is a
// device-only capture: the idle time has no host cause to charge, and
// gpu-idle-gaps withholds it rather than guess; nothing ranks.
TEST(DeviceFamiliesRanking, TpuAsyncCopiesAreNotCompute) {
  Analyzed tpu = AnalyzeXSpace(TpuSteps("copy-start.4", "copy-done.4"));
  ASSERT_NE(tpu.tl, nullptr);
  EXPECT_EQ(tpu.accelerator, "TPU");
  EXPECT_EQ(tpu.tl->metadata().framework, "JAX");
  EXPECT_THAT(RankingOf(tpu.findings), IsEmpty()) << Describe(tpu.findings);
  EXPECT_EQ(tpu.integrity, IntegrityVerdict::kLimited);
  EXPECT_THAT(tpu.NotJudged("gpu-idle-gaps"), HasSubstr("withheld: device-only capture"));
  EXPECT_THAT(tpu.NotJudged("tensor-cores-idle"), HasSubstr("TPU 0 is not a GPU"));
  EXPECT_THAT(tpu.NotJudged("host-side-ops"), HasSubstr("of TPU idle comes before device work with "
                                                       "no linked launch (XLA executables"));
  const DeviceMetrics& d = tpu.device0();
  EXPECT_EQ(d.step_ns, 4 * kTpuStepNs);
  EXPECT_EQ(d.kernel_ns, 4 * 5 * kNsPerMs);
  EXPECT_DOUBLE_EQ(d.gpu_utilization, 0.5);
  EXPECT_DOUBLE_EQ(d.busy_including_copies, 0.801);
  EXPECT_EQ(CategoryNs(d, StepCategory::kMemcpy), 4 * 3'010 * kNsPerUs);
  EXPECT_FALSE(d.tensor_core_kernel_share.has_value());  // a TPU: n/a, not 0%
  EXPECT_THAT(tpu.verdict_line, HasSubstr("TPU busy with kernels 50%")) << tpu.verdict_line;
  // The report names the device it measured: no GPU columns, and no rows of
  // GPU-only estimates that are n/a on every device.
  EXPECT_THAT(tpu.text, HasSubstr("TPU utilization")) << tpu.text;
  EXPECT_THAT(tpu.text, HasSubstr("Devices:   TPU v5 lite\n")) << tpu.text;
  EXPECT_THAT(tpu.text, HasSubstr("  TPU 0\n")) << tpu.text;
  EXPECT_THAT(tpu.text, Not(HasSubstr("  Est. SM efficiency  "))) << tpu.text;
  EXPECT_THAT(tpu.text, Not(HasSubstr("  Tensor Core kernel share  "))) << tpu.text;
  EXPECT_THAT(tpu.html, HasSubstr("<th>TPU 0</th>"));
  EXPECT_THAT(tpu.html, HasSubstr("TPU utilization per step and device"));
  EXPECT_THAT(tpu.html, HasSubstr("TPU 0 idle (by cause)"));
  EXPECT_THAT(tpu.html, HasSubstr("TPU idle by cause:"));
  EXPECT_THAT(tpu.html, Not(HasSubstr("GPU 0")));
  EXPECT_THAT(tpu.html, Not(HasSubstr("SM efficiency")));
  // Every idle cause has its colour: the device-only capture's idle time is
  // unattributed, and is drawn in that cause's grey, not an empty fill.
  EXPECT_THAT(tpu.html, HasSubstr("fill=\"#d9d9d9\"><title>TPU 0 idle: unattributed"));
  EXPECT_THAT(tpu.html, Not(HasSubstr("fill=\"\"")));
  EXPECT_THAT(tpu.html, Not(HasSubstr("background:\"")));
}

// The contrast: the same ops named as fusions are compute, so the device
// computes 8 of 10 ms and nothing is a copy; the ranking is the same.
TEST(DeviceFamiliesRanking, TpuSameOpsAsFusionsAreCompute) {
  Analyzed tpu = AnalyzeXSpace(TpuSteps("fusion.3", "fusion.4"));
  ASSERT_NE(tpu.tl, nullptr);
  EXPECT_EQ(tpu.accelerator, "TPU");
  EXPECT_THAT(RankingOf(tpu.findings), IsEmpty()) << Describe(tpu.findings);
  EXPECT_THAT(tpu.NotJudged("gpu-idle-gaps"), HasSubstr("withheld: device-only capture"));
  const DeviceMetrics& d = tpu.device0();
  EXPECT_EQ(d.kernel_ns, 4 * 8'010 * kNsPerUs);
  EXPECT_DOUBLE_EQ(d.gpu_utilization, 0.801);
  EXPECT_DOUBLE_EQ(d.busy_including_copies, 0.801);
  EXPECT_EQ(CategoryNs(d, StepCategory::kMemcpy), 0);
}

}  // namespace
}  // namespace tracelint
