#ifndef TRACELINT_PARSERS_COMMON_READ_AHEAD_H_
#define TRACELINT_PARSERS_COMMON_READ_AHEAD_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "parsers/common/input_stream.h"

namespace tracelint {

// Reads an InputStream in chunks, optionally on a background thread that
// stays up to `depth` chunks ahead, so decompression overlaps whatever the
// caller does with each chunk. depth 0 reads on the caller's thread.
class ReadAhead {
 public:
  ReadAhead(InputStream& in, size_t chunk_bytes, int depth);
  ~ReadAhead();
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // The next chunk, valid until the next call; empty at the end of the data.
  // After the end (or an error), the stream's damage() may be read.
  absl::StatusOr<std::string_view> Next();

 private:
  struct Chunk {
    // Not zero-filled: read() writes it, and zeroing first would fault in
    // every page on the caller's thread for nothing.
    std::unique_ptr<char[]> bytes;
    size_t size = 0;
    absl::Status status;
  };
  void Produce();

  InputStream& in_;
  size_t chunk_bytes_;
  std::thread producer_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Chunk> buffers_;
  std::deque<size_t> free_;
  std::deque<size_t> filled_;
  size_t in_use_ = static_cast<size_t>(-1);  // buffer handed to the caller
  bool producer_done_ = false;
  bool stop_ = false;
};

}  // namespace tracelint

#endif  // TRACELINT_PARSERS_COMMON_READ_AHEAD_H_
