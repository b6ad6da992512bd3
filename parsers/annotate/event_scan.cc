#include "parsers/annotate/event_scan.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <system_error>
#include <vector>

namespace tracelint {
namespace {

class Cursor {
 public:
  explicit Cursor(std::string_view t) : t_(t) {}
  size_t pos() const { return i_; }
  bool AtEnd() const { return i_ >= t_.size(); }
  unsigned char Peek() const { return i_ < t_.size() ? static_cast<unsigned char>(t_[i_]) : 0; }
  void Advance() { ++i_; }
  void SkipWs() {
    while (i_ < t_.size() &&
           (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t')) {
      ++i_;
    }
  }

  // A string at a '"'; false when it is not a valid JSON string of valid
  // UTF-8.
  bool String() {
    ++i_;  // the opening quote
    while (i_ < t_.size()) {
      unsigned char b = static_cast<unsigned char>(t_[i_]);
      if (b == '"') {
        ++i_;
        return true;
      }
      if (b == '\\') {
        if (!Escape()) return false;
        continue;
      }
      if (b < 0x20) return false;
      if (b < 0x80) {
        ++i_;
        continue;
      }
      if (!Utf8Sequence()) return false;
    }
    return false;
  }

  // A number of the JSON grammar whose value a reader can hold: an integer
  // in int64 or uint64, any other number short of overflowing a double
  // (underflow reads as 0). Strict readers (simdjson, Go, Rust's serde)
  // refuse the rest, so an event holding one is not copied.
  bool Number() {
    const size_t begin = i_;
    if (Peek() == '-') ++i_;
    if (Peek() == '0') {
      ++i_;
    } else if (Peek() >= '1' && Peek() <= '9') {
      while (IsDigit(Peek())) ++i_;
    } else {
      return false;
    }
    bool integer = true;
    if (Peek() == '.') {
      integer = false;
      ++i_;
      if (!IsDigit(Peek())) return false;
      while (IsDigit(Peek())) ++i_;
    }
    if (Peek() == 'e' || Peek() == 'E') {
      integer = false;
      ++i_;
      if (Peek() == '+' || Peek() == '-') ++i_;
      if (!IsDigit(Peek())) return false;
      while (IsDigit(Peek())) ++i_;
    }
    return Holdable(t_.substr(begin, i_ - begin), integer);
  }

  bool Literal() {
    for (std::string_view word : {"true", "false", "null"}) {
      if (t_.substr(i_, word.size()) == word) {
        i_ += word.size();
        return true;
      }
    }
    return false;
  }

 private:
  static bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }

  static bool Holdable(std::string_view number, bool integer) {
    const char* first = number.data();
    const char* last = number.data() + number.size();
    if (integer) {
      int64_t i;
      uint64_t u;
      return number.front() == '-' ? std::from_chars(first, last, i).ec == std::errc()
                                   : std::from_chars(first, last, u).ec == std::errc();
    }
    double d;
    std::from_chars_result r = std::from_chars(first, last, d);
    if (r.ec == std::errc()) return true;
    if (r.ec != std::errc::result_out_of_range) return false;
    // Out of range: an underflow (a value below the smallest double) reads
    // as 0; an overflow cannot be held. Which one is the decimal exponent of
    // the first significant digit.
    size_t at = number.front() == '-' ? 1 : 0;
    int64_t magnitude = 0;  // digits before the point, less zeros after it
    bool significant = false;
    for (; at < number.size() && IsDigit(number[at]); ++at) {
      significant |= number[at] != '0';
      if (significant) ++magnitude;
    }
    if (at < number.size() && number[at] == '.') {
      for (++at; at < number.size() && IsDigit(number[at]); ++at) {
        if (significant) continue;
        if (number[at] != '0') {
          significant = true;
        } else {
          --magnitude;
        }
      }
    }
    int64_t exponent = 0;
    if (at < number.size() && (number[at] == 'e' || number[at] == 'E')) {
      ++at;
      const bool negative = at < number.size() && number[at] == '-';
      if (at < number.size() && (number[at] == '+' || number[at] == '-')) ++at;
      for (; at < number.size(); ++at) {
        exponent = std::min<int64_t>(exponent * 10 + (number[at] - '0'), int64_t{1} << 40);
      }
      if (negative) exponent = -exponent;
    }
    return magnitude + exponent <= 0;
  }

