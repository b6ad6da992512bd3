#ifndef TRACELINT_TOOLS_GEN_KINETO_BYTE_SINK_H_
#define TRACELINT_TOOLS_GEN_KINETO_BYTE_SINK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tracelint::gen {

// Where generated trace bytes go. Writes arrive in chunks of about 1 MiB.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual absl::Status Write(std::string_view bytes) = 0;
  // Flushes and releases the destination; no Write after it.
  virtual absl::Status Close() = 0;
};

// Keeps everything in memory (tests, small traces).
class StringSink : public ByteSink {
 public:
  absl::Status Write(std::string_view bytes) override {
    data_.append(bytes);
    return absl::OkStatus();
  }
  absl::Status Close() override { return absl::OkStatus(); }
  const std::string& data() const { return data_; }

 private:
  std::string data_;
};

// Plain file. The file is written to `path` directly; a partial file is
// left behind on error.
absl::StatusOr<std::unique_ptr<ByteSink>> OpenFileSink(const std::string& path);

// gzip file compressed on the fly with isa-l's igzip at `level` (0..3;
// igzip levels are its own scale, 1 is its default). igzip is used because
// multi-GB benchmark traces must compress at hundreds of MB/s.
absl::StatusOr<std::unique_ptr<ByteSink>> OpenGzipFileSink(
    const std::string& path, int level = 1);

}  // namespace tracelint::gen

#endif  // TRACELINT_TOOLS_GEN_KINETO_BYTE_SINK_H_
