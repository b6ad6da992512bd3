// batch: shards and merge, groups, prices and the trend, on runs generated
// here whose answers are known.

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/batch_command.h"
#include "cli/exit_codes.h"
#include "tests/support/cli_run.h"
#include "tests/support/schema_check.h"
#include "tests/support/test_files.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using Result = testing::CommandResult;
using testing::Batch;
using testing::ReadFile;
using testing::SourceDir;
using ::testing::HasSubstr;
using ::testing::Not;

fs::path TempDir() {
  std::string tmpl = (fs::path(::testing::TempDir()) / "tracelint_fleet_XXXXXX").string();
  char* dir = mkdtemp(tmpl.data());
  EXPECT_NE(dir, nullptr);
  return fs::path(tmpl);
}

// A Kineto trace of `steps` steps of exactly `step_us` each, one kernel per
// step busy for `busy` of it, on a device called `device`.
std::string Trace(const std::string& device, int64_t step_us, int64_t base_ns = 0,
                  double busy = 0.9, int rank = -1, int world = -1, int steps = 8) {
  std::string events;
  auto add = [&](const std::string& e) { events += (events.empty() ? "" : ",\n") + e; };
  add(R"({"name": "process_labels", "ph": "M", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}})");
  for (int i = 0; i < steps; ++i) {
    int64_t t = 1000 + i * step_us;
    int64_t kernel_us = static_cast<int64_t>(step_us * busy);
    add(fmt::format(
        R"({{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{}", "pid": 10, "tid": 10, "ts": {}, "dur": {}}})",
        i + 1, t, step_us));
    add(fmt::format(
        R"({{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 10, "ts": {}, "dur": 8}})",
        t + 1));
    add(fmt::format(
        R"({{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10, "ts": {}, "dur": 5, "args": {{"correlation": {}}}}})",
        t + 2, i + 1));
    add(fmt::format(
        R"({{"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": {}, "dur": {}, "args": {{"device": 0, "stream": 7, "correlation": {}}}}})",
        t + 10, kernel_us, i + 1));
  }
  std::string dist =
      rank >= 0 ? fmt::format(
                      R"("distributedInfo": {{"backend": "nccl", "rank": {}, "world_size": {}}},)",
                      rank, world)
                : "";
  std::string base = base_ns > 0 ? fmt::format(R"("baseTimeNanoseconds": {},)", base_ns) : "";
  return fmt::format(
      R"({{"schemaVersion": 1, {} {} "deviceProperties": [{{"id": 0, "name": "{}", "computeMajor": 9, "computeMinor": 0, "numSms": 132, "totalGlobalMem": 85000000000}}],
"traceEvents": [
{}
]}})",
      base, dist, device, events);
}

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

constexpr char kA100[] = "NVIDIA A100-SXM4-80GB";
constexpr char kH100[] = "NVIDIA H100 80GB HBM3";

// Runs with known throughput: the batch size is in the path (bsN).
fs::path PriceArchive() {
  fs::path root = TempDir() / "runs";
  Write(root / "a100-bs64" / "rank0.json", Trace(kA100, 10000));
  Write(root / "h100-bs64" / "rank0.json", Trace(kH100, 4000));
  Write(root / "spot-h100-bs32" / "rank0.json", Trace(kH100, 4000));
  Write(root / "a100x2-bs64" / "rank0.json", Trace(kA100, 10000, 0, 0.9, 0, 2));
  Write(root / "a100x2-bs64" / "rank1.json", Trace(kA100, 10000, 0, 0.9, 1, 2));
  return root;
}

