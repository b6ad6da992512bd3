// The traces testdata/metrics/gen_metrics.py writes, parsed by the Kineto
// parser as a user's trace would be, must give exactly the answers the
// generator derived for them by construction (testdata/metrics/expected.json).

#include <cstdlib>
#include <filesystem>
#include <string>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/analysis/steps.h"
#include "gtest/gtest.h"
#include "parsers/kineto/kineto_parser.h"
#include "simdjson.h"

namespace tracelint {
namespace {

std::filesystem::path TestdataDir() {
  const char* src = std::getenv("TRACELINT_SOURCE_DIR");
  return std::filesystem::path(src != nullptr ? src : ".") / "testdata" / "metrics";
}

void ExpectShare(simdjson::dom::element want, const std::optional<double>& got,
                 std::string_view what) {
  if (want.is_null()) {
    EXPECT_FALSE(got.has_value()) << what;
    return;
  }
  ASSERT_TRUE(got.has_value()) << what;
  EXPECT_NEAR(*got, double(want), 1e-12) << what;
}

class MetricsTestdata : public ::testing::TestWithParam<std::string> {};

TEST_P(MetricsTestdata, MatchesAnswersByConstruction) {
  const std::string name = GetParam();
  std::filesystem::path dir = TestdataDir();
  simdjson::dom::parser parser;
  simdjson::dom::element answers;
  ASSERT_EQ(parser.load((dir / "expected.json").string()).get(answers), simdjson::SUCCESS)
      << "run testdata/metrics/gen_metrics.py";
  const TimeNs base_ns = int64_t(answers["base_us"]) * kNsPerUs;
  simdjson::dom::element want = answers["scenarios"][name];
  auto us = [&](simdjson::dom::element e) { return int64_t(e) * kNsPerUs; };

  absl::StatusOr<Timeline> tl =
      ParseKinetoJsonFile((dir / (name + ".json")).string(), ParseOptions{});
  ASSERT_TRUE(tl.ok()) << tl.status();
  AnalysisContext ctx(*tl);
  const StepSet& steps = ctx.steps();
  const StepMetrics& m = ctx.step_metrics();

  EXPECT_EQ(steps.from_markers, bool(want["from_markers"]));
  EXPECT_EQ(steps.dropped_incomplete, int64_t(want["dropped_incomplete"]));
  simdjson::dom::array want_steps = want["steps"];
  ASSERT_EQ(steps.steps.size(), want_steps.size());
  size_t i = 0;
  for (simdjson::dom::element s : want_steps) {
    EXPECT_EQ(steps.steps[i].number, int64_t(s.at(0))) << "step " << i;
    EXPECT_EQ(steps.steps[i].start_ns, base_ns + us(s.at(1))) << "step " << i;
    EXPECT_EQ(steps.steps[i].end_ns, base_ns + us(s.at(2))) << "step " << i;
    ++i;
  }

  ASSERT_EQ(m.summary.size(), 1u);
  const DeviceMetrics& d = m.summary[0];
  EXPECT_NEAR(d.gpu_utilization, double(want["gpu_utilization"]), 1e-12);
  EXPECT_NEAR(d.busy_including_copies, double(want["busy_including_copies"]), 1e-12);
  ExpectShare(want["est_sm_efficiency"], d.est_sm_efficiency, "est_sm_efficiency");
  ExpectShare(want["est_achieved_occupancy"], d.est_achieved_occupancy,
              "est_achieved_occupancy");
  ExpectShare(want["tensor_core_kernel_share"], d.tensor_core_kernel_share,
              "tensor_core_kernel_share");
  for (int c = 0; c < kStepCategoryCount; ++c) {
    std::string_view cat = StepCategoryName(static_cast<StepCategory>(c));
    EXPECT_EQ(d.breakdown_ns[c], us(want["breakdown_us"][cat])) << cat;
  }

  ASSERT_EQ(m.hta.size(), 1u);
  simdjson::dom::element hta = want["hta_us"];
  EXPECT_EQ(m.hta[0].span_ns(), us(hta["span"]));
  EXPECT_EQ(m.hta[0].idle_ns, us(hta["idle"]));
  EXPECT_EQ(m.hta[0].compute_ns, us(hta["compute"]));
  EXPECT_EQ(m.hta[0].non_compute_ns, us(hta["non_compute"]));
}

// Real traces: every breakdown sums to its step, every share is a fraction,
// and a trace without step markers gets one window.
TEST(MetricsCorpus, InvariantsOnRealTraces) {
  const char* src = std::getenv("TRACELINT_SOURCE_DIR");
  std::filesystem::path corpus =
      std::filesystem::path(src != nullptr ? src : ".") / ".." / "shared" / "corpus";
  const char* kFiles[] = {
      "pytorch__kineto/tb_plugin/samples/resnet50_profiler_api_num_workers_4/"
      "worker0.pt.trace.json.gz",
      "pytorch__kineto/tb_plugin/samples/resnet50_autograd_api_num_workers_0/"
      "worker0.pt.trace.json.gz",
      "facebookresearch__HolisticTraceAnalysis/tests/data/trace_diff/control/control.json.gz",
      "AMD-AGI__TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz",
  };
  if (!std::filesystem::exists(corpus / kFiles[0])) {
    GTEST_SKIP() << "corpus not found at " << corpus << ": real-trace checks skipped";
  }
  for (const char* file : kFiles) {
    absl::StatusOr<Timeline> tl = ParseKinetoJsonFile((corpus / file).string(), ParseOptions{});
    ASSERT_TRUE(tl.ok()) << file << ": " << tl.status();
    AnalysisContext ctx(*tl);
    const StepMetrics& m = ctx.all_step_metrics();  // every complete step, warm-up included
    ASSERT_GT(m.step_count, 0) << file;
    for (const StepRow& row : m.steps) {
      for (const DeviceMetrics& d : row.devices) {
        TimeNs sum_ns = 0;
        for (TimeNs v : d.breakdown_ns) {
          EXPECT_GE(v, 0) << file;
          sum_ns += v;
        }
        EXPECT_EQ(sum_ns, d.step_ns) << file << " step " << row.number;
        for (double share : {d.gpu_utilization, d.busy_including_copies,
                             d.est_sm_efficiency.value_or(0), d.est_achieved_occupancy.value_or(0),
                             d.tensor_core_kernel_share.value_or(0)}) {
          EXPECT_GE(share, 0) << file;
          EXPECT_LE(share, 1) << file;
        }
        EXPECT_LE(d.gpu_utilization, d.busy_including_copies) << file;
      }
    }
    for (const HtaBreakdown& h : m.hta) {
      EXPECT_EQ(h.idle_ns + h.compute_ns + h.non_compute_ns, h.span_ns()) << file;
    }
  }
  // The autograd-API sample has no ProfilerStep markers: its iterations are
  // inferred from the repeats (docs/steady-state.md), the 4.5 s first one
  // and five of about 150 ms.
  absl::StatusOr<Timeline> no_steps =
      ParseKinetoJsonFile((corpus / kFiles[1]).string(), ParseOptions{});
  ASSERT_TRUE(no_steps.ok());
  StepSet window = ComputeSteps(*no_steps);
  EXPECT_FALSE(window.from_markers);
  EXPECT_EQ(window.source, StepSource::kInferred);
  EXPECT_EQ(window.steps.size(), 6u);
}

INSTANTIATE_TEST_SUITE_P(Generated, MetricsTestdata,
                         ::testing::Values("two_streams_overlap", "gaps_memcpy_comm",
                                           "kernels_after_step_end", "no_steps",
                                           "trailing_incomplete"));

}  // namespace
}  // namespace tracelint
