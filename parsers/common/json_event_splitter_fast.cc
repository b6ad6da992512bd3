// JsonEventSplitter's fast path through the event array: each 64-byte block
// of the input is classified once (quotes, escapes, brackets, newlines) and
// every event in it is found from the bit masks, instead of scanning each
// event on its own (which classified the block an event ends in twice and
// went through the state machine once per event). It keeps the byte-wise
// path's semantics exactly: the same events, offsets, indentation, damage
// checks and limits; whatever it does not handle (an element that is not an
// object, the end of the array, an event running past the input at hand, a
// limit about to trip) is left to the byte-wise path at the start of that
// element. json_event_splitter_test.cc compares the two on damaged inputs.

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "parsers/common/json_event_splitter.h"
#include "parsers/common/json_scan.h"

namespace tracelint {
namespace {

using json_scan::BlockMasks;
using json_scan::ClassifyBlock;
using json_scan::PrefixXor;

#if defined(__x86_64__) && defined(__GNUC__)
// The same masks as json_scan::ClassifyBlock with wider vectors, for CPUs
// that have them (chosen once, at run time; the build stays portable).
__attribute__((target("avx2"))) BlockMasks ClassifyBlockAvx2(const char* p) {
  BlockMasks m;
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i backslash = _mm256_set1_epi8('\\');
  const __m256i open_brace = _mm256_set1_epi8('{');
  const __m256i open_bracket = _mm256_set1_epi8('[');
  const __m256i close_brace = _mm256_set1_epi8('}');
  const __m256i close_bracket = _mm256_set1_epi8(']');
  const __m256i newline = _mm256_set1_epi8('\n');
  const __m256i colon = _mm256_set1_epi8(':');
  const __m256i comma = _mm256_set1_epi8(',');
  const __m256i space = _mm256_set1_epi8(' ');
  const __m256i tab = _mm256_set1_epi8('\t');
  const __m256i cr = _mm256_set1_epi8('\r');
  for (int k = 0; k < 2; ++k) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * k));
    const int shift = 32 * k;
    // (A lambda would not inherit this function's target.)
#define TL_BITS(hit) \
  (static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(hit))) << shift)
    m.quote |= TL_BITS(_mm256_cmpeq_epi8(v, quote));
    m.backslash |= TL_BITS(_mm256_cmpeq_epi8(v, backslash));
    m.open |= TL_BITS(_mm256_or_si256(_mm256_cmpeq_epi8(v, open_brace),
                                      _mm256_cmpeq_epi8(v, open_bracket)));
    m.close |= TL_BITS(_mm256_or_si256(_mm256_cmpeq_epi8(v, close_brace),
                                       _mm256_cmpeq_epi8(v, close_bracket)));
    const __m256i nl = _mm256_cmpeq_epi8(v, newline);
    m.newline |= TL_BITS(nl);
    m.after_string_ok |= TL_BITS(_mm256_or_si256(
        _mm256_or_si256(
            _mm256_or_si256(_mm256_cmpeq_epi8(v, colon), _mm256_cmpeq_epi8(v, comma)),
            _mm256_or_si256(_mm256_cmpeq_epi8(v, space), _mm256_cmpeq_epi8(v, tab))),
        _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, cr), nl),
                        _mm256_or_si256(_mm256_cmpeq_epi8(v, close_brace),
                                        _mm256_cmpeq_epi8(v, close_bracket)))));
#undef TL_BITS
  }
  return m;
}

__attribute__((target("avx512bw"))) BlockMasks ClassifyBlockAvx512(const char* p) {
  BlockMasks m;
  const __m512i v = _mm512_loadu_si512(p);
  m.quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
  m.backslash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
  m.open = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('{')) |
           _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('['));
  m.close = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('}')) |
            _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(']'));
  m.newline = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\n'));
  m.after_string_ok = m.close | m.newline | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(':')) |
                      _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(',')) |
                      _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(' ')) |
                      _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\t')) |
                      _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\r'));
  return m;
}
#endif

using ClassifyFn = BlockMasks (*)(const char*);

ClassifyFn BestClassifier() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512bw")) return &ClassifyBlockAvx512;
  if (__builtin_cpu_supports("avx2")) return &ClassifyBlockAvx2;
#endif
  return &ClassifyBlock;
}

