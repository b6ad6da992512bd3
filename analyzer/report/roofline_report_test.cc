// The roofline in the reports (roofline_report.h): JSON that validates with
// every modelled field filled, the text block, the HTML charts, and the
// verdict text of a run bound by GPU compute.

#include <filesystem>
#include <fstream>
#include <string>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/roofline.h"
#include "analyzer/report/report.h"
#include "analyzer/report/report_data.h"
#include "analyzer/report/roofline_report.h"
#include "tests/support/schema_check.h"
#include "tests/support/scenario.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "simdjson.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using testing::DeviceSpec;
using testing::Scenario;
using testing::ShapeArgs;

constexpr char kGemm[] = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas";
constexpr char kAdd[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>";

// Four steps on an H100: an 8192^3 bf16 GEMM at 40% of the bf16 peak and
// ten 4096x4096 bf16 adds at 50% of the bandwidth, back to back.
Timeline BusyH100() {
  Scenario s;
  s.Device(DeviceSpec::H100());
  const double gemm_ns = 2.0 * 8192 * 8192 * 8192 / 989.4e3 / 0.4;
  const double add_ns = 3.0 * 4096 * 4096 * 2 / 3.35e3 / 0.5;
  for (int k = 1; k <= 4; ++k) {
    s.BeginStep(k)
        .BeginOp("aten::mm", ShapeArgs("[[8192, 8192], [8192, 8192]]",
                                      R"(["c10::BFloat16", "c10::BFloat16"])"))
        .Kernel(kGemm, static_cast<TimeNs>(gemm_ns))
        .End();
    for (int i = 0; i < 10; ++i) {
      s.BeginOp("aten::add", ShapeArgs("[[4096, 4096], [4096, 4096], []]",
                                       R"(["c10::BFloat16", "c10::BFloat16", "Scalar"])"))
          .Kernel(kAdd, static_cast<TimeNs>(add_ns))
          .End();
    }
    s.Sync().EndStep();
  }
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  EXPECT_TRUE(tl.ok()) << tl.status();
  return tl.ok() ? std::move(*tl) : Timeline();
}

TEST(RooflineReport, JsonCarriesTheFamiliesAndOpsAndValidates) {
  const Timeline tl = BusyH100();
  AnalysisContext ctx(tl);
  ReportInput in;
  in.ranks = {&tl};
  in.contexts = {&ctx};
  AttachRecords(in);
  const std::string json = RenderJsonReport(in);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS);
  simdjson::dom::element r = doc["ranks"].at(0)["roofline"];
  EXPECT_EQ(std::string_view(r["device"].get_string()), "NVIDIA H100 SXM");
  EXPECT_EQ(std::string_view(r["peak_kind"].get_string()), "datasheet");
  EXPECT_EQ(int64_t(r["steps"]), 4);
  simdjson::dom::element gemm = r["families"].at(0);
  EXPECT_EQ(std::string_view(gemm["family"].get_string()), "gemm");
  EXPECT_EQ(std::string_view(gemm["dtype"].get_string()), "bf16");
  EXPECT_EQ(std::string_view(gemm["bound"].get_string()), "compute");
  EXPECT_NEAR(double(gemm["efficiency"]), 0.4, 0.001);
  EXPECT_NEAR(double(gemm["achieved_tflops"]), 0.4 * 989.4, 0.5);
  EXPECT_DOUBLE_EQ(double(gemm["peak_tflops"]), 989.4);
  EXPECT_DOUBLE_EQ(double(gemm["modelled_share"]), 1.0);
  EXPECT_EQ(gemm["device_ns_steps"].get_array().size(), 4u);
  simdjson::dom::element add = r["families"].at(1);
  EXPECT_EQ(std::string_view(add["family"].get_string()), "elementwise");
  EXPECT_EQ(std::string_view(add["bound"].get_string()), "memory");
  EXPECT_NEAR(double(add["efficiency"]), 0.5, 0.001);
  simdjson::dom::element op = r["top_ops"].at(0);
  EXPECT_EQ(std::string_view(op["name"].get_string()), "aten::mm");
  EXPECT_EQ(std::string_view(op["shapes"].get_string()), "[[8192, 8192], [8192, 8192]]");
  EXPECT_EQ(std::string_view(op["params"].get_string()), "M=8192 N=8192 K=8192");
  EXPECT_EQ(int64_t(op["calls"]), 4);
  // Modelled FLOP utilization: the GEMM's FLOPs over step x bf16 peak.
  simdjson::dom::element mfu = r["modelled_flop_utilization"];
  EXPECT_EQ(std::string_view(mfu["name"].get_string()),
            "modelled FLOP utilization (includes recompute)");
  const double step_ns = double(ctx.roofline().summary.step_ns);
  EXPECT_NEAR(double(mfu["value"]), 2.0 * 8192 * 8192 * 8192 / (step_ns * 989.4e3), 1e-6);

  std::filesystem::path file = std::filesystem::path(::testing::TempDir()) /
                               ("tracelint_roofline_schema_" + std::to_string(::getpid()) + ".json");
  std::ofstream(file, std::ios::binary | std::ios::trunc) << json;
  std::string why;
  testing::SchemaCheck check = testing::ValidateJsonFile("report.schema.json", file.string(), why);
  std::filesystem::remove(file);
  if (check == testing::SchemaCheck::kSkipped) GTEST_SKIP() << why;
  EXPECT_EQ(check, testing::SchemaCheck::kValid) << why;
}

