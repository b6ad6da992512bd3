// One scenario, two formats: the case studies are written as Kineto JSON and
// as a serialized XSpace (tests/support/scenario_xspace), each parsed by its
// real parser, and the full engine must report the same rules and causes
// with recoverable times within 1%. A mapping difference in either parser
// (steps, correlation, copy kinds, sync calls) shows up here as a diff.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "parsers/kineto/kineto_parser.h"
#include "parsers/xplane/xplane_parser.h"
#include "rules/all_rules.h"
#include "testdata/rules/case_studies.h"
#include "tests/support/scenario_xspace.h"
#include "tests/support/xspace_builder.h"

namespace tracelint {
namespace {

using testing::DeviceSpec;
using testing::Scenario;
using testing::ShapeArgs;

constexpr char kXSpacePath[] = "/logs/plugins/profile/2024_01_01_00_00_00/host0.xplane.pb";

struct Row {
  std::string rule_id;
  std::string cause;
  TimeNs recoverable_ns = 0;
  Confidence confidence = Confidence::kMeasured;
  std::string message;
};

std::vector<Row> RunEngine(const Timeline& tl) {
  RuleRegistry registry;
  RegisterAllRules(registry);
  AnalysisContext ctx(tl);
  std::vector<AnalysisContext*> ranks = {&ctx};
  absl::StatusOr<EngineResult> r = RunRules(registry, EngineOptions{}, ranks);
  EXPECT_TRUE(r.ok()) << r.status();
  std::vector<Row> rows;
  if (!r.ok()) return rows;
  EXPECT_TRUE(r->warnings.empty()) << r->warnings.front();
  for (const Finding& f : r->findings) {
    rows.push_back({f.rule_id, f.cause, f.recoverable_ns_per_step, f.confidence, f.message});
  }
  return rows;
}

std::string Describe(const std::vector<Row>& rows) {
  std::string out;
  for (const Row& r : rows) {
    out += fmt::format("  {} {} {} ns ({})\n", r.rule_id, r.cause, r.recoverable_ns,
                       ConfidenceName(r.confidence));
  }
  return out.empty() ? "  (none)\n" : out;
}

struct BothFormats {
  Timeline kineto;
  Timeline xspace;
};

BothFormats Parse(const Scenario& s) {
  BothFormats out;
  absl::StatusOr<std::string> json = s.ToKinetoJson();
  EXPECT_TRUE(json.ok()) << json.status();
  absl::StatusOr<std::string> xspace = testing::ScenarioToXSpace(s);
  EXPECT_TRUE(xspace.ok()) << xspace.status();
  if (!json.ok() || !xspace.ok()) return out;
  // The Kineto parser reads files (memory-mapped), so the JSON goes to one.
  std::string json_path = ::testing::TempDir() + "/cross_format.pt.trace.json";
  {
    std::ofstream file(json_path, std::ios::binary | std::ios::trunc);
    file << *json;
    EXPECT_TRUE(file.good()) << json_path;
  }
  absl::StatusOr<Timeline> k = ParseKinetoJsonFile(json_path, ParseOptions{});
  EXPECT_TRUE(k.ok()) << k.status();
  absl::StatusOr<Timeline> x = ParseXSpaceBytes(*xspace, kXSpacePath);
  EXPECT_TRUE(x.ok()) << x.status();
  if (k.ok()) out.kineto = std::move(*k);
  if (x.ok()) out.xspace = std::move(*x);
  EXPECT_EQ(out.xspace.metadata().format, "xspace");
  return out;
}

// Same (rule, cause) list in the same ranked order, savings within 1%.
// Returns the XSpace rows for scenario-specific checks.
std::vector<Row> ExpectSameFindings(const Scenario& s, std::string_view label) {
  BothFormats both = Parse(s);
  std::vector<Row> kineto = RunEngine(both.kineto);
  std::vector<Row> xspace = RunEngine(both.xspace);
  std::string report = fmt::format("{}\n Kineto JSON:\n{} XSpace:\n{}", label, Describe(kineto),
                                   Describe(xspace));
  std::printf("%s", report.c_str());
  EXPECT_FALSE(kineto.empty()) << report;
  EXPECT_EQ(kineto.size(), xspace.size()) << report;
  for (size_t i = 0; i < std::min(kineto.size(), xspace.size()); ++i) {
    EXPECT_EQ(kineto[i].rule_id, xspace[i].rule_id) << report;
    EXPECT_EQ(kineto[i].cause, xspace[i].cause) << report;
    double a = static_cast<double>(kineto[i].recoverable_ns);
    double b = static_cast<double>(xspace[i].recoverable_ns);
    EXPECT_LE(std::abs(a - b), 0.01 * std::max(a, b)) << report;
  }
  return xspace;
}

const Row* FindRow(const std::vector<Row>& rows, std::string_view rule, std::string_view cause) {
  for (const Row& r : rows) {
    if (r.rule_id == rule && r.cause == cause) return &r;
  }
  return nullptr;
}

// The h2d-copy-dominance case study (rules/h2d_copy_dominance_test.cc): a
// float32 batch copied from pageable memory at the start of each step.
Scenario PageableFloatCopies() {
  constexpr int64_t kImageBatchBytes = 256LL * 3 * 224 * 224 * 4;
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 0; k < 4; ++k) {
    s.BeginStep(k)
        .BeginOp("aten::to")
        .BeginOp("aten::copy_", ShapeArgs("[[256, 3, 224, 224], [256, 3, 224, 224], []]",
                                          R"(["float", "float", "Scalar"])"))
        .CopyH2D(kImageBatchBytes, 12 * kNsPerMs, MemorySpace::kPageable)
        .End()
        .End();
    for (int i = 0; i < 10; ++i) {
      s.BeginOp("aten::mm", ShapeArgs("[[256, 4096], [4096, 4096]]",
                                      R"(["c10::BFloat16", "c10::BFloat16"])"))
          .Kernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn", 3 * kNsPerMs)
          .End();
    }
    for (int i = 0; i < 2; ++i) {
      s.BeginOp("aten::addmm", ShapeArgs("[[1000], [256, 2048], [2048, 1000]]",
                                         R"(["float", "float", "float"])"))
          .Kernel("ampere_sgemm_128x64_tn", 2 * kNsPerMs)
          .End();
    }
    s.Sync().EndStep();
  }
  return s;
}

TEST(CrossFormatTest, DataLoaderStarvation) {
  std::vector<Row> x =
      ExpectSameFindings(case_studies::DataLoaderStarvation(), "dataloader_starvation");
  const Row* loader = FindRow(x, "gpu-idle-gaps", "data_loader");
  ASSERT_NE(loader, nullptr);
  // Built to lose the 12 ms DataLoader call per step.
  EXPECT_NEAR(static_cast<double>(loader->recoverable_ns), 12e6, 0.01 * 12e6);
  EXPECT_NE(FindRow(x, "host-side-ops", "sync_call"), nullptr);
}

TEST(CrossFormatTest, PageableHostToDeviceCopies) {
  std::vector<Row> x = ExpectSameFindings(PageableFloatCopies(), "pageable_h2d");
  // The copy runs before anything else in the step: exposed, and the
  // message names its pageable source (memcpy_details kind_src).
  const Row* copies = FindRow(x, "h2d-copy-dominance", "exposed_h2d_copy");
  ASSERT_NE(copies, nullptr);
  EXPECT_NEAR(static_cast<double>(copies->recoverable_ns), 12e6, 0.01 * 12e6);
  EXPECT_NE(copies->message.find("pageable"), std::string::npos) << copies->message;
  // Input dtypes travel as stats: the fp32 GEMMs are seen in both formats.
  EXPECT_NE(FindRow(x, "tensor-cores-idle", "fp32_no_tensor_cores"), nullptr);
}

// Host work after the step's last launch, in every step including the last
// (whose idle tail is judged on the step marker's thread, not a launch's).
TEST(CrossFormatTest, HostOpAtStepEnd) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= 5; ++k) {
    s.BeginStep(k);
    s.OpKernels("aten::mm", "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn", 8, kNsPerMs,
                30 * kNsPerUs);
    // Outlasts the ~8 ms of queued GEMMs by 4 ms.
    s.HostOp("aten::numpy_T", s.stream_free_ns() - s.now() + 4 * kNsPerMs);
    s.EndStep();
  }
  std::vector<Row> x = ExpectSameFindings(s, "host_op_at_step_end");
  const Row* host = FindRow(x, "host-side-ops", "host_side_op");
  ASSERT_NE(host, nullptr);
  EXPECT_NEAR(static_cast<double>(host->recoverable_ns), 4e6, 0.01 * 4e6);
}

