#include "cli/report_output.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <streambuf>

#include <sys/wait.h>

#include "cli/analyze_command.h"
#include "cli/exit_codes.h"
#include "tests/support/test_files.h"
#include "gmock/gmock.h"
#include "fmt/format.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using testing::FreshDir;
using testing::ReadFile;
using testing::SourceDir;
using ::testing::HasSubstr;

// A trace in its own directory, and a separate directory for reports.
struct Layout {
  fs::path trace_dir, trace, out_dir;
  std::string original;
};

Layout MakeLayout(const std::string& name) {
  Layout l;
  l.trace_dir = FreshDir(name + "_in");
  l.out_dir = FreshDir(name + "_out");
  l.trace = l.trace_dir / "rank0.json";
  fs::copy_file(SourceDir() + "/testdata/rules/healthy.json", l.trace);
  l.original = ReadFile(l.trace);
  return l;
}

int Analyze(const std::string& path, const std::string& output, std::string* err = nullptr) {
  AnalyzeArgs args;
  args.path = path;
  args.output = output;
  std::ostringstream out, e;
  int code = RunAnalyze(args, out, e);
  if (err) *err = e.str();
  return code;
}

TEST(OutputGuard, SymlinkOutputToTheTraceIsRefusedAndTheTraceKept) {
  Layout l = MakeLayout("symlink");
  fs::create_symlink(l.trace, l.out_dir / "report.txt");
  std::string err;
  EXPECT_EQ(Analyze(l.trace.string(), (l.out_dir / "report.txt").string(), &err), kExitUsage);
  EXPECT_THAT(err, HasSubstr("refusing to write"));
  EXPECT_EQ(ReadFile(l.trace), l.original);
}

TEST(OutputGuard, HardLinkOutputToTheTraceIsRefused) {
  Layout l = MakeLayout("hardlink");
  fs::create_hard_link(l.trace, l.out_dir / "report.txt");
  EXPECT_EQ(Analyze(l.trace.string(), (l.out_dir / "report.txt").string()), kExitUsage);
  EXPECT_EQ(ReadFile(l.trace), l.original);
}

TEST(OutputGuard, HardLinkToAFileInsideATraceDirectoryIsRefused) {
  Layout l = MakeLayout("hardlink_dir");
  fs::create_hard_link(l.trace, l.out_dir / "report.txt");
  EXPECT_EQ(Analyze(l.trace_dir.string(), (l.out_dir / "report.txt").string()), kExitUsage);
  EXPECT_EQ(ReadFile(l.trace), l.original);
}

TEST(OutputGuard, TraceGivenThroughASymlinkIsResolved) {
  Layout l = MakeLayout("input_link");
  fs::create_symlink(l.trace, l.out_dir / "trace.json");
  // The link sits in out_dir, but the trace it names is in trace_dir.
  EXPECT_EQ(Analyze((l.out_dir / "trace.json").string(), l.trace.string()), kExitUsage);
  EXPECT_EQ(ReadFile(l.trace), l.original);
  EXPECT_EQ(Analyze((l.out_dir / "trace.json").string(), (l.trace_dir / "r.txt").string()),
            kExitUsage);
  EXPECT_FALSE(fs::exists(l.trace_dir / "r.txt"));
}

TEST(OutputGuard, DotDotIntoTheTraceDirectoryIsRefused) {
  Layout l = MakeLayout("dotdot");
  fs::path sneaky = l.out_dir / ".." / l.trace_dir.filename() / "rank0.json";
  EXPECT_EQ(Analyze(l.trace_dir.string(), sneaky.string()), kExitUsage);
  EXPECT_EQ(ReadFile(l.trace), l.original);
}

TEST(OutputGuard, SymlinkedOutputDirectoryIntoTheTraceDirectoryIsRefused) {
  Layout l = MakeLayout("dirlink");
  fs::create_directory_symlink(l.trace_dir, l.out_dir / "sub");
  EXPECT_EQ(Analyze(l.trace_dir.string(), (l.out_dir / "sub" / "new.txt").string()),
            kExitUsage);
  EXPECT_FALSE(fs::exists(l.trace_dir / "new.txt"));
}

TEST(WriteReport, ReplacesTheTargetWholeAndLeavesNoTemporaryFile) {
  fs::path dir = FreshDir("atomic");
  fs::path target = dir / "report.txt";
  std::ofstream(target) << "old report, longer than the new one\n";
  std::ostringstream unused;
  ASSERT_TRUE(WriteReport("new\n", target.string(), unused).ok());
  EXPECT_EQ(ReadFile(target), "new\n");
  int files = 0;
  for ([[maybe_unused]] const fs::directory_entry& e : fs::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1);
}

TEST(WriteReport, WritesThroughASymlinkToItsTarget) {
  fs::path dir = FreshDir("through_link");
  std::ofstream(dir / "real.txt") << "old";
  fs::create_symlink(dir / "real.txt", dir / "link.txt");
  std::ostringstream unused;
  ASSERT_TRUE(WriteReport("new", (dir / "link.txt").string(), unused).ok());
  EXPECT_TRUE(fs::is_symlink(dir / "link.txt"));
  EXPECT_EQ(ReadFile(dir / "real.txt"), "new");
}

TEST(WriteReport, FullDeviceIsAnError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  std::ostringstream unused;
  absl::Status s = WriteReport(std::string(1 << 16, 'x'), "/dev/full", unused);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("/dev/full"));
}

TEST(WriteReport, MissingDirectoryIsAnError) {
  std::ostringstream unused;
  EXPECT_FALSE(WriteReport("x", "/nonexistent-dir-for-tracelint/report.txt", unused).ok());
}

// A stream buffer that fails every write, as closed stdout does.
class FailingBuf : public std::streambuf {
 protected:
  int_type overflow(int_type) override { return traits_type::eof(); }
  std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
};

TEST(WriteReport, FailingStandardOutputIsAnError) {
  FailingBuf buf;
  std::ostream out(&buf);
  absl::Status s = WriteReport("report", "", out);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("standard output"));
}

TEST(WriteReport, AnalyzeExitsSixWhenTheReportCannotBeWritten) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  std::string err;
  EXPECT_EQ(Analyze(SourceDir() + "/testdata/rules/healthy.json", "/dev/full", &err),
            kExitWriteFailed);
  EXPECT_THAT(err, HasSubstr("cannot write the report to /dev/full"));
}

// The real binary, with stdout closed and with stdout on a full device.
TEST(WriteReport, BinaryExitsSixOnClosedOrFullStdout) {
  const char* bin_dir = std::getenv("TRACELINT_BINARY_DIR");
  if (!bin_dir) GTEST_SKIP() << "TRACELINT_BINARY_DIR not set (run through ctest)";
  std::string cmd = fmt::format("'{}/tracelint' analyze '{}/testdata/rules/healthy.json'", bin_dir,
                                SourceDir());
  int closed = std::system(fmt::format("{} >&- 2>/dev/null", cmd).c_str());
  ASSERT_TRUE(WIFEXITED(closed));
  EXPECT_EQ(WEXITSTATUS(closed), kExitWriteFailed);
  if (fs::exists("/dev/full")) {
    int full = std::system(fmt::format("{} >/dev/full 2>/dev/null", cmd).c_str());
    ASSERT_TRUE(WIFEXITED(full));
    EXPECT_EQ(WEXITSTATUS(full), kExitWriteFailed);
  }
}

}  // namespace
}  // namespace tracelint
