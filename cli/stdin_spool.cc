#include "cli/stdin_spool.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>

#include "analyzer/base/byte_size.h"
#include "cli/temp_files.h"
#include "fmt/format.h"
#include "parsers/format_registry.h"

namespace tracelint {
namespace {

constexpr size_t kChunkBytes = size_t{1} << 20;

// Reads up to `n` bytes; the count (0 at the end), or -1 with errno set.
using ReadFn = std::function<ssize_t(char* out, size_t n)>;

// Fills `buf` up to `want` bytes or the end of the input (a pipe hands
// over what it has, a few KiB at a time). -1 with errno on a read error.
ssize_t FillUpTo(const ReadFn& read, std::string& buf, size_t want) {
  size_t have = 0;
  buf.resize(want);
  while (have < want) {
    ssize_t n = read(buf.data() + have, want - have);
    if (n < 0) return -1;
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  buf.resize(have);
  return static_cast<ssize_t>(have);
}

std::string TempDir() {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);  // TMPDIR
  return ec ? std::string("/tmp") : dir.string();
}

absl::Status CopyFailed(const std::string& label, const std::string& dir, int err) {
  return absl::UnavailableError(fmt::format("{}: cannot copy the trace into a temporary file in "
                                            "{}: {}",
                                            label, dir, std::strerror(err)));
}

}  // namespace

struct SpooledTrace::Guard {
  TempFileGuard guard;
};

SpoolLimits SpoolLimitsFor(const ParseLimits& limits, uint64_t memory_budget_bytes) {
  SpoolLimits out;
  if (memory_budget_bytes > 0) {
    out.max_bytes = memory_budget_bytes;
    out.max_bytes_why = fmt::format("the memory budget of {}", HumanByteSize(memory_budget_bytes));
  }
  // The decompressed-size limit caps what the parser reads; a copy past it
  // would be read by nobody. (Compressed input inflates: the cap on its
  // copy is the same number, never tighter than the parser's.)
  if (limits.max_decompressed_bytes && *limits.max_decompressed_bytes > 0 &&
      (out.max_bytes == 0 || *limits.max_decompressed_bytes < out.max_bytes)) {
    out.max_bytes = *limits.max_decompressed_bytes;
    out.max_bytes_why =
        fmt::format("the decompressed-size limit of {} (--max-decompressed-bytes)",
                    FormatByteSize(out.max_bytes));
  }
  return out;
}

bool IsStreamPath(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;
  return S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode);
}

