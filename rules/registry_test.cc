// Every registered rule has a doc page (rules/docs/<id>.md) whose summary is
// the rule's own, documents every option with its default, and is listed in
// rules/docs/index.md; ids are family-name and options are well formed.

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/engine/options.h"
#include "analyzer/engine/registry.h"
#include "gtest/gtest.h"
#include "rules/all_rules.h"

namespace tracelint {
namespace {

std::string ReadDoc(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return in ? text.str() : std::string();
}

TEST(RuleRegistryDocsTest, EveryRuleHasADocPageThatMatches) {
  const char* root = std::getenv("TRACELINT_SOURCE_DIR");
  if (root == nullptr) GTEST_SKIP() << "TRACELINT_SOURCE_DIR not set (run under ctest)";
  RuleRegistry registry;
  RegisterAllRules(registry);
  ASSERT_TRUE(registry.status().ok()) << registry.status();
  ASSERT_FALSE(registry.rules().empty());
  std::string docs = std::string(root) + "/rules/docs/";
  std::string index = ReadDoc(docs + "index.md");
  ASSERT_FALSE(index.empty()) << "missing rules/docs/index.md";
  for (const RegisteredRule& r : registry.rules()) {
    SCOPED_TRACE(r.id);
    std::string page = ReadDoc(docs + r.id + ".md");
    ASSERT_FALSE(page.empty()) << "missing rules/docs/" << r.id << ".md";
    EXPECT_EQ(page.rfind("# " + r.id + "\n", 0), 0u) << "first line must be '# " << r.id << "'";
    std::string summary_line = "**Summary:** " + std::string(r.rule->summary()) + "\n";
    EXPECT_NE(page.find(summary_line), std::string::npos)
        << "the page's summary must read: " << summary_line;
    for (const char* section : {"## Why it matters", "## How it is detected", "## Options",
                                "## Example", "## Fix", "## Known false positives"}) {
      EXPECT_NE(page.find(section), std::string::npos) << "missing section " << section;
    }
    EXPECT_NE(index.find("(" + r.id + ".md)"), std::string::npos) << "not in index.md";
    for (const RuleOptionSpec& spec : r.rule->options()) {
      SCOPED_TRACE(spec.name);
      EXPECT_FALSE(spec.description.empty());
      EXPECT_FALSE(spec.unit.empty());
      EXPECT_LE(spec.min_value, spec.default_value);
      EXPECT_LE(spec.default_value, spec.max_value);
      // The options table row: | `Name` | default | unit | meaning |
      std::string cell = "| `" + spec.name + "` | ";
      size_t at = page.find(cell);
      ASSERT_NE(at, std::string::npos) << "option not documented in the options table";
      size_t begin = at + cell.size();
      size_t end = page.find(' ', begin);
      double documented = 0;
      auto [ptr, ec] = std::from_chars(page.data() + begin, page.data() + end, documented);
      EXPECT_TRUE(ec == std::errc() && ptr == page.data() + end)
          << "default cell is not a number: " << page.substr(begin, end - begin);
      EXPECT_DOUBLE_EQ(documented, spec.default_value);
    }
  }
}

TEST(RuleRegistryDocsTest, ListAndDumpCoverEveryRule) {
  RuleRegistry registry;
  RegisterAllRules(registry);
  std::string list = ListRules(registry);
  std::string dump = DumpConfig(registry);
  for (const RegisteredRule& r : registry.rules()) {
    EXPECT_NE(list.find(r.id), std::string::npos);
    EXPECT_NE(dump.find("[\"" + r.id + "\"]"), std::string::npos);
  }
  // The dump reads back as a config that changes nothing.
  absl::StatusOr<std::vector<OptionOverride>> back = ParseConfigText(dump, ConfigFormat::kToml, "dump");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(ResolveOptions(registry, *back).ok());
}

// The rules tables of README.md and rules/docs/index.md list exactly the
// registered rules, in id order, each with the summary `tracelint rules`
// prints (scripts/new_rule.py adds the rows).
TEST(RuleRegistryDocsTest, RulesTablesMatchTheRegistry) {
  const char* root = std::getenv("TRACELINT_SOURCE_DIR");
  if (root == nullptr) GTEST_SKIP() << "TRACELINT_SOURCE_DIR not set (run under ctest)";
  RuleRegistry registry;
  RegisterAllRules(registry);
  std::vector<std::pair<std::string, std::string>> expected;
  for (const RegisteredRule& r : registry.rules()) {
    expected.emplace_back(r.id, std::string(r.rule->summary()));
  }
  std::sort(expected.begin(), expected.end());
  for (const auto& [file, link_prefix] :
       {std::pair<std::string, std::string>{"README.md", "rules/docs/"},
        std::pair<std::string, std::string>{"rules/docs/index.md", ""}}) {
    SCOPED_TRACE(file);
    std::string text = ReadDoc(std::string(root) + "/" + file);
    ASSERT_FALSE(text.empty());
    std::vector<std::pair<std::string, std::string>> rows;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("| [", 0) != 0) continue;
      size_t id_end = line.find("](");
      size_t link_end = line.find(") | ", id_end);
      ASSERT_NE(link_end, std::string::npos) << line;
      std::string id = line.substr(3, id_end - 3);
      EXPECT_EQ(line.substr(id_end + 2, link_end - id_end - 2), link_prefix + id + ".md") << line;
      std::string summary = line.substr(link_end + 4);
      ASSERT_TRUE(summary.size() >= 2 && summary.ends_with(" |")) << line;
      rows.emplace_back(id, summary.substr(0, summary.size() - 2));
    }
    EXPECT_EQ(rows, expected) << "regenerate the table rows from `tracelint rules`";
  }
}

}  // namespace
}  // namespace tracelint
