#ifndef TRACELINT_ANALYZER_BASE_TIME_H_
#define TRACELINT_ANALYZER_BASE_TIME_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace tracelint {

// All model times are int64 nanoseconds; the suffix on every name says so.
using TimeNs = int64_t;

inline constexpr TimeNs kNsPerUs = 1000;
inline constexpr TimeNs kNsPerMs = 1000 * 1000;
inline constexpr TimeNs kNsPerS = 1000 * 1000 * 1000;

// Parses a JSON number holding microseconds ("1623142623460111", "12.5",
// "1712195495519695.8", "-3", "1.5e3") into nanoseconds exactly, from the
// decimal text: doubles lose sub-microsecond precision on epoch values.
// Digits past the nanosecond are rounded half away from zero. Returns nullopt
// on malformed text or int64 overflow.
std::optional<TimeNs> ParseMicrosTextToNs(std::string_view text);

// Picoseconds (XPlane) to nanoseconds, rounding to nearest.
inline constexpr TimeNs PsToNs(int64_t ps) {
  return ps >= 0 ? (ps + 500) / 1000 : -((-ps + 500) / 1000);
}

// a + b, held at the int64 limits: sums over many events of a hostile trace
// (durations that overlap) can pass them even though each time is bounded.
inline constexpr TimeNs SaturatingAddNs(TimeNs a, TimeNs b) {
  TimeNs sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) {
    return b > 0 ? std::numeric_limits<TimeNs>::max() : std::numeric_limits<TimeNs>::min();
  }
  return sum;
}

// A computed time (a mean, a share of a sum) as whole nanoseconds, held at
// the int64 limit: a damaged trace can make it exceed int64, where a plain
// conversion is undefined.
inline TimeNs SaturatingNsFromDouble(double ns) {
  if (!(ns > 0)) return 0;
  if (ns >= 9.2e18) return std::numeric_limits<TimeNs>::max();
  return static_cast<TimeNs>(std::llround(ns));
}

// "1.234 ms", "56.7 us", "3.20 s" for reports.
std::string FormatDurationNs(TimeNs dur_ns);

// A time range as offsets from a trace's start, "+1.018 s .. +1.024 s": one
// unit for both ends, at least 3 significant digits, and as many decimals as
// it takes for two different times to read differently (down to the ns).
std::string FormatOffsetRangeNs(TimeNs start_ns, TimeNs end_ns);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_BASE_TIME_H_
