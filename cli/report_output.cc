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

#include "analyzer/base/escape.h"
#include "cli/output_file.h"
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

namespace {

// The same file: one resolved path, or (both existing) one inode.
bool SameFile(const std::string& a, const std::string& b) {
  if (Resolved(a) == Resolved(b)) return true;
  std::optional<FileId> ia = IdOf(Resolved(a));
  std::optional<FileId> ib = IdOf(Resolved(b));
  return ia && ib && *ia == *ib;
}

}  // namespace

absl::Status CheckOutputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                          const std::vector<std::string>& traces,
                          const std::vector<std::string>& others) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& [flag, path] = outputs[i];
    if (path.empty() || IsStdoutPath(path)) continue;
    for (const std::string& trace : traces) {
      if (absl::Status s = CheckOutputOutsideTraces(path, trace); !s.ok()) return s;
    }
    for (const std::string& input : others) {
      if (!input.empty() && SameFile(path, input)) {
        return Refuse(path, fmt::format("{} names the input {}", flag, input));
      }
    }
    for (size_t j = 0; j < i; ++j) {
      const auto& [other_flag, other_path] = outputs[j];
      if (other_path.empty() || IsStdoutPath(other_path)) continue;
      if (SameFile(path, other_path)) {
        return Refuse(path, fmt::format("{} and {} name the same file", other_flag, flag));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status WriteToStream(std::string_view text, std::ostream& out, std::string_view what) {
  errno = 0;
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.flush();
  if (out) return absl::OkStatus();
  int err = errno;
  if (auto* fd_buf = dynamic_cast<FdStreamBuf*>(out.rdbuf()); fd_buf != nullptr) {
    err = fd_buf->error();
  }
  return WriteFailedStatus(what, "standard output", err);
}

absl::Status WriteReport(const std::string& report, const std::string& output_path,
                         std::ostream& out) {
  if (IsStdoutPath(output_path)) return WriteToStream(report, out, "the report");
  absl::StatusOr<std::unique_ptr<OutputFile>> file =
      OutputFile::Open(output_path, "the report", /*gzip=*/false);
  if (!file.ok()) return file.status();
  (*file)->stream() << report;
  return (*file)->Commit();
}

void PrintWriteError(std::ostream& err, const absl::Status& status) {
  if (status.ok() || IsQuietWriteError(status)) return;
  err << "tracelint: " << EscapeTerminal(std::string(status.message())) << "\n";
}

}  // namespace tracelint
