// A multi-host TensorFlow/JAX profile as TensorBoard writes it, built in
// code: plugins/profile/<run>/<host>.xplane.pb per host next to files that
// are not traces, loaded through discovery + LoadRun as one run with one
// rank per host, then analysed by the full engine.

#include <memory>
#include <string>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/registry.h"
#include "gtest/gtest.h"
#include "tests/support/test_files.h"
#include "parsers/load_run.h"
#include "parsers/tensorboard/discovery.h"
#include "rules/all_rules.h"
#include "tests/support/scenario_xspace.h"

namespace tracelint {
namespace {

using testing::DeviceSpec;
using testing::Scenario;
using testing::ScenarioToXSpace;
using testing::ScenarioXSpaceOptions;

constexpr char kNewRun[] = "2024_03_01_10_00_00";
constexpr char kOldRun[] = "2024_01_01_10_00_00";
constexpr int kSteps = 4;

// Each step waits `loader_ns` for input, then 10 ms of kernels.
Scenario InputBoundHost(TimeNs loader_ns) {
  Scenario s;
  s.Device(DeviceSpec::A100());
  for (int k = 1; k <= kSteps; ++k) {
    s.BeginStep(k).DataLoaderNext(loader_ns);
    s.OpKernels("aten::mm", "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn", 10, kNsPerMs,
                30 * kNsPerUs);
    s.Sync().EndStep();
  }
  return s;
}

std::string XSpaceOf(const Scenario& s, TimeNs shift_ns = 0) {
  ScenarioXSpaceOptions options;
  options.shift_ns = shift_ns;
  absl::StatusOr<std::string> bytes = ScenarioToXSpace(s, options);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *bytes : std::string();
}

// host_a loses 6 ms per step to input, host_b (its clock 3 s ahead) 15 ms;
// the older run holds one host only.
void WriteLogdir(const testing::TempDir& dir) {
  const std::string run = std::string("logs/plugins/profile/") + kNewRun + "/";
  dir.Write(run + "host_a.xplane.pb", XSpaceOf(InputBoundHost(6 * kNsPerMs)));
  dir.Write(run + "host_b.xplane.pb", XSpaceOf(InputBoundHost(15 * kNsPerMs), 3 * kNsPerS));
  // What else the profile plugin leaves there: the converted trace viewer
  // JSON, cached tool data and the TensorBoard event file marker.
  dir.Write(run + "host_a.trace.json.gz",
            testing::Gzip(R"({"displayTimeUnit":"ns","metadata":{"highres-ticks":true},)"
                          R"("traceEvents":[]})"));
  dir.Write(run + "host_a.overview_page.pb", std::string("\x0a\x03\x08\x01\x10", 5));
  dir.Write("logs/events.out.tfevents.1709287200.host_a.profile-empty", "");
  dir.Write(std::string("logs/plugins/profile/") + kOldRun + "/host_a.xplane.pb",
            XSpaceOf(InputBoundHost(2 * kNsPerMs)));
}

absl::StatusOr<Run> Load(const testing::TempDir& dir, const DiscoveryOptions& options) {
  absl::StatusOr<Discovery> d = DiscoverTraces((dir.path() / "logs").string(), options);
  if (!d.ok()) return d.status();
  return LoadRun(*d, LoadOptions{});
}

EngineResult Analyze(const Run& run) {
  RuleRegistry registry;
  RegisterAllRules(registry);
  std::vector<std::unique_ptr<AnalysisContext>> contexts;
  std::vector<AnalysisContext*> ranks;
  for (const std::unique_ptr<Timeline>& tl : run.ranks) {
    contexts.push_back(std::make_unique<AnalysisContext>(*tl));
    ranks.push_back(contexts.back().get());
  }
  absl::StatusOr<EngineResult> r = RunRules(registry, EngineOptions{}, ranks);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? std::move(*r) : EngineResult();
}

TEST(XSpaceMultiHostTest, NewestRunLoadsOneRankPerHost) {
  testing::TempDir dir;
  WriteLogdir(dir);
  absl::StatusOr<tracelint::Run> run = Load(dir, {});
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->ranks.size(), 2u);
  EXPECT_TRUE(run->warnings.empty()) << run->warnings.front();
  EXPECT_EQ(run->ranks[0]->metadata().host_name, "host_a");
  EXPECT_EQ(run->ranks[1]->metadata().host_name, "host_b");
  for (const std::unique_ptr<Timeline>& tl : run->ranks) {
    EXPECT_EQ(tl->metadata().format, "xspace");
    ASSERT_EQ(tl->metadata().devices.size(), 1u);
    EXPECT_EQ(tl->metadata().devices[0].sm_count, 108);
  }
}

TEST(XSpaceMultiHostTest, OneFindingPerCauseAtTheWorstHost) {
  testing::TempDir dir;
  WriteLogdir(dir);
  absl::StatusOr<tracelint::Run> run = Load(dir, {});
  ASSERT_TRUE(run.ok()) << run.status();
  EngineResult r = Analyze(*run);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
  int loader_findings = 0;
  for (const Finding& f : r.findings) {
    for (const Finding& g : r.findings) {
      if (&f != &g) {
        EXPECT_FALSE(f.rule_id == g.rule_id && f.cause == g.cause) << f.rule_id;
      }
    }
    if (f.rule_id != "gpu-idle-gaps" || f.cause != "data_loader") continue;
    ++loader_findings;
    // host_b (rank position 1) waits 15 ms per step; host_a 6 ms.
    EXPECT_EQ(f.location.rank, 1);
    EXPECT_NEAR(static_cast<double>(f.recoverable_ns_per_step), 15e6, 0.01 * 15e6);
    EXPECT_EQ(f.per_rank.size(), 2u);
  }
  EXPECT_EQ(loader_findings, 1);
}

TEST(XSpaceMultiHostTest, RunOptionSelectsTheOlderRun) {
  testing::TempDir dir;
  WriteLogdir(dir);
  DiscoveryOptions options;
  options.run = kOldRun;
  absl::StatusOr<tracelint::Run> run = Load(dir, options);
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->ranks.size(), 1u);
  EngineResult r = Analyze(*run);
  bool loader = false;
  for (const Finding& f : r.findings) {
    if (f.rule_id != "gpu-idle-gaps" || f.cause != "data_loader") continue;
    loader = true;
    EXPECT_NEAR(static_cast<double>(f.recoverable_ns_per_step), 2e6, 0.01 * 2e6);
  }
  EXPECT_TRUE(loader);
}

}  // namespace
}  // namespace tracelint
