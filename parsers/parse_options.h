#ifndef TRACELINT_PARSERS_PARSE_OPTIONS_H_
#define TRACELINT_PARSERS_PARSE_OPTIONS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "analyzer/base/memory_budget.h"

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
  // nullopt: as many as fit the memory budget (MemoryBudget::DefaultBytes,
  // half the RAM) at kParseBytesPerEvent each.
  std::optional<int64_t> max_events;
  // Longest JSON string (bytes, escaped as written) in one event; an event
  // holding a longer one is dropped and counted.
  uint64_t max_string_bytes = uint64_t{16} << 20;
  // Deepest nesting of objects and arrays in one event (the event's own
  // braces are level 1; Kineto writes 3-4); deeper events are dropped.
  int64_t max_nesting_depth = 64;
};

// Peak parse memory per event (bench/README.md: ~135-155 bytes per slice
// while parsing, ~96 in the finished timeline), rounded up.
inline constexpr uint64_t kParseBytesPerEvent = 160;

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
  if (limits.max_events) return *limits.max_events;
  return static_cast<int64_t>(MemoryBudget::DefaultBytes() / kParseBytesPerEvent);
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
};

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
