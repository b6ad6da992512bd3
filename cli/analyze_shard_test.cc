// `analyze --shard I/N` and `analyze --merge` (docs/sharding.md): a merge of
// parts reports what one process reports, byte for byte.

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/analyze_command.h"
#include "cli/exit_codes.h"
#include "tests/support/cli_run.h"
#include "tests/support/scenario.h"
#include "tests/support/test_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using testing::Analyze;
using testing::CommandResult;
using testing::FreshDir;
using testing::ReadFile;
using ::testing::HasSubstr;
using ::testing::Not;

// Sixteen ranks of one data-parallel job, each with its own mix of
// problems (a slow data loader on some, a host sync on others, pageable
// copies, a late rank whose all-reduce the others wait in, one rank without
// step markers' device sync), so the merge has cross-rank findings,
// per-rank values and run-level numbers to get right.
fs::path WriteSixteenRankJob(const std::string& name) {
  using testing::DeviceSpec;
  using testing::Scenario;
  fs::path dir = FreshDir(name) / "run";
  fs::create_directories(dir);
  for (int rank = 0; rank < 16; ++rank) {
    Scenario s;
    s.Device(DeviceSpec::A100()).Distributed(rank, 16);
    for (int k = 0; k < 6; ++k) {
      s.BeginStep(k);
      if (rank % 4 == 0) s.DataLoaderNext((2 + rank / 4) * kNsPerMs);
      if (rank % 5 == 1) s.CopyH2D(64 << 20, 3 * kNsPerMs, MemorySpace::kPageable);
      for (int i = 0; i < 3 + rank % 3; ++i) {
        s.BeginOp("aten::mm").Kernel("ampere_sgemm_128x64_nn", 2 * kNsPerMs).End();
      }
      if (rank % 7 == 3) s.Item();
      if (rank == 9) s.Spend(5 * kNsPerMs);  // the late rank
      s.AllReduce(8 << 20, (rank == 9 ? 3 : 9) * kNsPerMs, {0, testing::kComputeStream});
      if (rank != 12) s.Sync();
      s.EndStep();
    }
    absl::StatusOr<std::string> json = s.ToKinetoJson();
    EXPECT_TRUE(json.ok()) << json.status();
    std::ofstream(dir / ("rank" + std::to_string(rank) + ".json"), std::ios::binary) << *json;
  }
  return dir;
}

AnalyzeArgs ArgsFor(const std::string& path) {
  AnalyzeArgs args;
  args.path = path;
  args.width = 0;
  args.color = "never";
  return args;
}

// The parts of `run` split `shards` ways, as files in `dir`.
std::vector<std::string> WriteParts(const fs::path& run, int shards, const fs::path& dir) {
  fs::create_directories(dir);
  std::vector<std::string> parts;
  for (int i = 0; i < shards; ++i) {
    AnalyzeArgs args = ArgsFor(run.string());
    args.shard = std::to_string(i) + "/" + std::to_string(shards);
    args.output = (dir / ("part-" + std::to_string(i) + ".jsonl")).string();
    CommandResult r = Analyze(args);
    EXPECT_EQ(r.code, kExitOk) << r.err;
    parts.push_back(args.output);
  }
  return parts;
}

AnalyzeArgs MergeArgs(const std::vector<std::string>& parts) {
  AnalyzeArgs args = ArgsFor(parts.front());
  args.more_paths.assign(parts.begin() + 1, parts.end());
  args.merge = true;
  return args;
}

TEST(AnalyzeShard, SixteenRanksSplitFourWaysMergeToTheOneProcessReport) {
  fs::path run = WriteSixteenRankJob("sixteen");
  std::vector<std::string> parts = WriteParts(run, 4, run.parent_path());
  // Each part holds its share of the ranks: four files of equal size.
  for (const std::string& part : parts) {
    std::string text = ReadFile(part);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + 4 + 1) << part;
  }
  for (const char* format : {"json", "text", "markdown", "sarif"}) {
    AnalyzeArgs one = ArgsFor(run.string());
    one.format = format;
    one.verbose = std::string(format) == "text";
    one.steps = "all";
    CommandResult whole = Analyze(one);
    AnalyzeArgs merge = MergeArgs(parts);
    merge.format = format;
    merge.verbose = one.verbose;
    merge.steps = "all";
    CommandResult merged = Analyze(merge);
    EXPECT_EQ(merged.code, whole.code) << format << "\n" << merged.err;
    EXPECT_EQ(merged.err, whole.err) << format;
    EXPECT_EQ(merged.out, whole.out) << format;
    if (std::string(format) == "json") {
      EXPECT_THAT(whole.out, HasSubstr("\"rank\": 15"));
      EXPECT_THAT(whole.out, HasSubstr("comm-clustered-allreduce"));
    }
  }
  // The order the parts are named in does not matter.
  AnalyzeArgs reversed = MergeArgs({parts[3], parts[1], parts[0], parts[2]});
  reversed.format = "json";
  AnalyzeArgs one = ArgsFor(run.string());
  one.format = "json";
  EXPECT_EQ(Analyze(reversed).out, Analyze(one).out);
}

