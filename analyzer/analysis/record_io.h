#ifndef TRACELINT_ANALYZER_ANALYSIS_RECORD_IO_H_
#define TRACELINT_ANALYZER_ANALYSIS_RECORD_IO_H_

// Lossless JSON of plain structs (rank records, rule outcomes) for a
// sharded analyze: what one process writes, another reads back into equal
// values, so that a merge of shards reports byte for byte what one process
// would. Each struct lists its fields once, in an `Io(archive, value)`
// function in namespace record_io that both archives run: the writer and
// the reader cannot disagree on a name or an order.
//
// Integers are read only within the range of a timeline's times
// (time_limits.h), which every value an analysis makes lies in.
// Doubles are written in their shortest form that reads back to the same
// double (NaN as null, infinities as "inf"/"-inf"); enums as their number,
// checked against the enum's range (EnumMax) on reading, so a damaged part
// file is an error naming the field, never an out-of-range value. Parts
// are only merged by the same build (the shard header's version), so field
// names need not survive a change of schema.

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "analyzer/base/escape.h"
#include "analyzer/base/json_writer.h"
#include "analyzer/base/time_limits.h"
#include "simdjson.h"

namespace tracelint::record_io {

// The largest value of each enum a record holds, specialised next to the
// Io functions that use it.
template <typename E>
struct EnumMax;

class Writer {
 public:
  explicit Writer(JsonWriter& w) : w_(w) {}

  template <typename T>
  void operator()(std::string_view key, const T& value) {
    w_.Key(key);
    Value(value);
  }

  void Value(bool v) { w_.Bool(v); }
  // A string that is not UTF-8 (a path, a name from a protobuf) cannot be a
  // JSON string unchanged: its bytes are written in hex instead.
  void Value(const std::string& v) {
    if (IsValidUtf8(v)) {
      w_.String(v);
      return;
    }
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(v.size() * 2);
    for (unsigned char c : v) {
      hex += kHex[c >> 4];
      hex += kHex[c & 15];
    }
    w_.BeginObject();
    w_.Key("hex").String(hex);
    w_.EndObject();
  }
  void Value(double v) {
    if (std::isinf(v)) {
      w_.String(v > 0 ? "inf" : "-inf");
    } else {
      w_.Double(v);  // NaN: null
    }
  }
  template <typename T>
    requires std::is_integral_v<T> && (!std::is_same_v<T, bool>)
  void Value(T v) {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) {
      // Past int64: a string, as JsonWriter has no unsigned 64-bit writer.
      if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        w_.String(std::to_string(v));
        return;
      }
    }
    w_.Int(static_cast<int64_t>(v));
  }
  template <typename E>
    requires std::is_enum_v<E>
  void Value(E v) {
    w_.Int(static_cast<int64_t>(v));
  }
  template <typename T>
  void Value(const std::optional<T>& v) {
    if (v.has_value()) {
      Value(*v);
    } else {
      w_.Null();
    }
  }
  template <typename T>
  void Value(const std::vector<T>& v) {
    w_.BeginArray();
    for (const T& item : v) Value(item);
    w_.EndArray();
  }
  template <typename T, size_t N>
  void Value(const std::array<T, N>& v) {
    w_.BeginArray();
    for (const T& item : v) Value(item);
    w_.EndArray();
  }
  template <typename T, size_t N>
  void Value(const T (&v)[N]) {
    w_.BeginArray();
    for (const T& item : v) Value(item);
    w_.EndArray();
  }
  template <typename A, typename B>
  void Value(const std::pair<A, B>& v) {
    w_.BeginArray();
    Value(v.first);
    Value(v.second);
    w_.EndArray();
  }
  // A struct: its Io function, found by argument-dependent lookup here.
  template <typename S>
    requires std::is_class_v<S>
  void Value(const S& v) {
    w_.BeginObject();
    Io(*this, const_cast<S&>(v));  // the writer only reads
    w_.EndObject();
  }

 private:
  JsonWriter& w_;
};