TEST(RooflineReport, TextBlockAndVerdictNameTheDominantFamily) {
  const Timeline tl = BusyH100();
  AnalysisContext ctx(tl);
  const RankRoofline& r = ctx.roofline().summary;
  const std::string text = RooflineTextBlock(r, 0, false);
  EXPECT_THAT(text, HasSubstr("GEMM bf16"));
  EXPECT_THAT(text, HasSubstr("compute"));
  EXPECT_THAT(text, HasSubstr("40.0%"));
  EXPECT_THAT(text, HasSubstr("Peaks: NVIDIA H100 SXM (datasheet figures"));
  EXPECT_THAT(text, HasSubstr("Modelled FLOP utilization (includes recompute)"));
  EXPECT_THAT(text, HasSubstr("Largest gap to the roofline: aten::mm M=8192 N=8192 K=8192"));
  ReportInput in;
  in.ranks = {&tl};
  in.contexts = {&ctx};
  AttachRecords(in);
  const Verdict& v = in.summary().verdict;
  EXPECT_EQ(v.bound, "gpu compute");
  EXPECT_THAT(v.line, HasSubstr("; GEMM bf16 "));
  EXPECT_THAT(v.line, HasSubstr("% of the step at 40% of peak)"));
}

TEST(RooflineReport, HtmlHasTheFamilyBarAndTheRoofline) {
  const Timeline tl = BusyH100();
  AnalysisContext ctx(tl);
  const std::string html = html::RooflineSection(ctx.roofline().summary, "");
  EXPECT_THAT(html, HasSubstr("<h3>Where the device time goes</h3>"));
  EXPECT_THAT(html, HasSubstr("id=\"families\""));
  EXPECT_THAT(html, HasSubstr("id=\"roofline\""));
  EXPECT_THAT(html, HasSubstr("class=\"roof\""));
  // One point per modelled op: the GEMM and the add.
  size_t points = 0;
  for (size_t at = html.find("class=\"op\""); at != std::string::npos;
       at = html.find("class=\"op\"", at + 1)) {
    ++points;
  }
  EXPECT_EQ(points, 2u);
}

// A device the peak table does not name: families and rates, no roofline,
// and the reason once.
TEST(RooflineReport, UnknownDeviceHasNoRoofline) {
  Scenario s;
  DeviceSpec d = DeviceSpec::H100();
  d.name = "NVIDIA GeForce RTX 4090";
  s.Device(d);
  for (int k = 1; k <= 2; ++k) {
    s.BeginStep(k)
        .BeginOp("aten::mm", ShapeArgs("[[4096, 4096], [4096, 4096]]",
                                      R"(["c10::BFloat16", "c10::BFloat16"])"))
        .Kernel(kGemm, kNsPerMs)
        .End()
        .Sync()
        .EndStep();
  }
  absl::StatusOr<Timeline> tl = s.BuildTimeline();
  ASSERT_TRUE(tl.ok());
  AnalysisContext ctx(*tl);
  const RankRoofline& r = ctx.roofline().summary;
  EXPECT_TRUE(r.device.empty());
  EXPECT_THAT(r.no_peak_reason, HasSubstr("NVIDIA GeForce RTX 4090"));
  ASSERT_FALSE(r.families.empty());
  EXPECT_GT(r.families[0].achieved_tflops, 0);
  EXPECT_LT(r.families[0].efficiency, 0);
  EXPECT_TRUE(html::RooflineChart(r, "").empty());
  const std::string text = RooflineTextBlock(r, 0, false);
  EXPECT_THAT(text, HasSubstr("No roofline: no peak table entry for \"NVIDIA GeForce RTX 4090\""));
}

}  // namespace
}  // namespace tracelint