TEST(AnalyzeShard, HtmlOfAMergeSaysWhyItHasNoTimelineAndAnnotateIsRefused) {
  fs::path run = WriteSixteenRankJob("html");
  std::vector<std::string> parts = WriteParts(run, 2, run.parent_path());
  AnalyzeArgs merge = MergeArgs(parts);
  merge.format = "html";
  CommandResult r = Analyze(merge);
  EXPECT_EQ(r.code, Analyze(ArgsFor(run.string())).code) << r.err;
  EXPECT_THAT(r.out, HasSubstr("id=\"no-timeline\""));
  EXPECT_THAT(r.out, HasSubstr("merged from the parts of a sharded analyze"));
  EXPECT_THAT(r.out, Not(HasSubstr("id=\"timeline\"")));

  merge.format = "text";
  merge.annotate = (run.parent_path() / "annotated.json").string();
  r = Analyze(merge);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_THAT(r.err, HasSubstr("--annotate is refused with --merge"));
  EXPECT_FALSE(fs::exists(merge.annotate));

  AnalyzeArgs shard = ArgsFor(run.string());
  shard.shard = "0/2";
  shard.annotate = merge.annotate;
  r = Analyze(shard);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_THAT(r.err, HasSubstr("--annotate is refused with --shard"));
}

TEST(AnalyzeShard, AMissingPartIsReportedAndItsRanksSkippedWithExit3) {
  fs::path run = WriteSixteenRankJob("missing");
  std::vector<std::string> parts = WriteParts(run, 4, run.parent_path());
  CommandResult r = Analyze(MergeArgs({parts[0], parts[1], parts[3]}));
  EXPECT_EQ(r.code, kExitDamaged) << r.err;
  EXPECT_THAT(r.err, HasSubstr("shard 2/4: no part given; its files are reported as not read"));
  EXPECT_THAT(r.err, HasSubstr("not merged: shard 2/4 gave no part"));
  EXPECT_THAT(r.out, HasSubstr("12 ranks"));
}

TEST(AnalyzeShard, APartCutShortKeepsItsWholeLinesAndNamesTheRest) {
  fs::path run = WriteSixteenRankJob("cut");
  std::vector<std::string> parts = WriteParts(run, 2, run.parent_path());
  std::string text = ReadFile(parts[1]);
  // Cut in the middle of the third rank's line: two ranks stand.
  size_t third = 0;
  for (int i = 0; i < 3; ++i) third = text.find('\n', third) + 1;
  std::ofstream(parts[1], std::ios::binary | std::ios::trunc) << text.substr(0, third + 100);
  CommandResult r = Analyze(MergeArgs(parts));
  EXPECT_EQ(r.code, kExitDamaged) << r.err;
  EXPECT_THAT(r.err, HasSubstr("is incomplete: line 4 is cut short"));
  EXPECT_THAT(r.err, HasSubstr("no record in shard 1/2's part"));
  EXPECT_THAT(r.out, HasSubstr("10 ranks"));
}

