#include "tools/gen_kineto/byte_sink.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include <isa-l/igzip_lib.h>

#include "fmt/format.h"

namespace tracelint::gen {
namespace {

absl::Status ErrnoError(std::string_view what, const std::string& path) {
  return absl::UnavailableError(
      fmt::format("{} {}: {}", what, path, std::strerror(errno)));
}

class FileSink : public ByteSink {
 public:
  FileSink(std::FILE* file, std::string path)
      : file_(file), path_(std::move(path)) {}
  ~FileSink() override {
    if (file_ != nullptr) std::fclose(file_);
  }

  absl::Status Write(std::string_view bytes) override {
    if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
      return ErrnoError("write", path_);
    }
    return absl::OkStatus();
  }

  absl::Status Close() override {
    std::FILE* f = file_;
    file_ = nullptr;
    if (f != nullptr && std::fclose(f) != 0) return ErrnoError("close", path_);
    return absl::OkStatus();
  }

 protected:
  std::FILE* file_;
  std::string path_;
};

class GzipFileSink : public FileSink {
 public:
  GzipFileSink(std::FILE* file, std::string path, int level)
      : FileSink(file, std::move(path)), out_(kOutBytes) {
    isal_deflate_init(&stream_);
    stream_.gzip_flag = IGZIP_GZIP;
    stream_.level = static_cast<uint32_t>(level);
    level_buf_.resize(LevelBufBytes(level));
    stream_.level_buf = level_buf_.data();
    stream_.level_buf_size = static_cast<uint32_t>(level_buf_.size());
  }

  absl::Status Write(std::string_view bytes) override {
    // avail_in is 32-bit: feed large writes in slices.
    while (!bytes.empty()) {
      size_t n = std::min<size_t>(bytes.size(), size_t{1} << 30);
      if (absl::Status s = Deflate(bytes.substr(0, n), false); !s.ok()) {
        return s;
      }
      bytes.remove_prefix(n);
    }
    return absl::OkStatus();
  }

  absl::Status Close() override {
    if (file_ == nullptr) return absl::OkStatus();
    if (absl::Status s = Deflate({}, true); !s.ok()) return s;
    return FileSink::Close();
  }

 private:
  static constexpr size_t kOutBytes = size_t{1} << 20;

  static size_t LevelBufBytes(int level) {
    switch (level) {
      case 0: return ISAL_DEF_LVL0_DEFAULT;
      case 1: return ISAL_DEF_LVL1_DEFAULT;
      case 2: return ISAL_DEF_LVL2_DEFAULT;
      default: return ISAL_DEF_LVL3_DEFAULT;
    }
  }

  absl::Status Deflate(std::string_view in, bool finish) {
    stream_.next_in =
        reinterpret_cast<uint8_t*>(const_cast<char*>(in.data()));
    stream_.avail_in = static_cast<uint32_t>(in.size());
    stream_.end_of_stream = finish ? 1 : 0;
    stream_.flush = NO_FLUSH;
    do {
      stream_.next_out = out_.data();
      stream_.avail_out = static_cast<uint32_t>(out_.size());
      if (int rc = isal_deflate(&stream_); rc != COMP_OK) {
        return absl::InternalError(
            fmt::format("isal_deflate failed ({}) for {}", rc, path_));
      }
      size_t produced = out_.size() - stream_.avail_out;
      if (produced > 0 &&
          std::fwrite(out_.data(), 1, produced, file_) != produced) {
        return ErrnoError("write", path_);
      }
    } while (stream_.avail_in > 0 ||
             (finish && stream_.internal_state.state != ZSTATE_END));
    return absl::OkStatus();
  }

  isal_zstream stream_;
  std::vector<uint8_t> level_buf_;
  std::vector<uint8_t> out_;
};

absl::StatusOr<std::FILE*> OpenForWrite(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return ErrnoError("cannot create", path);
  // Large stdio buffer: the generator hands over ~1 MiB chunks anyway, this
  // only saves syscalls for the gzip path's smaller pieces.
  std::setvbuf(f, nullptr, _IOFBF, size_t{4} << 20);
  return f;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ByteSink>> OpenFileSink(
    const std::string& path) {
  absl::StatusOr<std::FILE*> f = OpenForWrite(path);
  if (!f.ok()) return f.status();
  return std::unique_ptr<ByteSink>(new FileSink(*f, path));
}

absl::StatusOr<std::unique_ptr<ByteSink>> OpenGzipFileSink(
    const std::string& path, int level) {
  if (level < 0 || level > 3) {
    return absl::InvalidArgumentError(
        fmt::format("igzip level must be 0..3, got {}", level));
  }
  absl::StatusOr<std::FILE*> f = OpenForWrite(path);
  if (!f.ok()) return f.status();
  return std::unique_ptr<ByteSink>(new GzipFileSink(*f, path, level));
}

}  // namespace tracelint::gen