TEST(CrossFormatTest, ItemInLoop) {
  std::vector<Row> x = ExpectSameFindings(case_studies::ItemInLoop(), "item_in_loop");
  EXPECT_NE(FindRow(x, "host-side-ops", "sync_call"), nullptr);
  const Row* host = FindRow(x, "host-side-ops", "host_side_op");
  ASSERT_NE(host, nullptr);
  EXPECT_NEAR(static_cast<double>(host->recoverable_ns),
              static_cast<double>(case_studies::kNumpyIdleNs),
              0.01 * static_cast<double>(case_studies::kNumpyIdleNs));
}


// TF/XLA host-side op: a tf_op TraceMe with self time and no launch below
// it, while the stream has nothing queued. Each step: a GEMM 0.05..3.05 ms,
// a PyFunc on the host 0.1..8.1 ms, then a GEMM launched at 8.11 ms; the GPU
// idles 3.05..8.1 ms inside the PyFunc. `op_thread` runs the PyFunc: the
// launching thread, or another executor thread (TF's usual case).
absl::StatusOr<Timeline> TfStepsXSpace(int64_t op_thread) {
  constexpr int64_t kLaunchThread = 100;
  constexpr int64_t kPs = 1000;  // ps per ns
  constexpr int64_t kStepPs = 12 * kNsPerMs * kPs;
  testing::XSpaceBuilder space;
  testing::XPlaneBuilder cpu = space.AddPlane("/host:CPU");
  cpu.SetEventDisplayName("model/dense/MatMul:MatMul", "MatMul");
  cpu.SetEventDisplayName("postprocess/PyFunc:PyFunc", "PyFunc");
  testing::XLineBuilder compute = cpu.AddLine(kLaunchThread, "tf_Compute/100", 0);
  testing::XLineBuilder other = compute;
  if (op_thread != kLaunchThread) other = cpu.AddLine(op_thread, "tf_Compute/101", 0);
  testing::XLineBuilder api =
      space.AddPlane("/host:CUPTI").AddLine(kLaunchThread, "Host Threads/100", 0);
  testing::XPlaneBuilder gpu = space.AddPlane("/device:GPU:0");
  gpu.Stat("core_count", int64_t{108}).Stat("compute_cap_major", int64_t{8});
  testing::XLineBuilder stream = gpu.AddLine(7, "Stream #7(Kernel)", 0);
  uint64_t correlation = 1;
  auto matmul = [&](int64_t at_ps) {
    compute.AddEvent("model/dense/MatMul:MatMul", at_ps, 100 * kNsPerUs * kPs);
    api.AddEvent("cudaLaunchKernel", at_ps + 10 * kNsPerUs * kPs, 10 * kNsPerUs * kPs)
        .Stat("correlation_id", correlation);
    stream.AddEvent("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn",
                    at_ps + 50 * kNsPerUs * kPs, 3 * kNsPerMs * kPs)
        .Stat("correlation_id", correlation)
        .RefStat("tf_op", "model/dense/MatMul:MatMul");
    ++correlation;
  };
  for (int64_t k = 0; k < 4; ++k) {
    int64_t step_ps = kStepPs * k;
    compute.AddEvent("train", step_ps, kStepPs).Stat("step_num", k);
    matmul(step_ps);
    other.AddEvent("postprocess/PyFunc:PyFunc", step_ps + 100 * kNsPerUs * kPs,
                   8 * kNsPerMs * kPs);
    matmul(step_ps + 8100 * kNsPerUs * kPs);
    api.AddEvent("cudaStreamSynchronize", step_ps + 8300 * kNsPerUs * kPs,
                 3 * kNsPerMs * kPs);
  }
  return ParseXSpaceBytes(space.Serialize(), kXSpacePath);
}