// `value` as one line of compact JSON, without a newline.
template <typename T>
std::string ToJsonLine(const T& value) {
  JsonWriter w(/*compact=*/true);
  Writer(w).Value(value);
  std::string out = w.Finish();
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

class Reader {
 public:
  // Fields are read from `object`; the first failure is kept in `*error`,
  // and every read after it does nothing.
  Reader(simdjson::dom::object object, std::string* error, std::string path)
      : object_(object), error_(error), path_(std::move(path)) {}

  bool ok() const { return error_->empty(); }

  template <typename T>
  void operator()(std::string_view key, T& value) {
    if (!ok()) return;
    simdjson::dom::element e;
    if (object_[key].get(e) != simdjson::SUCCESS) {
      Fail(key, "missing");
      return;
    }
    Read(e, value, key);
  }

 private:
  void Fail(std::string_view key, std::string_view what) {
    if (error_->empty()) {
      *error_ = path_;
      *error_ += ".";
      *error_ += key;
      *error_ += ": ";
      *error_ += what;
    }
  }

  static int HexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  }
  void Read(simdjson::dom::element e, bool& v, std::string_view key) {
    if (e.get_bool().get(v) != simdjson::SUCCESS) Fail(key, "not a boolean");
  }
  void Read(simdjson::dom::element e, std::string& v, std::string_view key) {
    std::string_view s;
    simdjson::dom::object o;
    if (e.get_string().get(s) == simdjson::SUCCESS) {
      v.assign(s);
    } else if (e.get_object().get(o) == simdjson::SUCCESS && o["hex"].get_string().get(s) ==
                                                                   simdjson::SUCCESS &&
               s.size() % 2 == 0) {
      v.clear();
      for (size_t i = 0; i < s.size(); i += 2) {
        int hi = HexDigit(s[i]), lo = HexDigit(s[i + 1]);
        if (hi < 0 || lo < 0) return Fail(key, "not hex");
        v += static_cast<char>(hi * 16 + lo);
      }
    } else {
      Fail(key, "not a string");
    }
  }
  void Read(simdjson::dom::element e, double& v, std::string_view key) {
    std::string_view s;
    if (e.is_null()) {
      v = std::numeric_limits<double>::quiet_NaN();
    } else if (e.get_string().get(s) == simdjson::SUCCESS && (s == "inf" || s == "-inf")) {
      v = s == "inf" ? std::numeric_limits<double>::infinity()
                     : -std::numeric_limits<double>::infinity();
    } else if (e.get_double().get(v) != simdjson::SUCCESS) {
      Fail(key, "not a number");
    }
  }
  template <typename T>
    requires std::is_integral_v<T> && (!std::is_same_v<T, bool>)
  void Read(simdjson::dom::element e, T& v, std::string_view key) {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) {
      std::string_view s;
      uint64_t u = 0;
      if (e.get_string().get(s) == simdjson::SUCCESS) {
        u = 0;
        if (s.empty() || s.size() > 20) return Fail(key, "not an integer");
        for (char c : s) {
          if (c < '0' || c > '9') return Fail(key, "not an integer");
          u = u * 10 + static_cast<uint64_t>(c - '0');
        }
        v = u;
        return;
      }
      if (e.get_uint64().get(u) != simdjson::SUCCESS) return Fail(key, "not an integer");
      v = u;
    } else {
      int64_t i = 0;
      if (e.get_int64().get(i) != simdjson::SUCCESS) return Fail(key, "not an integer");
      // No analysis makes an integer (a time, a count, a size) past the
      // range of a timeline's times, and within it a difference of two
      // never overflows.
      if (i < -kMaxTraceTimeNs || i > kMaxTraceTimeNs) return Fail(key, "out of range");
      if (i < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
          (i > 0 && static_cast<uint64_t>(i) > static_cast<uint64_t>(std::numeric_limits<T>::max()))) {
        return Fail(key, "out of range");
      }
      v = static_cast<T>(i);
    }
  }
  template <typename E>
    requires std::is_enum_v<E>
  void Read(simdjson::dom::element e, E& v, std::string_view key) {
    int64_t i = 0;
    if (e.get_int64().get(i) != simdjson::SUCCESS) return Fail(key, "not an integer");
    if (i < 0 || i > static_cast<int64_t>(EnumMax<E>::value)) return Fail(key, "out of range");
    v = static_cast<E>(i);
  }
  template <typename T>
  void Read(simdjson::dom::element e, std::optional<T>& v, std::string_view key) {
    if (e.is_null()) {
      v.reset();
      return;
    }
    v.emplace();
    Read(e, *v, key);
  }
  template <typename T>
  void Read(simdjson::dom::element e, std::vector<T>& v, std::string_view key) {
    simdjson::dom::array a;
    if (e.get_array().get(a) != simdjson::SUCCESS) return Fail(key, "not an array");
    v.clear();
    v.reserve(a.size());
    for (simdjson::dom::element item : a) {
      Read(item, v.emplace_back(), key);
      if (!ok()) return;
    }
  }
  template <typename T, size_t N>
  void ReadFixed(simdjson::dom::element e, T* v, std::string_view key) {
    simdjson::dom::array a;
    if (e.get_array().get(a) != simdjson::SUCCESS) return Fail(key, "not an array");
    if (a.size() != N) return Fail(key, "wrong length");
    size_t i = 0;
    for (simdjson::dom::element item : a) {
      Read(item, v[i++], key);
      if (!ok()) return;
    }
  }
  template <typename T, size_t N>
  void Read(simdjson::dom::element e, std::array<T, N>& v, std::string_view key) {
    ReadFixed<T, N>(e, v.data(), key);
  }
  template <typename T, size_t N>
  void Read(simdjson::dom::element e, T (&v)[N], std::string_view key) {
    ReadFixed<T, N>(e, v, key);
  }
  template <typename A, typename B>
  void Read(simdjson::dom::element e, std::pair<A, B>& v, std::string_view key) {
    simdjson::dom::array a;
    if (e.get_array().get(a) != simdjson::SUCCESS || a.size() != 2) {
      return Fail(key, "not a pair");
    }
    Read(a.at(0).value_unsafe(), v.first, key);
    Read(a.at(1).value_unsafe(), v.second, key);
  }
  template <typename S>
    requires std::is_class_v<S>
  void Read(simdjson::dom::element e, S& v, std::string_view key) {
    simdjson::dom::object o;
    if (e.get_object().get(o) != simdjson::SUCCESS) return Fail(key, "not an object");
    std::string path = path_;
    path += ".";
    path += key;
    Reader sub(o, error_, std::move(path));
    Io(sub, v);
  }

  simdjson::dom::object object_;
  std::string* error_;
  std::string path_;
};

}  // namespace tracelint::record_io

#endif  // TRACELINT_ANALYZER_ANALYSIS_RECORD_IO_H_
