#ifndef TRACELINT_BENCH_GZIP_BENCH_H_
#define TRACELINT_BENCH_GZIP_BENCH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tracelint::bench {

// gzip-compresses `in` into `out` with zlib at `level` (6 is gzip's and
// Python's gzip module default is 9; the level barely moves inflate speed).
absl::Status CompressGzipFile(const std::string& in, const std::string& out,
                              int level);

struct DecompressRun {
  std::string library;  // "igzip (isa-l)", "libdeflate", "zlib"
  bool streaming = false;
  double seconds = 0;
  int64_t output_bytes = 0;
};

// Decompresses the in-memory .gz with each library, output discarded
// (igzip and zlib stream through a 4 MiB window; libdeflate needs the whole
// output buffer, sized from the gzip trailer). Fails when a library's output
// size differs from `expected_bytes`.
absl::StatusOr<std::vector<DecompressRun>> MeasureGzipDecompression(
    const std::string& gz_path, int64_t expected_bytes);

}  // namespace tracelint::bench

#endif  // TRACELINT_BENCH_GZIP_BENCH_H_
