#ifndef TRACELINT_ANALYZER_BASE_MEMORY_BUDGET_H_
#define TRACELINT_ANALYZER_BASE_MEMORY_BUDGET_H_

// The memory budget (docs/design/contract.md, "Memory budget"): half the
// smallest of the machine's RAM, the address-space and data limits
// (RLIMIT_AS, RLIMIT_DATA: `ulimit -v`, `ulimit -d`) and the memory limit of
// the cgroup the process runs in (a container's: cgroup v2 memory.max, v1
// memory.limit_in_bytes). Timelines being built charge what they really
// hold to a MemoryLedger; a parse stops at the ledger's limit with a message
// that names it, before the allocator fails.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace tracelint {

// Where the limits are read. Tests point these at files of their own;
// TRACELINT_CGROUP_ROOT does the same for a whole process (the CLI tests):
// that directory stands for the process's own cgroup.
struct MemoryLimitSources {
  std::string cgroup_root = "/sys/fs/cgroup";
  // "0::/path" (v2) and "N:memory:/path" (v1) lines; absent or unreadable:
  // the cgroup is cgroup_root itself (a container's namespace).
  std::string self_cgroup = "/proc/self/cgroup";
  std::string meminfo = "/proc/meminfo";  // MemTotal, when sysconf cannot tell
  bool read_rlimits = true;               // tests of the files alone turn it off
};

// The limits found; 0 = none (or unknown).
struct MemoryLimits {
  uint64_t ram_bytes = 0;
  uint64_t rlimit_bytes = 0;   // the smaller of RLIMIT_AS and RLIMIT_DATA
  uint64_t cgroup_bytes = 0;   // the smallest limit on the cgroup's path
  std::string cgroup_file;     // the file it came from

  // The smallest known limit; 0 when none is known.
  uint64_t LimitBytes() const;
  // Half of it (the other half: address space the allocator, thread stacks
  // and the JSON parser reserve, and the report); 0 = no budget.
  uint64_t BudgetBytes() const { return LimitBytes() / 2; }
  // "half the smallest of RAM 23.4G, RLIMIT_AS 4G, cgroup memory.max none".
  std::string Describe() const;
};

MemoryLimits ReadMemoryLimits(const MemoryLimitSources& sources);

// This process's limits, read once (TRACELINT_CGROUP_ROOT honoured).
const MemoryLimits& ProcessMemoryLimits();

// Bytes of parse work in flight against a budget, shared by every file that
// is being parsed (one run's ranks, or a whole batch), as estimated from the
// files' sizes before they are read: it decides how many files start at
// once. Acquire blocks until the bytes fit, except that work always starts
// when nothing else holds the budget, so a single file larger than the
// budget still runs. What a parse really holds is the MemoryLedger's.
class MemoryBudget {
 public:
  // 0 = unlimited.
  explicit MemoryBudget(size_t budget_bytes) : budget_bytes_(budget_bytes) {}
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  void Acquire(size_t bytes) {
    if (budget_bytes_ == 0) return;
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return in_use_ == 0 || in_use_ + bytes <= budget_bytes_; });
    in_use_ += bytes;
  }
  void Release(size_t bytes) {
    if (budget_bytes_ == 0) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      in_use_ -= bytes;
    }
    cv_.notify_all();
  }

  // The process's budget (ProcessMemoryLimits().BudgetBytes(); 0 when no
  // limit is known).
  static size_t DefaultBytes();

 private:
  size_t budget_bytes_;
  size_t in_use_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
};

// What the timelines of a process (or of one command) really hold, against
// the memory budget. Each timeline being built has an active account that it
// sets to the bytes its builder holds (capacities of its arrays, interned
// strings, args, per-track state); a finished timeline's account stays open,
// inactive, while its events are held. A parse asks OverBudget() after each
// part it merges: it stops when the total passes parse_limit_bytes() and it
// is the largest active account, so one runaway input stops before a healthy
// one beside it, whatever the thread timing. A read holding less than
// kSmallReadShare of the parse limit is never stopped: when the total is
// over only because finished timelines are held (a bomb's partial timeline
// analysed beside a small run in `batch`), the small run finishes instead of
// failing by the order the runs were read in. Each concurrent read can pass
// the limit by at most that share, so the overshoot is bounded by the
// reads in flight (8 of them: half the parse limit, the budget's headroom).
class MemoryLedger {
 public:
  // The share of the budget that timelines being built may reach: building
  // ends with Finalize, which reorders the columns, and the analyses' own
  // arrays follow; on a bomb of tiny events the process peaked at 1.76x
  // what the builder held when it stopped (docs/robustness.md, "Memory
  // budget"), so half the budget keeps the peak within it.
  static constexpr double kParseShare = 0.5;
  // The share of the parse limit below which a read is never stopped.
  static constexpr double kSmallReadShare = 1.0 / 16;

  // `limit_bytes` 0 = unlimited; `why` says where the limit came from (for
  // messages), e.g. "--max-memory 2G" or MemoryLimits::Describe().
  MemoryLedger(uint64_t limit_bytes, std::string why);
  MemoryLedger(const MemoryLedger&) = delete;
  MemoryLedger& operator=(const MemoryLedger&) = delete;

  // The process's ledger, with the process's budget.
  static MemoryLedger& Default();

  class Account {
   public:
    Account() = default;
    Account(Account&& other) noexcept;
    Account& operator=(Account&& other) noexcept;
    ~Account() { Close(); }

    // What the account holds now.
    void Set(uint64_t bytes);
    uint64_t bytes() const { return bytes_; }
    // True when the ledger's total passes its parse limit and no other
    // active account holds more than this one.
    bool OverBudget() const;
    // Building ended: the account stays charged but is no longer asked to
    // stop (a finished timeline held for its report).
    void Deactivate();
    void Close();
    const MemoryLedger* ledger() const { return ledger_; }

   private:
    friend class MemoryLedger;
    MemoryLedger* ledger_ = nullptr;
    size_t slot_ = 0;
    uint64_t bytes_ = 0;
  };

  Account Open();

  uint64_t limit_bytes() const { return limit_bytes_; }
  uint64_t parse_limit_bytes() const { return parse_limit_bytes_; }
  const std::string& why() const { return why_; }
  uint64_t total_bytes() const;
  // The largest total seen since construction (tests and the benchmark).
  uint64_t peak_bytes() const;

 private:
  struct Slot {
    uint64_t bytes = 0;
    bool active = false;
    bool open = false;
  };
  void Update(size_t slot, uint64_t bytes);
  bool Over(size_t slot) const;
  void Deactivate(size_t slot);
  void Close(size_t slot);

  const uint64_t limit_bytes_;
  const uint64_t parse_limit_bytes_;
  const std::string why_;
  mutable std::mutex mu_;
  std::vector<Slot> slots_;
  std::vector<size_t> free_slots_;
  uint64_t total_ = 0;
  uint64_t peak_ = 0;
};

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_BASE_MEMORY_BUDGET_H_
