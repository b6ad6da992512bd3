// `tracelint mcp` end to end on its JSON-RPC stream: the binary is run
// with pipes and fed raw lines, so malformed and hostile messages reach it
// exactly as a client would send them. (The official TypeScript SDK client
// is tested in tests/release/mcp_client_test.mjs.)
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/mcp_json.h"
#include "gtest/gtest.h"

namespace tracelint::mcp {
namespace {

namespace fs = std::filesystem;

std::string Binary() {
  const char* dir = std::getenv("TRACELINT_BINARY_DIR");
  return std::string(dir ? dir : "build") + "/tracelint";
}
fs::path Source() {
  const char* dir = std::getenv("TRACELINT_SOURCE_DIR");
  return dir ? dir : ".";
}

// One `tracelint mcp` process with its stdin and stdout as pipes.
class McpProcess {
 public:
  explicit McpProcess(std::vector<std::string> args) {
    int in[2], out[2];
    EXPECT_EQ(::pipe(in), 0);
    EXPECT_EQ(::pipe(out), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      ::close(in[1]);
      ::close(out[0]);
      std::vector<std::string> all = {Binary(), "mcp"};
      all.insert(all.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (std::string& a : all) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  ~McpProcess() {
    if (to_ >= 0) ::close(to_);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    ::close(from_);
  }
  void Send(const std::string& raw) {
    size_t done = 0;
    while (done < raw.size()) {
      ssize_t n = ::write(to_, raw.data() + done, raw.size() - done);
      ASSERT_GT(n, 0);
      done += static_cast<size_t>(n);
    }
  }
  // The next line the server writes, or "" after `timeout_s`.
  std::string Receive(int timeout_s = 60) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    for (;;) {
      size_t nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0) return "";
      pollfd p{from_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0) return "";
      char chunk[65536];
      ssize_t n = ::read(from_, chunk, sizeof(chunk));
      if (n <= 0) return "";
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }
  Json Call(const std::string& raw) {
    Send(raw + "\n");
    std::string line = Receive();
    absl::StatusOr<Json> j = Json::Parse(line, 512);
    EXPECT_TRUE(j.ok()) << "not JSON: " << line.substr(0, 500);
    return j.ok() ? *j : Json();
  }
  void Initialize() {
    Json r = Call(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{)"
                  R"("protocolVersion":"2025-06-18","capabilities":{},)"
                  R"("clientInfo":{"name":"test","version":"1"}}})");
    ASSERT_NE(r.Find("result"), nullptr) << r.Dump();
    Send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})" "\n");
  }
  void CloseInput() {
    ::close(to_);
    to_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int to_ = -1;
  int from_ = -1;
  std::string buffer_;
};

int ErrorCode(const Json& response) {
  const Json* error = response.Find("error");
  return error && error->Find("code") ? static_cast<int>(error->Find("code")->as_int()) : 0;
}

class TempRoot {
 public:
  TempRoot() {
    char templ[] = "/tmp/tracelint_mcp_server_XXXXXX";
    path_ = fs::canonical(::mkdtemp(templ));
  }
  ~TempRoot() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

TEST(McpServer, NegotiatesTheProtocolRevision) {
  McpProcess mcp({"--root", Source().string()});
  Json r = mcp.Call(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{)"
                    R"("protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  EXPECT_EQ(r.Find("result")->Find("protocolVersion")->as_string(), "2025-06-18");
  EXPECT_EQ(r.Find("result")->Find("serverInfo")->Find("name")->as_string(), "tracelint");
  EXPECT_TRUE(r.Find("result")->Find("capabilities")->Find("tools")->is_object());
  // An older or unknown revision: the server answers with its newest.
  Json older = mcp.Call(R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{)"
                        R"("protocolVersion":"2024-11-05","capabilities":{}}})");
  EXPECT_EQ(older.Find("result")->Find("protocolVersion")->as_string(), "2025-11-25");
}

TEST(McpServer, ProtocolErrorsNeverEndTheServer) {
  McpProcess mcp({"--root", Source().string(), "--max-message-bytes", "4096"});
  // Before initialize, only initialize and ping.
  EXPECT_EQ(ErrorCode(mcp.Call(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})")), -32600);
  EXPECT_NE(mcp.Call(R"({"jsonrpc":"2.0","id":2,"method":"ping"})").Find("result"), nullptr);
  mcp.Initialize();
  EXPECT_EQ(ErrorCode(mcp.Call("{not json")), -32700);
  EXPECT_EQ(ErrorCode(mcp.Call("\"a string\"")), -32600);
  EXPECT_EQ(ErrorCode(mcp.Call(R"([{"jsonrpc":"2.0","id":3,"method":"ping"}])")), -32600);
  EXPECT_EQ(ErrorCode(mcp.Call(R"({"id":4,"method":"ping"})")), -32600);
  EXPECT_EQ(ErrorCode(mcp.Call(R"({"jsonrpc":"1.0","id":5,"method":"ping"})")), -32600);
  EXPECT_EQ(ErrorCode(mcp.Call(R"({"jsonrpc":"2.0","id":{"x":1},"method":"ping"})")), -32600);
  EXPECT_EQ(ErrorCode(mcp.Call(R"({"jsonrpc":"2.0","id":6,"method":42})")), -32600);
  EXPECT_EQ(ErrorCode(mcp.Call(R"({"jsonrpc":"2.0","id":7,"method":"resources/list"})")), -32601);
  EXPECT_EQ(ErrorCode(mcp.Call(R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":[1]})")),
            -32602);
  EXPECT_EQ(ErrorCode(mcp.Call(
                R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"rm"}})")),
            -32602);
  EXPECT_EQ(ErrorCode(mcp.Call(R"({"jsonrpc":"2.0","id":10,"method":"tools/call",)"
                               R"("params":{"name":"analyze","arguments":{"path":7}}})")),
            -32602);
  EXPECT_EQ(ErrorCode(mcp.Call(R"({"jsonrpc":"2.0","id":11,"method":"tools/call",)"
                               R"("params":{"name":"analyze","arguments":{"path":"x","top":"many"}}})")),
            -32602);
  // Oversized: refused, and the rest of that line skipped.
  EXPECT_EQ(ErrorCode(mcp.Call(R"({"jsonrpc":"2.0","id":12,"method":"ping","pad":")" +
                               std::string(10000, 'x') + "\"}")),
            -32600);
  // Deep nesting, control bytes, a notification of an unknown method.
  EXPECT_EQ(ErrorCode(mcp.Call(std::string(5000, '['))), -32600);
  EXPECT_EQ(ErrorCode(mcp.Call(std::string(300, '[') + std::string(300, ']'))), -32700);
  mcp.Send(R"({"jsonrpc":"2.0","method":"notifications/whatever"})" "\n");
  mcp.Send(std::string("\x01\x02\xff", 3) + "\n");
  EXPECT_EQ(ErrorCode(Json::Parse(mcp.Receive()).value_or(Json())), -32700);
  // Still serving.
  Json pong = mcp.Call(R"({"jsonrpc":"2.0","id":"last","method":"ping"})");
  EXPECT_EQ(pong.Find("id")->as_string(), "last");
  EXPECT_NE(pong.Find("result"), nullptr);
}

TEST(McpServer, AnalyzeGivesTheReportAsStructuredContent) {
  McpProcess mcp({"--root", Source().string()});
  mcp.Initialize();
  Json list = mcp.Call(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  std::vector<std::string> names;
  for (const Json& t : list.Find("result")->Find("tools")->items()) {
    names.push_back(t.Find("name")->as_string());
    EXPECT_TRUE(t.Find("inputSchema")->is_object());
    EXPECT_TRUE(t.Find("outputSchema")->is_object());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"analyze", "diff", "batch", "rules", "explain"}));

