// libtracelint_inject.so: the CUPTI injection library of `tracelint capture`.
//
// The CUDA driver loads it into any process through CUDA_INJECTION64_PATH
// and calls InitializeInjection() from cuInit; NVTX loads it through
// NVTX_INJECTION64_PATH and calls InitializeInjectionNvtx2(), which is
// handed on to CUPTI's own so that NVTX ranges arrive as marker records.
//
// On the program's threads it does as little as CUPTI needs: hand out a
// large buffer, queue a full one. A writer thread turns full buffers into
// raw records (capture/convert/raw_format.h) and appends them to
// <TRACELINT_CAPTURE_DIR>/<host>.<pid>.tlraw; `tracelint` converts the dump
// to Kineto JSON after the program ends (docs/design/contract.md, "Capture files").
// The dump is finished (flushed, with its end record) at exit, on
// SIGTERM/SIGINT where the program left them at their default, or when the
// --duration window closes.
//
// Environment (set by `tracelint capture`):
//   TRACELINT_CAPTURE_DIR          where the dump goes (default: .)
//   TRACELINT_CAPTURE_START_NS     epoch ns the capture started (tracelint's clock)
//   TRACELINT_CAPTURE_DELAY_NS     record from START + DELAY ...
//   TRACELINT_CAPTURE_DURATION_NS  ... for this long (0: until exit)
//   TRACELINT_CAPTURE_GRAPH_TRACE  1: one record per CUDA graph launch, not per node
//   TRACELINT_CAPTURE_ALL_DRIVER_API  1: every driver API call, not only launches,
//                                  copies, memsets and waits
#include <cupti.h>
#include <cupti_driver_cbid.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "capture/convert/raw_format.h"
#include "capture/inject/cupti_api.h"
#include "capture/inject/cupti_records.h"

namespace tracelint::capture::inject {
namespace {

constexpr size_t kBufferBytes = 8u << 20;  // per CUPTI buffer
constexpr uint32_t kFlushPeriodMs = 1000;  // CUPTI hands over buffers at least this often

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::strtoll(v, nullptr, 10);
}

int64_t EpochNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

void Warn(const char* what, CUptiResult r) {
  const char* text = nullptr;
  Cupti().GetResultString(r, &text);
  std::fprintf(stderr, "tracelint capture: %s: %s\n", what, text ? text : "error");
}

struct FullBuffer {
  uint8_t* data;
  size_t valid;
  uint32_t context_id;
  uint32_t stream_id;
  size_t dropped;
};

// One per process; leaked on purpose, so that nothing is destroyed before
// a late atexit handler or CUPTI callback uses it.
struct State {
  pid_t owner = 0;  // a forked child (no CUDA there) must not finish our dump
  std::mutex mu;
  std::condition_variable cv;
  std::deque<FullBuffer> full;
  bool stop_writer = false;
  std::thread writer_thread;
  std::thread control_thread;
  RawWriter writer;  // used by the writer thread, and by Finish after it stopped
  int fd = -1;
  uint64_t dropped_total = 0;
  std::atomic<bool> recording{false};
  std::atomic<bool> finished{false};
  int wake[2] = {-1, -1};  // signal handler -> control thread
  int64_t start_ns = 0;    // the recording window, epoch ns
  int64_t stop_ns = 0;     // 0: until exit
  bool graph_trace = false;
  bool all_driver_api = false;
};
State* g = nullptr;

void WriteAll(const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size() && g->fd >= 0) {
    ssize_t n = ::write(g->fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::fprintf(stderr, "tracelint capture: cannot write the dump: %s\n", std::strerror(errno));
      ::close(g->fd);
      g->fd = -1;
      return;
    }
    done += static_cast<size_t>(n);
  }
}

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI BufferCompleted(CUcontext context, uint32_t stream_id, uint8_t* buffer,
                              size_t /*size*/, size_t valid) {
  FullBuffer b{buffer, valid, 0, stream_id, 0};
  if (context != nullptr) Cupti().GetContextId(context, &b.context_id);
  Cupti().ActivityGetNumDroppedRecords(context, stream_id, &b.dropped);
  {
    std::lock_guard<std::mutex> lock(g->mu);
    g->full.push_back(b);
  }
  g->cv.notify_one();
}

