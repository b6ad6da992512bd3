#include "parsers/common/input_stream.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "fmt/format.h"

#if TRACELINT_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#else
#include <zlib.h>
#endif

namespace tracelint {
namespace {

constexpr size_t kReadChunkBytes = size_t{1} << 20;
constexpr size_t kMinReadChunkBytes = size_t{4} << 10;

absl::Status OpenError(const std::string& path, int err) {
  std::string msg = fmt::format("{}: cannot read: {}", path, std::strerror(err));
  if (err == ENOENT || err == ENOTDIR) return absl::NotFoundError(msg);
  if (err == EACCES || err == EPERM) return absl::PermissionDeniedError(msg);
  return absl::UnavailableError(msg);
}

}  // namespace

// One gzip member at a time; Step() consumes input and produces output.
class InputStream::Decoder {
 public:
  enum class Result { kProgress, kMemberEnd, kError };

  Decoder() { Reset(); }
#if !TRACELINT_HAVE_ISAL
  ~Decoder() { inflateEnd(&z_); }
#endif

  void Reset() {
#if TRACELINT_HAVE_ISAL
    isal_inflate_init(&state_);
    state_.crc_flag = ISAL_GZIP;
#else
    if (z_initialized_) inflateEnd(&z_);
    std::memset(&z_, 0, sizeof(z_));
    inflateInit2(&z_, 16 + MAX_WBITS);  // gzip wrapper only
    z_initialized_ = true;
#endif
  }

  // Whether the member's compressed data is complete and only its 8-byte
  // trailer (CRC-32 and length) is still to come.
  bool InTrailer() const {
#if TRACELINT_HAVE_ISAL
    return state_.block_state == ISAL_BLOCK_INPUT_DONE ||
           state_.block_state == ISAL_CHECKSUM_CHECK;
#else
    // zlib: 64 = in the last block, 128 = just after an end-of-block code.
    return (z_.data_type & 192) == 192;
#endif
  }

  // `in`/`out` advance by what was consumed/produced.
  Result Step(const unsigned char** in, size_t* in_len, char** out, size_t* out_len,
              std::string* error) {
    // The decoders count in 32 bits; feed at most 1 GiB per call.
    uint32_t in_n = static_cast<uint32_t>(std::min<size_t>(*in_len, size_t{1} << 30));
    uint32_t out_n = static_cast<uint32_t>(std::min<size_t>(*out_len, size_t{1} << 30));
#if TRACELINT_HAVE_ISAL
    state_.next_in = const_cast<unsigned char*>(*in);
    state_.avail_in = in_n;
    state_.next_out = reinterpret_cast<uint8_t*>(*out);
    state_.avail_out = out_n;
    int rc = isal_inflate(&state_);
    // On corrupt data isa-l can count one byte past its input (avail_in
    // wraps below 0): never more than it was given.
    size_t used = state_.avail_in <= in_n ? in_n - state_.avail_in : in_n;
    size_t made = out_n - state_.avail_out;
    *in += used;
    *in_len -= used;
    *out += made;
    *out_len -= made;
    if (rc < 0) {
      switch (rc) {
        case ISAL_INCORRECT_CHECKSUM: *error = "gzip checksum mismatch"; break;
        case ISAL_INVALID_WRAPPER: *error = "invalid gzip header"; break;
        case ISAL_UNSUPPORTED_METHOD: *error = "unsupported gzip compression method"; break;
        default: *error = fmt::format("corrupt deflate data (isa-l error {})", rc); break;
      }
      return Result::kError;
    }
    if (state_.block_state == ISAL_BLOCK_FINISH) return Result::kMemberEnd;
    return Result::kProgress;
#else
    z_.next_in = const_cast<unsigned char*>(*in);
    z_.avail_in = in_n;
    z_.next_out = reinterpret_cast<Bytef*>(*out);
    z_.avail_out = out_n;
    int rc = inflate(&z_, Z_NO_FLUSH);
    size_t used = in_n - z_.avail_in;
    size_t made = out_n - z_.avail_out;
    *in += used;
    *in_len -= used;
    *out += made;
    *out_len -= made;
    if (rc == Z_STREAM_END) return Result::kMemberEnd;
    if (rc == Z_OK || rc == Z_BUF_ERROR) return Result::kProgress;
    *error = fmt::format("corrupt gzip data ({})", z_.msg != nullptr ? z_.msg : "zlib error");
    return Result::kError;
#endif
  }

