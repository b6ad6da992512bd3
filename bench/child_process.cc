#include "bench/child_process.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "fmt/format.h"

namespace tracelint::bench {
namespace {

absl::Status Errno(std::string_view what) {
  return absl::InternalError(fmt::format("{}: {}", what, std::strerror(errno)));
}

void WriteAll(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// Reaps `pid`, draining `result_fd` (or -1) first so a chatty child cannot
// block on a full pipe.
absl::StatusOr<ChildRun> Reap(pid_t pid, int result_fd,
                              std::chrono::steady_clock::time_point start) {
  ChildRun run;
  if (result_fd >= 0) {
    char buf[4096];
    ssize_t n;
    while ((n = ::read(result_fd, buf, sizeof(buf))) != 0) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      run.payload.append(buf, static_cast<size_t>(n));
    }
    ::close(result_fd);
  }
  int status = 0;
  struct rusage usage;
  pid_t got;
  do {
    got = ::wait4(pid, &status, 0, &usage);
  } while (got < 0 && errno == EINTR);
  if (got < 0) return Errno("wait4");
  run.wall_s = std::chrono::duration<double>(
                   std::chrono::steady_clock::now() - start)
                   .count();
  run.max_rss_bytes = int64_t{usage.ru_maxrss} * 1024;  // Linux: KiB
  run.cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
              static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
  return run;
}

}  // namespace

absl::StatusOr<ChildRun> RunInChild(const std::function<std::string()>& fn) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Errno("pipe");
  std::fflush(nullptr);
  auto start = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid < 0) return Errno("fork");
  if (pid == 0) {
    ::close(fds[0]);
    std::string result = fn();
    WriteAll(fds[1], result);
    ::close(fds[1]);
    ::_exit(result.rfind("error:", 0) == 0 ? 1 : 0);
  }
  ::close(fds[1]);
  return Reap(pid, fds[0], start);
}

absl::StatusOr<ChildRun> RunCommand(const std::vector<std::string>& argv,
                                    const std::string& stderr_path) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(nullptr);
  auto start = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid < 0) return Errno("fork");
  if (pid == 0) {
    int null_fd = ::open("/dev/null", O_WRONLY);
    int err_fd = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (null_fd >= 0) ::dup2(null_fd, STDOUT_FILENO);
    if (err_fd >= 0) ::dup2(err_fd, STDERR_FILENO);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return Reap(pid, -1, start);
}

int64_t CurrentRssBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      return std::strtoll(line.c_str() + 6, nullptr, 10) * 1024;
    }
  }
  return 0;
}

}  // namespace tracelint::bench
