#ifndef TRACELINT_ANALYZER_ENGINE_REGISTRY_H_
#define TRACELINT_ANALYZER_ENGINE_REGISTRY_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "analyzer/engine/rule.h"

namespace tracelint {

// `family-name`: lowercase ASCII letters and digits in at least two
// dash-separated words ("gpu-idle-gaps"), as clang-tidy names its checks.
bool IsValidRuleId(std::string_view id);

struct RegisteredRule {
  std::string id;
  std::unique_ptr<Rule> rule;
};

// The one place rules get their ids. Registration problems (bad id,
// duplicate, null rule) are programming errors: they are kept in status()
// rather than returned, so the registration list stays a plain list, and
// every engine entry point refuses to run while status() is not OK.
class RuleRegistry {
 public:
  void Register(std::string_view id, std::unique_ptr<Rule> rule);

  // Sorted by id.
  const std::vector<RegisteredRule>& rules() const { return rules_; }
  const Rule* Find(std::string_view id) const;
  const absl::Status& status() const { return status_; }

 private:
  std::vector<RegisteredRule> rules_;
  absl::Status status_;
};

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ENGINE_REGISTRY_H_
