#include "analyzer/base/json_escape.h"

#include "analyzer/base/escape.h"
#include "fmt/format.h"

namespace tracelint {

std::string JsonEscape(std::string_view s) {
  // JSON must be UTF-8; trace and path names need not be.
  std::string clean;
  if (!IsValidUtf8(s)) {
    clean = SanitizeUtf8(s);
    s = clean;
  }
  std::string out;
  out.reserve(s.size() + 2);
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace tracelint
