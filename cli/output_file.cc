#include "cli/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

#include "cli/temp_files.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;

constexpr size_t kBufferBytes = size_t{1} << 16;

fs::path Resolved(const fs::path& p) {
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  if (ec) abs = p;
  fs::path r = fs::weakly_canonical(abs, ec);
  return ec ? abs.lexically_normal() : r;
}

// Bytes of the longest prefix of `s` no longer than `max` that ends on a
// UTF-8 character boundary.
size_t Utf8Prefix(std::string_view s, size_t max) {
  if (s.size() <= max) return s.size();
  size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return n;
}

}  // namespace

struct FdStreamBuf::Deflater {
  z_stream z{};
  bool ok = false;
  Deflater() {
    // windowBits 15 + 16: a gzip member, as Kineto writes its .json.gz.
    ok = deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
  }
  ~Deflater() { deflateEnd(&z); }
};

FdStreamBuf::FdStreamBuf(int fd, bool gzip) : fd_(fd) {
  buffer_.reserve(kBufferBytes);
  if (gzip) {
    deflater_ = std::make_unique<Deflater>();
    if (!deflater_->ok) error_ = ENOMEM;
  }
}

FdStreamBuf::~FdStreamBuf() = default;

bool FdStreamBuf::WriteFd(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = errno;
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool FdStreamBuf::Drain(bool finish) {
  if (error_ != 0) {
    buffer_.clear();
    return false;
  }
  if (!deflater_) {
    bool ok = WriteFd(buffer_);
    buffer_.clear();
    return ok;
  }
  z_stream& z = deflater_->z;
  z.next_in = reinterpret_cast<Bytef*>(buffer_.data());
  z.avail_in = static_cast<uInt>(buffer_.size());
  char out[kBufferBytes];
  int rc;
  do {
    z.next_out = reinterpret_cast<Bytef*>(out);
    z.avail_out = sizeof(out);
    rc = deflate(&z, finish ? Z_FINISH : Z_NO_FLUSH);
    if (rc == Z_STREAM_ERROR) {
      error_ = EIO;
      break;
    }
    if (!WriteFd(std::string_view(out, sizeof(out) - z.avail_out))) break;
  } while (z.avail_out == 0 || (finish && rc != Z_STREAM_END));
  buffer_.clear();
  return error_ == 0;
}

FdStreamBuf::int_type FdStreamBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  buffer_.push_back(traits_type::to_char_type(c));
  if (buffer_.size() >= kBufferBytes && !Drain(false)) return traits_type::eof();
  return c;
}

std::streamsize FdStreamBuf::xsputn(const char* s, std::streamsize n) {
  if (error_ != 0) return 0;
  buffer_.append(s, static_cast<size_t>(n));
  if (buffer_.size() >= kBufferBytes && !Drain(false)) return 0;
  return n;
}

int FdStreamBuf::sync() {
  // A gzip stream is flushed only when finished: a sync point per flush
  // would cost compression for nothing.
  if (deflater_) return error_ == 0 ? 0 : -1;
  return Drain(false) ? 0 : -1;
}

bool FdStreamBuf::Finish() { return Drain(true); }

std::string TempNameFor(std::string_view file_name, size_t name_max) {
  constexpr std::string_view kSuffix = ".tmp-XXXXXX";
  const size_t room = name_max > kSuffix.size() + 2 ? name_max - kSuffix.size() - 1 : 1;
  return "." + std::string(file_name.substr(0, Utf8Prefix(file_name, room))) +
         std::string(kSuffix);
}

absl::Status WriteFailedStatus(std::string_view what, std::string_view target, int err) {
  // The reader went away (`| head -c1`), or stdout was closed (`>&-`, held
  // by main as a read-only /dev/null): nobody is left to tell.
  if (err == EPIPE || err == EBADF) {
    return absl::CancelledError(fmt::format("{}: {} is closed", what, target));
  }
  return absl::UnavailableError(fmt::format("cannot write {} to {}: {}", what, target,
                                            err != 0 ? std::strerror(err) : "unknown error"));
}

struct OutputFile::Guard {
  TempFileGuard guard;
};

OutputFile::OutputFile(std::string target, std::string temp, std::string name, std::string what,
                       int fd, bool gzip)
    : target_(std::move(target)),
      temp_(std::move(temp)),
      name_(std::move(name)),
      what_(std::move(what)),
      fd_(fd),
      buf_(fd, gzip),
      stream_(&buf_) {
  if (!temp_.empty()) guard_ = std::make_unique<Guard>(Guard{TempFileGuard(temp_)});
}

absl::StatusOr<std::unique_ptr<OutputFile>> OutputFile::Open(const std::string& path,
                                                             std::string_view what, bool gzip) {
  const fs::path target = Resolved(path);
  std::error_code ec;
  fs::file_status st = fs::status(target, ec);
  if (!ec && fs::exists(st) && !fs::is_regular_file(st)) {
    if (fs::is_directory(st)) return WriteFailedStatus(what, path, EISDIR);
    // A device or a pipe: written in place (there is nothing to rename).
    int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return WriteFailedStatus(what, path, errno);
    return std::unique_ptr<OutputFile>(
        new OutputFile(target.string(), "", path, std::string(what), fd, gzip));
  }
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  long name_max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  std::string temp =
      (dir / TempNameFor(target.filename().string(),
                         name_max > 0 ? static_cast<size_t>(name_max) : NAME_MAX))
          .string();
  int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) return WriteFailedStatus(what, path, errno);
  // mkstemp creates 0600; an output gets the usual permissions (umask).
  mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd, 0666 & ~mask) != 0) {
    int err = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    return WriteFailedStatus(what, path, err);
  }
  return std::unique_ptr<OutputFile>(
      new OutputFile(target.string(), temp, path, std::string(what), fd, gzip));
}

absl::Status OutputFile::Failed(int err) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  guard_.reset();
  done_ = true;
  return WriteFailedStatus(what_, name_, err);
}

absl::Status OutputFile::Commit() {
  if (done_) return absl::FailedPreconditionError("output already committed");
  stream_.flush();
  if (!buf_.Finish() || !stream_) return Failed(buf_.error() != 0 ? buf_.error() : EIO);
  if (!temp_.empty() && ::fsync(fd_) != 0) return Failed(errno);
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    int err = errno;
    fd_ = -1;
    return Failed(err);
  }
  if (!temp_.empty() && ::rename(temp_.c_str(), target_.c_str()) != 0) return Failed(errno);
  guard_.reset();
  done_ = true;
  return absl::OkStatus();
}

OutputFile::~OutputFile() {
  if (!done_) {
    if (fd_ >= 0) ::close(fd_);
    if (!temp_.empty()) ::unlink(temp_.c_str());
  }
}

}  // namespace tracelint