TEST(BatchFleet, SamplesPerDollarByDeviceTypeHasTheKnownAnswers) {
  fs::path root = PriceArchive();
  fs::path prices = root.parent_path() / "prices.toml";
  // Substring keys are case-insensitive; the glob (longer) wins for spot.
  Write(prices, "\"A100\" = 2.0\n\"h100\" = 4\n\"*spot-h100*\" = 1.5\n");
  BatchArgs args;
  args.paths = {root.string()};
  args.format = "csv";
  args.batch_size_from = "bs(\\d+)";
  args.prices = prices.string();
  Result r = Batch(args);
  ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
  // samples/s = batch x ranks / step; samples/$ = samples/s x 3600 / (price x devices).
  EXPECT_THAT(r.out, HasSubstr("a100-bs64,ok,1,8,10000000,"));
  EXPECT_THAT(r.out, HasSubstr(",NVIDIA A100-SXM4-80GB,1,1000000,6400,2,11520000,GPU\n"));
  EXPECT_THAT(r.out, HasSubstr(",NVIDIA A100-SXM4-80GB,2,1000000,12800,4,11520000,GPU\n"));
  EXPECT_THAT(r.out, HasSubstr(",NVIDIA H100 80GB HBM3,1,1000000,16000,4,14400000,GPU\n"));
  EXPECT_THAT(r.out, HasSubstr(",NVIDIA H100 80GB HBM3,1,1000000,8000,1.5,19200000,GPU\n"));

  args.format = "json";
  args.group_by = "device";
  args.sort = "samples-per-dollar";
  args.output = (root.parent_path() / "fleet.json").string();
  r = Batch(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  std::string json = ReadFile(args.output);
  // The H100 group: median of 14.4M and 19.2M samples per dollar.
  EXPECT_THAT(json, HasSubstr("\"key\": \"NVIDIA H100 80GB HBM3\""));
  EXPECT_THAT(json, HasSubstr("\"median_samples_per_dollar\": 16800000"));
  EXPECT_THAT(json, HasSubstr("\"median_samples_per_dollar\": 11520000"));
  std::string why;
  testing::SchemaCheck check = testing::ValidateJsonFile("batch.schema.json", args.output, why);
  if (check != testing::SchemaCheck::kSkipped) {
    EXPECT_EQ(check, testing::SchemaCheck::kValid) << why;
  }
  // Sorted by samples per dollar, largest first: spot first.
  size_t spot = json.find("spot-h100-bs32"), a100 = json.find("a100-bs64");
  EXPECT_LT(spot, a100);

  args.format = "text";
  args.output.clear();
  r = Batch(args);
  EXPECT_THAT(r.out, HasSubstr("Groups by device (2 groups):"));
  EXPECT_THAT(r.out, HasSubstr("samples/$"));
  EXPECT_THAT(r.out, HasSubstr("19200000.0"));
}

TEST(BatchFleet, PricesNeedABatchSizeAndAValidTable) {
  fs::path root = PriceArchive();
  fs::path prices = root.parent_path() / "prices.toml";
  Write(prices, "\"A100\" = 2.0\n");
  BatchArgs args;
  args.paths = {root.string()};
  args.prices = prices.string();
  EXPECT_EQ(Batch(args).code, kExitUsage);  // no batch size
  args.batch_size = 8;
  Write(prices, "\"A100\" = -1\n");
  Result r = Batch(args);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_THAT(r.err, HasSubstr("price per hour > 0"));
  Write(prices, "A100 = = 2\n");
  EXPECT_EQ(Batch(args).code, kExitUsage);
  // A device no key matches has no price, and says so with "-".
  Write(prices, "\"V100\" = 1\n");
  r = Batch(args);
  EXPECT_EQ(r.code, kExitOk) << r.err;
}

TEST(BatchFleet, GroupByDirectoryLevelAndRegex) {
  fs::path root = TempDir() / "teams";
  Write(root / "vision" / "r1" / "rank0.json", Trace(kA100, 10000));
  Write(root / "vision" / "r2" / "rank0.json", Trace(kA100, 20000));
  Write(root / "vision" / "r3" / "rank0.json", Trace(kA100, 30000));
  Write(root / "speech" / "r4" / "rank0.json", Trace(kH100, 5000, 0, 0.3));
  BatchArgs args;
  args.paths = {root.string()};
  args.format = "json";
  args.group_by = "dir:1";
  Result r = Batch(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"key\": \"speech\",\n      \"runs\": 1"));
  // Median step of 10, 20 and 30 ms.
  EXPECT_THAT(r.out, HasSubstr("\"key\": \"vision\",\n      \"runs\": 3,\n      \"analysed\": 3,\n"
                               "      \"median_step_ns\": 20000000"));
  args.group_by = "regex:(A100|H100)";
  r = Batch(args);
  EXPECT_THAT(r.out, HasSubstr("\"key\": \"(no match)\""));  // paths hold no device names
  args.group_by = "regex:r([12])";
  r = Batch(args);
  EXPECT_THAT(r.out, HasSubstr("\"key\": \"1\""));
  EXPECT_THAT(r.out, HasSubstr("\"key\": \"2\""));
  // Rules per group: the idle H100 run fires gpu-idle-gaps in its group.
  args.group_by = "device";
  args.format = "text";
  r = Batch(args);
  EXPECT_THAT(r.out, HasSubstr("Rules by group"));
  EXPECT_THAT(r.out, HasSubstr("NVIDIA H100 80GB HBM3  gpu-idle-gaps"));
  for (const char* bad : {"dir:0", "dir:x", "regex:(", "host"}) {
    args.group_by = bad;
    EXPECT_EQ(Batch(args).code, kExitUsage) << bad;
  }
}