  // Four hex digits after "\u"; -1 when they are not.
  int Hex4() {
    if (i_ + 4 > t_.size()) return -1;
    int v = 0;
    for (int k = 0; k < 4; ++k) {
      char c = t_[i_ + k];
      int d = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    i_ += 4;
    return v;
  }

  bool Escape() {
    ++i_;  // the backslash
    if (i_ >= t_.size()) return false;
    char c = t_[i_++];
    switch (c) {
      case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
        return true;
      case 'u': {
        int unit = Hex4();
        if (unit < 0) return false;
        if (unit >= 0xDC00 && unit <= 0xDFFF) return false;  // a low surrogate alone
        if (unit >= 0xD800 && unit <= 0xDBFF) {
          // A high surrogate must be followed by its low half.
          if (t_.substr(i_, 2) != "\\u") return false;
          i_ += 2;
          int low = Hex4();
          return low >= 0xDC00 && low <= 0xDFFF;
        }
        return true;
      }
      default:
        return false;
    }
  }

  // One multi-byte UTF-8 character (RFC 3629's table).
  bool Utf8Sequence() {
    auto at = [&](size_t k) {
      return i_ + k < t_.size() ? static_cast<unsigned char>(t_[i_ + k]) : 0;
    };
    auto cont = [](unsigned char b) { return b >= 0x80 && b <= 0xBF; };
    unsigned char b0 = at(0);
    size_t n;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      n = 2;
      if (!cont(at(1))) return false;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      n = 3;
      unsigned char lo = b0 == 0xE0 ? 0xA0 : 0x80;
      unsigned char hi = b0 == 0xED ? 0x9F : 0xBF;
      if (at(1) < lo || at(1) > hi || !cont(at(2))) return false;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      n = 4;
      unsigned char lo = b0 == 0xF0 ? 0x90 : 0x80;
      unsigned char hi = b0 == 0xF4 ? 0x8F : 0xBF;
      if (at(1) < lo || at(1) > hi || !cont(at(2)) || !cont(at(3))) return false;
    } else {
      return false;
    }
    i_ += n;
    return true;
  }

  std::string_view t_;
  size_t i_ = 0;
};

}  // namespace

EventScan ScanEvent(std::string_view text, int64_t max_depth) {
  EventScan out;
  Cursor c(text);
  c.SkipWs();
  if (c.Peek() != '{') return out;

  struct Frame {
    bool object;
    size_t begin;          // the container's first byte
    std::string_view key;  // the member being read (objects)
  };
  std::vector<Frame> stack;
  enum class Expect { kValue, kFirstKeyOrEnd, kFirstValueOrEnd, kKey, kAfterValue };
  Expect expect = Expect::kValue;
  size_t value_begin = 0;

  // A value ending at the cursor that began at `begin`, a member of the
  // container on top of the stack.
  auto completed = [&](size_t begin) {
    if (stack.size() == 1) {
      std::string_view key = stack[0].key;
      EventScan::Span span{begin, c.pos(), true};
      if (key == "pid") out.pid = span;
      if (key == "id") out.id = span;
      if (key == "ph") out.ph = span;
      if (key == "name") out.name = span;
    } else if (stack.size() == 2 && stack[0].key == "args" && stack[1].object &&
               stack[1].key == "name") {
      out.args_name = EventScan::Span{begin, c.pos(), true};
    }
    expect = Expect::kAfterValue;
  };

  while (true) {
    switch (expect) {
      case Expect::kValue: {
        c.SkipWs();
        value_begin = c.pos();
        unsigned char ch = c.Peek();
        if (ch == '{' || ch == '[') {
          stack.push_back(Frame{ch == '{', c.pos(), {}});
          if (max_depth > 0 && static_cast<int64_t>(stack.size()) > max_depth) return out;
          c.Advance();
          expect = ch == '{' ? Expect::kFirstKeyOrEnd : Expect::kFirstValueOrEnd;
          break;
        }
        bool ok = ch == '"'                        ? c.String()
                  : (ch == '-' || (ch >= '0' && ch <= '9')) ? c.Number()
                                                            : c.Literal();
        if (!ok || stack.empty()) return out;
        completed(value_begin);
        break;
      }
      case Expect::kFirstKeyOrEnd:
      case Expect::kFirstValueOrEnd: {
        c.SkipWs();
        const unsigned char close = expect == Expect::kFirstKeyOrEnd ? '}' : ']';
        if (c.Peek() == close) {
          c.Advance();
          size_t begin = stack.back().begin;
          stack.pop_back();
          if (stack.empty()) {
            expect = Expect::kAfterValue;
          } else {
            completed(begin);
          }
          break;
        }
        expect = expect == Expect::kFirstKeyOrEnd ? Expect::kKey : Expect::kValue;
        break;
      }
      case Expect::kKey: {
        c.SkipWs();
        if (c.Peek() != '"') return out;
        size_t key_begin = c.pos();
        if (!c.String()) return out;
        stack.back().key = text.substr(key_begin + 1, c.pos() - key_begin - 2);
        c.SkipWs();
        if (c.Peek() != ':') return out;
        c.Advance();
        expect = Expect::kValue;
        break;
      }
      case Expect::kAfterValue: {
        c.SkipWs();
        if (stack.empty()) {
          out.valid = c.AtEnd();
          return out;
        }
        unsigned char ch = c.Peek();
        Frame& top = stack.back();
        if (ch == ',') {
          c.Advance();
          expect = top.object ? Expect::kKey : Expect::kValue;
          break;
        }
        if ((ch == '}' && top.object) || (ch == ']' && !top.object)) {
          c.Advance();
          size_t begin = top.begin;
          stack.pop_back();
          if (!stack.empty()) completed(begin);
          break;
        }
        return out;
      }
    }
  }
}

}  // namespace tracelint
