#ifndef TRACELINT_CLI_RULE_DOCS_H_
#define TRACELINT_CLI_RULE_DOCS_H_

// The pages of rules/docs/<rule-id>.md, built into the binary (the CMake
// configure step writes rule_docs.cc from them) so `tracelint rules ID`
// works from an installed binary without the source tree.

#include <string_view>
#include <utility>
#include <vector>

namespace tracelint {

// (rule id, page text), sorted by id.
const std::vector<std::pair<std::string_view, std::string_view>>& RuleDocPages();

}  // namespace tracelint

#endif  // TRACELINT_CLI_RULE_DOCS_H_
