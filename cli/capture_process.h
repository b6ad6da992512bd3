#ifndef TRACELINT_CLI_CAPTURE_PROCESS_H_
#define TRACELINT_CLI_CAPTURE_PROCESS_H_

// The process side of `tracelint capture`: finding the injection library,
// asking the CUDA driver for a device (without linking CUDA), and running
// the program with the library injected.

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tracelint {

// libtracelint_inject.so: $TRACELINT_INJECT_LIBRARY, next to the running
// binary (the build tree), the install location relative to it
// (<prefix>/bin/../lib/tracelint/), then where this build put it. Empty when
// none exists; `looked` lists the paths tried.
std::string FindInjectionLibrary(std::vector<std::string>* looked);

// Whether a CUDA driver and at least one device are there: the driver
// library (default libcuda.so.1, or $TRACELINT_CAPTURE_CUDA_DRIVER) is
// loaded with dlopen in a child process, which calls cuInit and
// cuDeviceGetCount, so a broken driver can neither crash nor hang
// tracelint: after `timeout` the answer is "no".
struct CudaCheck {
  bool ok = false;
  int devices = 0;
  std::string message;  // why not, in one line
};
CudaCheck CheckCudaDevice(std::chrono::milliseconds timeout);

// The static binary's check (docs/capture.md, "The static binary"): a
// statically linked program cannot dlopen libcuda safely, so it looks for
// the driver's files instead of loading it: /proc/driver/nvidia/version
// (the kernel module is loaded) and /dev/nvidiactl, with one device per
// /dev/nvidia<N>. `root` stands in for "/" ($TRACELINT_CAPTURE_DRIVER_ROOT
// in tests). Whether the driver works is then found out by the program.
CudaCheck CheckCudaDriverFiles(const std::string& root);

struct ChildResult {
  bool started = false;
  std::string start_error;  // why exec failed ("No such file or directory")
  bool exited = false;      // exited normally with exit_code
  int exit_code = 0;
  int signal = 0;  // killed by this signal
  bool failed() const { return !started || !exited || exit_code != 0; }
  std::string Describe() const;  // "exited with code 3", "was killed by SIGKILL"
};

// Runs `command` (argv[0] looked up in PATH) with `env` added to the
// environment, forwarding SIGINT and SIGTERM sent to tracelint (a
// terminal's Ctrl-C already reaches the whole process group, so it is not
// sent twice), and waits for it.
ChildResult RunChild(const std::vector<std::string>& command,
                     const std::vector<std::pair<std::string, std::string>>& env);

}  // namespace tracelint

#endif  // TRACELINT_CLI_CAPTURE_PROCESS_H_
