#include "analyzer/base/memory_budget.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

#include "analyzer/base/byte_size.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

// Values at or above this are "no limit": cgroup v1 writes the largest
// page-aligned int64 (9223372036854771712), RLIM_INFINITY is all ones.
constexpr uint64_t kNoLimitFrom = uint64_t{1} << 62;

// The first line of a small file; nullopt when it cannot be read.
std::optional<std::string> FirstLine(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string line;
  std::getline(in, line);
  if (in.bad()) return std::nullopt;
  return line;
}

// A memory.max / memory.limit_in_bytes value: bytes, or 0 for "max" or a
// value meaning no limit; nullopt when it is neither.
std::optional<uint64_t> ParseLimitFile(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text == "max") return 0;
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v >= kNoLimitFrom ? 0 : v;
}

// The cgroup paths of this process: v2 ("0::/a/b") and the v1 memory
// controller ("7:memory:/a/b", "4:cpu,memory:/a"). Either may be empty.
struct SelfCgroup {
  std::string v2;
  std::string v1_memory;
};

SelfCgroup ReadSelfCgroup(const std::string& path) {
  SelfCgroup out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    size_t first = line.find(':');
    size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    std::string_view controllers = std::string_view(line).substr(first + 1, second - first - 1);
    std::string where = line.substr(second + 1);
    if (line.starts_with("0::")) {
      out.v2 = where;
      continue;
    }
    std::stringstream list{std::string(controllers)};
    std::string c;
    while (std::getline(list, c, ',')) {
      if (c == "memory") out.v1_memory = where;
    }
  }
  return out;
}

// The smallest limit in `file_name` of `dir` + `path` and each of its
// ancestors up to `dir` itself (a parent's limit covers its children).
void SmallestOnPath(const std::string& dir, std::string path, const std::string& file_name,
                    MemoryLimits& limits) {
  // "/.." segments never lead out of the root we were given.
  if (path.find("..") != std::string::npos) path = "/";
  while (true) {
    std::string file = dir + (path == "/" ? "" : path) + "/" + file_name;
    if (std::optional<std::string> line = FirstLine(file)) {
      std::optional<uint64_t> v = ParseLimitFile(*line);
      if (v && *v > 0 && (limits.cgroup_bytes == 0 || *v < limits.cgroup_bytes)) {
        limits.cgroup_bytes = *v;
        limits.cgroup_file = file;
      }
    }
    if (path.empty() || path == "/") break;
    size_t slash = path.rfind('/');
    path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
  }
}

uint64_t RamBytes(const MemoryLimitSources& sources) {
  // sysconf asks the kernel (sysinfo), so it works without /proc.
  long pages = sysconf(_SC_PHYS_PAGES);
  long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0) {
    return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
  }
  std::ifstream in(sources.meminfo);
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit) {
    if (key == "MemTotal:") return kib * 1024;
  }
  return 0;
}

uint64_t RlimitBytes() {
  uint64_t smallest = 0;
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    rlimit r{};
    if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) continue;
    uint64_t v = static_cast<uint64_t>(r.rlim_cur);
    if (v >= kNoLimitFrom) continue;
    if (smallest == 0 || v < smallest) smallest = v;
  }
  return smallest;
}

std::string Known(uint64_t bytes) { return bytes == 0 ? "none" : HumanByteSize(bytes); }

}  // namespace

uint64_t MemoryLimits::LimitBytes() const {
  uint64_t smallest = 0;
  for (uint64_t v : {ram_bytes, rlimit_bytes, cgroup_bytes}) {
    if (v > 0 && (smallest == 0 || v < smallest)) smallest = v;
  }
  return smallest;
}

std::string MemoryLimits::Describe() const {
  return fmt::format("half the smallest of RAM {}, RLIMIT_AS/RLIMIT_DATA {}, cgroup limit {}",
                     Known(ram_bytes), Known(rlimit_bytes),
                     cgroup_bytes == 0 ? std::string("none")
                                       : fmt::format("{} ({})", Known(cgroup_bytes), cgroup_file));
}

