#ifndef TRACELINT_PARSERS_PARSE_OPTIONS_H_
#define TRACELINT_PARSERS_PARSE_OPTIONS_H_

#include <cstddef>

namespace tracelint {

struct ParseOptions {
  // Parser threads for one file; 0 = std::thread::hardware_concurrency().
  int threads = 0;
  // The trace's event array is cut at event boundaries into parts of about
  // this many decompressed bytes; parts are parsed in parallel and merged in
  // input order, so the result does not depend on this value.
  size_t split_bytes = size_t{4} << 20;
  // Largest single JSON document handed to the JSON parser (one part, or the
  // top-level keys around the event array). A single event larger than this
  // is rejected as damaged instead of growing memory without bound.
  size_t max_document_bytes = size_t{1} << 30;
};

}  // namespace tracelint

#endif  // TRACELINT_PARSERS_PARSE_OPTIONS_H_
