#ifndef TRACELINT_ANALYZER_BASE_STRINGS_H_
#define TRACELINT_ANALYZER_BASE_STRINGS_H_

// Debian 12's Abseil defines its own absl::string_view (not an alias of
// std::string_view), so absl's string helpers do not accept std::string_view.
// The model uses std::string_view throughout; these are the few helpers it
// needs. Formatting uses fmt.

#include <algorithm>
#include <cctype>
#include <string_view>

namespace tracelint {

inline bool Contains(std::string_view s, std::string_view needle) {
  return s.find(needle) != std::string_view::npos;
}

inline char AsciiLower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

inline bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && EqualsIgnoreCase(s.substr(0, prefix.size()), prefix);
}

inline bool ContainsIgnoreCase(std::string_view s, std::string_view needle) {
  if (needle.empty()) return true;
  if (s.size() < needle.size()) return false;
  for (size_t i = 0; i + needle.size() <= s.size(); ++i) {
    if (EqualsIgnoreCase(s.substr(i, needle.size()), needle)) return true;
  }
  return false;
}

// The C locale's isspace(): ' ', '\t', '\n', '\v', '\f', '\r'. Inline and
// locale-free, since parsers strip every number they read.
constexpr bool IsAsciiSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

inline std::string_view StripAsciiWhitespace(std::string_view s) {
  while (!s.empty() && IsAsciiSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsAsciiSpace(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_BASE_STRINGS_H_
