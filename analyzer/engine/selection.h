#ifndef TRACELINT_ANALYZER_ENGINE_SELECTION_H_
#define TRACELINT_ANALYZER_ENGINE_SELECTION_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/engine/registry.h"

namespace tracelint {

// `*` matches any run of characters, `?` one character.
bool GlobMatch(std::string_view pattern, std::string_view text);

// --rules: comma-separated globs applied in order to an empty selection; a
// leading '-' removes what it matches, so later patterns win ("-*,gpu-*"
// keeps only gpu-* rules, "*,-host-*" all but host-*). A pattern that matches
// no registered rule is an error (it is almost always a typo). Returns the
// selected ids, sorted.
absl::StatusOr<std::vector<std::string>> SelectRules(const RuleRegistry& registry,
                                                     std::string_view globs);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ENGINE_SELECTION_H_
