#include "cli/batch_command.h"

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/exit_codes.h"
#include "tests/support/cli_run.h"
#include "tests/support/schema_check.h"
#include "tests/support/test_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using Result = testing::CommandResult;
using testing::Batch;
using testing::FreshDir;
using testing::ReadFile;
using testing::SourceDir;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// archive/a: the DataLoader case study; archive/b/nested: two ranks;
// archive/c: a profiler-named file that is not a trace; archive/summary.json:
// metadata that must not make the archive itself a run.
fs::path MakeArchive(const std::string& name) {
  fs::path root = FreshDir(name);
  fs::path archive = root / "archive";
  fs::create_directories(archive / "a");
  fs::create_directories(archive / "b" / "nested");
  fs::create_directories(archive / "c");
  std::string rules = SourceDir() + "/testdata/rules/";
  fs::copy_file(rules + "dataloader_starvation.json", archive / "a" / "rank0.json");
  fs::copy_file(rules + "healthy.json", archive / "b" / "nested" / "rank0.json");
  fs::copy_file(rules + "item_in_loop.json", archive / "b" / "nested" / "rank1.json");
  std::ofstream(archive / "c" / "rank0.pt.trace.json") << "{\"hello\": [1, 2, 3]}";
  std::ofstream(archive / "summary.json") << "{\"runs\": 3}";
  return root;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(BatchCommand, OneRowPerRunInOrderAndAnUnreadableRunIsExit3) {
  fs::path root = MakeArchive("rows");
  BatchArgs args;
  args.paths = {(root / "archive").string()};
  Result r = Batch(args);
  EXPECT_EQ(r.code, kExitUnreadable) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 5u) << r.out;
  EXPECT_THAT(lines[0], StartsWith("run"));
  // Runs are named relative to the folder searched.
  EXPECT_THAT(lines[1], StartsWith("a "));
  EXPECT_THAT(lines[1], HasSubstr("gpu-idle-gaps/data_loader"));
  EXPECT_THAT(lines[2], StartsWith("b/nested "));
  EXPECT_THAT(lines[3], StartsWith("c "));
  EXPECT_THAT(lines[3], HasSubstr("error"));
  EXPECT_THAT(lines[4], HasSubstr("3 runs: 2 analysed, 0 damaged, 1 could not be read"));
  // The run that failed is named on stderr, once.
  EXPECT_THAT(r.err, HasSubstr("archive/c"));
}

TEST(BatchCommand, TableIsIdenticalWhateverTheJobsAndThreads) {
  fs::path root = MakeArchive("jobs");
  BatchArgs base;
  base.paths = {(root / "archive").string()};
  base.format = "json";
  base.jobs = 1;
  base.threads = 1;
  Result serial = Batch(base);
  for (int jobs : {0, 2, 3}) {
    for (int threads : {0, 1, 2, 4}) {
      BatchArgs args = base;
      args.jobs = jobs;
      args.threads = threads;
      Result r = Batch(args);
      EXPECT_EQ(r.code, serial.code);
      EXPECT_EQ(r.out, serial.out) << "jobs " << jobs << " threads " << threads;
    }
  }
}

TEST(BatchCommand, SortByRecoverableSharePutsTheWorstRunFirst) {
  fs::path root = MakeArchive("sort");
  BatchArgs args;
  args.paths = {(root / "archive").string()};
  args.sort = "recoverable";
  Result r = Batch(args);
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 5u) << r.out;
  // a (DataLoader, 55% of the step) before b/nested (19%); c unread, last.
  EXPECT_THAT(lines[1], StartsWith("a "));
  EXPECT_THAT(lines[2], StartsWith("b/nested "));
  EXPECT_THAT(lines[3], StartsWith("c "));
  args.paths = {(root / "archive" / "b").string(), (root / "archive" / "a").string()};
  r = Batch(args);
  lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_THAT(lines[1], HasSubstr("archive/a "));
  args.sort = "size";
  EXPECT_EQ(Batch(args).code, kExitUsage);
}

TEST(BatchCommand, ARunReachedTwiceIsListedOnce) {
  fs::path root = MakeArchive("twice");
  BatchArgs args;
  args.paths = {(root / "archive").string(), (root / "archive" / "a").string()};
  Result r = Batch(args);
  EXPECT_EQ(Lines(r.out).size(), 5u) << r.out;  // header, a, b/nested, c, summary
  EXPECT_THAT(r.err, HasSubstr("listed once"));
}

// A run linked from outside the searched path is skipped with a warning
// naming the link unless --follow-links; a link inside it is one run.
TEST(BatchCommand, LinksOutOfTheTreeNeedFollowLinks) {
  fs::path root = MakeArchive("links");
  fs::create_directories(root / "outside" / "d");
  fs::copy_file(SourceDir() + "/testdata/rules/healthy.json", root / "outside" / "d" / "r.json");
  fs::create_directory_symlink(root / "outside" / "d", root / "archive" / "linked");
  fs::create_directory_symlink("a", root / "archive" / "a_again");
  BatchArgs args;
  args.paths = {(root / "archive").string()};
  Result r = Batch(args);
  EXPECT_EQ(Lines(r.out).size(), 5u) << r.out;  // header, a, b/nested, c, summary
  EXPECT_THAT(r.err, HasSubstr((root / "archive" / "linked").string()));
  EXPECT_THAT(r.err, HasSubstr("--follow-links"));
  args.follow_links = true;
  r = Batch(args);
  EXPECT_EQ(Lines(r.out).size(), 6u) << r.out;  // and linked
  EXPECT_THAT(r.out, HasSubstr("linked"));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("--follow-links")));
}

