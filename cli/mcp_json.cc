#include "cli/mcp_json.h"

#include <cmath>

#include "absl/status/status.h"
#include "analyzer/base/json_escape.h"
#include "fmt/format.h"
#include "simdjson.h"

namespace tracelint::mcp {
namespace {

absl::StatusOr<Json> FromElement(simdjson::dom::element e, size_t depth_left) {
  if (depth_left == 0) return absl::InvalidArgumentError("JSON nested too deeply");
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY: {
      Json out = Json::Array();
      simdjson::dom::array array;
      if (e.get(array) != simdjson::SUCCESS) return out;
      for (simdjson::dom::element item : array) {
        absl::StatusOr<Json> v = FromElement(item, depth_left - 1);
        if (!v.ok()) return v.status();
        out.Push(*std::move(v));
      }
      return out;
    }
    case simdjson::dom::element_type::OBJECT: {
      Json out = Json::Object();
      simdjson::dom::object object;
      if (e.get(object) != simdjson::SUCCESS) return out;
      for (simdjson::dom::key_value_pair kv : object) {
        absl::StatusOr<Json> v = FromElement(kv.value, depth_left - 1);
        if (!v.ok()) return v.status();
        // A repeated key keeps its last value, as most JSON readers do.
        out.Set(kv.key, *std::move(v));
      }
      return out;
    }
    case simdjson::dom::element_type::INT64:
      return Json(e.get_int64().value_unsafe());
    case simdjson::dom::element_type::UINT64:
      return Json(static_cast<double>(e.get_uint64().value_unsafe()));
    case simdjson::dom::element_type::DOUBLE:
      return Json(e.get_double().value_unsafe());
    case simdjson::dom::element_type::STRING:
      return Json(e.get_string().value_unsafe());
    case simdjson::dom::element_type::BOOL:
      return Json(e.get_bool().value_unsafe());
    case simdjson::dom::element_type::NULL_VALUE:
      return Json();
  }
  return Json();
}

}  // namespace

absl::StatusOr<Json> Json::Parse(std::string_view text, size_t max_depth) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  // simdjson reads up to SIMDJSON_PADDING bytes past the end: copy.
  simdjson::padded_string padded(text);
  if (simdjson::error_code err = parser.parse(padded).get(root); err) {
    return absl::InvalidArgumentError(simdjson::error_message(err));
  }
  return FromElement(root, max_depth);
}

const Json* Json::Find(std::string_view key) const {
  for (const Member& m : members_) {
    if (m.first == key) return &m.second;
  }
  return nullptr;
}

Json* Json::Find(std::string_view key) {
  for (Member& m : members_) {
    if (m.first == key) return &m.second;
  }
  return nullptr;
}

Json& Json::Set(std::string_view key, Json v) {
  if (Json* existing = Find(key)) {
    *existing = std::move(v);
    return *existing;
  }
  members_.emplace_back(std::string(key), std::move(v));
  return members_.back().second;
}

void Json::DumpTo(std::string& out) const {
  switch (type_) {
    case Type::kNull: out += "null"; return;
    case Type::kBool: out += bool_ ? "true" : "false"; return;
    case Type::kInt: out += fmt::format("{}", int_); return;
    case Type::kDouble:
      if (!std::isfinite(double_)) {
        out += "null";
      } else if (double_ == 0 && std::signbit(double_)) {
        out += "-0.0";  // "-0" would read back as the integer 0
      } else {
        out += fmt::format("{}", double_);
      }
      return;
    case Type::kString:
      out += '"';
      out += JsonEscape(string_);
      out += '"';
      return;
    case Type::kArray: {
      out += '[';
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i > 0) out += ',';
        items_[i].DumpTo(out);
      }
      out += ']';
      return;
    }
    case Type::kObject: {
      out += '{';
      for (size_t i = 0; i < members_.size(); ++i) {
        if (i > 0) out += ',';
        out += '"';
        out += JsonEscape(members_[i].first);
        out += "\":";
        members_[i].second.DumpTo(out);
      }
      out += '}';
      return;
    }
  }
}

std::string Json::Dump() const {
  std::string out;
  DumpTo(out);
  return out;
}

}  // namespace tracelint::mcp
