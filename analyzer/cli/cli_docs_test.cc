#include "analyzer/cli/cli_docs.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A small app shaped like main.cc's: the generators only read the CLI11
// definition, so any app shows they follow it.
struct TestApp {
  CLI::App app{"tool: finds what wastes GPU time", "tracelint"};
  std::string path, format, rules, shell;
  bool secret = false;
  int top = 10;
  TestApp() {
    CLI::App* analyze = app.add_subcommand("analyze", "analyze a trace file or directory");
    analyze->add_option("path", path, "trace file or directory");
    analyze->add_option("--format", format, "output format: text or json");
    analyze->add_option("--top", top, "rows shown")->check(AtLeast(1));
    analyze->add_option("--rules", rules, "rule globs, e.g. '-*,gpu-*'");
    app.add_subcommand("batch", "analyze every run [in parallel]");
    app.add_subcommand("rules", "list the rules");
    app.add_flag("--secret", secret, "not shown")->group("");
  }
};

TEST(CliDocs, MistypedCommandGetsTheClosestName) {
  TestApp t;
  EXPECT_EQ(CheckUnknownWords(t.app, {"analyse", "x.json"}),
            "unknown command 'analyse'; did you mean 'analyze'?");
  EXPECT_EQ(CheckUnknownWords(t.app, {"frobnicate"}),
            "unknown command 'frobnicate'; the commands are: analyze, batch, rules");
  EXPECT_EQ(CheckUnknownWords(t.app, {"analyze", "x.json", "--formt", "json"}),
            "unknown option '--formt' for 'analyze'; did you mean '--format'?");
  EXPECT_EQ(CheckUnknownWords(t.app, {"analyze", "--zzzzzzzz"}),
            "unknown option '--zzzzzzzz' for 'analyze'; see 'tracelint help analyze'");
}

TEST(CliDocs, KnownWordsAndOptionValuesPass) {
  TestApp t;
  EXPECT_EQ(CheckUnknownWords(t.app, {"analyze", "x.json", "--rules", "-*,gpu-*", "--top=3"}),
            std::nullopt);
  EXPECT_EQ(CheckUnknownWords(t.app, {"analyze", "--top", "-1", "--", "-odd-name.json"}),
            std::nullopt);
  EXPECT_EQ(CheckUnknownWords(t.app, {"--help"}), std::nullopt);
}

TEST(CliDocs, RangeErrorsReadLikeASentence) {
  TestApp t;
  try {
    t.app.parse(std::vector<std::string>{"0", "--top", "analyze"});  // reversed argv
    FAIL() << "--top 0 was accepted";
  } catch (const CLI::ValidationError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("--top: must be at least 1, not 0"));
  }
}

TEST(CliDocs, CompletionsListEveryCommandAndOptionButHiddenOnes) {
  TestApp t;
  for (const char* shell : {"bash", "zsh", "fish"}) {
    std::optional<std::string> script = CompletionScript(t.app, shell);
    ASSERT_TRUE(script.has_value()) << shell;
    EXPECT_THAT(*script, HasSubstr("analyze")) << shell;
    EXPECT_THAT(*script, HasSubstr("batch")) << shell;
    EXPECT_THAT(*script, HasSubstr("format")) << shell;
    EXPECT_THAT(*script, Not(HasSubstr("secret"))) << shell;
  }
  EXPECT_THAT(*CompletionScript(t.app, "bash"), HasSubstr("complete -o filenames -F _tracelint"));
  // zsh specs keep their brackets balanced: the description's [..] is rewritten.
  EXPECT_THAT(*CompletionScript(t.app, "zsh"), HasSubstr("'batch:analyze every run (in parallel)'"));
  EXPECT_THAT(*CompletionScript(t.app, "fish"),
              HasSubstr("complete -c tracelint -n '__fish_seen_subcommand_from analyze' -l top -r"));
  EXPECT_EQ(CompletionScript(t.app, "tcsh"), std::nullopt);
}

TEST(CliDocs, ManPageIsRoffWithEveryOption) {
  TestApp t;
  std::string man = ManPage(t.app, "tracelint 0.1.0");
  EXPECT_THAT(man, HasSubstr(".TH tracelint 1"));
  EXPECT_THAT(man, HasSubstr(".SS analyze\n"));
  EXPECT_THAT(man, HasSubstr("\\fB\\-\\-top\\fR \\fIVALUE\\fR"));
  EXPECT_THAT(man, HasSubstr("e.g. '\\-*,gpu\\-*'"));
  EXPECT_THAT(man, HasSubstr(".SH EXIT STATUS"));
  EXPECT_THAT(man, Not(HasSubstr("secret")));
}

}  // namespace
}  // namespace tracelint
