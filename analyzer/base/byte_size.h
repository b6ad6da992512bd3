#ifndef TRACELINT_ANALYZER_BASE_BYTE_SIZE_H_
#define TRACELINT_ANALYZER_BASE_BYTE_SIZE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace tracelint {

// "1048576", "512K", "100M", "1G", "5G" (binary multiples) -> bytes.
absl::StatusOr<int64_t> ParseByteSize(std::string_view text);

// The shortest of "512K", "100M", "1G" that is exact, else the byte count:
// what a message shows so the user can type it back as a flag value.
std::string FormatByteSize(uint64_t bytes);

// "512 KiB", "1.5 GiB": a size to read, not to type back (one decimal
// from MiB up).
std::string HumanByteSize(uint64_t bytes);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_BASE_BYTE_SIZE_H_
