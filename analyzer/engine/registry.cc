#include "analyzer/engine/registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "fmt/format.h"

namespace tracelint {

void UndeclaredOption(std::string_view name) {
  static const bool strict = std::getenv("TRACELINT_STRICT_INVARIANTS") != nullptr;
  if (!strict) return;
  std::fprintf(stderr, "tracelint: a rule read option '%.*s', which it does not declare\n",
               static_cast<int>(name.size()), name.data());
  std::abort();
}

bool IsValidRuleId(std::string_view id) {
  if (id.empty() || id.front() == '-' || id.back() == '-') return false;
  bool has_dash = false;
  char prev = 0;
  for (char c : id) {
    if (c == '-') {
      if (prev == '-') return false;
      has_dash = true;
    } else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
      return false;
    }
    prev = c;
  }
  return has_dash && id.front() >= 'a' && id.front() <= 'z';
}

void RuleRegistry::Register(std::string_view id, std::unique_ptr<Rule> rule) {
  auto fail = [this](std::string message) {
    if (status_.ok()) status_ = absl::InternalError(std::move(message));
  };
  if (!IsValidRuleId(id)) {
    fail(fmt::format("rule id '{}' is not of the form family-name", id));
    return;
  }
  if (rule == nullptr) {
    fail(fmt::format("rule '{}' registered without an implementation", id));
    return;
  }
  auto it = std::lower_bound(rules_.begin(), rules_.end(), id,
                             [](const RegisteredRule& r, std::string_view key) {
                               return r.id < key;
                             });
  if (it != rules_.end() && it->id == id) {
    fail(fmt::format("rule '{}' registered twice", id));
    return;
  }
  rules_.insert(it, RegisteredRule{std::string(id), std::move(rule)});
}

const Rule* RuleRegistry::Find(std::string_view id) const {
  auto it = std::lower_bound(rules_.begin(), rules_.end(), id,
                             [](const RegisteredRule& r, std::string_view key) {
                               return r.id < key;
                             });
  return it != rules_.end() && it->id == id ? it->rule.get() : nullptr;
}

}  // namespace tracelint
