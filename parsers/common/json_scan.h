#ifndef TRACELINT_PARSERS_COMMON_JSON_SCAN_H_
#define TRACELINT_PARSERS_COMMON_JSON_SCAN_H_

// The byte scanners under JsonEventSplitter: the next quote, backslash or
// bracket 16 bytes at a time, and the quote/bracket bit masks of a 64-byte
// block. Inline: they run once per byte of every trace.

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tracelint::json_scan {

inline bool IsJsonSpace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// The next quote or backslash (and newline, with kNewline) at or after p,
// or end.
template <bool kNewline>
inline const char* FindQuoteOrBackslash(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i newline = _mm_set1_epi8('\n');
  while (end - p >= 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash));
    if constexpr (kNewline) hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, newline));
    int mask = _mm_movemask_epi8(hit);
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end && *p != '"' && *p != '\\' && (!kNewline || *p != '\n')) ++p;
  return p;
}

// The closing quote of a string whose content starts at p, or end (with
// kNewline, or a raw newline: never valid in a JSON string). `escaped`: the
// previous chunk ended on an escaping backslash.
template <bool kNewline = false>
inline const char* FindStringEnd(const char* p, const char* end, bool* escaped) {
  if (*escaped && p < end) {
    *escaped = false;
    ++p;
  }
  for (;;) {
    p = FindQuoteOrBackslash<kNewline>(p, end);
    if (p == end) return end;
    if (*p != '\\') return p;
    // A backslash escapes the next byte, which may be in the next chunk.
    if (end - p < 2) {
      *escaped = true;
      return end;
    }
    p += 2;
  }
}

// See BlockMasks::after_string_ok.
inline bool IsAfterStringOk(char c) {
  return c == ':' || c == ',' || c == '}' || c == ']' || IsJsonSpace(c);
}

inline bool IsStructural(char c) {
  return c == '"' || c == '{' || c == '}' || c == '[' || c == ']';
}

// The next quote or bracket (and newline, with kNewline) at or after p, or
// end. Bytes between them (keys' colons, numbers, commas, spaces) never
// change the scan state inside a container, so they are skipped 16 at a
// time (SSE2 is part of x86-64).
template <bool kNewline>
inline const char* FindStructural(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i newline = _mm_set1_epi8('\n');
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i open_brace = _mm_set1_epi8('{');
  const __m128i close_brace = _mm_set1_epi8('}');
  const __m128i open_bracket = _mm_set1_epi8('[');
  const __m128i close_bracket = _mm_set1_epi8(']');
  while (end - p >= 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i hit = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, open_brace)),
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, close_brace),
                                  _mm_cmpeq_epi8(v, open_bracket)),
                     _mm_cmpeq_epi8(v, close_bracket)));
    if constexpr (kNewline) hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, newline));
    int mask = _mm_movemask_epi8(hit);
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end && !IsStructural(*p) && (!kNewline || *p != '\n')) ++p;
  return p;
}

// Bit i of each mask describes byte i of a 64-byte block.
struct BlockMasks {
  uint64_t quote = 0;
  uint64_t backslash = 0;
  uint64_t open = 0;   // '{' or '['
  uint64_t close = 0;  // '}' or ']'
  uint64_t newline = 0;
  // Bytes that may follow a string's closing quote in valid JSON: ':' after
  // a key, ',', '}' or ']' after a value, or whitespace. Anything else there
  // means the quotes are paired wrongly (a lost or extra quote).
  uint64_t after_string_ok = 0;
};

// Closing quotes (given the block's in-string mask, opening quotes included)
// followed by a byte that cannot follow a string; `closing_carry`: the
// previous block ended on a closing quote (bit 0 is then checked too).
inline uint64_t BadAfterString(const BlockMasks& m, uint64_t in_string, bool closing_carry) {
  uint64_t closing = m.quote & ~in_string;
  uint64_t follows = (closing << 1) | (closing_carry ? 1u : 0u);
  return follows & ~m.after_string_ok;
}

