#include "analyzer/base/json_writer.h"

#include <cmath>

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
  return *this;
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
