// Unreadable traces and folders are reported as such, not as "no trace
// files found". Root reads everything, so as root the scans run in a child
// process that has dropped to user "nobody".
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <string>

#include "gtest/gtest.h"
#include "tests/support/test_files.h"
#include "parsers/tensorboard/discovery.h"

namespace tracelint {
namespace {

using ::tracelint::testing::TempDir;

constexpr char kTrace[] =
    R"({"schemaVersion": 1, "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a",)"
    R"( "pid": 1, "tid": 1, "ts": 1, "dur": 1}]})";

// Runs `scan` as an unprivileged user; returns its message, or why not.
std::string AsUnprivileged(const std::function<absl::Status()>& scan) {
  if (geteuid() != 0) return std::string(scan().ToString());
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string out = "setuid failed";
    if (setgid(65534) == 0 && setuid(65534) == 0) out = scan().ToString();
    (void)!write(fds[1], out.data(), out.size());
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) > 0;) out.append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return out;
}

TEST(DiscoveryPermissions, UnreadableFilesAndFoldersAreNamed) {
  TempDir dir;
  chmod(dir.path().c_str(), 0755);  // the scans may enter it, not read below
  std::string file = dir.Write("run/trace.json", kTrace);
  chmod((dir.path() / "run").c_str(), 0755);
  chmod(file.c_str(), 0600);
  std::string run = (dir.path() / "run").string();
  std::string message = AsUnprivileged([&] { return DiscoverTraces(run, {}).status(); });
  EXPECT_NE(message.find("PERMISSION_DENIED"), std::string::npos) << message;
  EXPECT_NE(message.find("trace.json"), std::string::npos) << message;

  std::filesystem::create_directories(dir.path() / "closed" / "inner");
  dir.Write("closed/inner/w.pt.trace.json", kTrace);
  chmod((dir.path() / "closed").c_str(), 0700);
  std::string root = dir.path().string();
  message = AsUnprivileged([&] { return FindRunPaths(root + "/closed", 4).status(); });
  EXPECT_NE(message.find("PERMISSION_DENIED"), std::string::npos) << message;
}

}  // namespace
}  // namespace tracelint
