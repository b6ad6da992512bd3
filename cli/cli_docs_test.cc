#include "cli/cli_docs.h"

#include <cstdint>
#include <map>
#include <string>

#include "cli/option_table.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "simdjson.h"

namespace tracelint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A small app shaped like main.cc's, declared through the option table: the
// generators read only the table, so any app shows they follow it.
struct TestApp {
  CLI::App app{"tracelint: finds what wastes GPU time", "tracelint"};
  OptionTable table;
  std::string path, format = "text", rules, shell;
  bool secret = false, quiet = false;
  int top = 10;
  int64_t split = 0;
  TestApp() {
    CLI::App* analyze = app.add_subcommand("analyze", "analyze a trace file or directory");
    CommandFlags f(*analyze, table.AddCommand("analyze", "analyze a trace file or directory"));
    f.Positional("path", path, "trace file or directory", /*required=*/false);
    f.Value("--format", format, "output format: text or json", Choices({"text", "json"}, true));
    f.Value("--top", top, "rows shown", Checked(AtLeast(1)));
    f.Value("--rules", rules, "rule globs, e.g. '-*,gpu-*'");
    f.Flag("-q,--quiet", quiet, "findings only", OutputOnly());
    OptionTraits hidden;
    hidden.hidden = true;
    f.Value("--split-bytes", split, "testing knob", hidden);
    app.add_subcommand("batch", "analyze every run [in parallel]");
    table.AddCommand("batch", "analyze every run [in parallel]");
    app.add_subcommand("rules", "list the rules");
    table.AddCommand("rules", "list the rules");
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
    std::optional<std::string> script = CompletionScript(t.app, t.table, shell);
    ASSERT_TRUE(script.has_value()) << shell;
    EXPECT_THAT(*script, HasSubstr("analyze")) << shell;
    EXPECT_THAT(*script, HasSubstr("batch")) << shell;
    EXPECT_THAT(*script, HasSubstr("format")) << shell;
    EXPECT_THAT(*script, Not(HasSubstr("secret"))) << shell;
    EXPECT_THAT(*script, Not(HasSubstr("split-bytes"))) << shell;
  }
  // A choice option completes to its values.
  EXPECT_THAT(*CompletionScript(t.app, t.table, "bash"),
              HasSubstr("--format) COMPREPLY=($(compgen -W \"text json\" -- \"$cur\")); return ;;"));
  EXPECT_THAT(*CompletionScript(t.app, t.table, "zsh"),
              HasSubstr("'--format[output format - text or json]:value:(text json)'"));
  EXPECT_THAT(*CompletionScript(t.app, t.table, "fish"), HasSubstr("-l format -x -a 'text json'"));
  EXPECT_THAT(*CompletionScript(t.app, t.table, "bash"), HasSubstr("complete -o filenames -F _tracelint"));
  // zsh specs keep their brackets balanced: the description's [..] is rewritten.
  EXPECT_THAT(*CompletionScript(t.app, t.table, "zsh"), HasSubstr("'batch:analyze every run (in parallel)'"));
  EXPECT_THAT(*CompletionScript(t.app, t.table, "fish"),
              HasSubstr("complete -c tracelint -n '__fish_seen_subcommand_from analyze' -l top -r"));
  EXPECT_EQ(CompletionScript(t.app, t.table, "tcsh"), std::nullopt);
}

TEST(CliDocs, ManPageIsRoffWithEveryOption) {
  TestApp t;
  std::string man = ManPage(t.app, t.table, "tracelint 0.1.0");
  EXPECT_THAT(man, HasSubstr(".TH tracelint 1"));
  // The NAME line names the tool once.
  EXPECT_THAT(man, HasSubstr(".SH NAME\ntracelint \\- finds what wastes GPU time\n"));
  EXPECT_THAT(man, HasSubstr("\\fB\\-\\-format\\fR \\fItext|json\\fR"));
  EXPECT_THAT(man, HasSubstr(".SS analyze\n"));
  EXPECT_THAT(man, HasSubstr("\\fB\\-\\-top\\fR \\fIVALUE\\fR"));
  EXPECT_THAT(man, HasSubstr("e.g. '\\-*,gpu\\-*'"));
  EXPECT_THAT(man, HasSubstr(".SH EXIT STATUS"));
  EXPECT_THAT(man, Not(HasSubstr("secret")));
  EXPECT_THAT(man, Not(HasSubstr("split")));
}

TEST(CliDocs, HelpJsonListsEveryDocumentedOptionWithItsTypeAndDefault) {
  TestApp t;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(t.table.HelpJson("0.1.0"));
  EXPECT_EQ(std::string_view(doc["tool"].get_string()), "tracelint");
  simdjson::dom::array commands = doc["commands"].get_array();
  ASSERT_EQ(commands.size(), 3u);
  simdjson::dom::element analyze = commands.at(0);
  EXPECT_EQ(std::string_view(analyze["name"].get_string()), "analyze");
  std::map<std::string, simdjson::dom::element> options;
  for (simdjson::dom::element o : analyze["options"].get_array()) {
    options[std::string(std::string_view(o["name"].get_string()))] = o;
  }
  EXPECT_FALSE(options.contains("--split-bytes"));  // hidden knobs stay out
  ASSERT_TRUE(options.contains("--format"));
  EXPECT_EQ(std::string_view(options["--format"]["type"].get_string()), "choice");
  EXPECT_EQ(options["--format"]["choices"].get_array().size(), 2u);
  EXPECT_EQ(std::string_view(options["--format"]["default"].get_string()), "text");
  EXPECT_TRUE(bool(options["--format"]["output_only"].get_bool()));
  EXPECT_EQ(std::string_view(options["--top"]["type"].get_string()), "int");
  EXPECT_EQ(std::string_view(options["--top"]["default"].get_string()), "10");
  EXPECT_FALSE(bool(options["--top"]["output_only"].get_bool()));
  EXPECT_EQ(std::string_view(options["--quiet"]["type"].get_string()), "flag");
  EXPECT_EQ(options["--quiet"]["spellings"].get_array().size(), 2u);
  EXPECT_TRUE(options["--rules"]["default"].is_null());
  EXPECT_TRUE(bool(options["path"]["positional"].get_bool()));
}

}  // namespace
}  // namespace tracelint