inline BlockMasks ClassifyBlock(const char* p) {
  BlockMasks m;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i open_brace = _mm_set1_epi8('{');
  const __m128i open_bracket = _mm_set1_epi8('[');
  const __m128i close_brace = _mm_set1_epi8('}');
  const __m128i close_bracket = _mm_set1_epi8(']');
  const __m128i newline = _mm_set1_epi8('\n');
  const __m128i colon = _mm_set1_epi8(':');
  const __m128i comma = _mm_set1_epi8(',');
  const __m128i space = _mm_set1_epi8(' ');
  const __m128i tab = _mm_set1_epi8('\t');
  const __m128i cr = _mm_set1_epi8('\r');
  for (int k = 0; k < 4; ++k) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    auto bits = [&](__m128i hit) {
      return static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(hit))) << (16 * k);
    };
    m.quote |= bits(_mm_cmpeq_epi8(v, quote));
    m.backslash |= bits(_mm_cmpeq_epi8(v, backslash));
    m.open |= bits(_mm_or_si128(_mm_cmpeq_epi8(v, open_brace), _mm_cmpeq_epi8(v, open_bracket)));
    m.close |=
        bits(_mm_or_si128(_mm_cmpeq_epi8(v, close_brace), _mm_cmpeq_epi8(v, close_bracket)));
    __m128i nl = _mm_cmpeq_epi8(v, newline);
    m.newline |= bits(nl);
    __m128i ok = _mm_or_si128(
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, colon), _mm_cmpeq_epi8(v, comma)),
                     _mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(v, tab))),
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, cr), nl),
                     _mm_or_si128(_mm_cmpeq_epi8(v, close_brace),
                                  _mm_cmpeq_epi8(v, close_bracket))));
    m.after_string_ok |= bits(ok);
  }
#else
  for (int i = 0; i < 64; ++i) {
    uint64_t bit = uint64_t{1} << i;
    char c = p[i];
    if (c == '"') m.quote |= bit;
    if (c == '\\') m.backslash |= bit;
    if (c == '{' || c == '[') m.open |= bit;
    if (c == '}' || c == ']') m.close |= bit;
    if (c == '\n') m.newline |= bit;
    if (IsAfterStringOk(c)) m.after_string_ok |= bit;
  }
#endif
  return m;
}

// Which open containers of an event are arrays, as bits (bit d-1: the one
// at depth d). Deeper than 64 nothing is recorded (and nothing reported).
inline uint64_t MarkContainer(uint64_t arrays, int64_t depth, bool is_array) {
  if (depth < 1 || depth > 64) return arrays;
  const uint64_t bit = uint64_t{1} << (depth - 1);
  return is_array ? arrays | bit : arrays & ~bit;
}
inline bool InObject(uint64_t arrays, int64_t depth) {
  return depth >= 1 && depth <= 64 && ((arrays >> (depth - 1)) & 1) == 0;
}
// Whether a closer (']' when closes_array, else '}') does not match the
// container open at `depth`: damage valid JSON never has. Unknown (deeper
// than 64) is no mismatch.
inline bool WrongCloser(uint64_t arrays, int64_t depth, bool closes_array) {
  if (depth < 1 || depth > 64) return false;
  return (((arrays >> (depth - 1)) & 1) != 0) != closes_array;
}

// Whether the '{' at `brace` opens a trace event: spaces, then a quoted key
// of the Trace Event Format, all before `end` (false when the bytes run out:
// undecided is not an event). Damage resumes only at such a brace, never at
// an object nested in an event.
inline bool OpensEvent(const char* brace, const char* end) {
  static constexpr const char* kKeys[] = {"ph",  "name", "cat", "pid", "tid", "ts",   "dur",
                                          "args", "id",  "tts", "s",   "bp",  "cname"};
  const char* q = brace + 1;
  while (q < end && IsJsonSpace(*q)) ++q;
  if (q >= end || *q != '"') return false;
  ++q;
  for (const char* key : kKeys) {
    size_t n = 0;
    while (key[n] != '\0' && q + n < end && q[n] == key[n]) ++n;
    if (key[n] == '\0' && q + n < end && q[n] == '"') return true;
  }
  return false;
}

// Whether the container just opened at `open` (now at `depth`) is the next
// event's '{' inside an open one: an object member never starts with '{',
// so a '{' after a comma directly inside an object that opens a trace event
// means the event before it lost its closing bracket. `comma_before(open)`
// says whether the last byte before it that is not a space is a comma;
// asked before the key is read, since a nested object (`"args": {`) fails
// there at the first byte.
template <typename CommaBefore>
inline bool NextEventInside(uint64_t arrays, int64_t depth, const char* open, const char* end,
                            CommaBefore comma_before) {
  return *open == '{' && InObject(arrays, depth - 1) && comma_before(open) &&
         OpensEvent(open, end);
}

// Bit i = XOR of bits 0..i: marks the bytes after an odd number of quotes.
inline uint64_t PrefixXor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

}  // namespace tracelint::json_scan

#endif  // TRACELINT_PARSERS_COMMON_JSON_SCAN_H_
