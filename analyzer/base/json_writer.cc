#include "analyzer/base/json_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "fmt/format.h"

namespace tracelint {

void JsonWriter::Newline() {
  if (compact_) return;
  out_ += '\n';
  out_.append(2 * counts_.size(), ' ');
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!counts_.empty()) {
    if (counts_.back() > 0) out_ += ',';
    ++counts_.back();
    Newline();
  }
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  if (counts_.back() > 0) out_ += ',';
  ++counts_.back();
  Newline();
  out_ += '"';
  out_ += JsonEscape(key);
  out_ += "\": ";
  after_key_ = true;
  last_key_.assign(key);
  return *this;
}

void JsonWriter::Share(double value) {
  if (!(value >= 0 && value <= 1)) {
#ifdef NDEBUG
    static const bool strict = std::getenv("TRACELINT_STRICT_INVARIANTS") != nullptr;
#else
    constexpr bool strict = true;
#endif
    if (strict) {
      std::fprintf(stderr, "tracelint: invariant broken: \"%s\" is %g, outside [0, 1]\n",
                   last_key_.c_str(), value);
      std::abort();
    }
    value = std::isnan(value) ? 0.0 : std::clamp(value, 0.0, 1.0);
  }
  Double(value);
}

void JsonWriter::BeginObject() {
  BeforeValue();
  out_ += '{';
  counts_.push_back(0);
}

void JsonWriter::EndObject() {
  bool empty = counts_.back() == 0;
  counts_.pop_back();
  if (!empty) Newline();
  out_ += '}';
}

void JsonWriter::BeginArray() {
  BeforeValue();
  out_ += '[';
  counts_.push_back(0);
}

void JsonWriter::EndArray() {
  bool empty = counts_.back() == 0;
  counts_.pop_back();
  if (!empty) Newline();
  out_ += ']';
}

void JsonWriter::String(std::string_view value) {
  BeforeValue();
  out_ += '"';
  out_ += JsonEscape(value);
  out_ += '"';
}

void JsonWriter::Int(int64_t value) {
  BeforeValue();
  out_ += fmt::format("{}", value);
}

void JsonWriter::Double(double value) {
  if (!std::isfinite(value)) {
    Null();
    return;
  }
  BeforeValue();
  // fmt's "{}" is the shortest form that reads back to the same double.
  std::string text = fmt::format("{}", value);
  out_ += text;
}

void JsonWriter::Bool(bool value) {
  BeforeValue();
  out_ += value ? "true" : "false";
}

void JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
}

void JsonWriter::StringArray(const std::vector<std::string>& values) {
  BeginArray();
  for (const std::string& v : values) String(v);
  EndArray();
}

void JsonWriter::Raw(std::string_view json) {
  BeforeValue();
  out_ += json;
}

std::string JsonWriter::Finish() {
  out_ += '\n';
  return std::move(out_);
}

}  // namespace tracelint