TEST(BatchCommand, TruncatedRunIsDamagedWithExit4) {
  fs::path root = FreshDir("damaged");
  fs::create_directories(root / "cut");
  std::string whole = ReadFile(SourceDir() + "/testdata/rules/dataloader_starvation.json");
  std::ofstream(root / "cut" / "rank0.json", std::ios::binary)
      << whole.substr(0, whole.size() * 2 / 3);
  fs::create_directories(root / "ok");
  fs::copy_file(SourceDir() + "/testdata/rules/healthy.json", root / "ok" / "rank0.json");
  BatchArgs args;
  args.paths = {root.string()};
  args.format = "csv";
  Result r = Batch(args);
  EXPECT_EQ(r.code, kExitDamaged) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_THAT(lines[0], StartsWith("run,status,ranks,steps,mean_step_ns,"));
  EXPECT_THAT(lines[1], HasSubstr(",damaged,"));
  EXPECT_THAT(lines[1], HasSubstr("byte"));
  EXPECT_THAT(lines[2], HasSubstr(",ok,"));
}

TEST(BatchCommand, ARunNobodyCanJudgeIsNeverACleanRowAndExits5) {
  // A CPU-only run: analyze says "not judgeable" and exits 5; the batch row
  // says so with the reason, and the batch exits 5 (docs/design/contract.md).
  fs::path root = FreshDir("unjudged");
  fs::create_directories(root / "cpu");
  fs::create_directories(root / "ok");
  fs::copy_file(SourceDir() + "/testdata/rules/cpu_only.json", root / "cpu" / "rank0.json");
  fs::copy_file(SourceDir() + "/testdata/rules/healthy.json", root / "ok" / "rank0.json");
  BatchArgs args;
  args.paths = {root.string()};
  Result r = Batch(args);
  EXPECT_EQ(r.code, kExitNotJudgeable) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_THAT(lines[1], HasSubstr("cpu "));
  EXPECT_THAT(lines[1], HasSubstr("not judgeable"));
  EXPECT_THAT(lines[1], HasSubstr("no device activity"));
  EXPECT_THAT(lines[2], HasSubstr(" ok "));
  EXPECT_THAT(lines[3], HasSubstr("2 runs: 1 analysed, 0 damaged, 0 could not be read, "
                                  "1 not judgeable"));
  // Not judgeable runs stay out of the group medians.
  args.group_by = "device";
  args.format = "json";
  Result grouped = Batch(args);
  EXPECT_EQ(grouped.code, kExitNotJudgeable);
  EXPECT_THAT(grouped.out, HasSubstr("\"status\": \"not judgeable\""));
}

