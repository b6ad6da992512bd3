#ifndef TRACELINT_ANALYZER_BASE_JSON_WRITER_H_
#define TRACELINT_ANALYZER_BASE_JSON_WRITER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/base/json_escape.h"

namespace tracelint {

// A small streaming JSON writer: keys come out in the order they are
// written (deterministic reports), two-space indentation, doubles in their
// shortest round-trip form, non-finite doubles as null.
class JsonWriter {
 public:
  // `compact`: one line, no indentation (a value embedded in a JSONL record).
  explicit JsonWriter(bool compact = false) : compact_(compact) {}
  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  // Key of the next value inside an object.
  JsonWriter& Key(std::string_view key);

  void String(std::string_view value);
  void Int(int64_t value);
  void Double(double value);
  void Bool(bool value);
  void Null();
  void OptionalDouble(const std::optional<double>& value) {
    value.has_value() ? Double(*value) : Null();
  }
  void StringArray(const std::vector<std::string>& values);
  // A share, fraction or probability: a number in [0, 1]. A value outside
  // it (a computation that forgot to clamp) aborts, naming the key, in
  // debug builds and under TRACELINT_STRICT_INVARIANTS (every test); a
  // release run writes it clamped (NaN as 0), so a report never fails its
  // own schema.
  void Share(double value);
  void OptionalShare(const std::optional<double>& value) {
    value.has_value() ? Share(*value) : Null();
  }
  // A value already written as JSON (by another JsonWriter), inserted as is.
  void Raw(std::string_view json);

  // The document, ending in a newline.
  std::string Finish();

 private:
  void BeforeValue();
  void Newline();

  bool compact_ = false;
  std::string out_;
  // One entry per open container: number of values written so far.
  std::vector<int> counts_;
  bool after_key_ = false;
  std::string last_key_;  // for Share's message
};


}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_BASE_JSON_WRITER_H_
