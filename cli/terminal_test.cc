// Where the report goes decides its layout: terminal width and colour only on
// a terminal; a pipe gets full-width lines and never an escape code. The
// last tests run the built binary with its stdout on a pipe and on a
// pseudo-terminal, as a user's shell would.

#include "cli/terminal.h"

#include <fcntl.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/report/text_layout.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;

TEST(Terminal, WidthOnlyOnATerminalColumnsFirst) {
  EXPECT_EQ(ReportWidth(false, 120, "100"), 0);  // piped: full width
  EXPECT_EQ(ReportWidth(true, 120, nullptr), 120);
  EXPECT_EQ(ReportWidth(true, 120, "100"), 100);
  EXPECT_EQ(ReportWidth(true, 120, "abc"), 120);
  EXPECT_EQ(ReportWidth(true, 0, nullptr), 80);
  EXPECT_EQ(ReportWidth(true, 5, nullptr), 20);  // never too narrow for a line
}

TEST(Terminal, ColourAutoHonoursNoColor) {
  EXPECT_TRUE(UseColor("auto", true, nullptr));
  EXPECT_TRUE(UseColor("auto", true, ""));  // NO_COLOR set but empty: ignored
  EXPECT_FALSE(UseColor("auto", true, "1"));
  EXPECT_FALSE(UseColor("auto", false, nullptr));
  EXPECT_TRUE(UseColor("always", false, "1"));
  EXPECT_FALSE(UseColor("never", true, nullptr));
}

TEST(Terminal, ColumnsComeFromTheTerminalsWindowSize) {
  int master = -1, slave = -1;
  struct winsize ws {};
  ws.ws_col = 123;
  ws.ws_row = 40;
  ASSERT_EQ(::openpty(&master, &slave, nullptr, nullptr, &ws), 0);
  EXPECT_EQ(TerminalColumns(slave), 123);
  ::close(master);
  ::close(slave);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  EXPECT_EQ(TerminalColumns(pipe_fds[1]), 0);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
}

std::string Binary() {
  const char* dir = std::getenv("TRACELINT_BINARY_DIR");
  return (fs::path(dir ? dir : "build") / "tracelint").string();
}

std::string Example() {
  const char* dir = std::getenv("TRACELINT_SOURCE_DIR");
  return (fs::path(dir ? dir : ".") / "testdata" / "example").string();
}

std::string ReadAll(int fd) {
  std::string out;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // a pty's master reads EIO once the child is gone
    out.append(buffer, static_cast<size_t>(n));
  }
  return out;
}

// Runs the binary with `args` and `env` added, stdout on a pipe or on a
// pseudo-terminal `columns` wide; returns what it wrote.
std::string RunBinary(const std::vector<std::string>& args, const std::vector<std::string>& env,
                bool terminal, int columns = 80) {
  std::vector<std::string> argv_text = {Binary()};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  int read_fd = -1;
  pid_t pid = -1;
  if (terminal) {
    struct winsize ws {};
    ws.ws_col = static_cast<unsigned short>(columns);
    ws.ws_row = 50;
    pid = ::forkpty(&read_fd, nullptr, nullptr, &ws);
  } else {
    int fds[2];
    if (::pipe(fds) != 0) return "";
    pid = ::fork();
    if (pid == 0) {
      ::dup2(fds[1], STDOUT_FILENO);
      ::close(fds[0]);
      ::close(fds[1]);
    } else {
      ::close(fds[1]);
      read_fd = fds[0];
    }
  }
  if (pid == 0) {
    ::unsetenv("NO_COLOR");
    ::unsetenv("COLUMNS");
    for (const std::string& e : env) ::putenv(const_cast<char*>(e.c_str()));
    int null_fd = ::open("/dev/null", O_WRONLY);
    ::dup2(null_fd, STDERR_FILENO);
    std::vector<char*> argv;
    for (std::string& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  std::string out = ReadAll(read_fd);
  ::close(read_fd);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return out;
}

size_t LongestLine(const std::string& text) {
  size_t longest = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // the pty's newline
    longest = std::max(longest, text::Width(line));
  }
  return longest;
}

class BinaryOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(Binary())) {
      // ctest builds everything first; a missing binary is a broken build.
      FAIL() << Binary() << " not built";
    }
  }
};

TEST_F(BinaryOutput, PipedHasNoEscapeCodesAndFullWidth) {
  std::string out = RunBinary({"analyze", Example()}, {}, /*terminal=*/false);
  ASSERT_NE(out.find("Verdict: input"), std::string::npos) << out;
  EXPECT_EQ(out.find('\033'), std::string::npos);
  EXPECT_GT(LongestLine(out), 100u);  // nothing cut to a terminal's width
  // COLUMNS describes a terminal; a pipe is not one.
  std::string with_columns = RunBinary({"analyze", Example()}, {"COLUMNS=60"}, false);
  EXPECT_EQ(with_columns, out);
  EXPECT_NE(RunBinary({"analyze", Example(), "--color", "always"}, {}, false).find("\033["),
            std::string::npos);
}

TEST_F(BinaryOutput, TerminalGetsItsWidthAndColour) {
  std::string out = RunBinary({"analyze", Example()}, {}, /*terminal=*/true, 80);
  ASSERT_NE(out.find("Verdict: input"), std::string::npos) << out;
  EXPECT_NE(out.find("\033["), std::string::npos);
  std::string plain = RunBinary({"analyze", Example()}, {"NO_COLOR=1"}, true, 80);
  EXPECT_EQ(plain.find('\033'), std::string::npos);
  EXPECT_LE(LongestLine(plain), 80u);
  std::string wide = RunBinary({"analyze", Example(), "--color", "never"}, {}, true, 200);
  EXPECT_LE(LongestLine(wide), 200u);
  EXPECT_GT(LongestLine(wide), 80u);
  std::string columns = RunBinary({"analyze", Example(), "--color", "never"}, {"COLUMNS=60"}, true, 200);
  EXPECT_LE(LongestLine(columns), 60u);
}

TEST_F(BinaryOutput, QuietIsTheFindingsOnly) {
  std::string out = RunBinary({"analyze", Example(), "-q"}, {}, false);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 2) << out;
  EXPECT_NE(out.find("gpu-idle-gaps"), std::string::npos) << out;
}

}  // namespace
}  // namespace tracelint
