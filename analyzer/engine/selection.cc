#include "analyzer/engine/selection.h"

#include <set>

#include "analyzer/base/strings.h"
#include "fmt/format.h"

namespace tracelint {

bool GlobMatch(std::string_view pattern, std::string_view text) {
  // Iterative wildcard match with one backtrack point: linear in practice.
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

absl::StatusOr<std::vector<std::string>> SelectRules(const RuleRegistry& registry,
                                                     std::string_view globs) {
  if (!registry.status().ok()) return registry.status();
  std::set<std::string> selected;
  bool any_pattern = false;
  while (true) {
    size_t comma = globs.find(',');
    std::string_view item = StripAsciiWhitespace(globs.substr(0, comma));
    if (!item.empty()) {
      any_pattern = true;
      bool remove = item.front() == '-';
      std::string_view pattern = remove ? item.substr(1) : item;
      bool matched = false;
      for (const RegisteredRule& r : registry.rules()) {
        if (!GlobMatch(pattern, r.id)) continue;
        matched = true;
        if (remove) {
          selected.erase(r.id);
        } else {
          selected.insert(r.id);
        }
      }
      if (!matched) {
        return absl::InvalidArgumentError(fmt::format(
            "--rules: '{}' matches no rule (see `tracelint rules`)", std::string(item)));
      }
    }
    if (comma == std::string_view::npos) break;
    globs.remove_prefix(comma + 1);
  }
  if (!any_pattern) return absl::InvalidArgumentError("--rules: empty selection");
  return std::vector<std::string>(selected.begin(), selected.end());
}

}  // namespace tracelint
