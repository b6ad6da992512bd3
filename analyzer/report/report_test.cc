#include "analyzer/report/report.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <unistd.h>

#include "tests/support/metrics_test_trace.h"
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/report/report_data.h"
#include "tests/support/schema_check.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "simdjson.h"

namespace tracelint {
namespace {

using metrics_test::DeviceOpts;
using metrics_test::TestTrace;

DeviceOpts Kern(int64_t stream, int32_t grid_x, float occupancy_pct) {
  DeviceOpts o;
  o.stream = stream;
  o.grid_x = grid_x;
  o.occupancy_pct = occupancy_pct;
  return o;
}

// Two identical 1 ms steps: kernels on two streams overlap, GPU util 60%.
Timeline TwoSteps() {
  TestTrace t;
  t.Device(0, 100);
  for (int i = 0; i < 2; ++i) {
    TimeNs b = 1000 * i;
    t.Step(i + 1, b, 1000)
        .Op("aten::mm", b + 5, 25)
        .Kernel("ampere_sgemm_128x64_nn", b + 10, b + 100, 400, Kern(7, 50, 40))
        .Kernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn", b + 20, b + 300, 400,
                Kern(8, 200, 60));
  }
  return std::move(t).Build();
}

Finding MakeFinding(std::string rule, std::string cause, double share) {
  Finding f;
  f.rule_id = std::move(rule);
  f.cause = std::move(cause);
  f.severity = FindingSeverity::kHigh;
  f.recoverable_ns_per_step = static_cast<TimeNs>(share * kNsPerMs);
  f.recoverable_share = share;
  f.confidence = Confidence::kMeasured;
  f.title = "GPU idle while the data loader runs";
  f.message = "The GPU waits for the next batch.";
  f.evidence.push_back({"GPU idle 30% of step (threshold 10%)", 0.3, 0.1, "share"});
  f.location.rank = 0;
  f.location.first_step = 1;
  f.location.last_step = 2;
  f.location.track = "thread 1";
  f.location.top_items.push_back({"enumerate(DataLoader)#...__next__", 300 * kNsPerUs, 2, ""});
  f.location.python_stack = {"train.py(10): main", "train.py(42): step"};
  f.fix = "DataLoader(num_workers=8, pin_memory=True)";
  return f;
}

class ReportTest : public ::testing::Test {
 protected:
  ReportTest() : tl_(TwoSteps()), ctx_(tl_) {
    input_.input_path = "/data/run1";
    input_.ranks = {&tl_};
    input_.contexts = {&ctx_};
    AttachRecords(input_);
  }
  Timeline tl_;
  AnalysisContext ctx_;
  ReportInput input_;
};

TEST_F(ReportTest, TextHasHeaderMetricsTablesAndFindings) {
  input_.findings = {MakeFinding("gpu-idle-gaps", "data_loader", 0.3),
                     MakeFinding("h2d-copy-dominance", "pageable_copy", 0.15)};
  RuleOutcome nj;
  nj.rule_id = "tensor-cores-idle";
  nj.applicable = false;
  nj.not_judged_reason = "no deviceProperties: compute capability unknown";
  input_.not_judged = {nj};
  input_.options.batch_size = 32;
  input_.options.price_per_hour = 3.6;
  std::string text = RenderTextReport(input_);
  for (std::string_view want : {
           "tracelint: /data/run1 (1 rank, 2 steps",
           " 1 high   0.300 ms  30.0%  gpu-idle-gaps (data_loader): "
           "DataLoader(num_workers=8, pin_memory=True)\n",
           " 2 high   0.150 ms  15.0%  h2d-copy-dominance (pageable_copy): ",
           "Trace:     /data/run1\n",
           "Devices:   GPU Test GPU, CC 8.0, 100 SMs, 40.0 GiB\n",
           "Steps:     2 complete (ProfilerStep#1..#2)\n",
           "Step time (mean)",
           "  GPU utilization                     60.0%\n",
           "  Est. SM efficiency                  50.0%\n",
           "  Est. achieved occupancy             50.0%\n",
           "  Tensor Core kernel share            50.0%\n",
           "    Kernel                  0.600 ms  60.0%\n",
           "HTA temporal breakdown",
           "Top 2 kernels by device time",
           "aten::mm",
           "samples/s: 32000.0\n",
           "samples per dollar: 32000000\n",
           "1. high gpu-idle-gaps (data_loader), confidence measured\n",
           "   up to 0.300 ms/step (30.0% of the mean steady step)\n",
           "     train.py(42): step\n",
           "   fix: DataLoader(num_workers=8, pin_memory=True)\n",
           "Could not judge:\n  tensor-cores-idle: no deviceProperties",
           "2 findings, up to 45% of step time recoverable:\n",
       }) {
    EXPECT_NE(text.find(want), std::string::npos) << "missing: " << want << "\n" << text;
  }
  // What both findings share is said once, above their details.
  EXPECT_NE(text.find("Every finding: rank 0, steps 1-2; shared evidence:\n"
                      "   - GPU idle 30% of step (threshold 10%)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("   - GPU idle 30% of step"), text.rfind("   - GPU idle 30% of step"));
  EXPECT_NE(text.find("   where: thread 1\n"), std::string::npos) << text;
  // Findings before the metrics.
  EXPECT_LT(text.find("gpu-idle-gaps"), text.find("== Metrics =="));
}

// A PR comment never shows a path of the machine that ran tracelint
// (warnings included), keeps a fix's specific advice whole, and names each
// op once.
TEST_F(ReportTest, MarkdownHasNoMachinePathsWholeFixesAndEachNameOnce) {
  const std::string cwd = std::filesystem::current_path().string();
  input_.input_path = cwd + "/traces/run1";
  Finding f = MakeFinding("gpu-idle-gaps", "data_loader", 0.3);
  f.fix = "Load batches in background workers so the next batch is ready when the step ends: "
          "raise DataLoader(num_workers=N) to the cores you can spare, set pin_memory=True and "
          "persistent_workers=True, and move decoding out of __getitem__. The GPU already holds "
          "91% of its memory, so a larger batch will not fit.";
  f.location.top_items = {{"aten::mm", 300, 2, "a"}, {"aten::mm", 200, 1, "b"},
                          {"aten::add", 100, 1, ""}};
  f.evidence.push_back({"slowest in " + cwd + "/traces/run1/worker0.pt.trace.json", 0, 0, ""});
  input_.findings = {f};
  input_.warnings = {cwd + "/traces/run1: skipped 1 .json file(s) that are not Kineto traces",
                     "/srv/elsewhere/rank3.json: damaged input, see import diagnostics"};
  std::string md = RenderMarkdownReport(input_);
  EXPECT_EQ(md.find(cwd), std::string::npos) << md;
  EXPECT_EQ(md.find("/srv/"), std::string::npos) << md;
  EXPECT_NE(md.find("Trace traces/run1"), std::string::npos) << md;
  EXPECT_NE(md.find("- traces/run1: skipped 1 .json file"), std::string::npos) << md;
  EXPECT_NE(md.find("- rank3.json: damaged input"), std::string::npos) << md;
  // The table row holds the whole fix, its specific part included.
  size_t row = md.find("| 1 | high |");
  ASSERT_NE(row, std::string::npos) << md;
  std::string line = md.substr(row, md.find('\n', row) - row);
  EXPECT_NE(line.find("so a larger batch will not fit."), std::string::npos) << line;
  EXPECT_NE(line.find("| aten::mm<br>aten::add |"), std::string::npos) << line;
}

// -q on a terminal: the fix wraps onto indented lines instead of being cut
// to what the first line leaves; nothing goes past the width.
TEST_F(ReportTest, QuietWrapsTheFixOnATerminal) {
  Finding f = MakeFinding("gpu-idle-gaps", "data_loader", 0.3);
  f.fix = "Load batches in background workers: DataLoader(num_workers=8, pin_memory=True, "
          "persistent_workers=True), and move decoding out of __getitem__.";
  input_.findings = {f};
  input_.options.text.verbosity = TextVerbosity::kQuiet;
  input_.options.text.width_columns = 60;
  std::string text = RenderTextReport(input_);
  std::string joined;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    std::string line = text.substr(start, end - start);
    EXPECT_LE(line.size(), 60u) << line;
    size_t first = line.find_first_not_of(' ');
    joined += (joined.empty() ? "" : " ") + (first == std::string::npos ? "" : line.substr(first));
    start = end + 1;
  }
  EXPECT_NE(joined.find("move decoding out of __getitem__."), std::string::npos) << text;
  EXPECT_EQ(text.find("\u2026"), std::string::npos) << text;  // nothing cut
}

// A reason every rule that could not judge shares is printed once.
TEST_F(ReportTest, ASharedNotJudgedReasonIsPrintedOnce) {
  for (const char* id : {"tensor-cores-idle", "kernel-small-grids", "h2d-copy-dominance"}) {
    RuleOutcome nj;
    nj.rule_id = id;
    nj.applicable = false;
    nj.not_judged_reason = std::string(id) == "h2d-copy-dominance" ? "no copies in the trace"
                                                                   : "TPU 0 is not a GPU";
    input_.not_judged.push_back(nj);
  }
  std::string text = RenderTextReport(input_);
  EXPECT_NE(text.find("  tensor-cores-idle, kernel-small-grids: TPU 0 is not a GPU\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("TPU 0 is not a GPU"), text.rfind("TPU 0 is not a GPU"));
  EXPECT_NE(text.find("  h2d-copy-dominance: no copies in the trace\n"), std::string::npos);
}

// -v piped has no terminal width, yet no line runs to thousands of columns:
// C++ signatures shortened, empty shapes dropped, prose wrapped.
TEST_F(ReportTest, VerboseLinesStayReadable) {
  Finding f = MakeFinding("tensor-cores-idle", "fp32_gemm", 0.2);
  // A long message of ordinary words (760 characters) must wrap.
  f.message.clear();
  for (int i = 0; i < 95; ++i) f.message += "exposed ";
  // A real kernel name (986 characters) from an H100 trace.
  f.location.top_items = {{
                           "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::nat"
                           "ive::(anonymous namespace)::where_kernel_impl(at::TensorIterator&)::{lambda()#1}::oper"
                           "ator()() const::{lambda()#12}::operator()() const::{lambda(bool, c10::BFloat16, c10::B"
                           "Float16)#1}>(at::TensorIteratorBase&, at::native::(anonymous namespace)::where_kernel_"
                           "impl(at::TensorIterator&)::{lambda()#1}::operator()() const::{lambda()#12}::operator()"
                           "() const::{lambda(bool, c10::BFloat16, c10::BFloat16)#1} const&)::{lambda(int)#1}>(int"
                           ", at::native::gpu_kernel_impl_nocast<at::native::(anonymous namespace)::where_kernel_i"
                           "mpl(at::TensorIterator&)::{lambda()#1}::operator()() const::{lambda()#12}::operator()("
                           ") const::{lambda(bool, c10::BFloat16, c10::BFloat16)#1}>(at::TensorIteratorBase&, at::"
                           "native::(anonymous namespace)::where_kernel_impl(at::TensorIterator&)::{lambda()#1}::o"
                           "perator()() const::{lambda()#12}::operator()() const::{lambda(bool, c10::BFloat16, c10"
                           "::BFloat16)#1} const&)::{lambda(int)#1})",
                           300, 2, "float32 [[], [32, 1024, 14, 14], [], [], []]"}};
  input_.findings = {f};
  input_.options.text.verbosity = TextVerbosity::kVerbose;
  std::string text = RenderTextReport(input_);
  size_t longest = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    longest = std::max(longest, end - start);
    start = end + 1;
  }
  EXPECT_LE(longest, static_cast<size_t>(kVerboseMaxColumns)) << text;
  EXPECT_NE(text.find("at::native::elementwise_kernel<128, 4, ...>"), std::string::npos) << text;
  EXPECT_NE(text.find("[float32 [32, 1024, 14, 14]]"), std::string::npos) << text;
  EXPECT_EQ(text.find("[[]"), std::string::npos) << text;
}

TEST_F(ReportTest, EmptyFindingsSayNoFindings) {
  std::string text = RenderTextReport(input_);
  EXPECT_NE(text.find("\nNo findings.\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("samples/s"), std::string::npos);
}

TEST_F(ReportTest, JsonCarriesMetricsAsNsAndShares) {
  input_.findings = {MakeFinding("gpu-idle-gaps", "data_loader", 0.3)};
  input_.options.batch_size = 32;
  std::string json = RenderJsonReport(input_);
  EXPECT_EQ(json, RenderJsonReport(input_));  // deterministic

  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  EXPECT_EQ(int64_t(doc["schema_version"]), kReportSchemaVersion);
  simdjson::dom::element rank = doc["ranks"].at(0);
  EXPECT_EQ(int64_t(rank["steps"]["count"]), 2);
  EXPECT_EQ(int64_t(rank["steps"]["mean_step_ns"]), 1000 * kNsPerUs);
  simdjson::dom::element summary = rank["summary"].at(0);
  EXPECT_EQ(int64_t(summary["step_ns"]), 1000 * kNsPerUs);
  EXPECT_EQ(int64_t(summary["kernel_busy_ns"]), 600 * kNsPerUs);
  EXPECT_DOUBLE_EQ(double(summary["gpu_utilization"]), 0.6);
  EXPECT_DOUBLE_EQ(double(summary["est_sm_efficiency"]), 0.5);
  EXPECT_EQ(int64_t(summary["breakdown_ns"]["kernel"]), 600 * kNsPerUs);
  EXPECT_EQ(int64_t(summary["breakdown_ns"]["cpu_exec"]), 23 * kNsPerUs);
  EXPECT_EQ(rank["per_step"].get_array().size(), 2u);
  EXPECT_EQ(int64_t(rank["per_step"].at(1)["step"]), 2);
  // HTA keeps only step 1's work (launched before the last step starts).
  EXPECT_EQ(int64_t(rank["hta_temporal_breakdown"].at(0)["idle_ns"]), 0);
  EXPECT_EQ(int64_t(rank["hta_temporal_breakdown"].at(0)["compute_ns"]), 600 * kNsPerUs);
  EXPECT_EQ(std::string_view(rank["top_kernels"].at(0)["tensor_cores"]), "yes");
  EXPECT_EQ(std::string_view(rank["top_ops"].at(0)["name"]), "aten::mm");
  EXPECT_DOUBLE_EQ(double(doc["throughput"]["samples_per_s"]), 32000.0);
  EXPECT_TRUE(doc["throughput"]["samples_per_dollar"].is_null());
  simdjson::dom::element f = doc["findings"].at(0);
  EXPECT_EQ(std::string_view(f["rule_id"]), "gpu-idle-gaps");
  EXPECT_EQ(int64_t(f["recoverable_ns_per_step"]), 300 * kNsPerUs);
  EXPECT_EQ(std::string_view(f["location"]["python_stack"].at(1)), "train.py(42): step");
  EXPECT_EQ(std::string_view(doc["summary"]["text"]),
            "1 finding, up to 30% of step time recoverable");
}

TEST(ReportData, MeanBreakdownSumsToTheMeanStep) {
  DeviceMetrics m;
  m.step_ns = 1001;
  m.breakdown_ns = {334, 333, 0, 0, 0, 0, 0, 334};
  std::array<TimeNs, kStepCategoryCount> mean = MeanBreakdownNs(m, 3);
  EXPECT_EQ(std::accumulate(mean.begin(), mean.end(), TimeNs{0}), 333);
  EXPECT_EQ(mean[0], 111);
  EXPECT_EQ(mean[1], 111);
  EXPECT_EQ(mean[7], 111);
}

TEST(ReportData, ThroughputUsesWorldSizeWhenLarger) {
  TestTrace t;
  // Host work through the step: its end is not the profiler-stop tail.
  t.Device(0, 100).Step(1, 0, 500).Op("aten::work", 0, 490).Kernel("k", 1, 10, 10);
  Timeline tl = std::move(t).Build();
  AnalysisContext ctx(tl);
  ReportInput in;
  in.ranks = {&tl};
  in.contexts = {&ctx};
  AttachRecords(in);
  EXPECT_FALSE(ComputeRunSummary(in).throughput.has_value());
  in.options.batch_size = 16;
  std::optional<Throughput> tp = ComputeRunSummary(in).throughput;
  ASSERT_TRUE(tp.has_value());
  EXPECT_EQ(tp->ranks, 1);
  EXPECT_DOUBLE_EQ(tp->samples_per_s, 16 / 0.0005);
  EXPECT_FALSE(tp->samples_per_dollar.has_value());
}

// Renders a real report and validates it with python3 + jsonschema.
TEST_F(ReportTest, JsonValidatesAgainstTheSchema) {
  input_.findings = {MakeFinding("gpu-idle-gaps", "data_loader", 0.3)};
  RuleOutcome nj;
  nj.rule_id = "tensor-cores-idle";
  nj.not_judged_reason = "AMD device";
  input_.not_judged = {nj};
  input_.warnings = {"rank 1 has no events"};
  input_.options.batch_size = 8;
  input_.options.price_per_hour = 12.5;
  std::filesystem::path report =
      std::filesystem::path(::testing::TempDir()) /
      ("tracelint_report_schema_test_" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(report, std::ios::binary | std::ios::trunc);
    out << RenderJsonReport(input_);
  }
  std::string why;
  testing::SchemaCheck check = testing::ValidateJsonFile("report.schema.json", report.string(), why);
  std::filesystem::remove(report);
  if (check == testing::SchemaCheck::kSkipped) GTEST_SKIP() << why;
  EXPECT_EQ(check, testing::SchemaCheck::kValid) << why;
}

}  // namespace
}  // namespace tracelint