// The writer thread: full buffers -> records -> the dump file.
void WriterLoop() {
  RecordTranslator translate(g->writer);
  for (;;) {
    FullBuffer b;
    {
      std::unique_lock<std::mutex> lock(g->mu);
      g->cv.wait(lock, [] { return !g->full.empty() || g->stop_writer; });
      if (g->full.empty()) return;
      b = g->full.front();
      g->full.pop_front();
    }
    if (b.data != nullptr) {
      translate.Translate(b.data, b.valid);
      std::free(b.data);
    }
    if (b.dropped > 0) {
      g->dropped_total += b.dropped;
      uint64_t now = 0;
      Cupti().GetTimestamp(&now);
      g->writer.Add(DroppedRecord{now, b.context_id, b.stream_id, b.dropped});
    }
    WriteAll(g->writer.Take());
  }
}

const CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_DEVICE,         CUPTI_ACTIVITY_KIND_CONTEXT,
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMCPY2,        CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_RUNTIME,        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
    CUPTI_ACTIVITY_KIND_MARKER,         CUPTI_ACTIVITY_KIND_OVERHEAD,
};

// Driver API calls that launch, copy, set or wait (what the analysis reads;
// Triton and other JIT launchers call cuLaunchKernel directly). All driver
// calls (TRACELINT_CAPTURE_ALL_DRIVER_API=1) cost more and add little.
bool WantedDriverCall(const char* name) {
  std::string_view n(name);
  for (std::string_view prefix : {"cuLaunch", "cuGraphLaunch", "cuMemcpy", "cuMemset",
                                  "cuStreamSynchronize", "cuCtxSynchronize",
                                  "cuEventSynchronize", "cuStreamWaitEvent"}) {
    if (n.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

void EnableDriverApi(bool enable) {
  if (g->all_driver_api) {
    if (enable) {
      if (CUptiResult r = Cupti().ActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER); r != CUPTI_SUCCESS) {
        Warn("cannot record driver API calls", r);
      }
    } else {
      Cupti().ActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
    }
    return;
  }
  if (Cupti().ActivityEnableDriverApi == nullptr) {
    // An older CUPTI 12 cannot pick driver calls one by one: all of them.
    if (enable) {
      Cupti().ActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
    } else {
      Cupti().ActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
    }
    return;
  }
  for (uint32_t cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; ++cbid) {
    const char* name = nullptr;
    if (Cupti().GetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name) == CUPTI_SUCCESS && name &&
        WantedDriverCall(name)) {
      Cupti().ActivityEnableDriverApi(cbid, enable ? 1 : 0);
    }
  }
}

void StartRecording() {
  if (g->recording.exchange(true)) return;
  std::string refused;
  CUptiResult why = CUPTI_SUCCESS;
  for (CUpti_ActivityKind kind : kKinds) {
    if (CUptiResult r = Cupti().ActivityEnable(kind); r != CUPTI_SUCCESS) {
      refused += (refused.empty() ? "" : ", ") + std::to_string(static_cast<int>(kind));
      why = r;
    }
  }
  if (!refused.empty()) {
    const char* text = nullptr;
    Cupti().GetResultString(why, &text);
    std::fprintf(stderr, "tracelint capture: CUPTI refused activity kinds %s (%s)\n",
                 refused.c_str(), text ? text : "error");
  }
  EnableDriverApi(true);
  if (g->graph_trace) {
    if (CUptiResult r = Cupti().ActivityEnable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
        r != CUPTI_SUCCESS) {
      Warn("graph-level tracing unavailable; kernels of graphs are recorded one by one", r);
    }
  }
}

// Flushes everything, writes the end record and closes the dump. Runs once.
// A second caller (exit while a signal is handled) waits for the first.
void Finish(uint32_t reason) {
  static std::mutex finish_mu;
  std::lock_guard<std::mutex> finishing(finish_mu);
  if (g == nullptr || getpid() != g->owner || g->finished.exchange(true)) return;
  if (g->recording.exchange(false)) {
    for (CUpti_ActivityKind kind : kKinds) Cupti().ActivityDisable(kind);
    EnableDriverApi(false);
    if (g->graph_trace) Cupti().ActivityDisable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
  }
  Cupti().ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  {
    std::lock_guard<std::mutex> lock(g->mu);
    g->stop_writer = true;
  }
  g->cv.notify_one();
  if (g->writer_thread.joinable()) g->writer_thread.join();
  EndRecord end;
  Cupti().GetTimestamp(&end.ts_ns);
  end.dropped_total = g->dropped_total;
  end.reason = reason;
  g->writer.Add(end);
  WriteAll(g->writer.Take());
  if (g->fd >= 0) ::close(g->fd);
  g->fd = -1;
}

void AtExit() { Finish(kEndAtExit); }

void OnSignal(int signo) {
  int saved = errno;
  char byte = static_cast<char>(signo);
  if (g != nullptr && g->wake[1] >= 0) (void)!::write(g->wake[1], &byte, 1);
  errno = saved;
}

// The control thread: opens the recording window after --delay, closes it
// after --duration, and finishes the dump on SIGTERM/SIGINT before letting
// the signal do what it would have done.
void ControlLoop() {
  for (;;) {
    int64_t now = EpochNs();
    int64_t next = 0;
    if (!g->recording && !g->finished) next = g->start_ns;
    if (g->recording && g->stop_ns > 0) next = g->stop_ns;
    int timeout_ms = -1;
    if (next > 0) timeout_ms = next <= now ? 0 : static_cast<int>((next - now) / 1000000 + 1);
    pollfd p{g->wake[0], POLLIN, 0};
    int n = ::poll(&p, 1, timeout_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) {
      char signo = 0;
      if (::read(g->wake[0], &signo, 1) == 1) {
        Finish(kEndSignal);
        ::signal(signo, SIG_DFL);
        ::kill(getpid(), signo);
        return;
      }
    }
    now = EpochNs();
    if (!g->recording && !g->finished && now >= g->start_ns) {
      StartRecording();
    } else if (g->recording && g->stop_ns > 0 && now >= g->stop_ns) {
      Finish(kEndDuration);
      return;
    }
    if (g->finished) return;
  }
}

void OnForkChild() {
  // CUDA does not work in a forked child; neither does this capture.
  if (g != nullptr) g->finished = true;
}

bool OpenDump() {
  const char* dir = std::getenv("TRACELINT_CAPTURE_DIR");
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  std::string path = std::string(dir && *dir ? dir : ".") + "/" + host + "." +
                     std::to_string(getpid()) + std::string(kRawSuffix);
  g->fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (g->fd < 0) {
    std::fprintf(stderr, "tracelint capture: cannot create %s: %s\n", path.c_str(),
                 std::strerror(errno));
    return false;
  }
  ProcessInfo p;
  p.pid = static_cast<uint32_t>(getpid());
  p.host = host;
  p.rank = static_cast<int32_t>(EnvInt("RANK", -1));
  p.world_size = static_cast<int32_t>(EnvInt("WORLD_SIZE", -1));
  p.local_rank = static_cast<int32_t>(EnvInt("LOCAL_RANK", -1));
  uint64_t cupti_now = 0;
  Cupti().GetTimestamp(&cupti_now);
  p.clock_offset_ns = EpochNs() - static_cast<int64_t>(cupti_now);
  Cupti().GetVersion(&p.cupti_version);
  if (FILE* f = std::fopen("/proc/self/cmdline", "rb")) {
    char buf[512];
    size_t n = std::fread(buf, 1, sizeof(buf), f);
    std::fclose(f);
    for (size_t i = 0; i < n; ++i) p.command += buf[i] == '\0' ? ' ' : buf[i];
    while (!p.command.empty() && p.command.back() == ' ') p.command.pop_back();
  }
  g->writer.Add(p);
  WriteAll(g->writer.Take());
  return g->fd >= 0;
}

// Set up once, from whichever entry point the process reaches first.
bool Initialize() {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] {
    g = new State;
    g->owner = getpid();
    int64_t start = EnvInt("TRACELINT_CAPTURE_START_NS", EpochNs());
    g->start_ns = start + EnvInt("TRACELINT_CAPTURE_DELAY_NS", 0);
    int64_t duration = EnvInt("TRACELINT_CAPTURE_DURATION_NS", 0);
    g->stop_ns = duration > 0 ? g->start_ns + duration : 0;
    g->graph_trace = EnvInt("TRACELINT_CAPTURE_GRAPH_TRACE", 0) == 1;
    g->all_driver_api = EnvInt("TRACELINT_CAPTURE_ALL_DRIVER_API", 0) == 1;
    std::string why;
    if (LoadCupti(&why) == nullptr) {
      std::fprintf(stderr,
                   "tracelint capture: CUPTI 12 or 13 not found, nothing is recorded (set "
                   "TRACELINT_CUPTI_LIBRARY to libcupti.so.13 or .12; tried: %s)\n",
                   why.c_str());
      return;
    }
    if (!OpenDump()) return;
    if (CUptiResult r = Cupti().ActivityRegisterCallbacks(BufferRequested, BufferCompleted);
        r != CUPTI_SUCCESS) {
      Warn("cannot register CUPTI buffers", r);
      return;
    }
    Cupti().ActivityFlushPeriod(kFlushPeriodMs);
    g->writer_thread = std::thread(WriterLoop);
    if (::pipe2(g->wake, O_CLOEXEC) != 0) g->wake[0] = g->wake[1] = -1;
    // Only signals the program leaves at their default: its own handlers
    // (Python's SIGINT, a trainer's SIGTERM) end it through exit and AtExit.
    for (int signo : {SIGTERM, SIGINT}) {
      struct sigaction old {};
      if (g->wake[1] >= 0 && ::sigaction(signo, nullptr, &old) == 0 &&
          old.sa_handler == SIG_DFL) {
        struct sigaction sa {};
        sa.sa_handler = OnSignal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        ::sigaction(signo, &sa, nullptr);
      }
    }
    if (EpochNs() >= g->start_ns) StartRecording();
    if (g->wake[0] >= 0) {
      g->control_thread = std::thread(ControlLoop);
      g->control_thread.detach();
    }
    pthread_atfork(nullptr, nullptr, OnForkChild);
    std::atexit(AtExit);
    ok = true;
  });
  return ok;
}

}  // namespace
}  // namespace tracelint::capture::inject

extern "C" {

// Called by the CUDA driver (CUDA_INJECTION64_PATH) during cuInit.
__attribute__((visibility("default"))) int InitializeInjection(void) {
  tracelint::capture::inject::Initialize();
  return 1;
}

// Called by NVTX (NVTX_INJECTION64_PATH) at the program's first NVTX call;
// CUPTI's own handler turns NVTX calls into marker records.
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(const void* get_export_table) {
  tracelint::capture::inject::Initialize();
  // The CUPTI Initialize opened (cupti_api.h) handles NVTX itself.
  const tracelint::capture::inject::CuptiApi* api =
      tracelint::capture::inject::LoadCupti(nullptr);
  return api != nullptr && api->InitializeInjectionNvtx2 != nullptr
             ? api->InitializeInjectionNvtx2(get_export_table)
             : 0;
}

}  // extern "C"
