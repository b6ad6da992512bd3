// The roofline against TraceLens's performance model on the same traces
// (../shared/oracles/tracelens: TraceLens's own numbers for two H100 corpus
// traces; skipped visibly when ../shared is absent). docs/roofline.md
// explains every systematic difference; what must hold:
// - identical FLOPs per call for the same op and shapes (GEMM, SDPA), and
//   the same call counts where both attribute the same kernels;
// - identical total GEMM and attention FLOPs;
// - achieved TFLOP/s within 10% per op and per family.

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/roofline.h"
#include "gtest/gtest.h"
#include "parsers/format_registry.h"
#include "simdjson.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;

fs::path SharedDir() {
  const char* root = std::getenv("TRACELINT_SOURCE_DIR");
  return fs::path(root ? root : ".") / ".." / "shared";
}

// "((8944, 1024), (1024, 2816))" and "[[8944, 1024], [1024, 2816]]" alike.
std::string NormalizeDims(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == ' ') continue;
    if (c == '(') c = '[';
    if (c == ')') c = ']';
    if (c == ']' && !out.empty() && out.back() == ',') out.pop_back();
    out.push_back(c);
  }
  return out;
}

struct Totals {
  double flops = 0;
  double modelled_ns = 0;
  double TFlops() const { return modelled_ns > 0 ? flops / modelled_ns / 1e3 : 0; }
};

Totals FamilyTotals(const RankRoofline& r, std::string_view family) {
  Totals t;
  for (const RooflineFamily& f : r.families) {
    if (f.family != family) continue;
    t.flops += f.flops_per_step * static_cast<double>(r.steps);
    t.modelled_ns += f.modelled_ns_per_step * static_cast<double>(r.steps);
  }
  return t;
}

class TraceLensOracle : public ::testing::TestWithParam<const char*> {};

TEST_P(TraceLensOracle, SameFlopsAndRatesWithinTenPercent) {
  const std::string name = GetParam();
  const fs::path oracle = SharedDir() / "oracles" / "tracelens" /
                          ("AMD-AGI__TraceLens__tests__traces__h100__" + name + ".json.gz.json");
  const fs::path trace =
      SharedDir() / "corpus" / "AMD-AGI__TraceLens" / "tests" / "traces" / "h100" /
      (name + ".json.gz");
  if (!fs::exists(oracle) || !fs::exists(trace)) {
    GTEST_SKIP() << "TraceLens oracle or corpus trace absent (../shared absent): " << oracle;
  }
  absl::StatusOr<Timeline> tl = ParseTraceFile(trace.string(), ParseOptions());
  ASSERT_TRUE(tl.ok()) << tl.status();
  AnalysisContext ctx(*tl);
  const RooflineAnalysis& roofline = ctx.roofline();
  const RankRoofline& r = roofline.summary;
  ASSERT_GT(r.steps, 0);
  EXPECT_EQ(r.device, "NVIDIA H100 SXM");

  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(oracle.string()).get(doc), simdjson::SUCCESS);

  // Per category: the same FLOPs, rates within 10%.
  const std::vector<std::pair<std::string, std::string>> categories = {{"GEMM", "gemm"},
                                                                        {"SDPA_fwd", "attention"}};
  for (const auto& [category, family] : categories) {
    simdjson::dom::element agg;
    if (doc["category_perf_aggregates"]["by_category"][category].get(agg) != simdjson::SUCCESS) {
      continue;
    }
    const double tl_gflop = agg["total_gflop"].get_double().value();
    const double tl_tflops = agg["achieved_tflops_per_s"].get_double().value();
    const Totals ours = FamilyTotals(r, family);
    EXPECT_NEAR(ours.flops / 1e9, tl_gflop, 1e-6 * tl_gflop) << name << " " << category;
    EXPECT_NEAR(ours.TFlops(), tl_tflops, 0.10 * tl_tflops) << name << " " << category;
  }

  // Per op and shapes: the same GFLOP per call and calls, rates within 10%.
  int compared = 0;
  for (simdjson::dom::element op : doc["top_modeled_ops_by_kernel_time"].get_array()) {
    const std::string_view category = op["op_category"].get_string().value();
    if (category != "GEMM" && category != "SDPA_fwd") continue;
    const std::string op_name(op["name"].get_string().value());
    const std::string dims = NormalizeDims(op["input_dims"].get_string().value());
    const RooflineOp* ours = nullptr;
    for (const RooflineOp& o : roofline.work.all_ops) {
      if (o.name == op_name && NormalizeDims(o.shapes) == dims) ours = &o;
    }
    ASSERT_NE(ours, nullptr) << name << ": " << op_name << " " << dims;
    ASSERT_TRUE(ours->modelled) << op_name << " " << dims;
    const double gflop = op["gflop_per_call"].get_double().value();
    EXPECT_NEAR(ours->flops_per_call / 1e9, gflop, 1e-9 * gflop) << op_name << " " << dims;
    EXPECT_EQ(ours->calls, static_cast<int64_t>(op["operation_count"].get_double().value()))
        << op_name << " " << dims;
    const double tflops = op["tflops_per_s_aggregate"].get_double().value();
    EXPECT_NEAR(ours->achieved_tflops, tflops, 0.10 * tflops) << op_name << " " << dims;
    ++compared;
  }
  EXPECT_GE(compared, 3) << name;
}

INSTANTIATE_TEST_SUITE_P(H100, TraceLensOracle,
                         ::testing::Values("Qwen_Qwen1.5-0.5B-Chat__1016005",
                                           "gaunernst_bert-small-uncased__1016001"));

}  // namespace
}  // namespace tracelint
