#include "analyzer/base/byte_size.h"

#include <charconv>
#include <climits>

#include "fmt/format.h"

namespace tracelint {

absl::StatusOr<int64_t> ParseByteSize(std::string_view text) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  std::string_view suffix(end, static_cast<size_t>(text.data() + text.size() - end));
  int shift = -1;
  if (suffix.empty()) shift = 0;
  if (suffix == "K" || suffix == "k") shift = 10;
  if (suffix == "M" || suffix == "m") shift = 20;
  if (suffix == "G" || suffix == "g") shift = 30;
  if (ec != std::errc() || end == text.data() || shift < 0 || value < 0 ||
      value > (INT64_MAX >> shift)) {
    return absl::InvalidArgumentError(fmt::format(
        "bad size '{}': want a count of bytes with an optional K, M or G", text));
  }
  return value << shift;
}

std::string FormatByteSize(uint64_t bytes) {
  if (bytes == 0) return "0";
  static constexpr struct {
    int shift;
    char suffix;
  } kUnits[] = {{30, 'G'}, {20, 'M'}, {10, 'K'}};
  for (const auto& u : kUnits) {
    uint64_t unit = uint64_t{1} << u.shift;
    if (bytes % unit == 0) return fmt::format("{}{}", bytes / unit, u.suffix);
  }
  return fmt::format("{}", bytes);
}

std::string HumanByteSize(uint64_t bytes) {
  if (bytes < (uint64_t{1} << 10)) return fmt::format("{} bytes", bytes);
  if (bytes < (uint64_t{1} << 20)) return fmt::format("{} KiB", bytes >> 10);
  const double b = static_cast<double>(bytes);
  if (bytes < (uint64_t{1} << 30)) return fmt::format("{:.1f} MiB", b / (1 << 20));
  if (bytes < (uint64_t{1} << 40)) return fmt::format("{:.1f} GiB", b / (1 << 30));
  return fmt::format("{:.1f} TiB", b / static_cast<double>(uint64_t{1} << 40));
}

}  // namespace tracelint
