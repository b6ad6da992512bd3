#include "cli/capture_process.h"

#if !defined(TRACELINT_STATIC_BINARY)
#include <dlfcn.h>
#endif
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "capture/capture_config.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;

// The child being run; read by the signal handler.
volatile sig_atomic_t g_child_pid = 0;

void ForwardSignal(int signo, siginfo_t* info, void*) {
  // SI_KERNEL: from the terminal, which signalled the child's process group
  // as well. Anything else (kill, a job scheduler) reached tracelint alone.
  if (g_child_pid > 0 && (info == nullptr || info->si_code != SI_KERNEL)) {
    ::kill(g_child_pid, signo);
  }
}

#if !defined(TRACELINT_STATIC_BINARY)
// Runs in the forked checker: one line on `fd`, exit 0 when usable.
[[noreturn]] void CheckDriverInChild(int fd) {
  auto say = [fd](const std::string& line, int code) {
    (void)!::write(fd, line.data(), line.size());
    ::_exit(code);
  };
  const char* name = std::getenv("TRACELINT_CAPTURE_CUDA_DRIVER");
  if (name == nullptr || *name == '\0') name = "libcuda.so.1";
  void* lib = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = ::dlerror();
    say(fmt::format("no CUDA driver on this machine ({} could not be loaded: {})", name,
                    why ? why : "not found"),
        1);
  }
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int*);
  auto init = reinterpret_cast<InitFn>(::dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<CountFn>(::dlsym(lib, "cuDeviceGetCount"));
  if (init == nullptr || count == nullptr) say(fmt::format("{} is not a CUDA driver", name), 1);
  int rc = init(0);
  constexpr int kNoDevice = 100;  // CUDA_ERROR_NO_DEVICE
  if (rc == kNoDevice) say("no CUDA device (the driver is installed but sees no GPU)", 1);
  if (rc != 0) say(fmt::format("the CUDA driver failed to start (cuInit error {})", rc), 1);
  int devices = 0;
  if (count(&devices) != 0 || devices <= 0) say("no CUDA device (cuDeviceGetCount is 0)", 1);
  say(fmt::format("{}", devices), 0);
  ::_exit(0);
}
#endif

}  // namespace

std::string FindInjectionLibrary(std::vector<std::string>* looked) {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("TRACELINT_INJECT_LIBRARY"); env && *env) {
    candidates.emplace_back(env);
  }
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    candidates.push_back(exe.parent_path() / "libtracelint_inject.so");
    std::string_view installed = TRACELINT_CAPTURE_INSTALLED_LIBRARY;
    if (!installed.empty()) candidates.push_back(exe.parent_path() / ".." / installed);
  }
  std::string_view built = TRACELINT_CAPTURE_BUILD_LIBRARY;
  if (!built.empty()) candidates.emplace_back(built);
  for (const fs::path& c : candidates) {
    if (looked) looked->push_back(c.lexically_normal().string());
    if (fs::is_regular_file(c, ec)) return fs::absolute(c, ec).lexically_normal().string();
  }
  return "";
}

CudaCheck CheckCudaDriverFiles(const std::string& root) {
  CudaCheck out;
  std::error_code ec;
  fs::path base = root.empty() ? fs::path("/") : fs::path(root);
  fs::path version = base / "proc/driver/nvidia/version";
  fs::path control = base / "dev/nvidiactl";
  bool has_version = fs::exists(version, ec);
  bool has_control = fs::exists(control, ec);
  if (!has_version && !has_control) {
    out.message = "no CUDA driver on this machine (no /proc/driver/nvidia/version, no "
                  "/dev/nvidiactl)";
    return out;
  }
  if (!has_control) {
    out.message = "the NVIDIA driver is loaded but /dev/nvidiactl is missing (in a container, "
                  "run it with the GPU devices: --gpus all)";
    return out;
  }
  for (const auto& entry : fs::directory_iterator(base / "dev", ec)) {
    std::string name = entry.path().filename().string();
    if (name.size() > 6 && name.rfind("nvidia", 0) == 0 &&
        name.find_first_not_of("0123456789", 6) == std::string::npos) {
      ++out.devices;
    }
  }
  if (out.devices == 0) {
    out.message = "no CUDA device (/dev/nvidiactl is there but no /dev/nvidia<N>)";
    return out;
  }
  out.ok = true;
  return out;
}

