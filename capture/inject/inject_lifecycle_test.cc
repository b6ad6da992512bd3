// libtracelint_inject.so's life cycle without a GPU: each case loads the
// library in a child process, calls InitializeInjection as the CUDA driver
// would, and ends the way a program ends (exit, SIGTERM, the --duration
// window, a forked child). CUPTI records nothing without a device, but the
// dump must still be finished (its end record says how), and nothing may
// hang.
#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "capture/convert/raw_format.h"
#include "capture/convert/raw_reader.h"
#include "gtest/gtest.h"
#include "tests/support/test_files.h"

namespace tracelint::capture {
namespace {

namespace fs = std::filesystem;
using ::tracelint::testing::TempDir;

enum class Ending { kExit, kSigterm, kDuration, kForkedChildExits };

// Runs one program in a child; returns its wait status (or -1 on timeout).
int RunInjected(const std::string& raw_dir, Ending ending) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("TRACELINT_CAPTURE_DIR", raw_dir.c_str(), 1);
    if (ending == Ending::kDuration) ::setenv("TRACELINT_CAPTURE_DURATION_NS", "200000000", 1);
    ::alarm(60);  // a hang ends as SIGALRM, which fails the test
    void* lib = ::dlopen(TRACELINT_INJECT_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) ::_exit(90);
    auto init = reinterpret_cast<int (*)()>(::dlsym(lib, "InitializeInjection"));
    if (init == nullptr || init() != 1) ::_exit(91);
    switch (ending) {
      case Ending::kExit:
        std::exit(0);
      case Ending::kSigterm:
        ::kill(::getpid(), SIGTERM);
        ::sleep(30);
        ::_exit(92);  // the signal should have ended it
      case Ending::kDuration:
        std::this_thread::sleep_for(std::chrono::milliseconds(800));
        ::_exit(0);  // no atexit: only the window's end can have finished the dump
      case Ending::kForkedChildExits: {
        pid_t child = ::fork();
        if (child == 0) {
          ::alarm(30);   // alarms are not inherited across fork
          std::exit(0);  // runs atexit in the child: must do nothing
        }
        int status = 0;
        ::waitpid(child, &status, 0);
        std::exit(WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 93);
      }
    }
    ::_exit(94);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

std::vector<CaptureRecords> Dumps(const std::string& raw_dir) {
  std::vector<CaptureRecords> out;
  for (const fs::directory_entry& e : fs::directory_iterator(raw_dir)) {
    absl::StatusOr<CaptureRecords> r = ReadRawCaptureFile(e.path().string());
    EXPECT_TRUE(r.ok()) << r.status();
    if (r.ok()) out.push_back(std::move(*r));
  }
  return out;
}

TEST(InjectLifecycle, ExitFinishesTheDump) {
  TempDir dir;
  int status = RunInjected(dir.path().string(), Ending::kExit);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::vector<CaptureRecords> dumps = Dumps(dir.path().string());
  ASSERT_EQ(dumps.size(), 1u);
  EXPECT_GT(dumps[0].process.pid, 0u);
  EXPECT_FALSE(dumps[0].process.host.empty());
  EXPECT_TRUE(dumps[0].has_end);
  EXPECT_EQ(dumps[0].end.reason, kEndAtExit);
}

TEST(InjectLifecycle, SigtermFinishesTheDumpThenEndsTheProgram) {
  TempDir dir;
  int status = RunInjected(dir.path().string(), Ending::kSigterm);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  std::vector<CaptureRecords> dumps = Dumps(dir.path().string());
  ASSERT_EQ(dumps.size(), 1u);
  EXPECT_TRUE(dumps[0].has_end);
  EXPECT_EQ(dumps[0].end.reason, kEndSignal);
}

TEST(InjectLifecycle, TheDurationWindowFinishesTheDumpAndTheProgramRunsOn) {
  TempDir dir;
  int status = RunInjected(dir.path().string(), Ending::kDuration);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::vector<CaptureRecords> dumps = Dumps(dir.path().string());
  ASSERT_EQ(dumps.size(), 1u);
  EXPECT_TRUE(dumps[0].has_end);
  EXPECT_EQ(dumps[0].end.reason, kEndDuration);
}

TEST(InjectLifecycle, AForkedChildLeavesTheParentsDumpAlone) {
  TempDir dir;
  int status = RunInjected(dir.path().string(), Ending::kForkedChildExits);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::vector<CaptureRecords> dumps = Dumps(dir.path().string());
  ASSERT_EQ(dumps.size(), 1u);
  EXPECT_TRUE(dumps[0].has_end);
  EXPECT_EQ(dumps[0].end.reason, kEndAtExit);
}

}  // namespace
}  // namespace tracelint::capture
