#ifndef TRACELINT_RULES_ALL_RULES_H_
#define TRACELINT_RULES_ALL_RULES_H_

#include "analyzer/engine/registry.h"

namespace tracelint {

// The one place rules get their ids (rules/all_rules.cc).
void RegisterAllRules(RuleRegistry& registry);

}  // namespace tracelint

#endif  // TRACELINT_RULES_ALL_RULES_H_
