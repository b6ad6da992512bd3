// Device memory (analysis/memory_usage.h) as every report shows it: a trace
// with allocator events, written as Kineto JSON and parsed as a user's is.

#include <filesystem>
#include <fstream>
#include <string>

#include "analyzer/analysis/memory_usage.h"
#include "analyzer/report/html_report.h"
#include "tests/support/report_fixture.h"
#include "tests/support/schema_check.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "simdjson.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::DeviceSpec;
using testing::Scenario;

constexpr int64_t kMiB = 1 << 20;

Scenario WithMemory(int64_t resident_bytes, int64_t step_bytes) {
  Scenario out;
  out.Device(DeviceSpec::A100());
  out.Allocate(resident_bytes).Idle(kNsPerMs);
  for (int k = 0; k < 3; ++k) {
    out.BeginStep(k + 1).DataLoaderNext(8 * kNsPerMs).Allocate(step_bytes);
    out.BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", 2 * kNsPerMs).End();
    out.Allocate(-step_bytes).Sync().EndStep();
  }
  return out;
}

TEST(MemoryReport, EveryFormatShowsTheAllocatorPeaks) {
  const int64_t resident = 2000 * kMiB;
  const int64_t activations = 500 * kMiB;
  std::unique_ptr<report_fixture::Analysed> a =
      report_fixture::Analyse({WithMemory(resident, activations)}, "memory_peaks");
  ASSERT_EQ(a->input.ranks.size(), 1u);

  std::string text = RenderTextReport(a->input);
  EXPECT_THAT(text, HasSubstr("Device memory (the allocator's peaks in the trace window):\n"
                              "  GPU 0: peak allocated 2.44 GiB (6.2% of 39.41 GiB), reserved "
                              "2.44 GiB (6.2%), in step 1\n"
                              "  note: GPU 0 holds under 25% of its memory at the peak"));

  const std::string json = RenderJsonReport(a->input);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS);
  simdjson::dom::array memory = doc["ranks"].at(0)["device_memory"].get_array();
  ASSERT_EQ(memory.size(), 1u);
  simdjson::dom::element m = memory.at(0);
  EXPECT_EQ(int64_t(m["device"]), 0);
  EXPECT_EQ(int64_t(m["peak_allocated_bytes"]), resident + activations);
  EXPECT_EQ(int64_t(m["total_memory_bytes"]), DeviceSpec::A100().total_memory_bytes);
  EXPECT_EQ(int64_t(m["peak_step"]), 1);
  EXPECT_EQ(std::string_view(m["state"]), "headroom");
  EXPECT_EQ(int64_t(m["samples"]), 7);

  std::filesystem::path path = a->trace_path.parent_path() / "memory_report.json";
  std::ofstream(path, std::ios::binary) << json;
  std::string why;
  ::tracelint::testing::SchemaCheck check =
      ::tracelint::testing::ValidateJsonFile("report.schema.json", path.string(), why);
  if (check != ::tracelint::testing::SchemaCheck::kSkipped) {
    EXPECT_EQ(check, ::tracelint::testing::SchemaCheck::kValid) << why;
  }

  std::string html = RenderHtmlReport(a->input);
  EXPECT_THAT(html, HasSubstr("<h3>Device memory (the allocator's peaks in the trace "
                              "window)</h3>"));
  EXPECT_THAT(html, HasSubstr("GPU 0: peak allocated 2.44 GiB"));
  // The curve: allocated and reserved as lines (one rank: ids without a rank).
  EXPECT_THAT(html, HasSubstr("<svg class=\"chart\" id=\"memory-0\""));
  EXPECT_EQ(report_fixture::Count(html, "<title>allocated: 2.44 GiB at the peak</title>"), 1u);
  EXPECT_EQ(report_fixture::Count(html, "<title>reserved: 2.44 GiB at the peak</title>"), 1u);
}

// The PR comment carries memory only where a device is near its limit.
TEST(MemoryReport, MarkdownNamesADeviceNearItsLimitOnly) {
  const int64_t device = DeviceSpec::A100().total_memory_bytes;
  std::unique_ptr<report_fixture::Analysed> roomy =
      report_fixture::Analyse({WithMemory(2000 * kMiB, 500 * kMiB)}, "memory_md_roomy");
  ASSERT_EQ(roomy->input.ranks.size(), 1u);
  EXPECT_THAT(RenderMarkdownReport(roomy->input), Not(HasSubstr("Device memory")));
  std::unique_ptr<report_fixture::Analysed> full =
      report_fixture::Analyse({WithMemory(device / 100 * 93, 500 * kMiB)}, "memory_md_full");
  ASSERT_EQ(full->input.ranks.size(), 1u);
  std::string md = RenderMarkdownReport(full->input);
  EXPECT_THAT(md, HasSubstr("**Device memory** (peak allocated 37.14 GiB (94.2% of 39.41 GiB)"))
      << md;
  EXPECT_THAT(md, HasSubstr("GPU 0 holds 94% of its memory at the peak: a larger batch will not "
                            "fit"));
}

TEST(MemoryReport, NothingWithoutAllocatorEvents) {
  std::unique_ptr<report_fixture::Analysed> a = report_fixture::Analyse(
      {report_fixture::LoaderBound(3, -1, "ampere_sgemm_128x64_nn", "aten::mm")}, "no_memory");
  ASSERT_EQ(a->input.ranks.size(), 1u);
  EXPECT_THAT(RenderTextReport(a->input), Not(HasSubstr("Device memory")));
  a->input.options.text.verbosity = TextVerbosity::kVerbose;
  EXPECT_THAT(RenderTextReport(a->input),
              HasSubstr("Device memory: not recorded (torch.profiler.profile(profile_memory="
                        "True) records it)"));
  EXPECT_THAT(RenderHtmlReport(a->input), Not(HasSubstr("Device memory")));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(RenderJsonReport(a->input)).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(doc["ranks"].at(0)["device_memory"].get_array().size(), 0u);
}

}  // namespace
}  // namespace tracelint
