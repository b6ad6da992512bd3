#include "bench/bare_walk.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string_view>

#include "bench/bare_walk_variant.h"
#include "fmt/format.h"
#include "simdjson.h"

namespace tracelint::bench {
namespace {

using WalkFn = WalkStatus (*)(const char*, size_t, WalkCounters&);

struct Variant {
  WalkFn walk;
  const char* (*kernel)();
};

// The copy compiled for the kernel simdjson's runtime detection picked.
// Detection only reports a kernel the CPU runs, so running that copy is
// safe; anything else falls back to the portable copy.
Variant ChooseVariant() {
  std::string_view active = fallback_walk::ActiveImplementation();
  if (active == "icelake") return {&icelake_walk::Walk, &icelake_walk::KernelName};
  if (active == "haswell") return {&haswell_walk::Walk, &haswell_walk::KernelName};
  return {&fallback_walk::Walk, &fallback_walk::KernelName};
}

}  // namespace

std::string ActiveSimdjsonKernel() { return fallback_walk::ActiveImplementation(); }

absl::StatusOr<BareWalkResult> BareWalkBuffer(const char* json, size_t size) {
  // simdjson indexes a document with 32-bit offsets; past 4 GiB its
  // On-Demand walk crashes instead of failing, so the baseline stops here.
  if (size > simdjson::SIMDJSON_MAXSIZE_BYTES) {
    return absl::OutOfRangeError(fmt::format(
        "bare walk impossible: {} bytes is over simdjson's {} byte document limit", size,
        simdjson::SIMDJSON_MAXSIZE_BYTES));
  }
  Variant v = ChooseVariant();
  WalkCounters c;
  WalkStatus status = v.walk(json, size, c);
  if (status.error != 0) {
    return absl::DataLossError(
        fmt::format("bare walk failed at byte {}: {}", status.offset,
                    fallback_walk::ErrorMessage(status.error)));
  }
  BareWalkResult r;
  r.events = c.events;
  r.keys = c.keys;
  r.numbers = c.numbers;
  r.strings = c.strings;
  r.checksum = c.checksum;
  r.kernel = v.kernel();
  return r;
}

absl::StatusOr<BareWalkResult> BareWalkFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(
        fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return absl::UnavailableError(
        fmt::format("cannot stat {}: {}", path, std::strerror(errno)));
  }
  size_t size = static_cast<size_t>(st.st_size);
  // The padded copy the baseline is defined with: the whole file
  // plus simdjson's padding, read with plain read() calls.
  std::unique_ptr<char[]> buf(new char[size + kBareWalkPaddingBytes]);
  std::memset(buf.get() + size, 0, kBareWalkPaddingBytes);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, buf.get() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      return absl::UnavailableError(
          fmt::format("cannot read {} at byte {}: {}", path, done,
                      n == 0 ? "unexpected end" : std::strerror(errno)));
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return BareWalkBuffer(buf.get(), size);
}

}  // namespace tracelint::bench
