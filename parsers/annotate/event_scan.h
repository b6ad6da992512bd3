#ifndef TRACELINT_PARSERS_ANNOTATE_EVENT_SCAN_H_
#define TRACELINT_PARSERS_ANNOTATE_EVENT_SCAN_H_

// A strict check of one trace event's JSON text, for `--annotate`, which
// writes the input's events back out: only events that pass are copied, so
// the annotated trace is valid JSON and valid UTF-8 whatever the input held
// (docs/design/contract.md, "Annotated trace"). It also finds the members
// the writer rewrites (pid, flow ids) and reads process names.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tracelint {

struct EventScan {
  // [begin, end) of a member's value in the text; found = false when absent.
  struct Span {
    size_t begin = 0;
    size_t end = 0;
    bool found = false;
    std::string_view Of(std::string_view text) const {
      return found ? text.substr(begin, end - begin) : std::string_view();
    }
  };
  bool valid = false;
  // Top-level members (the last one when a key repeats, as JSON readers do).
  Span pid, id, ph, name;
  // The "name" member of the top-level "args" object (process_name events).
  Span args_name;
};

// Scans `text`: exactly one JSON object, surrounding whitespace allowed
// (RFC 8259: strings without raw control characters, valid escapes, \u
// surrogates in pairs; numbers a reader can hold: an integer in int64 or
// uint64, any other number short of overflowing a double; true/false/null),
// every byte valid UTF-8
// (no overlong forms, surrogates or code points past U+10FFFF), nested at
// most `max_depth` levels (0: no limit; the object itself is level 1).
EventScan ScanEvent(std::string_view text, int64_t max_depth);

// A JSON string value's text (quotes included) as it is, when it holds no
// escapes; else empty. For comparing short values such as "ph".
inline std::string_view PlainString(std::string_view json_string) {
  if (json_string.size() < 2 || json_string.front() != '"' || json_string.back() != '"') {
    return {};
  }
  std::string_view inner = json_string.substr(1, json_string.size() - 2);
  return inner.find('\\') == std::string_view::npos ? inner : std::string_view();
}

}  // namespace tracelint

#endif  // TRACELINT_PARSERS_ANNOTATE_EVENT_SCAN_H_
