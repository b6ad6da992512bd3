#ifndef TRACELINT_ANALYZER_BASE_ESCAPE_H_
#define TRACELINT_ANALYZER_BASE_ESCAPE_H_

// Escaping for every medium a report reaches. Trace names, directory names
// and paths are hostile input: they may hold control bytes (ESC sequences,
// BEL, CR, newlines that forge report lines), Markdown/HTML syntax, or bytes
// that are not UTF-8. Every string from a trace or a path goes through the
// function for its medium; JSON goes through JsonEscape (json_escape.h),
// which replaces invalid UTF-8 too.

#include <string>
#include <string_view>

namespace tracelint {

// `s` with every byte sequence that is not valid UTF-8 (overlong forms,
// surrogates, code points past U+10FFFF, cut sequences) replaced by U+FFFD,
// one replacement per maximal invalid subpart.
std::string SanitizeUtf8(std::string_view s);

// True when `s` is valid UTF-8.
bool IsValidUtf8(std::string_view s);

// For a terminal or a plain-text line: valid UTF-8, and every control
// character (C0 including tab, CR and newline; DEL; C1 U+0080-U+009F) shown
// as a visible escape (\n, \r, \t, \e, \xNN, \u{NN}), so no name can move
// the cursor, ring the bell, recolour the screen or start a new line.
std::string EscapeTerminal(std::string_view s);

// For one cell of a Markdown table: EscapeTerminal's control escapes, plus
// `|`, backslash and the inline Markdown marks escaped and `<`, `>`, `&` as
// HTML entities (Markdown renderers pass raw HTML through).
std::string EscapeMarkdownCell(std::string_view s);

// For HTML text and attribute values: valid UTF-8, `& < > " '` as entities,
// control characters other than tab and newline as U+FFFD.
std::string EscapeHtml(std::string_view s);

// The longest prefix of `s` of at most `max_bytes` bytes that does not cut a
// UTF-8 character (a cut never splits a multi-byte sequence).
std::string_view TruncateUtf8(std::string_view s, size_t max_bytes);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_BASE_ESCAPE_H_