void ExpectTfHostSideOp(int64_t op_thread) {
  absl::StatusOr<Timeline> tl = TfStepsXSpace(op_thread);
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(tl->metadata().framework, "TensorFlow");
  int tf_ops = 0;
  for (SliceId id = 0; id < tl->slice_count(); ++id) {
    if (tl->str(tl->slices().name[id]) != "postprocess/PyFunc:PyFunc") continue;
    EXPECT_EQ(tl->slices().kind[id], EventKind::kCpuOp);
    ++tf_ops;
  }
  EXPECT_EQ(tf_ops, 4);
  std::vector<Row> rows = RunEngine(*tl);
  std::printf("xspace_tf_host_op (PyFunc on thread %ld)\n%s", static_cast<long>(op_thread),
              Describe(rows).c_str());
  const Row* host = FindRow(rows, "host-side-ops", "host_side_op");
  ASSERT_NE(host, nullptr) << Describe(rows);
  EXPECT_EQ(host->recoverable_ns, 8100 * kNsPerUs - 3050 * kNsPerUs);
  EXPECT_EQ(host->confidence, Confidence::kInferred);
  EXPECT_EQ(FindRow(rows, "gpu-idle-gaps", "host_silent"), nullptr) << Describe(rows);
}

// JAX dispatch: the Python thread runs PjitFunction(step) (a TraceMe
// annotation) while the stream thread that launches stays silent. Each step:
// a GEMM 0.05..3.05 ms, dispatch on the Python thread 3.1..8.1 ms (when
// `dispatch_recorded`), then a GEMM launched at 8.11 ms.
absl::StatusOr<Timeline> JaxStepsXSpace(bool dispatch_recorded) {
  constexpr int64_t kPs = 1000;  // ps per ns
  constexpr int64_t kStepPs = 12 * kNsPerMs * kPs;
  testing::XSpaceBuilder space;
  testing::XPlaneBuilder cpu = space.AddPlane("/host:CPU");
  testing::XLineBuilder python = cpu.AddLine(200, "python", 0);
  testing::XLineBuilder api =
      space.AddPlane("/host:CUPTI").AddLine(100, "Host Threads/100", 0);
  testing::XPlaneBuilder gpu = space.AddPlane("/device:GPU:0");
  gpu.Stat("core_count", int64_t{108}).Stat("compute_cap_major", int64_t{8});
  testing::XLineBuilder stream = gpu.AddLine(7, "Stream #7(Kernel)", 0);
  uint64_t correlation = 1;
  auto gemm = [&](int64_t at_ps) {
    api.AddEvent("cuLaunchKernel", at_ps + 10 * kNsPerUs * kPs, 10 * kNsPerUs * kPs)
        .Stat("correlation_id", correlation);
    stream.AddEvent("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn",
                    at_ps + 50 * kNsPerUs * kPs, 3 * kNsPerMs * kPs)
        .Stat("correlation_id", correlation);
    ++correlation;
  };
  for (int64_t k = 0; k < 4; ++k) {
    int64_t step_ps = kStepPs * k;
    python.AddEvent("train_step", step_ps, kStepPs).Stat("step_num", k);
    gemm(step_ps);
    if (dispatch_recorded) {
      python.AddEvent("PjitFunction(update)", step_ps + 3100 * kNsPerUs * kPs,
                      5 * kNsPerMs * kPs);
    }
    gemm(step_ps + 8100 * kNsPerUs * kPs);
  }
  return ParseXSpaceBytes(space.Serialize(), kXSpacePath);
}

