// `tracelint capture` without a GPU. The driver check, the child process,
// signals and exit codes run for real; a fake libcuda (capture/testing/)
// stands in for the driver, and a shell "program" drops a prepared raw dump
// where the injected library would have written it.
#include "cli/capture_command.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "cli/capture_process.h"
#include "cli/exit_codes.h"
#include "tests/support/test_files.h"
#include "capture/capture_config.h"
#include "capture/convert/raw_format.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/test_files.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::tracelint::testing::TempDir;

// Sets an environment variable for one test (the child inherits it).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// What the injected library would record from a loop of 8 NVTX "step"
// ranges, each: a kernel launch, a pageable host-to-device copy and a
// stream sync that waits for both.
std::string LoopDump(bool finished = true) {
  capture::CaptureRecords r;
  r.process.pid = 4321;
  r.process.host = "gpunode";
  r.process.clock_offset_ns = 1'767'000'000'000'000'000;
  r.process.command = "./loop";
  r.strings = {"",
               "NVIDIA H100",
               "step",
               "_Z5trainPf",
               "cudaLaunchKernel_v7000",
               "cudaMemcpyAsync_v3020",
               "cudaStreamSynchronize_v3020"};
  capture::DeviceRecord d;
  d.name = 1;
  d.sm_count = 132;
  d.compute_major = 9;
  d.global_memory_bytes = 80ull << 30;
  r.devices.push_back(d);
  uint32_t corr = 1, marker = 1;
  auto api = [&](capture::StrId name, uint64_t start, uint64_t dur) {
    capture::ApiRecord a;
    a.start_ns = start;
    a.end_ns = start + dur;
    a.pid = 4321;
    a.tid = 4321;
    a.correlation_id = corr++;
    a.name = name;
    r.apis.push_back(a);
    return a.correlation_id;
  };
  for (int s = 0; s < 8; ++s) {
    uint64_t t = 1'000'000 + s * 10'000'000ull;
    capture::MarkerRecord b;
    b.ts_ns = t;
    b.id = marker++;
    b.flags = capture::kMarkerStart;
    b.pid = b.tid = 4321;
    b.name = 2;
    capture::MarkerRecord e = b;
    e.ts_ns = t + 9'900'000;
    e.flags = capture::kMarkerEnd;
    r.markers.push_back(b);
    r.markers.push_back(e);
    for (int k = 0; k < 6; ++k) {
      uint32_t c = api(4, t + 10'000 + k * 20'000, 5'000);
      capture::KernelRecord kr;
      kr.start_ns = t + 100'000 + k * 600'000;
      kr.end_ns = kr.start_ns + 500'000;
      kr.stream_id = 7;
      kr.correlation_id = c;
      kr.grid[0] = kr.block[0] = 128;
      kr.name = 3;
      r.kernels.push_back(kr);
    }
    uint32_t c = api(5, t + 200'000, 3'000'000);
    capture::MemcpyRecord m;
    m.start_ns = t + 3'800'000;
    m.end_ns = t + 6'800'000;
    m.bytes = 64 << 20;
    m.stream_id = 7;
    m.correlation_id = c;
    m.copy_kind = capture::CopyKind::kHtoD;
    m.src_kind = capture::MemoryKind::kPageable;
    m.dst_kind = capture::MemoryKind::kDevice;
    r.memcpys.push_back(m);
    api(6, t + 3'300'000, 3'550'000);
  }
  r.has_end = finished;
  return capture::EncodeRawCapture(r);
}

bool HaveCapture() { return TRACELINT_HAVE_CAPTURE != 0; }

// A "program" that records like an injected one: copies `dump` into the
// capture directory, checks that the injection variables are set, exits
// with `code`.
std::vector<std::string> DroppingProgram(const std::string& dump, int code = 0) {
  return {"/bin/sh", "-c",
          fmt::format("test -n \"$CUDA_INJECTION64_PATH\" && test -n \"$NVTX_INJECTION64_PATH\" "
                      "&& cp '{}' \"$TRACELINT_CAPTURE_DIR/gpunode.4321.tlraw\" && exit {}",
                      dump, code)};
}

struct FakeGpu {
  ScopedEnv driver{"TRACELINT_CAPTURE_CUDA_DRIVER", TRACELINT_FAKE_CUDA_DRIVER};
  // Any existing file will do: the shell programs never load it.
  ScopedEnv library{"TRACELINT_INJECT_LIBRARY", TRACELINT_FAKE_CUDA_DRIVER};
};

TEST(CaptureCommand, UsageErrorsComeFirst) {
  TempDir dir;
  std::ostringstream out, err;
  CaptureArgs args;
  EXPECT_EQ(RunCapture(args, out, err), kExitUsage);
  EXPECT_THAT(err.str(), HasSubstr("-- PROGRAM"));
  args.command = {"/bin/true"};
  args.delay_s = -1;
  EXPECT_EQ(RunCapture(args, out, err), kExitUsage);
  args.delay_s = 0;
  dir.Write("busy/old.pt.trace.json", "{}");
  args.out_dir = (dir.path() / "busy").string();
  err.str("");
  EXPECT_EQ(RunCapture(args, out, err), kExitUsage);
  EXPECT_THAT(err.str(), HasSubstr("not empty"));
  args.out_dir = (dir.path() / "new").string();
  args.analyze.output = (dir.path() / "new" / "report.json").string();
  EXPECT_EQ(RunCapture(args, out, err), kExitUsage);
  args.analyze.output.clear();
  args.duration_s = 1e300;
  EXPECT_EQ(RunCapture(args, out, err), kExitUsage);
}

TEST(CaptureCommand, NoDriverIsAClearErrorAndTheProgramDoesNotRun) {
  TempDir dir;
  ScopedEnv driver("TRACELINT_CAPTURE_CUDA_DRIVER", "libtracelint_no_such_driver.so.1");
  CaptureArgs args;
  args.out_dir = (dir.path() / "capture").string();
  fs::path mark = dir.path() / "ran";
  args.command = {"/bin/sh", "-c", "touch '" + mark.string() + "'"};
  std::ostringstream out, err;
  EXPECT_EQ(RunCapture(args, out, err), kExitUnreadable);
  EXPECT_THAT(err.str(),
              AnyOf(HasSubstr("no CUDA driver on this machine"), HasSubstr("built without CUDA")));
  EXPECT_FALSE(fs::exists(mark));
  EXPECT_FALSE(fs::exists(args.out_dir));
  EXPECT_EQ(out.str(), "");
}

TEST(CaptureCommand, DriverCheckSaysNoDeviceAndNeverHangs) {
  ScopedEnv driver("TRACELINT_CAPTURE_CUDA_DRIVER", TRACELINT_FAKE_CUDA_DRIVER);
  {
    ScopedEnv no_device("FAKE_CUDA_INIT_RESULT", "100");
    CudaCheck c = CheckCudaDevice(std::chrono::seconds(30));
    EXPECT_FALSE(c.ok);
    EXPECT_THAT(c.message, HasSubstr("no CUDA device"));
  }
  {
    ScopedEnv hang("FAKE_CUDA_INIT_SLEEP_S", "60");
    auto start = std::chrono::steady_clock::now();
    CudaCheck c = CheckCudaDevice(std::chrono::milliseconds(500));
    EXPECT_FALSE(c.ok);
    EXPECT_THAT(c.message, HasSubstr("did not answer"));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  }
  CudaCheck ok = CheckCudaDevice(std::chrono::seconds(30));
  EXPECT_TRUE(ok.ok) << ok.message;
  EXPECT_EQ(ok.devices, 1);
  ScopedEnv libc("TRACELINT_CAPTURE_CUDA_DRIVER", "libc.so.6");
  EXPECT_THAT(CheckCudaDevice(std::chrono::seconds(30)).message, HasSubstr("is not a CUDA driver"));
}

// The static binary's check, without loading libcuda: the driver's files.
TEST(CaptureCommand, DriverFilesCheckOfTheStaticBinary) {
  TempDir dir;
  const fs::path& root = dir.path();
  CudaCheck none = CheckCudaDriverFiles(root.string());
  EXPECT_FALSE(none.ok);
  EXPECT_THAT(none.message, HasSubstr("no CUDA driver on this machine"));
  fs::create_directories(root / "proc/driver/nvidia");
  std::ofstream(root / "proc/driver/nvidia/version") << "NVRM version: 580.0\n";
  EXPECT_THAT(CheckCudaDriverFiles(root.string()).message, HasSubstr("/dev/nvidiactl is missing"));
  fs::create_directories(root / "dev");
  std::ofstream(root / "dev/nvidiactl") << "";
  std::ofstream(root / "dev/nvidia-uvm") << "";
  EXPECT_THAT(CheckCudaDriverFiles(root.string()).message, HasSubstr("no CUDA device"));
  std::ofstream(root / "dev/nvidia0") << "";
  std::ofstream(root / "dev/nvidia1") << "";
  CudaCheck two = CheckCudaDriverFiles(root.string());
  EXPECT_TRUE(two.ok) << two.message;
  EXPECT_EQ(two.devices, 2);
}

TEST(CaptureCommand, CapturesConvertsAndAnalyses) {
  if (!HaveCapture()) GTEST_SKIP() << "built without CUPTI: capture says so instead";
  TempDir dir;
  FakeGpu gpu;
  std::string dump = dir.Write("loop.tlraw", LoopDump());
  CaptureArgs args;
  args.out_dir = (dir.path() / "capture").string();
  args.steps = "step";
  args.command = DroppingProgram(dump);
  args.analyze.format = "json";
  args.analyze.output = (dir.path() / "report.json").string();
  std::ostringstream out, err;
  int code = RunCapture(args, out, err);
  EXPECT_THAT(code, AnyOf(kExitOk, kExitFindingsGate)) << err.str();
  EXPECT_THAT(err.str(), HasSubstr("captured 1 process(es)"));
  EXPECT_THAT(err.str(), HasSubstr("48 kernels, 8 copies"));
  EXPECT_THAT(err.str(), HasSubstr("8 steps"));
  EXPECT_TRUE(fs::exists(fs::path(args.out_dir) / "gpunode.4321.pt.trace.json"));
  EXPECT_FALSE(fs::exists(fs::path(args.out_dir) / ".tracelint-raw"));  // removed
  std::string report = ReadFile(args.analyze.output);
  EXPECT_THAT(report, HasSubstr("gpunode.4321.pt.trace.json"));
  // The loop's pageable copy and its sync are what the rules find.
  EXPECT_THAT(report, HasSubstr("h2d-copy-dominance"));
}

TEST(CaptureCommand, AFailingProgramIsExitSevenAndStillAnalysed) {
  if (!HaveCapture()) GTEST_SKIP() << "built without CUPTI: capture says so instead";
  TempDir dir;
  FakeGpu gpu;
  std::string dump = dir.Write("loop.tlraw", LoopDump(/*finished=*/false));
  CaptureArgs args;
  args.out_dir = (dir.path() / "capture").string();
  args.command = DroppingProgram(dump, 3);
  args.keep_raw = true;
  args.analyze.format = "json";
  args.analyze.output = (dir.path() / "report.json").string();
  std::ostringstream out, err;
  EXPECT_EQ(RunCapture(args, out, err), kExitCaptureFailed);
  EXPECT_THAT(err.str(), HasSubstr("the captured program exited with code 3"));
  EXPECT_THAT(err.str(), HasSubstr("ended before its capture was finished"));
  EXPECT_THAT(ReadFile(args.analyze.output), HasSubstr("exited with code 3"));
  EXPECT_TRUE(fs::exists(fs::path(args.out_dir) / ".tracelint-raw" / "gpunode.4321.tlraw"));
}

TEST(CaptureCommand, NothingRecordedOrNotStarted) {
  if (!HaveCapture()) GTEST_SKIP() << "built without CUPTI: capture says so instead";
  TempDir dir;
  FakeGpu gpu;
  CaptureArgs args;
  args.out_dir = (dir.path() / "a").string();
  args.command = {"/bin/true"};
  std::ostringstream out, err;
  EXPECT_EQ(RunCapture(args, out, err), kExitUnreadable);
  EXPECT_THAT(err.str(), HasSubstr("made no CUDA call"));
  args.out_dir = (dir.path() / "b").string();
  args.command = {"/bin/sh", "-c", "exit 9"};
  EXPECT_EQ(RunCapture(args, out, err), kExitCaptureFailed);
  EXPECT_THAT(err.str(), HasSubstr("exited with code 9 and recorded nothing"));
  args.out_dir = (dir.path() / "c").string();
  args.command = {"/no/such/program"};
  err.str("");
  EXPECT_EQ(RunCapture(args, out, err), kExitCaptureFailed);
  EXPECT_THAT(err.str(), HasSubstr("could not start: /no/such/program: No such file"));
}

TEST(RunChild, PassesCodesEnvironmentAndSignals) {
  ChildResult ok = RunChild({"/bin/sh", "-c", "test \"$TL_TEST\" = yes"}, {{"TL_TEST", "yes"}});
  EXPECT_TRUE(ok.started);
  EXPECT_FALSE(ok.failed());
  ChildResult three = RunChild({"/bin/sh", "-c", "exit 3"}, {});
  EXPECT_TRUE(three.failed());
  EXPECT_EQ(three.exit_code, 3);
  EXPECT_EQ(three.Describe(), "exited with code 3");
  ChildResult killed = RunChild({"/bin/sh", "-c", "kill -KILL $$"}, {});
  EXPECT_EQ(killed.signal, SIGKILL);
  EXPECT_EQ(killed.Describe(), "was killed by SIGKILL");
  ChildResult missing = RunChild({"no-such-program-tracelint"}, {});
  EXPECT_FALSE(missing.started);
  EXPECT_THAT(missing.start_error, HasSubstr("No such file"));
}

void IgnoreSignal(int) {}

TEST(RunChild, ForwardsSigtermToTheProgram) {
  // SIGTERM sent to tracelint (not from a terminal) reaches the program,
  // and tracelint itself lives on to report. The signal is sent until the
  // program is gone; a no-op handler catches those that come after.
  struct sigaction noop {}, old {};
  noop.sa_handler = IgnoreSignal;
  sigemptyset(&noop.sa_mask);
  ::sigaction(SIGTERM, &noop, &old);
  std::atomic<bool> done{false};
  std::thread sender([&done] {
    while (!done) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      ::kill(::getpid(), SIGTERM);
    }
  });
  auto start = std::chrono::steady_clock::now();
  ChildResult r = RunChild({"/bin/sleep", "30"}, {});
  done = true;
  sender.join();
  ::sigaction(SIGTERM, &old, nullptr);
  EXPECT_EQ(r.signal, SIGTERM) << r.Describe();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST(CaptureBinary, WithoutAGpuSaysSoWithExitThree) {
  const char* bin_dir = std::getenv("TRACELINT_BINARY_DIR");
  if (!bin_dir) GTEST_SKIP() << "TRACELINT_BINARY_DIR not set (run through ctest)";
  TempDir dir;
  std::string err_file = (dir.path() / "err.txt").string();
  // `timeout` turns a hang into exit 124, which fails the test.
  std::string cmd = fmt::format("timeout 120 '{}/tracelint' capture --out '{}' -- /bin/true 2>'{}'",
                                bin_dir, (dir.path() / "out").string(), err_file);
  int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), kExitUnreadable);
  // This machine may have no driver, a driver but no GPU, or a GPU (then
  // /bin/true makes no CUDA call); each is said in one line.
  EXPECT_THAT(ReadFile(err_file),
              AnyOf(HasSubstr("no CUDA driver on this machine"), HasSubstr("no CUDA device"),
                    HasSubstr("built without CUDA"), HasSubstr("made no CUDA call")));
}

TEST(FindInjectionLibrary, PrefersTheEnvironmentThenTheBuild) {
  TempDir dir;
  std::string lib = dir.Write("libtracelint_inject.so", "x");
  {
    ScopedEnv env("TRACELINT_INJECT_LIBRARY", lib);
    EXPECT_EQ(FindInjectionLibrary(nullptr), fs::path(lib).lexically_normal().string());
  }
  std::vector<std::string> looked;
  std::string found = FindInjectionLibrary(&looked);
  EXPECT_FALSE(looked.empty());
  if (HaveCapture()) {
    EXPECT_THAT(found, HasSubstr("libtracelint_inject.so"));
  }
}

}  // namespace
}  // namespace tracelint
