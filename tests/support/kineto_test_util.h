#ifndef TRACELINT_TESTS_SUPPORT_KINETO_TEST_UTIL_H_
#define TRACELINT_TESTS_SUPPORT_KINETO_TEST_UTIL_H_

// Helpers shared by the Kineto parser's tests.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "analyzer/model/timeline.h"
#include "tests/support/test_files.h"
#include "parsers/kineto/kineto_parser.h"

namespace tracelint::testing {

// Writes `text` into `dir` as `name` and parses it.
inline absl::StatusOr<Timeline> ParseText(const TempDir& dir, std::string_view text,
                                          const std::string& name = "t.json",
                                          ParseOptions options = {}) {
  return ParseKinetoJsonFile(dir.Write(name, text), options);
}

// The first slice named `name`, or kNoIndex.
inline SliceId FindSlice(const Timeline& tl, std::string_view name) {
  for (SliceId s = 0; s < tl.slice_count(); ++s) {
    if (tl.str(tl.slices().name[s]) == name) return s;
  }
  return kNoIndex;
}

}  // namespace tracelint::testing

#endif  // TRACELINT_TESTS_SUPPORT_KINETO_TEST_UTIL_H_