// The launching thread's silence is not the host's when another thread
// records the dispatch: that is host work, and the advice to record the
// host (Python tracing, py-spy) would be wrong.
TEST(CrossFormatTest, XSpaceDispatchOnThePythonThreadIsHostWorkNotSilence) {
  absl::StatusOr<Timeline> tl = JaxStepsXSpace(/*dispatch_recorded=*/true);
  ASSERT_TRUE(tl.ok()) << tl.status();
  std::vector<Row> rows = RunEngine(*tl);
  // The dispatch (3.1..8.1 ms, less the launch path's own 10 us) is host
  // work; only the step's edges, where nothing is recorded, stay silent.
  const Row* work = FindRow(rows, "gpu-idle-gaps", "other_host_work");
  ASSERT_NE(work, nullptr) << Describe(rows);
  EXPECT_NEAR(static_cast<double>(work->recoverable_ns), 5.0 * kNsPerMs, 0.05 * kNsPerMs)
      << Describe(rows);
  const Row* edges = FindRow(rows, "gpu-idle-gaps", "host_silent");
  TimeNs edges_ns = edges == nullptr ? 0 : edges->recoverable_ns;
  EXPECT_LT(edges_ns, work->recoverable_ns / 4) << Describe(rows);

  absl::StatusOr<Timeline> silent = JaxStepsXSpace(/*dispatch_recorded=*/false);
  ASSERT_TRUE(silent.ok()) << silent.status();
  std::vector<Row> silent_rows = RunEngine(*silent);
  EXPECT_EQ(FindRow(silent_rows, "gpu-idle-gaps", "other_host_work"), nullptr)
      << Describe(silent_rows);
  const Row* quiet = FindRow(silent_rows, "gpu-idle-gaps", "host_silent");
  ASSERT_NE(quiet, nullptr) << Describe(silent_rows);
  // The same idle time either way; only its cause moved.
  EXPECT_NEAR(static_cast<double>(work->recoverable_ns + edges_ns),
              static_cast<double>(quiet->recoverable_ns), 0.05 * kNsPerMs);
}

TEST(CrossFormatTest, XSpaceTfOpOnTheLaunchingThreadIsAHostSideOp) { ExpectTfHostSideOp(100); }

TEST(CrossFormatTest, XSpaceTfOpOnAnotherExecutorThreadIsAHostSideOp) {
  ExpectTfHostSideOp(101);
}

// The same op seen through Kineto JSON keeps a measured confidence.
TEST(CrossFormatTest, KinetoHostSideOpStaysMeasured) {
  BothFormats both = Parse(case_studies::ItemInLoop());
  // The rows outlive the pointers into them.
  std::vector<Row> kineto_rows = RunEngine(both.kineto);
  const Row* kineto = FindRow(kineto_rows, "host-side-ops", "host_side_op");
  ASSERT_NE(kineto, nullptr);
  EXPECT_EQ(kineto->confidence, Confidence::kMeasured);
  std::vector<Row> xspace_rows = RunEngine(both.xspace);
  const Row* xspace = FindRow(xspace_rows, "host-side-ops", "host_side_op");
  ASSERT_NE(xspace, nullptr);
  EXPECT_EQ(xspace->confidence, Confidence::kInferred);
}

}  // namespace
}  // namespace tracelint
