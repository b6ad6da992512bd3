#ifndef TRACELINT_PARSERS_PARSE_OPTIONS_H_
#define TRACELINT_PARSERS_PARSE_OPTIONS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "analyzer/base/byte_size.h"
#include "analyzer/base/memory_budget.h"
#include "fmt/format.h"

namespace tracelint {

// Caps that keep a hostile or runaway input (a gzip bomb, billions of tiny
// events, one huge string, brackets nested without end) from exhausting
// memory. Each has a flag (cli/limit_options.h) and a message that
// names it; docs/robustness.md ("Limits") lists them. 0 = no cap.
struct ParseLimits {
  // Decompressed bytes read from a gzip input; reading stops there and what
  // came before is analysed. nullopt: max(100 x the compressed size, 1 GiB)
  // (real traces compress 10-30x). Plain files are not capped by default:
  // their size on disk is known, and max_events bounds what they cost; a
  // value given caps them too.
  std::optional<uint64_t> max_decompressed_bytes;
  // Trace events read from one file; reading stops after that many.
  // nullopt: no count; the memory budget bounds what the events hold.
  std::optional<int64_t> max_events;
  // The memory budget (docs/design/contract.md, "Memory budget"): what the
  // timelines being read may hold together, by the builder's own
  // accounting (MemoryLedger). nullopt: half the smallest of RAM,
  // RLIMIT_AS/RLIMIT_DATA and the cgroup's limit; 0: none.
  std::optional<uint64_t> max_memory_bytes;
  // Longest JSON string (bytes, escaped as written) in one event; an event
  // holding a longer one is dropped and counted.
  uint64_t max_string_bytes = uint64_t{16} << 20;
  // Deepest nesting of objects and arrays in one event (the event's own
  // braces are level 1; Kineto writes 3-4); deeper events are dropped.
  int64_t max_nesting_depth = 64;
};

// The decompressed-byte cap for an input of `file_bytes` on disk; 0 = none.
inline uint64_t ResolveMaxDecompressedBytes(const ParseLimits& limits, uint64_t file_bytes,
                                            bool compressed) {
  if (limits.max_decompressed_bytes) return *limits.max_decompressed_bytes;
  if (!compressed) return 0;
  constexpr uint64_t kFloor = uint64_t{1} << 30;
  return std::max(kFloor, file_bytes > UINT64_MAX / 100 ? UINT64_MAX : file_bytes * 100);
}

// The event cap; 0 = none.
inline int64_t ResolveMaxEvents(const ParseLimits& limits) {
  return limits.max_events.value_or(0);
}

struct ParseOptions {
  // Parser threads for one file; 0 = std::thread::hardware_concurrency().
  int threads = 0;
  // The trace's event array is cut at event boundaries into parts of about
  // this many decompressed bytes; parts are parsed in parallel and merged in
  // input order, so the result does not depend on this value. 0 = from the
  // input's size (AutoSplitBytes).
  size_t split_bytes = 0;
  // Largest single JSON document handed to the JSON parser (one part, or the
  // top-level keys around the event array). A single event larger than this
  // is rejected as damaged instead of growing memory without bound.
  size_t max_document_bytes = size_t{1} << 30;
  ParseLimits limits;
  // The ledger the timeline being read is charged to, shared by every file
  // of a command (MakeLedger); nullptr: MemoryLedger::Default(), the
  // process's budget.
  MemoryLedger* ledger = nullptr;
};

// The ledger for `limits`: the process's own unless --max-memory gave a
// value, which replaces the budget (0: none).
inline std::unique_ptr<MemoryLedger> MakeLedger(const ParseLimits& limits) {
  if (!limits.max_memory_bytes) {
    return std::make_unique<MemoryLedger>(ProcessMemoryLimits().BudgetBytes(),
                                          ProcessMemoryLimits().Describe());
  }
  return std::make_unique<MemoryLedger>(*limits.max_memory_bytes, "--max-memory");
}

// limit_reached's text when a read stopped at the memory budget, holding
// `held_bytes`.
inline std::string MemoryLimitText(const MemoryLedger& ledger, uint64_t held_bytes) {
  return fmt::format(
      "stopped at the memory budget of {} ({}): the events read so far hold {}; raise it with "
      "--max-memory SIZE (0: no limit), or read fewer events with --max-events N",
      HumanByteSize(ledger.limit_bytes()), ledger.why(), HumanByteSize(held_bytes));
}

// The error when the allocator failed while `path` was read or analysed.
inline std::string OutOfMemoryText(const std::string& path, const MemoryLedger& ledger) {
  return fmt::format(
      "{}: out of memory: the allocator refused memory before the memory budget of {} ({}) was "
      "reached (a limit tracelint could not see, or other processes' memory); lower the budget "
      "with --max-memory SIZE",
      path, HumanByteSize(ledger.limit_bytes()), ledger.why());
}

// The ledger options.ledger names, else the process's (for messages).
inline const MemoryLedger& LedgerOf(const ParseOptions& options) {
  return options.ledger != nullptr ? *options.ledger : MemoryLedger::Default();
}

// The ledger a parse charges: options.ledger; else one of its own when
// --max-memory is set (kept in `own`); else the process's.
inline MemoryLedger& LedgerFor(const ParseOptions& options, std::unique_ptr<MemoryLedger>& own) {
  if (options.ledger != nullptr) return *options.ledger;
  if (options.limits.max_memory_bytes) {
    own = MakeLedger(options.limits);
    return *own;
  }
  return MemoryLedger::Default();
}

// Parts of 1/256 of the (estimated) JSON size, between 256 KiB and 1 MiB.
// Every part in flight, its simdjson parser's buffers and its builder scale
// with the part size, while parts are recycled (their builders and text
// buffers reused), so small parts cost little: on real traces 256 KiB parts
// took 0.5% more instructions than 1.6 MiB ones at 100 MB and the same CPU
// time at 1 GB, and peak memory fell by 10-20% of the file (bench/README.md).
// `compressed`: the size is the .gz's, which inflates ~10-25x (corpus); 8x
// is assumed.
inline size_t AutoSplitBytes(uint64_t file_bytes, bool compressed) {
  constexpr size_t kMin = size_t{256} << 10;
  constexpr size_t kMax = size_t{1} << 20;
  uint64_t json_bytes = compressed ? file_bytes * 8 : file_bytes;
  uint64_t split = json_bytes / 256;
  return split < kMin ? kMin : split > kMax ? kMax : static_cast<size_t>(split);
}

}  // namespace tracelint

#endif  // TRACELINT_PARSERS_PARSE_OPTIONS_H_