namespace {

absl::StatusOr<std::unique_ptr<SpooledTrace>> Spool(const ReadFn& read, const std::string& label,
                                                    const SpoolLimits& limits,
                                                    std::unique_ptr<SpooledTrace> trace,
                                                    std::string& path, uint64_t& bytes,
                                                    std::optional<std::string>& cut_warning,
                                                    const std::function<void(const std::string&)>&
                                                        guard) {
  // The head first, in memory: nothing is written for input of no known
  // format (cat /dev/zero).
  std::string chunk;
  if (FillUpTo(read, chunk, kSniffBytes) < 0) {
    return absl::UnavailableError(
        fmt::format("{}: cannot read: {}", label, std::strerror(errno)));
  }
  if (chunk.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: empty input{}; expected a trace", label, label == "-" ? " on stdin" : ""));
  }
  std::string why;
  InputFormat format = SniffTraceHead(chunk, &why);
  if (format == InputFormat::kUnknown) {
    return absl::InvalidArgumentError(fmt::format("{}: {}", label, why));
  }
  const std::string dir = TempDir();
  struct statvfs fs {};
  uint64_t free_bytes = UINT64_MAX;
  if (::statvfs(dir.c_str(), &fs) == 0) {
    free_bytes = static_cast<uint64_t>(fs.f_bavail) * static_cast<uint64_t>(fs.f_frsize);
  }
  // What TMPDIR can take while keeping its reserve.
  const uint64_t room =
      free_bytes > limits.reserve_free_bytes ? free_bytes - limits.reserve_free_bytes : 0;
  uint64_t cap = limits.max_bytes;
  std::string cap_why = limits.max_bytes_why;
  if (free_bytes != UINT64_MAX && (cap == 0 || room < cap)) {
    cap = room;
    cap_why = fmt::format("the free space of {} ({} free, {} kept free)", dir,
                          HumanByteSize(free_bytes), HumanByteSize(limits.reserve_free_bytes));
  }
  if (free_bytes != UINT64_MAX && room < chunk.size()) {
    return absl::UnavailableError(fmt::format(
        "{}: cannot copy the trace into a temporary file: {}", label, cap_why));
  }
  // The parsers tell gzip by its magic; the name says which parser reads it.
  const std::string suffix = format == InputFormat::kXSpace ? ".xplane.pb" : ".json";
  path = (std::filesystem::path(dir) / ("tracelint-stdin-XXXXXX" + suffix)).string();
  int fd = ::mkostemps(path.data(), static_cast<int>(suffix.size()), O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    path.clear();
    return CopyFailed(label, dir, err);
  }
  guard(path);
  bool cut = false;
  while (!chunk.empty()) {
    std::string_view data = chunk;
    if (cap > 0 && bytes + data.size() > cap) {
      data = data.substr(0, cap - bytes);
      cut = true;
    }
    while (!data.empty()) {
      ssize_t n = ::write(fd, data.data(), data.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        int err = errno;
        ::close(fd);
        return CopyFailed(label, dir, err);
      }
      data.remove_prefix(static_cast<size_t>(n));
      bytes += static_cast<uint64_t>(n);
    }
    if (cut) break;
    if (FillUpTo(read, chunk, kChunkBytes) < 0) {
      int err = errno;
      ::close(fd);
      return absl::UnavailableError(
          fmt::format("{}: cannot read: {}", label, std::strerror(err)));
    }
  }
  if (::close(fd) != 0) return CopyFailed(label, dir, errno);
  if (cut) {
    cut_warning = fmt::format(
        "{}: stopped copying the input at {} ({}): the trace was analysed from its first {} "
        "bytes",
        label, cap_why, HumanByteSize(cap), bytes);
  }
  return trace;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SpooledTrace>> SpooledTrace::FromStream(
    std::istream& in, const std::string& label, const SpoolLimits& limits) {
  ReadFn read = [&in](char* out, size_t n) -> ssize_t {
    in.read(out, static_cast<std::streamsize>(n));
    if (in.bad()) {
      errno = EIO;
      return -1;
    }
    return static_cast<ssize_t>(in.gcount());
  };
  std::unique_ptr<SpooledTrace> trace(new SpooledTrace());
  trace->label_ = label;
  SpooledTrace* t = trace.get();
  return Spool(read, label, limits, std::move(trace), t->path_, t->bytes_, t->cut_warning_,
               [t](const std::string& p) { t->guard_ = std::make_unique<Guard>(Guard{TempFileGuard(p)}); });
}

absl::StatusOr<std::unique_ptr<SpooledTrace>> SpooledTrace::FromFd(int fd,
                                                                   const std::string& label,
                                                                   const SpoolLimits& limits) {
  ReadFn read = [fd](char* out, size_t n) -> ssize_t {
    for (;;) {
      ssize_t got = ::read(fd, out, n);
      if (got < 0 && errno == EINTR) continue;
      return got;
    }
  };
  std::unique_ptr<SpooledTrace> trace(new SpooledTrace());
  trace->label_ = label;
  SpooledTrace* t = trace.get();
  return Spool(read, label, limits, std::move(trace), t->path_, t->bytes_, t->cut_warning_,
               [t](const std::string& p) { t->guard_ = std::make_unique<Guard>(Guard{TempFileGuard(p)}); });
}

SpooledTrace::~SpooledTrace() {
  if (!path_.empty()) ::unlink(path_.c_str());
}

}  // namespace tracelint
