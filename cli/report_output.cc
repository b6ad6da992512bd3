#include "cli/report_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string_view>

#include "fmt/format.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;

// The path with every symlink and `..` resolved, as far as it exists.
fs::path Resolved(const fs::path& p) {
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  if (ec) abs = p;
  fs::path r = fs::weakly_canonical(abs, ec);
  return ec ? abs.lexically_normal() : r;
}

bool IsInside(const fs::path& resolved, const fs::path& resolved_dir) {
  auto [dir_end, it] =
      std::mismatch(resolved_dir.begin(), resolved_dir.end(), resolved.begin(), resolved.end());
  return dir_end == resolved_dir.end();
}

struct FileId {
  dev_t dev;
  ino_t ino;
  nlink_t links;
  bool operator==(const FileId& o) const { return dev == o.dev && ino == o.ino; }
};

std::optional<FileId> IdOf(const fs::path& p) {
  struct stat st;
  if (::stat(p.c_str(), &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino, st.st_nlink};
}

// A file under `dir` (symlinks not followed, unreadable parts skipped) that
// is `id`; only searched when `id` has several names, so normal runs never
// walk the tree.
std::optional<fs::path> FindHardLink(const fs::path& dir, const FileId& id) {
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    struct stat st;
    if (::lstat(it->path().c_str(), &st) == 0 && st.st_dev == id.dev && st.st_ino == id.ino) {
      return it->path();
    }
  }
  return std::nullopt;
}

absl::Status Refuse(const std::string& output, std::string_view why) {
  return absl::InvalidArgumentError(
      fmt::format("refusing to write {}: {} (write the report elsewhere)", output, why));
}

std::string ErrnoText(int err) { return err != 0 ? std::strerror(err) : "unknown error"; }

absl::Status WriteFailed(const std::string& target, int err) {
  return absl::UnavailableError(
      fmt::format("cannot write the report to {}: {}", target, ErrnoText(err)));
}

// Writes all of `data` to `fd`; the errno of the first failure, or 0.
int WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return 0;
}

// `name` is the target as the user gave it, for messages.
absl::Status WriteInPlace(const std::string& report, const fs::path& target,
                          const std::string& name) {
  int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return WriteFailed(name, errno);
  int err = WriteAll(fd, report);
  if (::close(fd) != 0 && err == 0) err = errno;
  return err == 0 ? absl::OkStatus() : WriteFailed(name, err);
}

absl::Status WriteAtomically(const std::string& report, const fs::path& target,
                             const std::string& name) {
  std::string tmp = (target.parent_path() / ("." + target.filename().string() + ".tmp-XXXXXX"))
                        .string();
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return WriteFailed(name, errno);
  // mkstemp creates 0600; a report gets the usual permissions (umask applies).
  mode_t mask = ::umask(0);
  ::umask(mask);
  int err = 0;
  if (::fchmod(fd, 0666 & ~mask) != 0) err = errno;
  if (err == 0) err = WriteAll(fd, report);
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), target.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    return WriteFailed(name, err);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckOutputOutsideTraces(const std::string& output, const std::string& input_path) {
  if (IsStdoutPath(output)) return absl::OkStatus();
  const fs::path input = Resolved(input_path);
  const fs::path out = Resolved(output);
  std::error_code ec;
  const bool input_is_dir = fs::is_directory(input, ec);
  const fs::path input_dir = input_is_dir ? input : input.parent_path();
  if (out == input) return Refuse(output, fmt::format("it is the trace {}", input_path));
  if (IsInside(out, input_dir)) {
    return Refuse(output, fmt::format("it is inside the trace directory {}", input_dir.string()));
  }
  std::optional<FileId> out_id = IdOf(out);
  if (!out_id) return absl::OkStatus();
  if (std::optional<FileId> in_id = IdOf(input); in_id && *in_id == *out_id) {
    return Refuse(output, fmt::format("it is the same file as the trace {}", input_path));
  }
  if (input_is_dir && out_id->links > 1) {
    if (std::optional<fs::path> same = FindHardLink(input, *out_id)) {
      return Refuse(output, fmt::format("it is the same file as {}", same->string()));
    }
  }
  return absl::OkStatus();
}

absl::Status WriteReport(const std::string& report, const std::string& output_path,
                         std::ostream& out) {
  if (IsStdoutPath(output_path)) {
    errno = 0;
    out << report;
    out.flush();
    if (!out) return WriteFailed("standard output", errno);
    return absl::OkStatus();
  }
  const fs::path target = Resolved(output_path);
  std::error_code ec;
  fs::file_status st = fs::status(target, ec);
  if (!ec && fs::exists(st) && !fs::is_regular_file(st)) {
    if (fs::is_directory(st)) return WriteFailed(output_path, EISDIR);
    return WriteInPlace(report, target, output_path);
  }
  return WriteAtomically(report, target, output_path);
}

}  // namespace tracelint
