// Config discovery (docs/configuration.md): tracelint.toml, or [tool.tracelint]
// in pyproject.toml, from the current directory upward; rule selection and
// options in the file; explicit flags win; the JSON provenance names the file.

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/analyze_command.h"
#include "cli/config_discovery.h"
#include "cli/exit_codes.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/options.h"
#include "analyzer/engine/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rules/all_rules.h"
#include "simdjson.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A per-process directory tree, removed afterwards.
class TempTree {
 public:
  TempTree() {
    std::string pattern = (fs::path(::testing::TempDir()) / "tl_config_XXXXXX").string();
    char* made = ::mkdtemp(pattern.data());
    root_ = made ? fs::path(made) : fs::path();
  }
  ~TempTree() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  const fs::path& root() const { return root_; }
  fs::path Write(const fs::path& rel, const std::string& text) const {
    fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
    return p;
  }

 private:
  fs::path root_;
};

// Runs the test body with the current directory changed, restored after.
class InDirectory {
 public:
  explicit InDirectory(const fs::path& dir) : saved_(fs::current_path()) {
    fs::current_path(dir);
  }
  ~InDirectory() { fs::current_path(saved_); }

 private:
  fs::path saved_;
};

TEST(ConfigFile, RulesAndOptionsFromTomlJsonAndPyproject) {
  TempTree t;
  fs::path toml = t.Write("a/tracelint.toml",
                          "rules = [\"-*\", \"gpu-*\"]\n[\"gpu-idle-gaps\"]\nMinIdleShare = 0.2\n");
  absl::StatusOr<ConfigFile> c = LoadConfig(toml.string());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->rules_glob, "-*,gpu-*");
  ASSERT_EQ(c->overrides.size(), 1u);
  EXPECT_EQ(c->overrides[0].rule_id, "gpu-idle-gaps");

  fs::path json = t.Write("b/tracelint.json",
                          R"({"rules": "-*,host-*", "host-side-ops": {"MinIdleShare": 0.05}})");
  absl::StatusOr<ConfigFile> j = LoadConfig(json.string());
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->rules_glob, "-*,host-*");
  EXPECT_EQ(j->overrides.size(), 1u);

  fs::path py = t.Write("c/pyproject.toml",
                        "[project]\nname = \"x\"\n[tool.black]\nline-length = 100\n"
                        "[tool.tracelint]\nrules = \"-*,gpu-*\"\n"
                        "[tool.tracelint.\"gpu-idle-gaps\"]\nMinIdleShare = 0.3\n");
  absl::StatusOr<ConfigFile> p = LoadConfig(py.string());
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->rules_glob, "-*,gpu-*");
  ASSERT_EQ(p->overrides.size(), 1u);
  EXPECT_DOUBLE_EQ(p->overrides[0].value, 0.3);

  fs::path bad = t.Write("d/tracelint.toml", "rules = 3\n");
  EXPECT_THAT(std::string(LoadConfig(bad.string()).status().message()), HasSubstr("rules"));
}

TEST(ConfigDiscovery, NearestDirectoryUpwardWins) {
  TempTree t;
  fs::path deep = t.root() / "repo" / "src" / "pkg";
  fs::create_directories(deep);
  EXPECT_EQ(DiscoverConfig(deep), std::nullopt);
  // A pyproject.toml of another tool is not a config: the search goes on.
  t.Write("repo/src/pyproject.toml", "[tool.ruff]\nline-length = 100\n");
  EXPECT_EQ(DiscoverConfig(deep), std::nullopt);
  fs::path py = t.Write("repo/pyproject.toml", "[tool.tracelint]\nrules = \"*\"\n");
  EXPECT_EQ(DiscoverConfig(deep), py.string());
  // tracelint.toml beside it wins; a nearer one wins over both.
  fs::path own = t.Write("repo/tracelint.toml", "rules = \"*\"\n");
  EXPECT_EQ(DiscoverConfig(deep), own.string());
  fs::path nearer = t.Write("repo/src/pkg/tracelint.toml", "rules = \"*\"\n");
  EXPECT_EQ(DiscoverConfig(deep), nearer.string());
}

