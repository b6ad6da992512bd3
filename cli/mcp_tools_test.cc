// The MCP tools without a client: schemas from the option table, argument
// checking, root confinement, and trimming that keeps results valid.
#include "cli/mcp_tools.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "CLI/CLI.hpp"
#include "cli/analyze_command.h"
#include "cli/batch_command.h"
#include "cli/diff_command.h"
#include "cli/mcp_schemas.h"
#include "gtest/gtest.h"

namespace tracelint::mcp {
namespace {

namespace fs = std::filesystem;

struct Table {
  CLI::App app;
  OptionTable table;
  AnalyzeArgs a;
  BatchArgs b;
  DiffArgs d;
  Table() {
    DeclareAnalyzeCommand(app, table, a);
    DeclareBatchCommand(app, table, b);
    DeclareDiffCommand(app, table, d);
  }
};

// Key order aside (CMake's JSON functions sort keys).
std::string Canonical(const Json& j) {
  if (j.is_array()) {
    std::string out = "[";
    for (const Json& item : j.items()) out += Canonical(item) + ",";
    return out + "]";
  }
  if (!j.is_object()) return j.Dump();
  std::vector<std::string> members;
  for (const Json::Member& m : j.members()) members.push_back(m.first + ":" + Canonical(m.second));
  std::sort(members.begin(), members.end());
  std::string out = "{";
  for (const std::string& m : members) out += m + ",";
  return out + "}";
}

const Tool& Find(const std::vector<Tool>& tools, std::string_view name) {
  for (const Tool& t : tools) {
    if (t.name == name) return t;
  }
  ADD_FAILURE() << "no tool " << name;
  return tools.front();
}

Json Args(std::string_view text) {
  absl::StatusOr<Json> j = Json::Parse(text);
  EXPECT_TRUE(j.ok()) << text;
  return j.ok() ? *j : Json::Object();
}

class TempDir {
 public:
  TempDir() {
    char templ[] = "/tmp/tracelint_mcp_XXXXXX";
    path_ = fs::canonical(::mkdtemp(templ));
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// A string option may name a file: each must be classified (a path, a
// value, or left out), or the server leaves it out and this test fails.
TEST(McpTools, EveryStringOptionIsClassified) {
  Table t;
  for (const char* command : {"analyze", "batch", "diff"}) {
    for (const OptionSpec& o : t.table.Find(command)->options) {
      if (o.output_only || o.hidden) continue;
      EXPECT_TRUE(UseOf(command, o).has_value())
          << command << " " << o.name << " (" << o.type
          << "): classify it in cli/mcp_tools.cc (kClassified)";
    }
  }
}

TEST(McpTools, InputSchemasComeFromTheOptionTable) {
  Table t;
  std::vector<Tool> tools = BuildTools(t.table);
  ASSERT_EQ(tools.size(), 5u);
  const Tool& analyze = Find(tools, "analyze");
  const Json* props = analyze.input_schema.Find("properties");
  ASSERT_NE(props, nullptr);
  for (const char* present : {"path", "more_paths", "rules", "set", "batch_size", "baseline",
                              "config", "top", "max_events", "fail_on"}) {
    EXPECT_NE(props->Find(present), nullptr) << present;
  }
  // Output-only, writing, and root-leaving options are not offered.
  for (const char* absent : {"output", "format", "annotate", "color", "width", "follow_links",
                             "list", "quiet", "source_root"}) {
    EXPECT_EQ(props->Find(absent), nullptr) << absent;
  }
  EXPECT_EQ(props->Find("price_per_hour")->Find("type")->as_string(), "number");
  EXPECT_EQ(props->Find("top")->Find("type")->as_string(), "integer");
  EXPECT_EQ(props->Find("more_paths")->Find("type")->as_string(), "array");
  EXPECT_TRUE(props->Find("fail_on")->Find("enum")->is_array());
  EXPECT_EQ(analyze.input_schema.Find("required")->items()[0].as_string(), "path");
  EXPECT_FALSE(analyze.input_schema.Find("additionalProperties")->as_bool());
  const Json* batch_props = Find(tools, "batch").input_schema.Find("properties");
  EXPECT_EQ(batch_props->Find("merge"), nullptr);
  EXPECT_EQ(batch_props->Find("shard"), nullptr);
  EXPECT_NE(batch_props->Find("prices"), nullptr);
}

TEST(McpTools, OutputSchemasAreTheCommittedSchemasWithoutMetaSchema) {
  Table t;
  std::vector<Tool> tools = BuildTools(t.table);
  for (const Tool& tool : tools) {
    EXPECT_EQ(tool.output_schema.Find("type")->as_string(), "object") << tool.name;
    EXPECT_EQ(tool.output_schema.Find("$schema"), nullptr) << tool.name;
    EXPECT_EQ(tool.output_schema.Find("$id"), nullptr) << tool.name;
  }
  // Generated from the file as committed: same required fields.
  const char* src = std::getenv("TRACELINT_SOURCE_DIR");
  std::ifstream f(fs::path(src ? src : ".") / "analyzer/report/report.schema.json");
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  absl::StatusOr<Json> committed = Json::Parse(text, 256);
  ASSERT_TRUE(committed.ok());
  Json without_meta = *committed;
  without_meta.members().erase(without_meta.members().begin(), without_meta.members().begin() + 2);
  ASSERT_EQ(committed->members()[0].first, "$schema");
  ASSERT_EQ(committed->members()[1].first, "$id");
  EXPECT_EQ(Canonical(Find(tools, "analyze").output_schema), Canonical(without_meta));
  EXPECT_NE(DiffSchemaText().find("\"metrics\""), std::string_view::npos);
  EXPECT_NE(BatchSchemaText().find("\"runs\""), std::string_view::npos);
}

// A client gets each output schema alone and cannot fetch another file: every
// $ref must point inside the schema it is in, and resolve there.
TEST(McpTools, OutputSchemasAreSelfContained) {
  for (std::string_view text : {ReportSchemaText(), DiffSchemaText(), BatchSchemaText()}) {
    absl::StatusOr<Json> schema = Json::Parse(text, 256);
    ASSERT_TRUE(schema.ok()) << schema.status();
    const Json* defs = schema->Find("$defs");
    const std::string_view key = "\"$ref\"";
    for (size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
      size_t open = text.find('"', at + key.size());
      size_t close = text.find('"', open + 1);
      std::string_view ref = text.substr(open + 1, close - open - 1);
      ASSERT_TRUE(ref.starts_with("#/$defs/")) << ref;
      ASSERT_NE(defs, nullptr) << ref;
      EXPECT_NE(defs->Find(ref.substr(8)), nullptr) << ref;
    }
  }
}

TEST(McpTools, ArgumentsBecomeACommandLine) {
  Table t;
  TempDir dir;
  std::ofstream(dir.path() / "a.json") << "{}";
  std::vector<Tool> tools = BuildTools(t.table);
  std::vector<std::string> roots = {dir.path().string()};
  ToolArgv argv = BuildArgv(
      Find(tools, "analyze"),
      Args(R"({"path": "a.json", "rules": "-*,gpu-*", "set": ["x.Y=1"], "top": 3,
               "batch_size": 32, "no_config": true, "fail_on": "high", "max_decompressed_bytes": "1G",
               "max_events": 1000})"),
      roots);
  ASSERT_EQ(argv.protocol_error, "");
  ASSERT_EQ(argv.tool_error, "");
  std::vector<std::string> want = {"analyze",       "--format",     "json",
                                   "-o",            "-",            "--rules=-*,gpu-*",
                                   "--set=x.Y=1",   "--top=3",      "--batch-size=32",
                                   "--no-config",   "--fail-on=high", "--max-decompressed-bytes=1G",
                                   "--max-events=1000",
                                   (dir.path() / "a.json").string()};
  EXPECT_EQ(argv.args, want);
}

TEST(McpTools, WrongArgumentsAreProtocolErrors) {
  Table t;
  TempDir dir;
  std::vector<Tool> tools = BuildTools(t.table);
  std::vector<std::string> roots = {dir.path().string()};
  const Tool& analyze = Find(tools, "analyze");
  for (const char* bad : {R"({"path": 3})", R"({"path": "a", "top": "3"})",
                          R"({"path": "a", "top": 2.5})", R"({"path": "a", "no_config": 1})",
                          R"({"path": "a", "set": "x.Y=1"})", R"({"path": "a", "set": [1]})",
                          R"({"path": "a", "fail_on": "urgent"})", R"({"path": "a", "output": "x"})",
                          R"({"path": "a", "follow_links": true})", R"({"top": 3})", R"([1])"}) {
    ToolArgv argv = BuildArgv(analyze, Args(bad), roots);
    EXPECT_NE(argv.protocol_error, "") << bad;
  }
  ToolArgv explain = BuildArgv(Find(tools, "explain"), Args(R"({"rule_id": "--help"})"), roots);
  EXPECT_NE(explain.protocol_error, "");
}

TEST(McpTools, PathsStayInsideTheRoots) {
  TempDir dir;
  TempDir outside;
  fs::create_directories(dir.path() / "runs/a");
  std::ofstream(outside.path() / "secret.json") << "{}";
  fs::create_symlink(outside.path() / "secret.json", dir.path() / "runs/link.json");
  fs::create_symlink(dir.path() / "runs/a", dir.path() / "inner");
  std::vector<std::string> roots = {dir.path().string()};
  EXPECT_EQ(*ConfinePath(roots, "runs/a"), (dir.path() / "runs/a").string());
  EXPECT_EQ(*ConfinePath(roots, (dir.path() / "runs/./a").string()),
            (dir.path() / "runs/a").string());
  // A link inside that stays inside is fine, judged by its target.
  EXPECT_EQ(*ConfinePath(roots, "inner"), (dir.path() / "runs/a").string());
  // Not there yet: judged by where it would be.
  EXPECT_TRUE(ConfinePath(roots, "runs/new.json").ok());
  for (std::string bad : {std::string("../") + outside.path().filename().string(),
                          std::string("runs/../../") + outside.path().filename().string() +
                              "/secret.json",
                          std::string("runs/link.json"), (outside.path() / "secret.json").string(),
                          std::string("/etc/passwd"), std::string("-")}) {
    EXPECT_FALSE(ConfinePath(roots, bad).ok()) << bad;
  }
  // A second root is a root too; a sibling sharing its prefix is not.
  fs::create_directories(dir.path().string() + "x");
  std::vector<std::string> two = {dir.path().string(), outside.path().string()};
  EXPECT_TRUE(ConfinePath(two, (outside.path() / "secret.json").string()).ok());
  EXPECT_FALSE(ConfinePath(roots, dir.path().string() + "x").ok());
  fs::remove_all(dir.path().string() + "x");

  Table t;
  std::vector<Tool> tools = BuildTools(t.table);
  ToolArgv argv = BuildArgv(Find(tools, "analyze"),
                            Args(R"({"path": "runs/a", "config": "runs/link.json"})"), roots);
  EXPECT_EQ(argv.protocol_error, "");
  EXPECT_NE(argv.tool_error.find("outside the server's roots"), std::string::npos)
      << argv.tool_error;
}

TEST(McpTools, TrimmingDropsArrayTailsOnly) {
  std::string text = R"({"findings": [)";
  for (int i = 0; i < 200; ++i) {
    text += (i ? "," : "") + std::string(R"({"rule_id": "r", "detail": ")") +
            std::string(100, 'x') + "\"}";
  }
  text += R"(], "ranks": [{"rank": 0, "kernels": [1, 2, 3]}], "verdict": "input"})";
  Json doc = Args(text);
  size_t full = doc.Dump().size();
  std::vector<std::string> cut = TrimToFit(doc, 4096);
  EXPECT_LE(doc.Dump().size(), 4096u);
  ASSERT_EQ(cut.size(), 1u);
  size_t kept = doc.Find("findings")->items().size();
  EXPECT_GE(kept, 1u);
  EXPECT_EQ(cut[0], "/findings: " + std::to_string(200 - kept) + " of 200 dropped");
  // Everything else as it was; the kept elements are the first ones.
  EXPECT_EQ(doc.Find("verdict")->as_string(), "input");
  EXPECT_EQ(doc.Find("ranks")->Dump(), R"([{"rank":0,"kernels":[1,2,3]}])");
  Json again = Args(text);
  EXPECT_TRUE(TrimToFit(again, full).empty());
  // Impossible to fit: every array down to its first element, then stop.
  Json tiny = Args(text);
  TrimToFit(tiny, 10);
  EXPECT_EQ(tiny.Find("findings")->items().size(), 1u);
  EXPECT_EQ(tiny.Find("ranks")->items()[0].Find("kernels")->items().size(), 1u);
}

TEST(McpJson, ParsesAndWritesOneLine) {
  Json j = Args(R"({"a": "line\nbreak", "b": [1, 2.5, true, null], "c": {"d": -3}})");
  EXPECT_EQ(j.Dump(), R"({"a":"line\nbreak","b":[1,2.5,true,null],"c":{"d":-3}})");
  std::string deep(100, '[');
  EXPECT_FALSE(Json::Parse(deep + std::string(100, ']'), 64).ok());
  EXPECT_FALSE(Json::Parse("{\"a\": }").ok());
}

}  // namespace
}  // namespace tracelint::mcp
