#ifndef TRACELINT_PARSERS_COMMON_INPUT_STREAM_H_
#define TRACELINT_PARSERS_COMMON_INPUT_STREAM_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tracelint {

// Where and why a compressed stream stopped before its proper end.
struct StreamDamage {
  bool truncated = false;  // the input ended inside the compressed stream
  std::string what;        // "gzip stream ends early", "corrupt deflate data", ...
  int64_t compressed_offset = -1;
};

// Reads a file's bytes, decompressing gzip when the file starts with the gzip
// magic (1f 8b), whatever its name. Streaming, so there is no size limit
// (isa-l igzip when available, zlib otherwise); concatenated gzip members are
// read as one stream. Damage after the first decompressed byte is not an
// error: Read() returns what came before it and damage() says what happened,
// so callers can analyse the intact prefix.
class InputStream {
 public:
  class Decoder;

  static absl::StatusOr<std::unique_ptr<InputStream>> Open(const std::string& path);
  ~InputStream();

  // Fills up to `capacity` bytes of `out`; returns 0 at the end of the data.
  // An error is returned only when nothing can be decoded at all (bad gzip
  // header, unreadable file).
  absl::StatusOr<size_t> Read(char* out, size_t capacity);

  // Stops the output after `max_bytes` bytes (0: no cap; the default): a
  // gzip bomb is cut there instead of filling memory. Reading then ends as
  // at the end of the data, and limit_reached() tells whether more data
  // followed (an input of exactly `max_bytes` does not reach it).
  void set_max_output_bytes(uint64_t max_bytes) { max_output_bytes_ = max_bytes; }
  uint64_t max_output_bytes() const { return max_output_bytes_; }
  bool limit_reached() const { return limit_reached_; }

  const std::string& path() const { return path_; }
  bool compressed() const { return decoder_ != nullptr; }
  uint64_t file_bytes() const { return file_bytes_; }
  uint64_t decompressed_offset() const { return out_offset_; }
  const StreamDamage* damage() const { return damage_.truncated || !damage_.what.empty() ? &damage_ : nullptr; }

 private:
  InputStream() = default;
  // Refills in_ from the file; returns false at end of file.
  absl::StatusOr<bool> Refill();
  // Read() without the output cap.
  absl::StatusOr<size_t> ReadUncapped(char* out, size_t capacity);

  std::string path_;
  std::FILE* file_ = nullptr;
  uint64_t file_bytes_ = 0;
  uint64_t in_offset_ = 0;  // file offset of in_[0]
  std::vector<unsigned char> in_;
  size_t in_pos_ = 0;
  size_t in_len_ = 0;
  bool eof_ = false;
  uint64_t out_offset_ = 0;
  std::unique_ptr<Decoder> decoder_;
  StreamDamage damage_;
  bool done_ = false;
  bool mid_member_ = false;  // inside a gzip member
  uint64_t max_output_bytes_ = 0;
  bool limit_reached_ = false;
};

// The first `max_bytes` decompressed bytes of a file (less if shorter), for
// format sniffing. Damage is ignored here; the parser reports it.
absl::StatusOr<std::string> ReadHead(const std::string& path, size_t max_bytes);

// The first `max_bytes` bytes of a file as stored (not decompressed).
absl::StatusOr<std::string> ReadRawHead(const std::string& path, size_t max_bytes);

}  // namespace tracelint

#endif  // TRACELINT_PARSERS_COMMON_INPUT_STREAM_H_
