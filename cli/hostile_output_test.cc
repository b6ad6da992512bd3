// Trace names and directory names are hostile input: every output format
// must show them without letting them drive the terminal, forge report
// lines, break Markdown tables, inject HTML or make JSON invalid.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "analyzer/base/escape.h"
#include "cli/analyze_command.h"
#include "cli/batch_command.h"
#include "cli/exit_codes.h"
#include "tests/support/schema_check.h"
#include "tests/support/test_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::SourceDir;
using ::testing::HasSubstr;
using ::testing::Not;

void ReplaceAll(std::string& s, std::string_view from, std::string_view to) {
  for (size_t i = s.find(from); i != std::string::npos; i = s.find(from, i + to.size())) {
    s.replace(i, from.size(), to);
  }
}

// As JSON string bodies: ESC (clear screen), BEL, CR, a newline that starts
// a forged report line, a table pipe and a script tag.
constexpr std::string_view kHostileJsonName =
    "evil\\u001b[2J\\u0007\\rFORGED: no findings\\n| a | b |<script>alert(1)</script>";

// healthy.json with its kernel, op and GPU names made hostile, in a
// directory whose own name holds control bytes, markup and invalid UTF-8.
fs::path HostileRun() {
  fs::path root =
      fs::path(::testing::TempDir()) / ("tracelint_hostile_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::path dir = root / "run\x1b]0;pwned\x07|<b>x</b>\n\xff\xfe";
  fs::create_directories(dir);
  std::string trace = ReadFile(SourceDir() + "/testdata/rules/healthy.json");
  ReplaceAll(trace, "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn", kHostileJsonName);
  ReplaceAll(trace, "aten::mm", std::string(kHostileJsonName) + "op");
  ReplaceAll(trace, "NVIDIA A100-SXM4-40GB", kHostileJsonName);
  std::ofstream(dir / "rank0.json", std::ios::binary) << trace;
  return dir;
}

// No byte that drives a terminal: C0 controls other than the line ends the
// report writes itself, DEL, and (being valid UTF-8) no stray C1 bytes.
void ExpectTerminalSafe(const std::string& out) {
  EXPECT_TRUE(IsValidUtf8(out));
  for (char c : out) {
    unsigned char u = static_cast<unsigned char>(c);
    ASSERT_FALSE((u < 0x20 && c != '\n') || u == 0x7f) << "byte " << int(u) << " in:\n" << out;
  }
  EXPECT_THAT(out, Not(HasSubstr("\nFORGED")));
  EXPECT_THAT(out, Not(HasSubstr("\xc2\x9b")));
}

struct Output {
  int code;
  std::string out, err;
};

Output Analyze(const fs::path& dir, const std::string& format) {
  AnalyzeArgs args;
  args.path = dir.string();
  args.format = format;
  std::ostringstream out, err;
  int code = RunAnalyze(args, out, err);
  return {code, out.str(), err.str()};
}

Output Batch(const fs::path& dir, const std::string& format) {
  BatchArgs args;
  args.paths = {dir.string()};
  args.format = format;
  args.jobs = 1;
  std::ostringstream out, err;
  int code = RunBatch(args, out, err);
  return {code, out.str(), err.str()};
}

TEST(HostileNames, TextReportShowsThemEscaped) {
  Output r = Analyze(HostileRun(), "text");
  ASSERT_EQ(r.code, kExitOk) << r.err;
  ExpectTerminalSafe(r.out);
  ExpectTerminalSafe(r.err);
  EXPECT_THAT(r.out, HasSubstr("evil\\e[2J\\x07\\rFORGED"));
  EXPECT_THAT(r.out, HasSubstr("\\n| a | b |"));  // the newline stays inside its line
}

TEST(HostileNames, JsonReportIsValidUtf8AndMatchesTheSchema) {
  fs::path dir = HostileRun();
  Output r = Analyze(dir, "json");
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(IsValidUtf8(r.out));
  fs::path file = fs::path(::testing::TempDir()) / "tracelint_hostile_report.json";
  std::ofstream(file, std::ios::binary) << r.out;
  std::string why;
  testing::SchemaCheck check = testing::ValidateJsonFile("report.schema.json", file.string(), why);
  if (check == testing::SchemaCheck::kSkipped) GTEST_SKIP() << why;
  EXPECT_EQ(check, testing::SchemaCheck::kValid) << why;
}

TEST(HostileNames, BatchTextAndCsvAreTerminalSafe) {
  fs::path dir = HostileRun();
  for (const char* format : {"text", "csv"}) {
    Output r = Batch(dir, format);
    EXPECT_EQ(r.code, kExitOk) << format << ": " << r.err;
    ExpectTerminalSafe(r.out);
    ExpectTerminalSafe(r.err);
  }
}

// Pipes outside a backslash escape: the cell separators of a table row.
int UnescapedPipes(std::string_view line) {
  int n = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\') {
      ++i;
    } else if (line[i] == '|') {
      ++n;
    }
  }
  return n;
}

TEST(HostileNames, BatchMarkdownKeepsItsTableAndCarriesNoHtml) {
  Output r = Batch(HostileRun(), "markdown");
  EXPECT_EQ(r.code, kExitOk) << r.err;
  ExpectTerminalSafe(r.out);
  EXPECT_THAT(r.out, Not(HasSubstr("<b>")));
  EXPECT_THAT(r.out, Not(HasSubstr("<script")));
  std::istringstream lines(r.out);
  std::string header, line;
  std::getline(lines, header);
  int rows = 0;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    ++rows;
    EXPECT_EQ(UnescapedPipes(line), UnescapedPipes(header)) << line;
  }
  EXPECT_EQ(rows, 2);  // the separator and the run
}

TEST(HostileNames, BatchJsonIsValidUtf8AndMatchesTheSchema) {
  Output r = Batch(HostileRun(), "json");
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(IsValidUtf8(r.out));
  fs::path file = fs::path(::testing::TempDir()) / "tracelint_hostile_batch.json";
  std::ofstream(file, std::ios::binary) << r.out;
  std::string why;
  testing::SchemaCheck check = testing::ValidateJsonFile("batch.schema.json", file.string(), why);
  if (check == testing::SchemaCheck::kSkipped) GTEST_SKIP() << why;
  EXPECT_EQ(check, testing::SchemaCheck::kValid) << why;
}

}  // namespace
}  // namespace tracelint
