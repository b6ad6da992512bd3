#include "analyzer/base/time.h"

#include <algorithm>

#include <cstdlib>
#include <limits>

#include "fmt/format.h"

namespace tracelint {
namespace {

bool MulAdd(int64_t acc, int64_t mul, int64_t add, int64_t* out) {
  return !__builtin_mul_overflow(acc, mul, &acc) &&
         !__builtin_add_overflow(acc, add, out);
}

}  // namespace

std::optional<TimeNs> ParseMicrosTextToNs(std::string_view text) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
    negative = text[i] == '-';
    ++i;
  }
  // Collect the significant digits and the position of the decimal point so
  // an exponent can shift it before the value is scaled to nanoseconds.
  std::string digits;
  int point = -1;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c >= '0' && c <= '9') {
      digits.push_back(c);
    } else if (c == '.' && point < 0) {
      point = static_cast<int>(digits.size());
    } else {
      break;
    }
  }
  if (digits.empty()) return std::nullopt;
  if (point < 0) point = static_cast<int>(digits.size());
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
      exp_negative = text[i] == '-';
      ++i;
    }
    int exponent = 0;
    size_t exp_start = i;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      if (exponent > 10000) return std::nullopt;
      exponent = exponent * 10 + (text[i] - '0');
    }
    if (i == exp_start) return std::nullopt;
    point += exp_negative ? -exponent : exponent;
  }
  if (i != text.size()) return std::nullopt;
  // Microseconds -> nanoseconds moves the point three places right.
  point += 3;
  int64_t value = 0;
  for (int k = 0; k < point; ++k) {
    int64_t d = k < static_cast<int>(digits.size()) && k >= 0 ? digits[k] - '0' : 0;
    if (!MulAdd(value, 10, d, &value)) return std::nullopt;
  }
  // Round half away from zero on the first dropped digit.
  int first_dropped = point < 0 ? -1 : point;
  if (point >= 0 && first_dropped < static_cast<int>(digits.size()) &&
      digits[first_dropped] >= '5') {
    if (__builtin_add_overflow(value, 1, &value)) return std::nullopt;
  }
  return negative ? -value : value;
}

std::string FormatDurationNs(TimeNs dur_ns) {
  double v = static_cast<double>(dur_ns);
  double a = v < 0 ? -v : v;
  if (a >= kNsPerS) return fmt::format("{:.3f} s", v / kNsPerS);
  if (a >= kNsPerMs) return fmt::format("{:.3f} ms", v / kNsPerMs);
  if (a >= kNsPerUs) return fmt::format("{:.1f} us", v / kNsPerUs);
  return fmt::format("{} ns", dur_ns);
}

std::string FormatOffsetRangeNs(TimeNs start_ns, TimeNs end_ns) {
  TimeNs a = std::max(start_ns < 0 ? -start_ns : start_ns, end_ns < 0 ? -end_ns : end_ns);
  TimeNs unit_ns = a >= kNsPerS ? kNsPerS : a >= kNsPerMs ? kNsPerMs : a >= kNsPerUs ? kNsPerUs : 1;
  std::string_view unit = unit_ns == kNsPerS ? "s" : unit_ns == kNsPerMs ? "ms"
                          : unit_ns == kNsPerUs ? "us" : "ns";
  int max_decimals = unit_ns == kNsPerS ? 9 : unit_ns == kNsPerMs ? 6 : unit_ns == kNsPerUs ? 3 : 0;
  // 3 significant digits of the larger end: 1.23 s, 12.3 s, 123 s.
  double scaled = static_cast<double>(a) / static_cast<double>(unit_ns);
  int decimals = scaled >= 100 ? 0 : scaled >= 10 ? 1 : 2;
  decimals = std::min(decimals, max_decimals);
  auto at = [&](TimeNs t, int d) {
    return fmt::format("{}{:.{}f} {}", t < 0 ? "-" : "+",
                       static_cast<double>(t < 0 ? -t : t) / static_cast<double>(unit_ns), d,
                       unit);
  };
  std::string from = at(start_ns, decimals), to = at(end_ns, decimals);
  while (start_ns != end_ns && from == to && decimals < max_decimals) {
    ++decimals;
    from = at(start_ns, decimals);
    to = at(end_ns, decimals);
  }
  return fmt::format("{} .. {}", from, to);
}

}  // namespace tracelint
