#include "cli/temp_files.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstring>
#include <mutex>

namespace tracelint {
namespace {

// A fixed table the handler can walk without allocating or locking: a slot
// is free (0), being written (1) or registered (2).
struct Slot {
  std::atomic<int> state{0};
  char path[PATH_MAX];
};
constexpr int kSlots = 16;
Slot g_slots[kSlots];

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

void RemoveRegisteredAndDie(int sig) {
  for (Slot& s : g_slots) {
    if (s.state.load(std::memory_order_acquire) == 2) ::unlink(s.path);  // async-signal-safe
  }
  // The default action ends the process with the signal, as before.
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void InstallHandlersOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kSignals) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0) continue;
      // Ignored (nohup) or handled by someone else: left alone.
      if ((old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL) continue;
      struct sigaction act {};
      act.sa_handler = RemoveRegisteredAndDie;
      sigemptyset(&act.sa_mask);
      for (int other : kSignals) sigaddset(&act.sa_mask, other);
      ::sigaction(sig, &act, nullptr);
    }
  });
}

}  // namespace

TempFileGuard::TempFileGuard(const std::string& path) {
  if (path.size() >= PATH_MAX) return;
  InstallHandlersOnce();
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (!g_slots[i].state.compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].state.store(2, std::memory_order_release);
    slot_ = i;
    return;
  }
}

TempFileGuard& TempFileGuard::operator=(TempFileGuard&& other) noexcept {
  if (this != &other) {
    Release();
    slot_ = other.slot_;
    other.slot_ = -1;
  }
  return *this;
}

void TempFileGuard::Release() {
  if (slot_ < 0) return;
  g_slots[slot_].state.store(0, std::memory_order_release);
  slot_ = -1;
}

int RegisteredTempFiles() {
  int n = 0;
  for (const Slot& s : g_slots) n += s.state.load() == 2 ? 1 : 0;
  return n;
}

}  // namespace tracelint
