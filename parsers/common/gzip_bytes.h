#ifndef TRACELINT_PARSERS_COMMON_GZIP_BYTES_H_
#define TRACELINT_PARSERS_COMMON_GZIP_BYTES_H_

// One gzip member holding `bytes`, for tests, fuzz harnesses and test-data
// builders (no GoogleTest here, so the fuzz targets can use it too). Level 1
// where only the reader is exercised and speed matters, 6 otherwise.

#include <zlib.h>

#include <string>
#include <string_view>

namespace tracelint::testing {

inline std::string GzipBytes(std::string_view bytes, int level = 6) {
  z_stream z{};
  // 16 + MAX_WBITS: a gzip header and trailer, as trace writers produce.
  deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, bytes.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace tracelint::testing

#endif  // TRACELINT_PARSERS_COMMON_GZIP_BYTES_H_
