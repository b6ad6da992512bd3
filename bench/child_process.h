#ifndef TRACELINT_BENCH_CHILD_PROCESS_H_
#define TRACELINT_BENCH_CHILD_PROCESS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tracelint::bench {

// One measured child process. Peak RSS comes from wait4's ru_maxrss (the
// kernel's high-water mark of resident pages, file-backed pages included),
// so each measurement is isolated from the driver and from the others. A
// forked child starts with the driver's resident pages, so keep the driver
// small (it is: a few MB, printed as the floor).
struct ChildRun {
  double wall_s = 0;          // fork to reap, measured by the parent
  int64_t max_rss_bytes = 0;
  double cpu_s = 0;           // user + system time of the child (wait4)
  int exit_code = -1;         // -1 when killed by a signal
  int signal = 0;
  std::string payload;        // what the child wrote to its result pipe
};

// Forks; the child runs `fn`, writes its return value to the result pipe and
// exits with 0 (or 1 when `fn` reports failure by returning a string that
// starts with "error:").
absl::StatusOr<ChildRun> RunInChild(const std::function<std::string()>& fn);

// Forks and execs `argv` with stdout discarded and stderr captured into
// `stderr_path`.
absl::StatusOr<ChildRun> RunCommand(const std::vector<std::string>& argv,
                                    const std::string& stderr_path);

// VmRSS of this process in bytes (0 when unknown).
int64_t CurrentRssBytes();

}  // namespace tracelint::bench

#endif  // TRACELINT_BENCH_CHILD_PROCESS_H_
