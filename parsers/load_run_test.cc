#include "parsers/load_run.h"

#include <algorithm>
#include <mutex>
#include <string>

#include "gtest/gtest.h"
#include "tests/support/test_files.h"
#include "parsers/format_registry.h"

namespace tracelint {
namespace {

using ::tracelint::testing::Gzip;
using ::tracelint::testing::TempDir;

std::string Trace(int rank) {
  return "{\"distributedInfo\": {\"rank\": " + std::to_string(rank) +
         ", \"world_size\": 2}, \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", "
         "\"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]}";
}

TEST(LoadRun, RanksOrderedByRankThenPath) {
  TempDir dir;
  dir.Write("a.json", Trace(1));
  dir.Write("b.json.gz", Gzip(Trace(0)));
  absl::StatusOr<Discovery> d = DiscoverTraces(dir.path().string(), {});
  ASSERT_TRUE(d.ok()) << d.status();
  for (int parallel : {1, 2}) {
    LoadOptions options;
    options.max_parallel_files = parallel;
    options.memory_budget_bytes = 1;  // forces one file at a time
    absl::StatusOr<tracelint::Run> run = LoadRun(*d, options);
    ASSERT_TRUE(run.ok()) << run.status();
    ASSERT_EQ(run->ranks.size(), 2u);
    EXPECT_EQ(run->ranks[0]->metadata().rank, 0);
    EXPECT_EQ(run->ranks[1]->metadata().rank, 1);
    EXPECT_TRUE(run->warnings.empty());
  }
}

TEST(LoadRun, OnParsedSeesEachLoadedTimelineAtItsFinalAddress) {
  TempDir dir;
  Discovery d;
  d.files.push_back({dir.Write("r1.json", Trace(1)), InputFormat::kKinetoJson, "r1", ""});
  d.files.push_back({dir.Write("bad.json", "{\"traceEvents\": 5}"), InputFormat::kKinetoJson,
                     "bad", ""});
  d.files.push_back({dir.Write("r0.json", Trace(0)), InputFormat::kKinetoJson, "r0", ""});
  for (int parallel : {1, 3}) {
    std::mutex mu;
    std::vector<const Timeline*> seen;
    LoadOptions options;
    options.max_parallel_files = parallel;
    options.on_parsed = [&](Timeline& tl, int cores) {
      EXPECT_GE(cores, 1);
      std::lock_guard<std::mutex> lock(mu);
      seen.push_back(&tl);
    };
    absl::StatusOr<tracelint::Run> run = LoadRun(d, options);
    ASSERT_TRUE(run.ok()) << run.status();
    ASSERT_EQ(run->ranks.size(), 2u);
    ASSERT_EQ(seen.size(), 2u);  // not for the file that failed
    std::sort(seen.begin(), seen.end());
    std::vector<const Timeline*> kept = {run->ranks[0].get(), run->ranks[1].get()};
    std::sort(kept.begin(), kept.end());
    EXPECT_EQ(seen, kept);
    EXPECT_EQ(run->ranks[0]->metadata().rank, 0);
  }
}

TEST(LoadRun, BadFileIsAWarningWhenOthersLoad) {
  TempDir dir;
  Discovery d;
  d.files.push_back({dir.Write("good.json", Trace(0)), InputFormat::kKinetoJson, "good", ""});
  d.files.push_back({dir.Write("bad.json", "{\"traceEvents\": 5}"), InputFormat::kKinetoJson,
                     "bad", ""});
  absl::StatusOr<tracelint::Run> run = LoadRun(d, {});
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->ranks.size(), 1u);
  ASSERT_EQ(run->warnings.size(), 1u);
  EXPECT_NE(run->warnings[0].find("bad.json"), std::string::npos);
  EXPECT_EQ(run->files_skipped, 1);

  d.files.erase(d.files.begin());
  absl::StatusOr<tracelint::Run> failed = LoadRun(d, {});
  EXPECT_TRUE(absl::IsInvalidArgument(failed.status())) << failed.status();
}

TEST(LoadRun, XSpaceWithoutParserIsUnimplemented) {
  TempDir dir;
  Discovery d;
  d.files.push_back({dir.Write("h.xplane.pb", "x"), InputFormat::kXSpace, "h", ""});
  bool registered = false;
  for (const FormatEntry& e : AllFormats()) registered |= e.format == InputFormat::kXSpace;
  absl::StatusOr<tracelint::Run> run = LoadRun(d, {});
  ASSERT_FALSE(run.ok());
  if (!registered) {
    EXPECT_TRUE(absl::IsUnimplemented(run.status())) << run.status();
  }
  EXPECT_NE(run.status().message().find("h.xplane.pb"), std::string::npos);
}

TEST(ParseTraceFile, DispatchesOrExplains) {
  TempDir dir;
  absl::StatusOr<Timeline> ok = ParseTraceFile(dir.Write("t.json", Trace(0)), {});
  ASSERT_TRUE(ok.ok()) << ok.status();
  absl::Status bad = ParseTraceFile(dir.Write("x.bin", "\x01\x02"), {}).status();
  EXPECT_TRUE(absl::IsInvalidArgument(bad));
  EXPECT_NE(bad.message().find("x.bin: not a trace: expected Kineto/Chrome trace JSON "
                               "(.json/.json.gz) or XSpace (.xplane.pb)"),
            std::string::npos)
      << bad;
}

}  // namespace
}  // namespace tracelint
