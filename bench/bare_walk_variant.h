#ifndef TRACELINT_BENCH_BARE_WALK_VARIANT_H_
#define TRACELINT_BENCH_BARE_WALK_VARIANT_H_

// Internal to bare_walk: the interface each per-kernel copy of the walk
// exports. Free of simdjson types so the dispatcher includes no simdjson.

#include <cstddef>
#include <cstdint>

#include "bench/bare_walk.h"

namespace tracelint::bench {

struct WalkCounters {
  int64_t events = 0;
  int64_t keys = 0;
  int64_t numbers = 0;
  int64_t strings = 0;
  uint64_t checksum = 0xcbf29ce484222325ULL;
};

struct WalkStatus {
  int error = 0;        // simdjson::error_code
  int64_t offset = -1;  // byte offset of the failure when known
};

#define TRACELINT_DECLARE_BARE_WALK(ns)                                   \
  namespace ns {                                                          \
  const char* KernelName();                                               \
  WalkStatus Walk(const char* json, size_t size, WalkCounters& counters); \
  }

TRACELINT_DECLARE_BARE_WALK(icelake_walk)
TRACELINT_DECLARE_BARE_WALK(haswell_walk)
TRACELINT_DECLARE_BARE_WALK(fallback_walk)
#undef TRACELINT_DECLARE_BARE_WALK

namespace fallback_walk {
// Library calls (runtime CPU detection, error text) live in the portable
// copy only.
const char* ActiveImplementation();
const char* ErrorMessage(int error);
}  // namespace fallback_walk

}  // namespace tracelint::bench

#endif  // TRACELINT_BENCH_BARE_WALK_VARIANT_H_
