#ifndef TRACELINT_PARSERS_PARSE_OPTIONS_H_
#define TRACELINT_PARSERS_PARSE_OPTIONS_H_

#include <cstddef>
#include <cstdint>

namespace tracelint {

struct ParseOptions {
  // Parser threads for one file; 0 = std::thread::hardware_concurrency().
  int threads = 0;
  // The trace's event array is cut at event boundaries into parts of about
  // this many decompressed bytes; parts are parsed in parallel and merged in
  // input order, so the result does not depend on this value. 0 = from the
  // input's size (AutoSplitBytes).
  size_t split_bytes = 0;
  // Largest single JSON document handed to the JSON parser (one part, or the
  // top-level keys around the event array). A single event larger than this
  // is rejected as damaged instead of growing memory without bound.
  size_t max_document_bytes = size_t{1} << 30;
};

// Parts of 1/64 of the (estimated) JSON size, between 1 and 4 MiB. Every
// part in flight, its simdjson parser and the read-ahead chunks scale with
// the part size, so a 100 MB trace held ~35 MB more with 4 MiB parts than
// with 1 MiB ones at the same speed, while a 1 GB trace parses ~5% faster
// with 4 MiB parts (fewer parts to set up and merge). `compressed`: the
// size is the .gz's, which inflates ~10-25x (corpus); 8x is assumed.
inline size_t AutoSplitBytes(uint64_t file_bytes, bool compressed) {
  constexpr size_t kMin = size_t{1} << 20;
  constexpr size_t kMax = size_t{4} << 20;
  uint64_t json_bytes = compressed ? file_bytes * 8 : file_bytes;
  uint64_t split = json_bytes / 64;
  return split < kMin ? kMin : split > kMax ? kMax : static_cast<size_t>(split);
}

}  // namespace tracelint

#endif  // TRACELINT_PARSERS_PARSE_OPTIONS_H_