TEST(AnalyzeShard, PartsOfDifferentRunsOrDamagedLinesAreRefused) {
  fs::path a = WriteSixteenRankJob("run_a");
  fs::path b = FreshDir("run_b") / "run";
  fs::create_directories(b);
  for (int rank : {0, 1, 2}) {
    fs::copy_file(a / ("rank" + std::to_string(rank) + ".json"),
                  b / ("rank" + std::to_string(rank) + ".json"));
  }
  std::vector<std::string> pa = WriteParts(a, 2, a.parent_path());
  std::vector<std::string> pb = WriteParts(b, 2, b.parent_path());
  CommandResult r = Analyze(MergeArgs({pa[0], pb[1]}));
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_THAT(r.err, HasSubstr("are parts of different runs or configurations"));

  // A damaged line before the last: the part is not read, its ranks are
  // named, the others merge.
  std::string text = ReadFile(pa[1]);
  size_t second = text.find('\n') + 1;
  text[second] = '#';  // the record's opening brace
  std::ofstream(pa[1], std::ios::binary | std::ios::trunc) << text;
  r = Analyze(MergeArgs(pa));
  EXPECT_EQ(r.code, kExitDamaged) << r.err;
  EXPECT_THAT(r.err, HasSubstr(pa[1] + ":2: not a part of a sharded analyze"));
  EXPECT_THAT(r.err, HasSubstr("shard 1/2: no part given"));

  // A value changed after the part was written (a flipped bit, an edit):
  // the checksum names the line, and the part counts as missing.
  std::vector<std::string> pc = WriteParts(a, 2, a.parent_path() / "edited");
  text = ReadFile(pc[0]);
  size_t rank_line = text.find('\n') + 1;
  size_t digit = text.find("\"mean_step_ns\": ", rank_line) + 16;
  text[digit] = text[digit] == '9' ? '8' : '9';
  std::ofstream(pc[0], std::ios::binary | std::ios::trunc) << text;
  r = Analyze(MergeArgs(pc));
  EXPECT_EQ(r.code, kExitDamaged) << r.err;
  EXPECT_THAT(r.err, HasSubstr(pc[0] + ":2: the line was altered after it was written"));

  // Not a part at all, alone: nothing to merge.
  std::string trace = (a / "rank0.json").string();
  r = Analyze(MergeArgs({trace}));
  EXPECT_EQ(r.code, kExitUnreadable);
  EXPECT_THAT(r.err, HasSubstr("no part could be read"));
}

TEST(AnalyzeShard, MoreShardsThanFilesAndAOneFileRunMergeAlike) {
  fs::path dir = FreshDir("one_file");
  std::string trace = testing::SourceDir() + "/testdata/rules/dataloader_starvation.json";
  std::vector<std::string> parts = WriteParts(trace, 3, dir);
  for (const char* format : {"json", "text"}) {
    AnalyzeArgs one = ArgsFor(trace);
    one.format = format;
    AnalyzeArgs merge = MergeArgs(parts);
    merge.format = format;
    CommandResult whole = Analyze(one), merged = Analyze(merge);
    EXPECT_EQ(merged.code, whole.code) << merged.err;
    EXPECT_EQ(merged.out, whole.out) << format;
  }
}

TEST(AnalyzeShard, ShardOptionsThatBelongToTheMergeAreUsageErrors) {
  fs::path run = WriteSixteenRankJob("usage");
  AnalyzeArgs args = ArgsFor(run.string());
  args.shard = "4/4";
  EXPECT_EQ(Analyze(args).code, kExitUsage);
  args.shard = "0/4";
  args.format = "json";
  CommandResult r = Analyze(args);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_THAT(r.err, HasSubstr("--format is the merge's"));
  args.format = "text";
  args.fail_on = "high";
  EXPECT_EQ(Analyze(args).code, kExitUsage);

  std::vector<std::string> parts = WriteParts(run, 2, run.parent_path());
  AnalyzeArgs merge = MergeArgs(parts);
  merge.engine.rules_given = true;
  merge.engine.rules_glob = "gpu-*";
  r = Analyze(merge);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_THAT(r.err, HasSubstr("--merge uses the rules the shards ran with"));
  merge = MergeArgs(parts);
  merge.output = parts[0];
  EXPECT_EQ(Analyze(merge).code, kExitUsage);
}

TEST(AnalyzeShard, TheShardIndexComesFromASlurmArray) {
  fs::path run = WriteSixteenRankJob("slurm_env");
  AnalyzeArgs args = ArgsFor(run.string());
  args.shards = 4;
  args.output = (run.parent_path() / "part.jsonl").string();
  setenv("SLURM_ARRAY_TASK_ID", "2", 1);
  setenv("SLURM_ARRAY_TASK_MIN", "0", 1);
  CommandResult r = Analyze(args);
  unsetenv("SLURM_ARRAY_TASK_ID");
  unsetenv("SLURM_ARRAY_TASK_MIN");
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(ReadFile(args.output), HasSubstr("\"shard\": 2,"));
}

}  // namespace
}  // namespace tracelint