  Json r = mcp.Call(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"analyze",)"
                    R"("arguments":{"path":"testdata/example","top":3}}})");
  const Json* result = r.Find("result");
  ASSERT_NE(result, nullptr) << r.Dump().substr(0, 500);
  EXPECT_FALSE(result->Find("isError")->as_bool()) << result->Dump().substr(0, 500);
  const Json* report = result->Find("structuredContent");
  ASSERT_NE(report, nullptr);
  EXPECT_EQ(report->Find("tool")->as_string(), "tracelint");
  EXPECT_FALSE(report->Find("findings")->items().empty());
  // The text content is the same JSON.
  EXPECT_EQ(result->Find("content")->items()[0].Find("text")->as_string(), report->Dump());
  EXPECT_EQ(result->Find("_meta")->Find("tracelint/exit_code")->as_int(), 0);

  Json rules = mcp.Call(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"rules"}})");
  EXPECT_GE(rules.Find("result")->Find("structuredContent")->Find("rules")->items().size(), 5u);
  Json page = mcp.Call(R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"explain",)"
                       R"("arguments":{"rule_id":"gpu-idle-gaps"}}})");
  EXPECT_NE(page.Find("result")->Find("structuredContent")->Find("markdown")->as_string().find("#"),
            std::string::npos);
  Json unknown = mcp.Call(R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"explain",)"
                          R"("arguments":{"rule_id":"no-such-rule"}}})");
  EXPECT_TRUE(unknown.Find("result")->Find("isError")->as_bool());
}

