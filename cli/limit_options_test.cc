// The limit flags (limit_options.h) on analyze and batch: values, a gzip
// bomb's partial analysis (exit 4, the warning naming file, limit and flag),
// and in a batch the bomb's own row beside intact healthy rows.
#include "cli/limit_options.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/analyze_command.h"
#include "cli/batch_command.h"
#include "cli/exit_codes.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/test_files.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using Result = testing::CommandResult;
using testing::SourceDir;
using ::testing::HasSubstr;
using ::testing::Not;
using ::tracelint::testing::TempDir;
using ::tracelint::testing::WriteGzipBomb;

TEST(LimitOptions, ValuesTakeSizesAndZeroOrUnlimitedForNone) {
  EXPECT_EQ(*ParseLimitValue("4G"), uint64_t{4} << 30);
  EXPECT_EQ(*ParseLimitValue("500M"), uint64_t{500} << 20);
  EXPECT_EQ(*ParseLimitValue("123"), 123u);
  EXPECT_EQ(*ParseLimitValue("0"), 0u);
  EXPECT_EQ(*ParseLimitValue("unlimited"), 0u);
  EXPECT_EQ(*ParseLimitValue("Unlimited"), 0u);
  EXPECT_FALSE(ParseLimitValue("lots").ok());
  EXPECT_FALSE(ParseLimitValue("-1").ok());
}

TEST(LimitOptions, FlagsSetTheLimitsAndBadValuesAreUsageErrors) {
  ParseLimits limits;
  CLI::App app;
  OptionTable table;
  CommandFlags flags(app, table.AddCommand("t", ""));
  DeclareLimitFlags(flags, limits);
  EXPECT_EQ(table.Find("t")->options.size(), 5u);
  app.parse(std::vector<std::string>{"--max-nesting-depth=9", "--max-string-bytes=1M",
                                     "--max-events=unlimited",
                                     "--max-decompressed-bytes=4G"});  // reversed argv
  EXPECT_EQ(limits.max_decompressed_bytes, uint64_t{4} << 30);
  EXPECT_EQ(limits.max_events, 0);
  EXPECT_EQ(limits.max_string_bytes, uint64_t{1} << 20);
  EXPECT_EQ(limits.max_nesting_depth, 9);
  CLI::App strict;
  ParseLimits other;
  CommandFlags strict_flags(strict, table.AddCommand("strict", ""));
  DeclareLimitFlags(strict_flags, other);
  EXPECT_THROW(strict.parse(std::vector<std::string>{"--max-events=many"}), CLI::ParseError);
}

TEST(LimitOptions, AnalyzeOfABombIsAPartialAnalysisNamingTheLimit) {
  TempDir dir;
  std::string bomb = (dir.path() / "rank0.json.gz").string();
  WriteGzipBomb(bomb, 256, 200);  // 256 MiB of events in ~200 KB
  AnalyzeArgs args;
  args.path = bomb;
  args.format = "json";
  args.limits.max_decompressed_bytes = uint64_t{8} << 20;
  std::ostringstream out, err;
  int code = RunAnalyze(args, out, err);
  // Partial input is exit 4; the bomb's events (host ops only) leave nothing
  // to judge, and 5 wins over 4 (exit_codes.h).
  EXPECT_EQ(code, CombineExitCodes(kExitDamaged, kExitNotJudgeable)) << err.str();
  EXPECT_THAT(err.str(), HasSubstr(bomb + ": stopped at the decompressed-size limit of 8388608 "
                                          "bytes (8M)"));
  EXPECT_THAT(err.str(), HasSubstr("--max-decompressed-bytes"));
  EXPECT_THAT(out.str(), HasSubstr("limit_reached"));

  // Nothing usable before the limit: an error, exit 3.
  args.limits.max_decompressed_bytes = 50;
  std::ostringstream out2, err2;
  EXPECT_EQ(RunAnalyze(args, out2, err2), kExitUnreadable);
  EXPECT_THAT(err2.str(), HasSubstr("before the first complete trace event"));
  EXPECT_THAT(err2.str(), HasSubstr("--max-decompressed-bytes"));
}

TEST(LimitOptions, BatchGivesTheBombItsOwnRowAndKeepsTheHealthyOnes) {
  TempDir dir;
  fs::path archive = dir.path() / "archive";
  fs::create_directories(archive / "a");
  fs::create_directories(archive / "b");
  fs::create_directories(archive / "bomb");
  std::string rules = SourceDir() + "/testdata/rules/";
  fs::copy_file(rules + "dataloader_starvation.json", archive / "a" / "rank0.json");
  fs::copy_file(rules + "healthy.json", archive / "b" / "rank0.json");
  BatchArgs args;
  args.paths = {archive.string()};
  args.format = "csv";
  args.limits.max_decompressed_bytes = uint64_t{8} << 20;
  std::ostringstream healthy_out, healthy_err;
  ASSERT_EQ(RunBatch(args, healthy_out, healthy_err), kExitOk) << healthy_err.str();

  WriteGzipBomb((archive / "bomb" / "rank0.json.gz").string(), 256, 200);
  std::ostringstream out, err;
  int code = RunBatch(args, out, err);
  // Cut before its first step ended, the bomb's run is damaged and could
  // not be judged: exit 5 outranks 4, and its row says both.
  EXPECT_EQ(code, kExitNotJudgeable) << err.str();
  std::vector<std::string> rows;
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  std::vector<std::string> healthy_rows;
  std::istringstream healthy_lines(healthy_out.str());
  for (std::string line; std::getline(healthy_lines, line);) healthy_rows.push_back(line);
  ASSERT_EQ(rows.size(), healthy_rows.size() + 1) << out.str();
  // The healthy runs' rows are those of the batch without the bomb.
  EXPECT_EQ(rows[1], healthy_rows[1]);
  EXPECT_EQ(rows[2], healthy_rows[2]);
  EXPECT_THAT(rows[3], HasSubstr("bomb"));
  EXPECT_THAT(rows[3], HasSubstr("not judgeable"));
  EXPECT_THAT(rows[3], HasSubstr("no complete step"));
  EXPECT_THAT(rows[3], HasSubstr("decompressed-size limit"));
  EXPECT_THAT(rows[3], HasSubstr("--max-decompressed-bytes"));
  EXPECT_THAT(rows[1], Not(HasSubstr("limit")));

  // A limit so low nothing is read: the bomb's row is an error, exit 3.
  args.limits.max_decompressed_bytes = 50;
  std::ostringstream out3, err3;
  EXPECT_EQ(RunBatch(args, out3, err3), kExitUnreadable);
  EXPECT_THAT(out3.str(), HasSubstr("before the first complete trace event"));
}

}  // namespace
}  // namespace tracelint