 private:
#if TRACELINT_HAVE_ISAL
  inflate_state state_;
#else
  z_stream z_;
  bool z_initialized_ = false;
#endif
};

InputStream::~InputStream() {
  if (file_ != nullptr) std::fclose(file_);
}

absl::StatusOr<std::unique_ptr<InputStream>> InputStream::Open(const std::string& path) {
  std::unique_ptr<InputStream> s(new InputStream());
  s->path_ = path;
  s->file_ = std::fopen(path.c_str(), "rb");
  if (s->file_ == nullptr) return OpenError(path, errno);
  size_t chunk_bytes = kReadChunkBytes;  // unknown size (a pipe): full chunks
  if (std::fseek(s->file_, 0, SEEK_END) == 0) {
    long size = std::ftell(s->file_);
    if (size > 0) s->file_bytes_ = static_cast<uint64_t>(size);
    if (size >= 0) {
      chunk_bytes = static_cast<size_t>(std::clamp<uint64_t>(
          static_cast<uint64_t>(size), kMinReadChunkBytes, kReadChunkBytes));
    }
    std::fseek(s->file_, 0, SEEK_SET);
  }
  // A file smaller than a chunk gets a buffer of its size: the vector is
  // zero-filled, and 1 MiB of that per open cost more than reading a small
  // trace (discovery sniffs every file; fuzzing opens thousands). It still
  // holds the whole file, so one read fills it as before.
  s->in_.resize(chunk_bytes);
  absl::StatusOr<bool> got = s->Refill();
  if (!got.ok()) return got.status();
  if (s->in_len_ >= 2 && s->in_[0] == 0x1f && s->in_[1] == 0x8b) {
    s->decoder_ = std::make_unique<Decoder>();
  }
  return s;
}

absl::StatusOr<bool> InputStream::Refill() {
  if (in_pos_ < in_len_) {
    std::memmove(in_.data(), in_.data() + in_pos_, in_len_ - in_pos_);
  }
  in_offset_ += in_pos_;
  in_len_ -= in_pos_;
  in_pos_ = 0;
  if (eof_) return false;
  size_t n = std::fread(in_.data() + in_len_, 1, in_.size() - in_len_, file_);
  if (n == 0) {
    if (std::ferror(file_)) return OpenError(path_, errno != 0 ? errno : EIO);
    eof_ = true;
    return false;
  }
  in_len_ += n;
  return true;
}

absl::StatusOr<size_t> InputStream::Read(char* out, size_t capacity) {
  if (max_output_bytes_ == 0 || done_ || capacity == 0) return ReadUncapped(out, capacity);
  if (out_offset_ >= max_output_bytes_) {
    // At the cap: one more byte tells a longer input from one that ends
    // exactly here. The probe's byte is not handed out.
    char probe;
    absl::StatusOr<size_t> n = ReadUncapped(&probe, 1);
    if (!n.ok()) return n.status();
    if (*n > 0) {
      --out_offset_;
      limit_reached_ = true;
    }
    done_ = true;
    return 0;
  }
  return ReadUncapped(out, static_cast<size_t>(std::min<uint64_t>(
                               capacity, max_output_bytes_ - out_offset_)));
}

absl::StatusOr<size_t> InputStream::ReadUncapped(char* out, size_t capacity) {
  if (done_ || capacity == 0) return 0;
  char* cursor = out;
  size_t room = capacity;
  while (room > 0) {
    if (decoder_ == nullptr && in_pos_ == in_len_ && !eof_ && room >= kReadChunkBytes) {
      // A plain file is read straight into the caller's buffer: copying it
      // through in_ cost a second pass over every byte.
      in_offset_ += in_len_;
      in_pos_ = in_len_ = 0;
      size_t n = std::fread(cursor, 1, room, file_);
      if (n == 0) {
        if (std::ferror(file_)) return OpenError(path_, errno != 0 ? errno : EIO);
        eof_ = true;
        done_ = true;
        break;
      }
      in_offset_ += n;
      cursor += n;
      room -= n;
      continue;
    }
    if (in_pos_ == in_len_) {
      absl::StatusOr<bool> more = Refill();
      if (!more.ok()) return more.status();
      if (!*more && in_len_ == 0) {
        if (decoder_ != nullptr && mid_member_) {
          // The decoder may still hold output of input it consumed: drain it
          // before calling the stream cut.
          const unsigned char* none = in_.data();
          size_t none_len = 0;
          size_t room_before = room;
          std::string error;
          Decoder::Result r = decoder_->Step(&none, &none_len, &cursor, &room, &error);
          if (r == Decoder::Result::kMemberEnd) {
            mid_member_ = false;
            continue;
          }
          if (r != Decoder::Result::kError && room < room_before) continue;
          damage_.truncated = true;
          damage_.what = r == Decoder::Result::kError ? error
                         : decoder_->InTrailer()
                             ? "gzip stream ends inside its 8-byte trailer (the data is "
                               "complete but its checksum and length are missing)"
                             : "gzip stream ends early";
          damage_.compressed_offset = static_cast<int64_t>(in_offset_);
        }
        done_ = true;
        break;
      }
    }
    if (decoder_ == nullptr) {
      size_t n = std::min(room, in_len_ - in_pos_);
      std::memcpy(cursor, in_.data() + in_pos_, n);
      in_pos_ += n;
      cursor += n;
      room -= n;
      continue;
    }
    if (!mid_member_) {
      // Between members: another member must start with the magic; trailing
      // zero padding (seen after some tar/gzip tools) is ignored.
      if (in_len_ - in_pos_ < 2 && !eof_) {
        absl::StatusOr<bool> more = Refill();
        if (!more.ok()) return more.status();
        continue;
      }
      if (in_len_ - in_pos_ >= 2 && in_[in_pos_] == 0x1f && in_[in_pos_ + 1] == 0x8b) {
        decoder_->Reset();
        mid_member_ = true;
      } else {
        bool all_zero = true;
        for (size_t i = in_pos_; i < in_len_; ++i) all_zero &= in_[i] == 0;
        if (!all_zero) {
          damage_.what = "bytes after the end of the gzip stream are not gzip data";
          damage_.compressed_offset = static_cast<int64_t>(in_offset_ + in_pos_);
        }
        done_ = true;
        break;
      }
    }
    const unsigned char* in = in_.data() + in_pos_;
    size_t in_len = in_len_ - in_pos_;
    std::string error;
    Decoder::Result r = decoder_->Step(&in, &in_len, &cursor, &room, &error);
    uint64_t stop_offset = in_offset_ + static_cast<uint64_t>(in - in_.data());
    in_pos_ = static_cast<size_t>(in - in_.data());
    if (r == Decoder::Result::kError) {
      if (out_offset_ == 0 && cursor == out) {
        return absl::InvalidArgumentError(fmt::format(
            "{}: {} at compressed byte {}", path_, error, stop_offset));
      }
      damage_.what = error;
      damage_.compressed_offset = static_cast<int64_t>(stop_offset);
      done_ = true;
      break;
    }
    if (r == Decoder::Result::kMemberEnd) mid_member_ = false;
  }
  size_t n = static_cast<size_t>(cursor - out);
  out_offset_ += n;
  return n;
}

absl::StatusOr<std::string> ReadHead(const std::string& path, size_t max_bytes) {
  absl::StatusOr<std::unique_ptr<InputStream>> in = InputStream::Open(path);
  if (!in.ok()) return in.status();
  // Sized from a plain file (one byte more tells its end) and grown if it
  // grew: zero-filling 64 KiB to sniff a 2 KB file was most of its cost.
  size_t initial = max_bytes;
  if (!(*in)->compressed() && (*in)->file_bytes() > 0) {
    initial = static_cast<size_t>(std::min<uint64_t>(max_bytes, (*in)->file_bytes() + 1));
  }
  std::string head(initial, '\0');
  size_t filled = 0;
  while (filled < max_bytes) {
    if (filled == head.size()) head.resize(std::min(max_bytes, 2 * head.size()));
    absl::StatusOr<size_t> n = (*in)->Read(head.data() + filled, head.size() - filled);
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    filled += *n;
  }
  head.resize(filled);
  return head;
}

absl::StatusOr<std::string> ReadRawHead(const std::string& path, size_t max_bytes) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return absl::NotFoundError(fmt::format("{}: {}", path, std::strerror(errno)));
  }
  std::string head(max_bytes, '\0');
  size_t n = std::fread(head.data(), 1, max_bytes, f);
  std::fclose(f);
  head.resize(n);
  return head;
}

}  // namespace tracelint