TEST(McpServer, PathsOutsideTheRootAreToolErrors) {
  TempRoot root;
  fs::create_symlink("/etc", root.path() / "out");
  McpProcess mcp({"--root", root.path().string()});
  mcp.Initialize();
  for (const char* path : {"../", "/etc/passwd", "out/passwd", "out"}) {
    Json r = mcp.Call(std::string(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{)"
                                  R"("name":"analyze","arguments":{"path":")") +
                      path + R"("}}})");
    ASSERT_NE(r.Find("result"), nullptr) << path;
    EXPECT_TRUE(r.Find("result")->Find("isError")->as_bool()) << path;
    EXPECT_NE(r.Find("result")->Dump().find("outside the server's roots"), std::string::npos)
        << r.Dump();
  }
  // Inside, but not a trace: a tool error from tracelint itself (exit 3).
  std::ofstream(root.path() / "notes.txt") << "hello";
  Json r = mcp.Call(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{)"
                    R"("name":"analyze","arguments":{"path":"notes.txt"}}})");
  EXPECT_TRUE(r.Find("result")->Find("isError")->as_bool());
  EXPECT_NE(r.Find("result")->Dump().find("exited 3"), std::string::npos) << r.Dump();
  // The server wrote nothing into its root.
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(root.path())) files.push_back(e.path().filename());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"notes.txt", "out"}));
}

TEST(McpServer, ConfigDiscoveryStopsAtTheRoot) {
  TempRoot outer;
  fs::create_directories(outer.path() / "root");
  fs::copy(Source() / "testdata/example", outer.path() / "root/example",
           fs::copy_options::recursive);
  // A config above the root that would disable every rule.
  std::ofstream(outer.path() / "tracelint.toml") << "rules = \"-*\"\n";
  McpProcess mcp({"--root", (outer.path() / "root").string()});
  mcp.Initialize();
  Json r = mcp.Call(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{)"
                    R"("name":"analyze","arguments":{"path":"example"}}})");
  const Json* report = r.Find("result")->Find("structuredContent");
  ASSERT_NE(report, nullptr) << r.Dump().substr(0, 800);
  EXPECT_EQ(report->Find("provenance")->Find("config_path")->as_string(), "");
  EXPECT_FALSE(report->Find("findings")->items().empty());
}

TEST(McpServer, LargeResultsAreTrimmedWithANote) {
  McpProcess mcp({"--root", Source().string(), "--max-result-bytes", "4096"});
  mcp.Initialize();
  Json r = mcp.Call(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"analyze",)"
                    R"("arguments":{"path":"testdata/example"}}})");
  const Json* result = r.Find("result");
  ASSERT_NE(result, nullptr);
  EXPECT_FALSE(result->Find("_meta")->Find("tracelint/trimmed")->items().empty());
  EXPECT_NE(result->Find("content")->items().back().Find("text")->as_string().find("dropped"),
            std::string::npos);
  EXPECT_FALSE(result->Find("structuredContent")->Find("findings")->items().empty());
}

// A tool call cancelled right behind its request: its child is killed
// before it can finish, the call gets no response, a ping sent meanwhile is
// answered, and the server goes on.
TEST(McpServer, CancellationEndsTheToolCall) {
  McpProcess mcp({"--root", Source().string()});
  mcp.Initialize();
  mcp.Send(R"({"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"analyze",)"
           R"("arguments":{"path":"testdata/example"}}})" "\n"
           R"({"jsonrpc":"2.0","id":"p","method":"ping"})" "\n"
           R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow"}})"
           "\n");
  EXPECT_EQ(Json::Parse(mcp.Receive())->Find("id")->as_string(), "p");
  Json next = mcp.Call(R"({"jsonrpc":"2.0","id":"after","method":"ping"})");
  EXPECT_EQ(next.Find("id")->as_string(), "after") << next.Dump().substr(0, 300);
}

}  // namespace
}  // namespace tracelint::mcp
