// JsonEventSplitter's per-event limits (Limits: string length, nesting
// depth); the scan itself is in json_event_splitter.cc.
#include <string>

#include "parsers/common/json_event_splitter.h"

namespace tracelint {

void JsonEventSplitter::CheckEventLimits(size_t event_bytes) {
  int64_t* count = nullptr;
  uint64_t* first = nullptr;
  if (limits_.max_nesting_depth > 0 && value_.peak_depth > limits_.max_nesting_depth) {
    count = &over_depth_;
    first = &first_over_depth_offset_;
  } else if (limits_.max_string_bytes > 0 && event_bytes > limits_.max_string_bytes &&
             HasOverlongString()) {
    count = &over_string_;
    first = &first_over_string_offset_;
  } else {
    return;
  }
  if ((*count)++ == 0) *first = part_.stream_offsets.back();
  // The rest of the event is scanned for its end but not kept, and no
  // longer checked for line damage.
  DropOpenEvent();
  element_is_event_ = false;
  dropping_over_limit_ = true;
  value_.lines = false;
}

bool JsonEventSplitter::HasOverlongString() {
  const std::string& bytes = part_.text.bytes;
  StringScan& s = string_scan_;
  for (; s.pos < bytes.size(); ++s.pos) {
    char c = bytes[s.pos];
    if (!s.in_string) {
      if (c == '"') {
        s.in_string = true;
        s.length = 0;
      }
    } else if (s.escape) {
      s.escape = false;
      ++s.length;
    } else if (c == '"') {
      s.in_string = false;
    } else {
      s.escape = c == '\\';
      if (++s.length > limits_.max_string_bytes) return true;
    }
  }
  return false;
}

}  // namespace tracelint