// One classified block, with what lies inside strings.
struct Block {
  const char* at = nullptr;
  uint64_t in_string = 0;  // bytes inside strings (opening quote included)
  uint64_t structural = 0;  // brackets outside strings
  uint64_t open = 0;        // '{' or '[' (with structural: outside strings)
  uint64_t newline = 0;
  uint64_t bad_after_string = 0;  // json_scan::BadAfterString
};

}  // namespace

bool JsonEventSplitter::fast_scan_enabled_ = true;

const char* JsonEventSplitter::ScanEventsFast(const char* p, const char* end,
                                              const char* begin) {
  auto at = [&](const char* q) { return offset_ + static_cast<uint64_t>(q - begin); };
  // Carried into the next block; clear between events (no strings there),
  // which is where this path starts and where it hands back.
  bool in_string = false;
  bool closing_carry = false;  // the previous block ended on a closing quote
  Block block;
  // False for a block holding a backslash: escapes are the byte-wise path's
  // (outside strings a backslash is a plain byte there, as in damaged input).
  static const ClassifyFn classify_block = BestClassifier();
  auto classify = [&](const char* q) {
    const BlockMasks m = classify_block(q);
    if (m.backslash != 0) return false;
    block.at = q;
    block.in_string = PrefixXor(m.quote) ^ (in_string ? ~uint64_t{0} : 0);
    block.structural = (m.open | m.close) & ~block.in_string & ~m.quote;
    block.open = m.open;
    block.newline = m.newline;
    block.bad_after_string = json_scan::BadAfterString(m, block.in_string, closing_carry);
    in_string = (block.in_string >> 63) != 0;
    closing_carry = ((m.quote & ~block.in_string) >> 63) != 0;
    return true;
  };
  // Blocks are whole 64-byte spans of the input at hand, counted from p.
  const char* const blocks_end = p + ((end - p) / 64) * 64;
  if (blocks_end == p || !classify(p)) return p;
  const char* q = p;
  for (;;) {
    // Between events: separators, byte by byte (a few per event), keeping
    // the indentation of the line the next element starts on.
    for (;;) {
      if (q >= blocks_end) return q;
      const char c = *q;
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',') {
        if (c == '\n') {
          elem_col_ = 0;
        } else if (elem_col_ >= 0 && (c == ' ' || c == '\t')) {
          ++elem_col_;
        } else {
          elem_col_ = -1;
        }
        ++q;
        continue;
      }
      break;
    }
    // Anything but an event (the array's end, a non-object element) and an
    // event past the event limit are the byte-wise path's.
    if (*q != '{') return q;
    if (limits_.max_events > 0 && events_seen_ >= limits_.max_events) return q;
    const char* const event = q;
    const int64_t indent = elem_col_;
    // As the byte-wise path does when an event starts.
    last_event_indent_ = indent;
    gap_first_offset_ = UINT64_MAX;
    last_element_was_string_ = false;
    in_junk_ = false;
    while (q >= block.at + 64) {
      if (!classify(block.at + 64)) return q;
    }
    int64_t depth = 0;
    int64_t peak = 0;
    uint64_t arrays = 0;  // json_scan::MarkContainer
    const char* close = nullptr;
    const char* damage = nullptr;
    const char* damage_what = "";
    bool resume_at_damage = false;
    // The last byte before `brace` that is not a space, within the event.
    auto comma_before = [&](const char* brace) {
      for (const char* s = brace; s > event;) {
        --s;
        if (!json_scan::IsJsonSpace(*s)) return *s == ',';
      }
      return false;
    };
    for (;;) {
      const int from = static_cast<int>(q - block.at);
      const uint64_t from_mask = ~uint64_t{0} << from;
      uint64_t structural = block.structural & from_mask;
      int close_bit = 64;
      int brace_bit = 64;   // the next event's '{' inside this one
      int closer_bit = 64;  // a closing bracket of the wrong kind
      while (structural != 0) {
        const int i = __builtin_ctzll(structural);
        if ((block.open >> i) & 1) {
          if (++depth > peak) peak = depth;
          if (json_scan::NextEventInside(arrays, depth, block.at + i, end, comma_before)) {
            brace_bit = i;
            break;
          }
          arrays = json_scan::MarkContainer(arrays, depth, block.at[i] == '[');
        } else {
          if (json_scan::WrongCloser(arrays, depth, block.at[i] == ']')) {
            closer_bit = i;
            break;
          }
          if (--depth == 0) {
            close_bit = i;
            break;
          }
        }
        structural &= structural - 1;
      }
      // Line damage before the event's end, as ScanValue checks it.
      const uint64_t before_close =
          close_bit == 64 ? ~uint64_t{0} : (uint64_t{1} << close_bit) - 1;
      for (uint64_t nl = block.newline & from_mask & before_close; nl != 0; nl &= nl - 1) {
        const int i = __builtin_ctzll(nl);
        const char* at_nl = block.at + i;
        if ((block.in_string >> i) & 1) {
          damage = at_nl;
          damage_what = "a raw newline inside a string";
          break;
        }
        if (indent >= 0 && end - at_nl > indent + 1 && at_nl[1 + indent] == '{') {
          bool spaces = true;
          for (const char* s = at_nl + 1; s < at_nl + 1 + indent; ++s) {
            spaces = spaces && (*s == ' ' || *s == '\t');
          }
          if (spaces) {
            damage = at_nl;
            damage_what = "an event not closed before the next one";
            break;
          }
        }
      }
      // A quote out of place: damage from that byte if it comes first.
      const uint64_t bad = block.bad_after_string & from_mask & before_close;
      if (bad != 0) {
        const char* at_bad = block.at + __builtin_ctzll(bad);
        if (damage == nullptr || at_bad < damage) {
          damage = at_bad;
          damage_what = JsonEventSplitter::kQuoteOutOfPlace;
        }
      }
      if (brace_bit < 64) {
        const char* at_brace = block.at + brace_bit;
        if (damage == nullptr || at_brace < damage) {
          damage = at_brace;
          damage_what = JsonEventSplitter::kNextEventInside;
          resume_at_damage = true;
        }
      }
      if (closer_bit < 64) {
        const char* at_closer = block.at + closer_bit;
        if (damage == nullptr || at_closer < damage) {
          damage = at_closer;
          damage_what = JsonEventSplitter::kBracketOutOfPlace;
          resume_at_damage = false;
        }
      }
      if (damage != nullptr) break;
      if (close_bit < 64) {
        close = block.at + close_bit;
        break;
      }
      // The event goes on past this block.
      if (block.at + 128 > blocks_end) {
        // ... and past the input at hand: the byte-wise path takes it.
        elem_col_ = indent;
        return event;
      }
      if (!classify(block.at + 64)) {
        elem_col_ = indent;
        return event;
      }
      q = block.at;
    }
    const size_t event_bytes = damage != nullptr ? 0 : static_cast<size_t>(close + 1 - event);
    if (damage == nullptr &&
        ((limits_.max_nesting_depth > 0 && peak > limits_.max_nesting_depth) ||
         (limits_.max_string_bytes > 0 && event_bytes > limits_.max_string_bytes) ||
         event_bytes > max_document_bytes_)) {
      elem_col_ = indent;  // the byte-wise path applies the limits
      return event;
    }
    elem_col_ = -1;
    if (damage != nullptr) {
      // As the byte-wise path: the event is dropped and the scan looks for
      // the next event's line from where the damage showed.
      if (damage_count_++ == 0) {
        first_damaged_event_offset_ = at(event);
        first_damage_offset_ = at(damage);
        first_damage_what_ = damage_what;
      }
      ++events_lost_;
      if (resume_at_damage) {
        if (resumed_offset_ < 0) resumed_offset_ = static_cast<int64_t>(at(damage));
        elem_col_ = -1;
        value_ = ValueScan();
        state_ = State::kEventsElemStart;
        return damage;
      }
      resync_col_ = -1;
      resync_indent_ = indent;
      resync_seq_ = 0;
      value_ = ValueScan();
      value_.indent = indent;
      state_ = State::kResync;
      return damage;
    }
    std::string& bytes = part_.text.bytes;
    if (part_.event_count() > 0) bytes.push_back(',');
    event_start_local_ = bytes.size();
    part_.local_offsets.push_back(static_cast<uint32_t>(event_start_local_));
    part_.stream_offsets.push_back(at(event));
    bytes.append(event, event_bytes);
    EndEvent();
    q = close + 1;
  }
}

}  // namespace tracelint
