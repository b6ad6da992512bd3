#ifndef TRACELINT_CLI_MCP_JSON_H_
#define TRACELINT_CLI_MCP_JSON_H_

// A small mutable JSON value for the MCP server: JSON-RPC messages are
// parsed into it (simdjson's DOM, then copied), tool results are built and
// trimmed in it, and it is written compactly (one line: MCP's stdio
// transport delimits messages by newlines). Objects keep their key order.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace tracelint::mcp {

class Json {
 public:
  enum class Type { kNull, kBool, kInt, kDouble, kString, kArray, kObject };
  using Member = std::pair<std::string, Json>;

  Json() = default;
  Json(std::nullptr_t) {}
  Json(bool b) : type_(Type::kBool), bool_(b) {}
  Json(int v) : type_(Type::kInt), int_(v) {}
  Json(int64_t v) : type_(Type::kInt), int_(v) {}
  Json(double v) : type_(Type::kDouble), double_(v) {}
  Json(std::string s) : type_(Type::kString), string_(std::move(s)) {}
  Json(std::string_view s) : type_(Type::kString), string_(s) {}
  Json(const char* s) : type_(Type::kString), string_(s) {}
  static Json Array() { Json j; j.type_ = Type::kArray; return j; }
  static Json Object() { Json j; j.type_ = Type::kObject; return j; }

  // Parses one JSON text; `max_depth` bounds nesting (a hostile message
  // must not exhaust the stack).
  static absl::StatusOr<Json> Parse(std::string_view text, size_t max_depth = 64);

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_bool() const { return type_ == Type::kBool; }
  bool is_int() const { return type_ == Type::kInt; }
  bool is_number() const { return type_ == Type::kInt || type_ == Type::kDouble; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_object() const { return type_ == Type::kObject; }

  bool as_bool() const { return bool_; }
  int64_t as_int() const { return type_ == Type::kInt ? int_ : static_cast<int64_t>(double_); }
  double as_double() const { return type_ == Type::kInt ? static_cast<double>(int_) : double_; }
  const std::string& as_string() const { return string_; }

  // Arrays.
  std::vector<Json>& items() { return items_; }
  const std::vector<Json>& items() const { return items_; }
  Json& Push(Json v) { items_.push_back(std::move(v)); return items_.back(); }

  // Objects: Find is null when absent; Set replaces or appends.
  const Json* Find(std::string_view key) const;
  Json* Find(std::string_view key);
  Json& Set(std::string_view key, Json v);
  std::vector<Member>& members() { return members_; }
  const std::vector<Member>& members() const { return members_; }

  // Compact JSON text, no newline.
  std::string Dump() const;
  void DumpTo(std::string& out) const;

 private:
  Type type_ = Type::kNull;
  bool bool_ = false;
  int64_t int_ = 0;
  double double_ = 0;
  std::string string_;
  std::vector<Json> items_;
  std::vector<Member> members_;
};

}  // namespace tracelint::mcp

#endif  // TRACELINT_CLI_MCP_JSON_H_