TEST(BatchFleet, TrendFollowsTraceTimeNotNames) {
  fs::path root = TempDir() / "nightly";
  const int64_t day_ns = 86400LL * 1'000'000'000;
  const int64_t t0 = 1'700'000'000LL * 1'000'000'000;
  // Names in the opposite order of the capture times.
  Write(root / "c" / "rank0.json", Trace(kA100, 10000, t0));
  Write(root / "b" / "rank0.json", Trace(kA100, 10200, t0 + day_ns));
  Write(root / "a" / "rank0.json", Trace(kA100, 15000, t0 + 2 * day_ns, 0.5));
  BatchArgs args;
  args.paths = {root.string()};
  args.trend = true;
  Result r = Batch(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  size_t trend = r.out.find("Trend by trace start time (changes beyond 10%):");
  ASSERT_NE(trend, std::string::npos) << r.out;
  std::string section = r.out.substr(trend);
  size_t c = section.find("/c "), b = section.find("/b "), a = section.find("/a ");
  ASSERT_NE(a, std::string::npos) << section;
  EXPECT_LT(c, b);
  EXPECT_LT(b, a);
  EXPECT_THAT(section, HasSubstr("2023-11-14 22:13:20 UTC"));
  // b: 2% slower, below the threshold; a: 10.2 -> 15 ms and idle appeared.
  EXPECT_THAT(section, HasSubstr("step time 10.200 -> 15.000 ms (+47.1%)"));
  EXPECT_THAT(section, Not(HasSubstr("step time 10.000 -> 10.200")));
  EXPECT_THAT(section, HasSubstr("gpu-idle-gaps/"));
  args.trend_threshold_pct = 1;
  r = Batch(args);
  EXPECT_THAT(r.out, HasSubstr("step time 10.000 -> 10.200 ms (+2.0%)"));
  args.format = "json";
  r = Batch(args);
  EXPECT_THAT(r.out, HasSubstr("\"what\": \"step time\",\n          \"before_ns\": 10200000,\n"
                               "          \"after_ns\": 15000000"));
  // Sort by trace start: oldest first.
  args.format = "csv";
  args.trend = false;
  args.sort = "start";
  r = Batch(args);
  EXPECT_LT(r.out.find("/c,"), r.out.find("/a,"));
  args.sort = "start:desc";
  r = Batch(args);
  EXPECT_GT(r.out.find("/c,"), r.out.find("/a,"));
}

TEST(BatchFleet, TrendWithGroupsComparesRunsOfOneGroup) {
  fs::path root = TempDir() / "mixed";
  const int64_t hour_ns = 3600LL * 1'000'000'000;
  const int64_t t0 = 1'700'000'000LL * 1'000'000'000;
  Write(root / "1" / "rank0.json", Trace(kA100, 10000, t0));
  Write(root / "2" / "rank0.json", Trace(kH100, 4000, t0 + hour_ns));
  Write(root / "3" / "rank0.json", Trace(kA100, 10000, t0 + 2 * hour_ns));
  BatchArgs args;
  args.paths = {root.string()};
  args.trend = true;
  Result r = Batch(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("step time 4.000 -> 10.000 ms"));  // across device types
  args.group_by = "device";
  r = Batch(args);
  EXPECT_THAT(r.out, HasSubstr("each run against the previous of its group"));
  EXPECT_THAT(r.out, Not(HasSubstr("step time 4.000 -> 10.000 ms")));
  EXPECT_THAT(r.out, Not(HasSubstr("step time 10.000 -> 4.000 ms")));
  args.format = "json";
  args.output = (root.parent_path() / "trend.json").string();
  ASSERT_EQ(Batch(args).code, kExitOk);
  EXPECT_THAT(ReadFile(args.output), HasSubstr("\"group\": \"NVIDIA H100 80GB HBM3\""));
  std::string why;
  testing::SchemaCheck check = testing::ValidateJsonFile("batch.schema.json", args.output, why);
  if (check != testing::SchemaCheck::kSkipped) {
    EXPECT_EQ(check, testing::SchemaCheck::kValid) << why;
  }
}

// The CLI tests' archive (batch_command_test.cc) plus generated runs of
// several sizes.
fs::path ShardArchive() {
  fs::path root = TempDir() / "archive";
  std::string rules = SourceDir() + "/testdata/rules/";
  fs::create_directories(root / "a");
  fs::copy_file(rules + "dataloader_starvation.json", root / "a" / "rank0.json");
  fs::create_directories(root / "b");
  fs::copy_file(rules + "item_in_loop.json", root / "b" / "rank0.json");
  Write(root / "c" / "rank0.pt.trace.json", "{\"hello\": [1, 2, 3]}");  // unreadable
  for (int i = 0; i < 6; ++i) {
    Write(root / fmt::format("gen{}", i) / "rank0.json",
          Trace(i % 2 ? kA100 : kH100, 2000 + 1000 * i, 0, 0.4 + 0.1 * i, -1, -1, 4 + i));
  }
  return root;
}

std::vector<std::string> WriteShards(const fs::path& root, const fs::path& dir, int n,
                                     BatchArgs base = {}) {
  std::vector<std::string> files;
  for (int i = 0; i < n; ++i) {
    BatchArgs args = base;
    args.paths = {root.string()};
    args.format = "jsonl";
    args.shard = fmt::format("{}/{}", i, n);
    args.output = (dir / fmt::format("shard-{}.jsonl", i)).string();
    Result r = Batch(args);
    EXPECT_THAT(r.err, HasSubstr(fmt::format("shard {}/{}", i, n)));
    files.push_back(args.output);
  }
  return files;
}

TEST(BatchFleet, FourShardsMergeToTheSingleProcessTableInEveryFormat) {
  fs::path root = ShardArchive();
  fs::path out = root.parent_path();
  std::vector<std::string> shards = WriteShards(root, out, 4);
  // Every run is in exactly one shard.
  int runs = 0;
  for (const std::string& f : shards) {
    std::string text = ReadFile(f);
    for (size_t p = text.find("{\"type\":\"run\""); p != std::string::npos;
         p = text.find("{\"type\":\"run\"", p + 1)) {
      ++runs;
    }
  }
  EXPECT_EQ(runs, 9);
  for (const char* format : {"text", "markdown", "csv", "json"}) {
    for (const char* sort : {"path", "recoverable", "step-time:asc"}) {
      BatchArgs single;
      single.paths = {root.string()};
      single.format = format;
      single.sort = sort;
      single.group_by = "device";
      single.trend = true;
      single.batch_size = 16;
      Result one = Batch(single);
      BatchArgs merge = single;
      merge.merge = true;
      merge.paths = shards;
      Result merged = Batch(merge);
      EXPECT_EQ(merged.code, one.code) << merged.err;
      EXPECT_EQ(merged.out, one.out) << format << " " << sort;
    }
  }
  EXPECT_EQ(Batch([&] {
              BatchArgs a;
              a.paths = {root.string()};
              return a;
            }())
                .code,
            kExitUnreadable);  // archive/c
}

TEST(BatchFleet, AMissingShardIsListedNeverSilentlyAbsent) {
  fs::path root = ShardArchive();
  fs::path out = root.parent_path();
  std::vector<std::string> shards = WriteShards(root, out, 4);
  std::string lost = ReadFile(shards[2]);
  fs::remove(shards[2]);
  BatchArgs merge;
  merge.merge = true;
  merge.paths = shards;  // shard 2's file is gone
  merge.format = "csv";
  Result r = Batch(merge);
  EXPECT_EQ(r.code, kExitUnreadable) << r.err;  // archive/c, read in shard 0 or 1 or 3
  EXPECT_THAT(r.err, HasSubstr("shard 2/4"));
  EXPECT_THAT(r.out, HasSubstr(",missing,"));
  EXPECT_THAT(r.out, HasSubstr("shard 2/4 wrote no output"));
  // Each run of the lost shard is a row.
  size_t lost_runs = 0;
  for (size_t p = lost.find("{\"type\":\"run\""); p != std::string::npos;
       p = lost.find("{\"type\":\"run\"", p + 1)) {
    ++lost_runs;
  }
  size_t missing_rows = 0;
  for (size_t p = r.out.find(",missing,"); p != std::string::npos;
       p = r.out.find(",missing,", p + 1)) {
    ++missing_rows;
  }
  EXPECT_EQ(missing_rows, lost_runs);
  merge.format = "text";
  r = Batch(merge);
  EXPECT_THAT(r.out, HasSubstr("missing (a shard's output is absent)"));

  // Without the unreadable run the missing shard alone is exit 4.
  fs::remove_all(root / "c");
  shards = WriteShards(root, out, 4);
  fs::remove(shards[1]);
  merge.paths = shards;
  r = Batch(merge);
  EXPECT_EQ(r.code, kExitDamaged) << r.err;
}

TEST(BatchFleet, AShardFileCutShortKeepsItsWholeRecords) {
  fs::path root = ShardArchive();
  fs::path out = root.parent_path();
  std::vector<std::string> shards = WriteShards(root, out, 2);
  std::string text = ReadFile(shards[1]);
  // Cut in the middle of the second run record.
  size_t first_run = text.find("{\"type\":\"run\"");
  size_t second_run = text.find("{\"type\":\"run\"", first_run + 1);
  ASSERT_NE(second_run, std::string::npos);
  Write(shards[1], text.substr(0, second_run + 40));
  BatchArgs merge;
  merge.merge = true;
  merge.paths = shards;
  merge.format = "csv";
  Result r = Batch(merge);
  EXPECT_THAT(r.err, HasSubstr("incomplete: line 3 is cut short"));
  EXPECT_THAT(r.out, HasSubstr("no record in shard 1/2's output"));
  size_t ok_rows = 0;
  for (size_t p = r.out.find(",ok,"); p != std::string::npos; p = r.out.find(",ok,", p + 1)) {
    ++ok_rows;
  }
  EXPECT_GE(ok_rows, 1u);  // shard 0's runs and shard 1's first run
  EXPECT_TRUE(r.code == kExitDamaged || r.code == kExitUnreadable) << r.code;
}

TEST(BatchFleet, MergeRefusesOtherConfigurationsAndOddFiles) {
  fs::path root = ShardArchive();
  fs::path out = root.parent_path();
  std::vector<std::string> shards = WriteShards(root, out, 2);
  fs::path other_dir = out / "other";
  fs::create_directories(other_dir);
  BatchArgs strict;
  strict.engine.set_overrides = {"gpu-idle-gaps.MinIdleShare=0.2"};
  std::vector<std::string> other = WriteShards(root, other_dir, 2, strict);
  BatchArgs merge;
  merge.merge = true;
  merge.paths = {shards[0], other[1]};
  Result r = Batch(merge);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_THAT(r.err, HasSubstr("different configurations"));
  // A file that is not a shard output: its runs cannot be placed, so the
  // other shard's partition lists them as missing.
  Write(out / "junk.jsonl", "{\"not\": \"a record\"}\n");
  merge.paths = {shards[0], (out / "junk.jsonl").string()};
  r = Batch(merge);
  EXPECT_EQ(r.code, kExitUnreadable);  // archive/c is unreadable in one shard or missing
  EXPECT_THAT(r.err, HasSubstr("not a tracelint batch record"));
  // The same shard twice is read once.
  merge.paths = {shards[0], shards[0], shards[1]};
  r = Batch(merge);
  EXPECT_THAT(r.err, HasSubstr("read once"));
  EXPECT_THAT(r.out, Not(HasSubstr("missing")));
  merge.format = "jsonl";
  EXPECT_EQ(Batch(merge).code, kExitUsage);
  // The table may go beside the shard outputs, never over one.
  merge.format = "text";
  merge.output = shards[1];
  EXPECT_EQ(Batch(merge).code, kExitUsage);
  EXPECT_THAT(ReadFile(shards[1]), HasSubstr("batch-end"));
  merge.output = (out / "merged.txt").string();
  EXPECT_EQ(Batch(merge).code, kExitUnreadable);
  EXPECT_THAT(ReadFile(merge.output), HasSubstr("archive/c"));
}

}  // namespace
}  // namespace tracelint
