#include "analyzer/base/escape.h"

#include <cstdint>

#include "fmt/format.h"

namespace tracelint {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the valid UTF-8 sequence at the start of `s`, or 0 when the
// bytes there are not one (Unicode 15, table 3-7).
size_t ValidSequenceLength(std::string_view s) {
  auto b = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
  const uint8_t c = b(0);
  if (c < 0x80) return 1;
  size_t n;
  uint8_t lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (s.size() < n) return 0;
  if (b(1) < lo || b(1) > hi) return 0;
  for (size_t i = 2; i < n; ++i) {
    if (b(i) < 0x80 || b(i) > 0xBF) return 0;
  }
  return n;
}

// Length of the maximal invalid subpart at the start of `s` (at least 1):
// a valid lead byte plus the continuation bytes it could still take.
size_t InvalidSubpartLength(std::string_view s) {
  const uint8_t c = static_cast<uint8_t>(s[0]);
  if (c < 0xC2 || c > 0xF4) return 1;
  const size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
  uint8_t lo = 0x80, hi = 0xBF;
  if (c == 0xE0) lo = 0xA0;
  if (c == 0xED) hi = 0x9F;
  if (c == 0xF0) lo = 0x90;
  if (c == 0xF4) hi = 0x8F;
  size_t i = 1;
  while (i < need && i < s.size()) {
    const uint8_t next = static_cast<uint8_t>(s[i]);
    if (next < (i == 1 ? lo : 0x80) || next > (i == 1 ? hi : 0xBF)) break;
    ++i;
  }
  return i;
}

// Calls valid(character bytes) or invalid() for each character of `s`.
template <typename Valid, typename Invalid>
void ForEachCharacter(std::string_view s, Valid valid, Invalid invalid) {
  while (!s.empty()) {
    size_t n = ValidSequenceLength(s);
    if (n == 0) {
      invalid();
      s.remove_prefix(InvalidSubpartLength(s));
    } else {
      valid(s.substr(0, n));
      s.remove_prefix(n);
    }
  }
}

bool IsC1(std::string_view ch) {
  return ch.size() == 2 && static_cast<uint8_t>(ch[0]) == 0xC2 &&
         static_cast<uint8_t>(ch[1]) < 0xA0;
}

// The visible escape for a control character, or empty when `ch` is none.
std::string ControlEscape(std::string_view ch) {
  if (ch.size() == 1) {
    const uint8_t c = static_cast<uint8_t>(ch[0]);
    switch (c) {
      case '\n': return "\\n";
      case '\r': return "\\r";
      case '\t': return "\\t";
      case 0x1B: return "\\e";
      default:
        if (c < 0x20 || c == 0x7F) return fmt::format("\\x{:02x}", c);
        return {};
    }
  }
  if (IsC1(ch)) return fmt::format("\\u{{{:02x}}}", static_cast<uint8_t>(ch[1]));
  return {};
}

}  // namespace

std::string SanitizeUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  ForEachCharacter(
      s, [&](std::string_view ch) { out += ch; }, [&] { out += kReplacement; });
  return out;
}

bool IsValidUtf8(std::string_view s) {
  while (!s.empty()) {
    size_t n = ValidSequenceLength(s);
    if (n == 0) return false;
    s.remove_prefix(n);
  }
  return true;
}

std::string EscapeTerminal(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  ForEachCharacter(
      s,
      [&](std::string_view ch) {
        std::string esc = ControlEscape(ch);
        if (esc.empty()) {
          out += ch;
        } else {
          out += esc;
        }
      },
      [&] { out += kReplacement; });
  return out;
}

std::string EscapeMarkdownCell(std::string_view s) {
  std::string out;
  for (char c : EscapeTerminal(s)) {
    switch (c) {
      case '|': out += "\\|"; break;
      case '\\': out += "\\\\"; break;
      case '`': out += "\\`"; break;
      case '*': out += "\\*"; break;
      case '_': out += "\\_"; break;
      case '[': out += "\\["; break;
      case ']': out += "\\]"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string EscapeHtml(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  ForEachCharacter(
      s,
      [&](std::string_view ch) {
        if (ch.size() == 1) {
          switch (ch[0]) {
            case '&': out += "&amp;"; return;
            case '<': out += "&lt;"; return;
            case '>': out += "&gt;"; return;
            case '"': out += "&quot;"; return;
            case '\'': out += "&#39;"; return;
            case '\t':
            case '\n': out += ch; return;
            default: break;
          }
        }
        if (!ControlEscape(ch).empty()) {
          out += kReplacement;
        } else {
          out += ch;
        }
      },
      [&] { out += kReplacement; });
  return out;
}

std::string_view TruncateUtf8(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t end = max_bytes;
  // Back up over continuation bytes to the start of the cut character.
  while (end > 0 && (static_cast<uint8_t>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end);
}

}  // namespace tracelint
