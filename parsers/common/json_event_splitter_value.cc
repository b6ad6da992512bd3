// One value of the document, scanned for its end and, in an event, for
// damage (json_event_splitter.h, ScanValue).
#include "parsers/common/json_event_splitter.h"
#include "parsers/common/json_scan.h"

namespace tracelint {

using json_scan::BlockMasks;
using json_scan::ClassifyBlock;
using json_scan::FindStringEnd;
using json_scan::FindStructural;
using json_scan::IsJsonSpace;
using json_scan::IsStructural;
using json_scan::PrefixXor;

const char* JsonEventSplitter::ScanValue(ValueScan& v, const char* p, const char* end,
                                         bool* done) {
  *done = false;
  // In an event, damage shows at line ends: a raw newline in a string (a
  // lost or extra quote turned strings inside out), or a line opening the
  // next event at this one's indentation while it is open (a lost bracket).
  auto comma_before = [this](const char* brace) { return CommaBefore(brace); };
  auto damaged = [&](const char* at, const char* what) {
    v.damage = at;
    v.damage_what = what;
    return at;
  };
  // Exactly v.indent spaces or tabs after the newline, then '{'. The brace
  // is looked at first: almost every line of an event fails there, without
  // a walk over its indentation.
  auto opens_next_event = [&](const char* newline) {
    if (v.indent < 0 || end - newline <= v.indent + 1) return false;
    const char* brace = newline + 1 + v.indent;
    if (*brace != '{') return false;
    for (const char* q = newline + 1; q < brace; ++q) {
      if (*q != ' ' && *q != '\t') return false;
    }
    return true;
  };
  while (p < end) {
    // Inside a container, 64 bytes at a time: strings found by prefix XOR of
    // the quotes, brackets outside them counted. Blocks holding a backslash
    // (rare in traces) take the byte-wise path below.
    while (v.depth > 0 && !v.scalar && end - p >= 64 && !v.backslash_carry) {
      BlockMasks m = ClassifyBlock(p);
      if (m.backslash != 0) break;
      uint64_t in_string = PrefixXor(m.quote) ^ (v.in_string ? ~uint64_t{0} : 0);
      uint64_t bad = v.lines ? json_scan::BadAfterString(m, in_string, v.after_string) : 0;
      uint64_t structural = (m.open | m.close) & ~in_string & ~m.quote;
      int close_at = 64;  // where the value ends in this block
      int stop_at = 64;  // the next event's '{' inside this one, or a wrong closer
      const char* stop_what = kNextEventInside;
      int64_t depth = v.depth;
      uint64_t arrays = v.arrays;
      while (structural != 0) {
        int i = __builtin_ctzll(structural);
        if ((m.open >> i) & 1) {
          if (++depth > v.peak_depth) v.peak_depth = depth;
          if (v.lines && json_scan::NextEventInside(arrays, depth, p + i, end, comma_before)) {
            stop_at = i;
            break;
          }
          arrays = json_scan::MarkContainer(arrays, depth, p[i] == '[');
        } else {
          if (v.lines && json_scan::WrongCloser(arrays, depth, p[i] == ']')) {
            stop_at = i;
            stop_what = kBracketOutOfPlace;
            break;
          }
          if (--depth == 0) {
            close_at = i;
            break;
          }
        }
        structural &= structural - 1;
      }
      uint64_t before_close = close_at == 64 ? ~uint64_t{0} : (uint64_t{1} << close_at) - 1;
      bad &= before_close;
      // Damage at the first quote out of place, brace of the next event or
      // wrong closer, unless a line shows it first.
      int first_bad = bad != 0 ? __builtin_ctzll(bad) : 64;
      const bool stop_first = stop_at < first_bad;
      if (stop_first) first_bad = stop_at;
      if (v.lines && m.newline != 0) {
        uint64_t lines = m.newline & before_close;
        for (uint64_t nl = lines; nl != 0; nl &= nl - 1) {
          int i = __builtin_ctzll(nl);
          if (i > first_bad) break;
          if ((in_string >> i) & 1) return damaged(p + i, "a raw newline inside a string");
          if (opens_next_event(p + i)) {
            return damaged(p + i, "an event not closed before the next one");
          }
        }
      }
      if (first_bad < 64) {
        v.resume_at_damage = stop_first && stop_what == kNextEventInside;
        return damaged(p + first_bad, stop_first ? stop_what : kQuoteOutOfPlace);
      }
      // Only an event is checked for a quote out of place (as `bad` above).
      v.after_string = v.lines && ((m.quote & ~in_string) >> 63) != 0;
      v.arrays = arrays;
      if (close_at < 64) {
        v.depth = 0;
        v.in_string = false;
        *done = true;
        return p + close_at + 1;
      }
      v.depth = depth;
      v.in_string = (in_string >> 63) != 0;
      p += 64;
    }
    if (p >= end) break;
    if (v.after_string) {
      v.after_string = false;
      if (!json_scan::IsAfterStringOk(*p)) return damaged(p, kQuoteOutOfPlace);
    }
    if (v.in_string) {
      const char* q = v.lines ? FindStringEnd<true>(p, end, &v.backslash_carry)
                              : FindStringEnd<false>(p, end, &v.backslash_carry);
      if (q == end) return end;
      if (*q == '\n') return damaged(q, "a raw newline inside a string");
      v.in_string = false;
      p = q + 1;
      if (v.depth == 0) {
        *done = true;
        return p;
      }
      v.after_string = v.lines;
      continue;
    }
    char c = *p;
    if (v.scalar) {
      if (c == ',' || c == '}' || c == ']' || IsJsonSpace(c)) {
        *done = true;
        return p;
      }
      ++p;
      continue;
    }
    if (v.depth > 0 && c == '\n' && v.lines) {
      if (opens_next_event(p)) return damaged(p, "an event not closed before the next one");
      ++p;
      continue;
    }
    if (v.depth > 0 && !IsStructural(c)) {
      p = v.lines ? FindStructural<true>(p, end) : FindStructural<false>(p, end);
      continue;
    }
    switch (c) {
      case '"':
        v.in_string = true;
        break;
      case '{':
      case '[':
        if (++v.depth > v.peak_depth) v.peak_depth = v.depth;
        if (v.lines && json_scan::NextEventInside(v.arrays, v.depth, p, end, comma_before)) {
          v.resume_at_damage = true;
          return damaged(p, kNextEventInside);
        }
        v.arrays = json_scan::MarkContainer(v.arrays, v.depth, c == '[');
        break;
      case '}':
      case ']':
        if (v.lines && json_scan::WrongCloser(v.arrays, v.depth, c == ']')) {
          return damaged(p, kBracketOutOfPlace);
        }
        if (--v.depth <= 0) {
          *done = true;
          return p + 1;
        }
        break;
      default:
        if (v.depth == 0 && !IsJsonSpace(c)) {
          v.scalar = true;
          continue;  // re-examine c as a scalar byte
        }
        break;
    }
    ++p;
  }
  return end;
}

bool JsonEventSplitter::CommaBefore(const char* brace) const {
  // Within this call's bytes, then the event's text kept in the part.
  for (const char* q = brace; q > scan_start_;) {
    --q;
    if (!IsJsonSpace(*q)) return *q == ',';
  }
  const std::string& kept = part_.text.bytes;
  for (size_t i = kept.size(); i > event_start_local_;) {
    --i;
    if (!IsJsonSpace(kept[i])) return kept[i] == ',';
  }
  return false;
}

}  // namespace tracelint
