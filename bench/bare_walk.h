#ifndef TRACELINT_BENCH_BARE_WALK_H_
#define TRACELINT_BENCH_BARE_WALK_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace tracelint::bench {

// The issue #4 baseline: one thread, simdjson On-Demand, every key of every
// event and of its args (and of anything nested in them) visited, numbers
// converted, strings viewed; nothing stored. Other top-level keys are walked
// the same way.
struct BareWalkResult {
  int64_t events = 0;   // elements of traceEvents
  int64_t keys = 0;
  int64_t numbers = 0;
  int64_t strings = 0;
  // Folds every converted value so the walk cannot be optimized away; equal
  // across kernels for the same file.
  uint64_t checksum = 0;
  // simdjson kernel the walk was compiled for ("icelake", "haswell",
  // "fallback").
  std::string kernel;
};

// Reads an uncompressed JSON trace into a padded buffer and walks it with
// the best kernel this CPU runs (simdjson's own runtime detection decides).
absl::StatusOr<BareWalkResult> BareWalkFile(const std::string& path);

// Same walk over `json`, which must be followed by at least
// kBareWalkPaddingBytes readable bytes (simdjson reads past the end).
absl::StatusOr<BareWalkResult> BareWalkBuffer(const char* json, size_t size);
inline constexpr size_t kBareWalkPaddingBytes = 64;

// simdjson's runtime-detected implementation on this CPU.
std::string ActiveSimdjsonKernel();

}  // namespace tracelint::bench

#endif  // TRACELINT_BENCH_BARE_WALK_H_