TEST(BatchCommand, MarkdownIsATableForAPullRequest) {
  fs::path root = MakeArchive("markdown");
  BatchArgs args;
  args.paths = {(root / "archive" / "a").string(), (root / "archive" / "b").string()};
  args.format = "markdown";
  Result r = Batch(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_THAT(lines[0], StartsWith("| run | status |"));
  EXPECT_THAT(lines[1], StartsWith("|---|---|---:|"));
  EXPECT_THAT(lines[2], HasSubstr("| ok | 1 |"));
  EXPECT_THAT(lines[3], HasSubstr("| ok | 2 |"));
}

TEST(BatchCommand, RefusesToWriteIntoAnArchiveItReads) {
  fs::path root = MakeArchive("nowrite");
  BatchArgs args;
  args.paths = {(root / "archive").string()};
  args.output = (root / "archive" / "b" / "table.txt").string();
  Result r = Batch(args);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_FALSE(fs::exists(args.output));
  args.output = (root / "table.txt").string();
  r = Batch(args);
  EXPECT_EQ(r.code, kExitUnreadable);  // archive/c
  EXPECT_THAT(ReadFile(args.output), HasSubstr("gpu-idle-gaps/data_loader"));
}

TEST(BatchCommand, MissingPathIsARowAndBadOptionsAreUsageErrors) {
  BatchArgs args;
  args.paths = {"/nonexistent/tracelint/archive"};
  Result r = Batch(args);
  EXPECT_EQ(r.code, kExitUnreadable);
  EXPECT_THAT(r.out, HasSubstr("/nonexistent/tracelint/archive"));
  args.engine.set_overrides = {"gpu-idle-gaps.NoSuchOption=1"};
  EXPECT_EQ(Batch(args).code, kExitUsage);
  BatchArgs bad_format;
  bad_format.paths = {"x"};
  bad_format.format = "xml";
  EXPECT_EQ(Batch(bad_format).code, kExitUsage);
}

TEST(BatchCommand, JsonValidatesAgainstTheBatchSchema) {
  fs::path root = MakeArchive("schema");
  BatchArgs args;
  args.paths = {(root / "archive").string()};
  args.format = "json";
  args.output = (root / "table.json").string();
  Result r = Batch(args);
  ASSERT_EQ(r.code, kExitUnreadable) << r.err;
  std::string why;
  testing::SchemaCheck check = testing::ValidateJsonFile("batch.schema.json", args.output, why);
  if (check == testing::SchemaCheck::kSkipped) GTEST_SKIP() << why;
  EXPECT_EQ(check, testing::SchemaCheck::kValid) << why;
}

// The JSON table records what wrote it and with which options, and every
// finding of every run with the fields `analyze --format json` gives them.
TEST(BatchCommand, JsonCarriesTheVersionOptionsAndEveryFinding) {
  fs::path root = MakeArchive("all_findings");
  BatchArgs args;
  args.paths = {(root / "archive").string()};
  args.format = "json";
  args.engine.rules_glob = "-*,gpu-*,host-*";
  args.engine.rules_given = true;
  Result r = Batch(args);
  ASSERT_EQ(r.code, kExitUnreadable) << r.err;
  EXPECT_THAT(r.out, ::testing::ContainsRegex("\"tool_version\": \"[0-9]+\\.[0-9]+"));
  EXPECT_THAT(r.out, HasSubstr("\"options\": {\"rules\": \"-*,gpu-*,host-*\""));
  EXPECT_THAT(r.out, HasSubstr("\"selected_rules\": [\"gpu-idle-gaps\",\"host-side-ops\"]"));
  // b/nested has findings on two ranks; each is there whole.
  EXPECT_THAT(r.out, ::testing::ContainsRegex(
                         "\"all_findings\": \\[\\s*\\{\"rule_id\": ?\"gpu-idle-gaps\""));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("\"rule_id\": ?\"host-side-ops\""));
  for (const char* field : {"\"recoverable_ns_steps\":", "\"evidence\":", "\"location\":",
                            "\"fix\":", "\"confidence\":", "\"fingerprint\":"}) {
    EXPECT_THAT(r.out, HasSubstr(field)) << field;
  }
  fs::path file = root / "table.json";
  std::ofstream(file) << r.out;
  std::string why;
  testing::SchemaCheck check = testing::ValidateJsonFile("batch.schema.json", file.string(), why);
  if (check == testing::SchemaCheck::kSkipped) GTEST_SKIP() << why;
  EXPECT_EQ(check, testing::SchemaCheck::kValid) << why;
  // JSONL records carry the same findings, and a merge gives them back.
  args.format = "jsonl";
  Result jsonl = Batch(args);
  EXPECT_THAT(jsonl.out, HasSubstr("\"recoverable_ns_steps\":"));
  fs::path shard = root / "shard.jsonl";
  std::ofstream(shard) << jsonl.out;
  BatchArgs merge;
  merge.merge = true;
  merge.paths = {shard.string()};
  merge.format = "json";
  Result merged = Batch(merge);
  EXPECT_THAT(merged.out, ::testing::ContainsRegex(
                              "\"all_findings\": \\[\\s*\\{\"rule_id\": ?\"gpu-idle-gaps\""));
}

// Text fits the width: --width N, else COLUMNS when piped; long run names
// are elided in the middle, numbers never cut, and runs are named relative
// to the folder searched. Markdown never shows this machine's paths.
TEST(BatchCommand, TextFitsTheWidthAndMarkdownHasNoMachinePath) {
  fs::path root = FreshDir("width");
  fs::path deep = root / "experiments" / "2024-05-01_resnet50_bs256_amp_channels_last" /
                  "node-a100-07.cluster.example.com";
  fs::create_directories(deep);
  fs::copy_file(SourceDir() + "/testdata/rules/dataloader_starvation.json", deep / "rank0.json");
  BatchArgs args;
  args.paths = {(root / "experiments").string()};
  args.width = 100;
  Result r = Batch(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  for (const std::string& line : Lines(r.out)) {
    if (line.empty() || line.starts_with("1 run")) continue;
    EXPECT_LE(testing::DisplayWidth(line), 100u) << line;
  }
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr(root.string())));
  EXPECT_THAT(r.out, HasSubstr("\u2026"));  // the elided name
  // Piped: COLUMNS when set; --width 0 or no COLUMNS: every column whole.
  args.width = -1;
  ::setenv("COLUMNS", "100", 1);
  Result piped = Batch(args);
  ::unsetenv("COLUMNS");
  EXPECT_EQ(piped.out, r.out);
  Result whole = Batch(args);
  EXPECT_THAT(whole.out, HasSubstr("2024-05-01_resnet50_bs256_amp_channels_last/"
                                   "node-a100-07.cluster.example.com "));
  args.format = "markdown";
  Result md = Batch(args);
  EXPECT_THAT(md.out, ::testing::Not(HasSubstr(root.string())));
  EXPECT_THAT(md.out, HasSubstr("| 2024-05-01"));
}

}  // namespace
}  // namespace tracelint