TEST(ConfigDiscovery, PrepareRulesUsesTheFileAndFlagsWin) {
  TempTree t;
  fs::path config = t.Write("tracelint.toml",
                            "rules = \"-*,gpu-*\"\n[\"gpu-idle-gaps\"]\nMinIdleShare = 0.2\n");
  fs::create_directories(t.root() / "sub");
  InDirectory cwd(t.root() / "sub");
  RuleRegistry registry;
  RegisterAllRules(registry);

  CommandRuleOptions options;
  options.discover_config = true;
  absl::StatusOr<PreparedRules> found = PrepareCommandRules(registry, options);
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(fs::path(found->config_path), config);
  EXPECT_EQ(found->rules_glob, "-*,gpu-*");
  EXPECT_THAT(found->selected, ElementsAre("gpu-idle-gaps"));
  EXPECT_DOUBLE_EQ(found->options.at("gpu-idle-gaps").Get("MinIdleShare"), 0.2);

  // --rules and --set on the command line win over the file.
  options.rules_glob = "-*,host-*";
  options.rules_given = true;
  options.set_overrides = {"gpu-idle-gaps.MinIdleShare=0.4"};
  absl::StatusOr<PreparedRules> flags = PrepareCommandRules(registry, options);
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_THAT(flags->selected, ElementsAre("host-side-ops"));
  EXPECT_DOUBLE_EQ(flags->options.at("gpu-idle-gaps").Get("MinIdleShare"), 0.4);

  // --no-config (discovery off) and an explicit --config elsewhere.
  CommandRuleOptions off;
  absl::StatusOr<PreparedRules> none = PrepareCommandRules(registry, off);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->config_path, "");
  EXPECT_GT(none->selected.size(), 1u);
  fs::path other = t.Write("other.toml", "[\"gpu-idle-gaps\"]\nMinIdleShare = 0.3\n");
  CommandRuleOptions explicit_config;
  explicit_config.discover_config = true;
  explicit_config.config_path = other.string();
  absl::StatusOr<PreparedRules> given = PrepareCommandRules(registry, explicit_config);
  ASSERT_TRUE(given.ok()) << given.status();
  EXPECT_EQ(given->config_path, other.string());
  EXPECT_DOUBLE_EQ(given->options.at("gpu-idle-gaps").Get("MinIdleShare"), 0.3);
}

TEST(ConfigDiscovery, ABrokenDiscoveredFileIsAUsageError) {
  TempTree t;
  t.Write("tracelint.toml", "[\"no-such-rule\"]\nX = 1\n");
  InDirectory cwd(t.root());
  const char* source = std::getenv("TRACELINT_SOURCE_DIR");
  AnalyzeArgs args;
  args.path = (fs::path(source ? source : "/nonexistent") / "testdata" / "example").string();
  args.engine.discover_config = true;
  std::ostringstream out, err;
  EXPECT_EQ(RunAnalyze(args, out, err), kExitUsage);
  EXPECT_THAT(err.str(), HasSubstr("tracelint.toml"));
  EXPECT_THAT(err.str(), HasSubstr("no-such-rule"));
}

TEST(ConfigDiscovery, JsonProvenanceRecordsTheConfigPath) {
  const char* source = std::getenv("TRACELINT_SOURCE_DIR");
  if (source == nullptr) GTEST_SKIP() << "TRACELINT_SOURCE_DIR not set";
  TempTree t;
  fs::path config = t.Write("proj/pyproject.toml",
                            "[tool.tracelint]\nrules = [\"-*\", \"gpu-idle-gaps\"]\n");
  InDirectory cwd(t.root() / "proj");
  AnalyzeArgs args;
  args.path = (fs::path(source) / "testdata" / "example").string();
  args.format = "json";
  args.engine.discover_config = true;
  std::ostringstream out, err;
  ASSERT_EQ(RunAnalyze(args, out, err), kExitOk) << err.str();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string json = out.str();
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(std::string_view(doc["provenance"]["config_path"]), config.string());
  EXPECT_EQ(std::string_view(doc["provenance"]["rules"]), "-*,gpu-idle-gaps");
  EXPECT_EQ(doc["provenance"]["selected_rules"].get_array().size(), 1u);
}