CudaCheck CheckCudaDevice(std::chrono::milliseconds timeout) {
#if defined(TRACELINT_STATIC_BINARY)
  (void)timeout;
  const char* root = std::getenv("TRACELINT_CAPTURE_DRIVER_ROOT");
  return CheckCudaDriverFiles(root != nullptr ? root : "");
#else
  CudaCheck out;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    out.message = fmt::format("cannot check for a CUDA device: {}", std::strerror(errno));
    return out;
  }
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    CheckDriverInChild(fds[1]);
  }
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    out.message = fmt::format("cannot check for a CUDA device: {}", std::strerror(errno));
    return out;
  }
  std::string line;
  bool answered = false;  // the checker closed its end: it is exiting
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fds[0], POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    char buf[512];
    ssize_t got = ::read(fds[0], buf, sizeof(buf));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      answered = got == 0;
      break;
    }
    line.append(buf, static_cast<size_t>(got));
  }
  ::close(fds[0]);
  int status = 0;
  if (!answered) {  // still in the driver: give up on it
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    out.message = fmt::format("the CUDA driver did not answer within {} s (cuInit hung)",
                              std::max<int64_t>(1, timeout.count() / 1000));
    return out;
  }
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    out.ok = true;
    out.devices = std::atoi(line.c_str());
    return out;
  }
  out.message = !line.empty() ? line
                : WIFSIGNALED(status)
                    ? fmt::format("the CUDA driver crashed (signal {})", WTERMSIG(status))
                    : std::string("the CUDA driver could not be checked");
  return out;
#endif
}

std::string ChildResult::Describe() const {
  if (!started) return fmt::format("could not start ({})", start_error);
  if (exited) return fmt::format("exited with code {}", exit_code);
  const char* name = ::sigabbrev_np(signal);
  return name ? fmt::format("was killed by SIG{}", name)
              : fmt::format("was killed by signal {}", signal);
}

ChildResult RunChild(const std::vector<std::string>& command,
                     const std::vector<std::pair<std::string, std::string>>& env) {
  ChildResult out;
  // exec's errno comes back on this pipe; it closes unread when exec works.
  int fds[2];
  if (command.empty() || ::pipe2(fds, O_CLOEXEC) != 0) {
    out.start_error = command.empty() ? "no command" : std::strerror(errno);
    return out;
  }
  std::vector<char*> argv;
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // The environment is built before fork: the child only execs.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    bool replaced = false;
    for (const auto& [key, value] : env) {
      replaced = replaced ||
                 (entry.starts_with(key) && entry.size() > key.size() && entry[key.size()] == '=');
    }
    if (!replaced) env_strings.emplace_back(entry);
  }
  for (const auto& [key, value] : env) env_strings.push_back(key + "=" + value);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  struct sigaction forward {
  }, old_int{}, old_term{};
  forward.sa_sigaction = ForwardSignal;
  forward.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&forward.sa_mask);
  ::sigaction(SIGINT, &forward, &old_int);
  ::sigaction(SIGTERM, &forward, &old_term);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGTERM, &old_term, nullptr);
    // tracelint ignores SIGPIPE (main.cc); an ignored signal stays ignored
    // across exec, and the program must run as it would without us.
    ::signal(SIGPIPE, SIG_DFL);
    ::execvpe(argv[0], argv.data(), envp.data());
    int e = errno;
    (void)!::write(fds[1], &e, sizeof(e));
    ::_exit(127);
  }
  ::close(fds[1]);
  if (pid < 0) {
    out.start_error = std::strerror(errno);
    ::close(fds[0]);
  } else {
    g_child_pid = pid;
    int exec_errno = 0;
    ssize_t n;
    do {
      n = ::read(fds[0], &exec_errno, sizeof(exec_errno));
    } while (n < 0 && errno == EINTR);
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    g_child_pid = 0;
    if (n == static_cast<ssize_t>(sizeof(exec_errno))) {
      out.start_error = fmt::format("{}: {}", command[0], std::strerror(exec_errno));
    } else {
      out.started = true;
      out.exited = WIFEXITED(status);
      out.exit_code = out.exited ? WEXITSTATUS(status) : 0;
      out.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    }
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  return out;
}

}  // namespace tracelint