MemoryLimits ReadMemoryLimits(const MemoryLimitSources& sources) {
  MemoryLimits limits;
  limits.ram_bytes = RamBytes(sources);
  if (sources.read_rlimits) limits.rlimit_bytes = RlimitBytes();
  SelfCgroup self = ReadSelfCgroup(sources.self_cgroup);
  // v2: one hierarchy, memory.max on every cgroup but the root. Inside a
  // container's cgroup namespace the path reads "/" and cgroup_root is the
  // container's own cgroup.
  SmallestOnPath(sources.cgroup_root, self.v2.empty() ? "/" : self.v2, "memory.max", limits);
  // v1: the memory controller's own hierarchy.
  SmallestOnPath(sources.cgroup_root + "/memory", self.v1_memory.empty() ? "/" : self.v1_memory,
                 "memory.limit_in_bytes", limits);
  return limits;
}

const MemoryLimits& ProcessMemoryLimits() {
  static const MemoryLimits limits = [] {
    MemoryLimitSources sources;
    if (const char* root = std::getenv("TRACELINT_CGROUP_ROOT"); root != nullptr && *root) {
      sources.cgroup_root = root;
      sources.self_cgroup.clear();  // the directory is this process's cgroup
    }
    return ReadMemoryLimits(sources);
  }();
  return limits;
}

size_t MemoryBudget::DefaultBytes() {
  return static_cast<size_t>(ProcessMemoryLimits().BudgetBytes());
}

MemoryLedger::MemoryLedger(uint64_t limit_bytes, std::string why)
    : limit_bytes_(limit_bytes),
      parse_limit_bytes_(static_cast<uint64_t>(static_cast<double>(limit_bytes) * kParseShare)),
      why_(std::move(why)) {}

MemoryLedger& MemoryLedger::Default() {
  static MemoryLedger ledger(ProcessMemoryLimits().BudgetBytes(),
                             ProcessMemoryLimits().Describe());
  return ledger;
}

MemoryLedger::Account MemoryLedger::Open() {
  std::lock_guard<std::mutex> lock(mu_);
  Account a;
  a.ledger_ = this;
  if (!free_slots_.empty()) {
    a.slot_ = free_slots_.back();
    free_slots_.pop_back();
  } else {
    a.slot_ = slots_.size();
    slots_.emplace_back();
  }
  slots_[a.slot_] = Slot{0, true, true};
  return a;
}

uint64_t MemoryLedger::total_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return total_;
}

uint64_t MemoryLedger::peak_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return peak_;
}

void MemoryLedger::Update(size_t slot, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  total_ = total_ - slots_[slot].bytes + bytes;
  slots_[slot].bytes = bytes;
  peak_ = std::max(peak_, total_);
}

bool MemoryLedger::Over(size_t slot) const {
  if (limit_bytes_ == 0) return false;
  std::lock_guard<std::mutex> lock(mu_);
  if (total_ <= parse_limit_bytes_) return false;
  const uint64_t mine = slots_[slot].bytes;
  if (static_cast<double>(mine) < kSmallReadShare * static_cast<double>(parse_limit_bytes_)) {
    return false;
  }
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (i != slot && slots_[i].open && slots_[i].active && slots_[i].bytes > mine) return false;
  }
  return true;
}

void MemoryLedger::Deactivate(size_t slot) {
  std::lock_guard<std::mutex> lock(mu_);
  slots_[slot].active = false;
}

void MemoryLedger::Close(size_t slot) {
  std::lock_guard<std::mutex> lock(mu_);
  total_ -= slots_[slot].bytes;
  slots_[slot] = Slot{};
  free_slots_.push_back(slot);
}

MemoryLedger::Account::Account(Account&& other) noexcept
    : ledger_(other.ledger_), slot_(other.slot_), bytes_(other.bytes_) {
  other.ledger_ = nullptr;
  other.bytes_ = 0;
}

MemoryLedger::Account& MemoryLedger::Account::operator=(Account&& other) noexcept {
  if (this != &other) {
    Close();
    ledger_ = other.ledger_;
    slot_ = other.slot_;
    bytes_ = other.bytes_;
    other.ledger_ = nullptr;
    other.bytes_ = 0;
  }
  return *this;
}

void MemoryLedger::Account::Set(uint64_t bytes) {
  bytes_ = bytes;
  if (ledger_ != nullptr) ledger_->Update(slot_, bytes);
}

bool MemoryLedger::Account::OverBudget() const {
  return ledger_ != nullptr && ledger_->Over(slot_);
}

void MemoryLedger::Account::Deactivate() {
  if (ledger_ != nullptr) ledger_->Deactivate(slot_);
}

void MemoryLedger::Account::Close() {
  if (ledger_ == nullptr) return;
  ledger_->Close(slot_);
  ledger_ = nullptr;
  bytes_ = 0;
}

}  // namespace tracelint