// A config found in a parent directory that disables rules or changes a
// threshold is said at the top of the text report and on stderr; one named
// with --config, or one that changes nothing, is not.
TEST(ConfigDiscovery, AParentConfigThatChangesRulesIsNamed) {
  const char* source = std::getenv("TRACELINT_SOURCE_DIR");
  if (source == nullptr) GTEST_SKIP() << "TRACELINT_SOURCE_DIR not set";
  TempTree t;
  fs::path config = t.Write("repo/tracelint.toml",
                            "rules = \"-*,gpu-idle-gaps,host-side-ops\"\n"
                            "[gpu-idle-gaps]\nMinIdleShare = 0.3\n");
  fs::create_directories(t.root() / "repo" / "sub" / "dir");
  InDirectory cwd(t.root() / "repo" / "sub" / "dir");
  AnalyzeArgs args;
  args.path = (fs::path(source) / "testdata" / "example").string();
  args.engine.discover_config = true;
  std::ostringstream out, err;
  ASSERT_EQ(RunAnalyze(args, out, err), kExitOk) << err.str();
  EXPECT_THAT(err.str(), HasSubstr("tracelint: note: config " + config.string() +
                                   " (found from the current directory; --no-config ignores "
                                   "it) disables comm-clustered-allreduce,"));
  EXPECT_THAT(err.str(), HasSubstr("; sets gpu-idle-gaps.MinIdleShare=0.3"));
  std::string text = out.str();
  std::string second_line = text.substr(text.find('\n') + 1);
  EXPECT_TRUE(second_line.starts_with("Config in effect: " + config.string()))
      << text.substr(0, 400);

  // Named with --config: the user chose it; nothing to point out.
  args.engine.config_path = config.string();
  std::ostringstream out2, err2;
  ASSERT_EQ(RunAnalyze(args, out2, err2), kExitOk) << err2.str();
  EXPECT_THAT(err2.str(), ::testing::Not(HasSubstr("note: config")));
  EXPECT_THAT(out2.str(), ::testing::Not(HasSubstr("Config in effect")));

  // A discovered file that selects every rule and sets nothing changes nothing.
  t.Write("repo/tracelint.toml", "rules = \"*\"\n");
  args.engine.config_path.clear();
  std::ostringstream out3, err3;
  ASSERT_EQ(RunAnalyze(args, out3, err3), kExitOk) << err3.str();
  EXPECT_THAT(err3.str(), ::testing::Not(HasSubstr("note: config")));
}

// A selection that leaves no rule would print "No findings" and exit 0:
// a usage error instead, from --rules or from a config file.
TEST(ConfigDiscovery, ASelectionOfNoRuleIsAUsageError) {
  const char* source = std::getenv("TRACELINT_SOURCE_DIR");
  if (source == nullptr) GTEST_SKIP() << "TRACELINT_SOURCE_DIR not set";
  AnalyzeArgs args;
  args.path = (fs::path(source) / "testdata" / "example").string();
  args.engine.rules_glob = "-*";
  args.engine.rules_given = true;
  std::ostringstream out, err;
  EXPECT_EQ(RunAnalyze(args, out, err), kExitUsage);
  EXPECT_THAT(err.str(), HasSubstr("the rule selection '-*' selects no rule"));
  EXPECT_EQ(out.str(), "");
  TempTree t;
  fs::path config = t.Write("tracelint.toml", "rules = \"-*\"\n");
  InDirectory cwd(t.root());
  AnalyzeArgs from_file;
  from_file.path = args.path;
  from_file.engine.discover_config = true;
  std::ostringstream out2, err2;
  EXPECT_EQ(RunAnalyze(from_file, out2, err2), kExitUsage);
  EXPECT_THAT(err2.str(), HasSubstr("selects no rule"));
  EXPECT_THAT(err2.str(), HasSubstr("(from " + config.string() + ")"));
}

}  // namespace
}  // namespace tracelint
