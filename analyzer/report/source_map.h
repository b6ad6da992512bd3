#ifndef TRACELINT_ANALYZER_REPORT_SOURCE_MAP_H_
#define TRACELINT_ANALYZER_REPORT_SOURCE_MAP_H_

// Maps paths recorded on the profiling host to files of the checkout that
// SARIF annotates (docs/design/contract.md, "SARIF locations").

#include <string>
#include <string_view>

namespace tracelint {

// The path of `host_path` relative to `source_root` ('/'-separated), or ""
// when no file of the checkout matches. Leading components are removed one
// at a time, the fewest first, until what is left names a regular file
// under the root: the longest (most specific) matching suffix wins, so
// /home/ci/repo/src/train.py maps to src/train.py rather than to a
// top-level train.py. Suffixes with "." or ".." components never match, so
// the result cannot leave the root.
std::string MapToSourceRoot(std::string_view host_path, const std::string& source_root);

// An RFC 3986 URI path: '/'-separated, unreserved bytes kept, others
// percent-encoded.
std::string PercentEncodePath(std::string_view path);

// file:// URI of an absolute path ("file:///a/b"); a directory gets a
// trailing slash when `directory` is set (SARIF's originalUriBaseIds).
std::string FileUri(const std::string& absolute_path, bool directory);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_REPORT_SOURCE_MAP_H_
