#ifndef TRACELINT_ANALYZER_BASE_JSON_ESCAPE_H_
#define TRACELINT_ANALYZER_BASE_JSON_ESCAPE_H_

#include <string>
#include <string_view>

namespace tracelint {

// The body of a JSON string literal for `s` (quotes, backslashes and
// control characters escaped; other bytes passed through as UTF-8, with
// invalid UTF-8 replaced by U+FFFD so the document stays valid).
std::string JsonEscape(std::string_view s);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_BASE_JSON_ESCAPE_H_
