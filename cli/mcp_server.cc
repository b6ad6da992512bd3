#include "cli/mcp_server.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <optional>
#include <utility>

#include "analyzer/base/version.h"
#include "cli/mcp_json.h"
#include "cli/mcp_tools.h"
#include "fmt/format.h"

namespace tracelint::mcp {
namespace {

// JSON-RPC 2.0 error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;

// A child's stdout beyond this is not a result anyone can use.
constexpr size_t kMaxChildOutputBytes = size_t{512} << 20;

// Newline-delimited messages from a file descriptor; a line longer than the
// limit is reported once and skipped up to its newline.
class LineReader {
 public:
  LineReader(int fd, size_t max_bytes) : fd_(fd), max_bytes_(max_bytes) {}

  struct Line {
    std::string text;
    bool oversized = false;
  };
  // A complete line, if one is buffered.
  std::optional<Line> Next() {
    for (;;) {
      size_t nl = buffer_.find('\n', scanned_);
      if (nl == std::string::npos) {
        scanned_ = buffer_.size();
        if (buffer_.size() > max_bytes_) {
          // Keep nothing of it: report it once, then skip to the newline.
          buffer_.clear();
          scanned_ = 0;
          if (!skipping_) {
            skipping_ = true;
            return Line{"", true};
          }
        }
        return std::nullopt;
      }
      std::string text = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      scanned_ = 0;
      if (skipping_) {
        skipping_ = false;
        continue;
      }
      if (!text.empty() && text.back() == '\r') text.pop_back();
      if (text.size() > max_bytes_) return Line{"", true};
      if (text.find_first_not_of(" \t") == std::string::npos) continue;  // blank line
      return Line{std::move(text), false};
    }
  }
  // Reads what is there (once); false at end of input or on an error.
  bool Fill() {
    char chunk[65536];
    for (;;) {
      ssize_t n = ::read(fd_, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        eof_ = true;
        return false;
      }
      buffer_.append(chunk, static_cast<size_t>(n));
      return true;
    }
  }
  bool eof() const { return eof_; }
  int fd() const { return fd_; }

 private:
  int fd_;
  size_t max_bytes_;
  std::string buffer_;
  size_t scanned_ = 0;
  bool skipping_ = false;
  bool eof_ = false;
};

Json ErrorResponse(const Json& id, int code, std::string message) {
  Json error = Json::Object();
  error.Set("code", code);
  error.Set("message", std::move(message));
  Json r = Json::Object();
  r.Set("jsonrpc", "2.0");
  r.Set("id", id);
  r.Set("error", std::move(error));
  return r;
}

Json ResultResponse(const Json& id, Json result) {
  Json r = Json::Object();
  r.Set("jsonrpc", "2.0");
  r.Set("id", id);
  r.Set("result", std::move(result));
  return r;
}

Json TextContent(std::string text) {
  Json c = Json::Object();
  c.Set("type", "text");
  c.Set("text", std::move(text));
  return c;
}

Json ToolError(std::string message) {
  Json content = Json::Array();
  content.Push(TextContent(std::move(message)));
  Json r = Json::Object();
  r.Set("content", std::move(content));
  r.Set("isError", true);
  return r;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    if (nl > start) out.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

// stderr of a tool run, without the "tracelint: " prefixes.
std::string Message(const std::string& err) {
  std::string out;
  for (std::string line : Lines(err)) {
    if (line.rfind("tracelint: ", 0) == 0) line.erase(0, 11);
    out += (out.empty() ? "" : "\n") + line;
  }
  return out.empty() ? "no message" : out;
}

class Server {
 public:
  Server(const OptionTable& table, const ServerOptions& options, int in_fd, int out_fd,
         std::ostream& log)
      : options_(options),
        tools_(BuildTools(table)),
        reader_(in_fd, options.max_message_bytes),
        out_fd_(out_fd),
        log_(log) {}

  int Run() {
    for (;;) {
      while (!queued_.empty()) {
        std::string text = std::move(queued_.front());
        queued_.pop_front();
        Handle(text, /*oversized=*/false);
      }
      if (std::optional<LineReader::Line> line = reader_.Next()) {
        Handle(line->text, line->oversized);
        continue;
      }
      if (reader_.eof() || !reader_.Fill()) break;
    }
    return 0;
  }

 private:
  void Send(const Json& message) {
    std::string line = message.Dump();
    line += '\n';
    size_t done = 0;
    while (done < line.size()) {
      ssize_t n = ::write(out_fd_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        log_ << "tracelint mcp: cannot write to the client: " << std::strerror(errno) << "\n";
        return;
      }
      done += static_cast<size_t>(n);
    }
  }

  // Parses one message; nullopt (after answering with an error) when it is
  // not a JSON-RPC request or notification.
  std::optional<Json> Parse(const std::string& text, bool oversized) {
    if (oversized) {
      Send(ErrorResponse(Json(), kInvalidRequest,
                         fmt::format("message over {} bytes", options_.max_message_bytes)));
      return std::nullopt;
    }
    absl::StatusOr<Json> msg = Json::Parse(text);
    if (!msg.ok()) {
      Send(ErrorResponse(Json(), kParseError,
                         fmt::format("not JSON: {}", std::string(msg.status().message()))));
      return std::nullopt;
    }
    if (msg->is_array()) {
      Send(ErrorResponse(Json(), kInvalidRequest,
                         "JSON-RPC batches are not part of MCP since 2025-06-18"));
      return std::nullopt;
    }
    const Json* id = msg->is_object() ? msg->Find("id") : nullptr;
    Json reply_id = id != nullptr && (id->is_string() || id->is_number()) ? *id : Json();
    const Json* version = msg->is_object() ? msg->Find("jsonrpc") : nullptr;
    if (!msg->is_object() || version == nullptr || !version->is_string() ||
        version->as_string() != "2.0") {
      Send(ErrorResponse(reply_id, kInvalidRequest, "not a JSON-RPC 2.0 message"));
      return std::nullopt;
    }
    if (id != nullptr && !id->is_string() && !id->is_int()) {
      Send(ErrorResponse(Json(), kInvalidRequest, "id must be a string or an integer"));
      return std::nullopt;
    }
    const Json* method = msg->Find("method");
    if (method == nullptr) {
      // A response to a request of ours: this server sends none, so drop it.
      if (msg->Find("result") || msg->Find("error")) return std::nullopt;
      Send(ErrorResponse(reply_id, kInvalidRequest, "no method"));
      return std::nullopt;
    }
    if (!method->is_string()) {
      Send(ErrorResponse(reply_id, kInvalidRequest, "method must be a string"));
      return std::nullopt;
    }
    const Json* params = msg->Find("params");
    if (params != nullptr && !params->is_object() && !params->is_null()) {
      if (id != nullptr) Send(ErrorResponse(reply_id, kInvalidParams, "params must be an object"));
      return std::nullopt;
    }
    return *std::move(msg);
  }

  void Handle(const std::string& text, bool oversized) {
    std::optional<Json> msg = Parse(text, oversized);
    if (!msg) return;
    const std::string& method = msg->Find("method")->as_string();
    const Json* id = msg->Find("id");
    static const Json kNoParams = Json::Object();
    const Json* p = msg->Find("params");
    const Json& params = p != nullptr && p->is_object() ? *p : kNoParams;
    if (id == nullptr) {  // a notification: never answered
      if (method == "notifications/initialized") initialized_ = true;
      return;
    }
    if (method == "initialize") {
      Send(ResultResponse(*id, Initialize(params)));
    } else if (method == "ping") {
      Send(ResultResponse(*id, Json::Object()));
    } else if (!initialize_seen_) {
      Send(ErrorResponse(*id, kInvalidRequest, "initialize first"));
    } else if (method == "tools/list") {
      Send(ResultResponse(*id, ListTools()));
    } else if (method == "tools/call") {
      CallTool(*id, params);
    } else {
      Send(ErrorResponse(*id, kMethodNotFound, fmt::format("unknown method '{}'", method)));
    }
  }

  Json Initialize(const Json& params) {
    initialize_seen_ = true;
    const std::vector<std::string>& supported = SupportedProtocolVersions();
    std::string version = supported.back();
    if (const Json* asked = params.Find("protocolVersion"); asked && asked->is_string()) {
      for (const std::string& v : supported) {
        if (v == asked->as_string()) version = v;
      }
    }
    Json capabilities = Json::Object();
    Json tools = Json::Object();
    tools.Set("listChanged", false);
    capabilities.Set("tools", std::move(tools));
    Json info = Json::Object();
    info.Set("name", "tracelint");
    info.Set("title", "tracelint: what wastes GPU time in profiler traces");
    info.Set("version", kToolVersion);
    Json r = Json::Object();
    r.Set("protocolVersion", version);
    r.Set("capabilities", std::move(capabilities));
    r.Set("serverInfo", std::move(info));
    r.Set("instructions",
          fmt::format("tracelint analyses GPU profiler traces (PyTorch/Kineto JSON, Chrome "
                      "traces, XSpace) below {}. Call `analyze` with a trace file or run "
                      "directory for the verdict and the findings ranked by recoverable step "
                      "time; `explain` a finding's rule_id for its documentation; `diff` two "
                      "runs; `batch` a directory of runs.",
                      fmt::join(options_.roots, ", ")));
    return r;
  }

  Json ListTools() {
    Json list = Json::Array();
    for (const Tool& t : tools_) {
      Json tool = Json::Object();
      tool.Set("name", t.name);
      tool.Set("title", t.title);
      tool.Set("description", t.description);
      tool.Set("inputSchema", t.input_schema);
      tool.Set("outputSchema", t.output_schema);
      Json annotations = Json::Object();
      annotations.Set("readOnlyHint", true);
      annotations.Set("openWorldHint", false);
      tool.Set("annotations", std::move(annotations));
      list.Push(std::move(tool));
    }
    Json r = Json::Object();
    r.Set("tools", std::move(list));
    return r;
  }

  struct ChildOutput {
    bool started = false;
    bool cancelled = false;
    bool timed_out = false;
    int exit_code = -1;
    int signal = 0;
    std::string out;
    std::string err;
  };

  // Messages that arrive while a tool runs: a cancellation of it is acted
  // on, a ping answered, anything else queued for after the call.
  void WhileRunning(const Json& running_id, bool* cancel) {
    while (std::optional<LineReader::Line> line = reader_.Next()) {
      if (!line->oversized) {
        absl::StatusOr<Json> msg = Json::Parse(line->text);
        if (msg.ok() && msg->is_object()) {
          const Json* method = msg->Find("method");
          const Json* params = msg->Find("params");
          if (method && method->is_string() && method->as_string() == "notifications/cancelled" &&
              params && params->is_object()) {
            const Json* rid = params->Find("requestId");
            if (rid && rid->Dump() == running_id.Dump()) *cancel = true;
            continue;
          }
          if (method && method->is_string() && method->as_string() == "ping" &&
              msg->Find("id")) {
            Send(ResultResponse(*msg->Find("id"), Json::Object()));
            continue;
          }
        }
        queued_.push_back(std::move(line->text));
      } else {
        Send(ErrorResponse(Json(), kInvalidRequest,
                           fmt::format("message over {} bytes", options_.max_message_bytes)));
      }
    }
  }

  ChildOutput RunChild(const std::vector<std::string>& args, const Json& id) {
    ChildOutput r;
    int out_pipe[2], err_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) return r;
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
      ::close(out_pipe[0]);
      ::close(out_pipe[1]);
      return r;
    }
    std::vector<std::string> argv_storage = {options_.self_exe};
    argv_storage.insert(argv_storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argv_storage) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::string discovery = "TRACELINT_CONFIG_DISCOVERY_ROOT=" + options_.roots.front();
    pid_t pid = ::fork();
    if (pid == 0) {
      // Its own process group, so a cancellation ends everything it started.
      ::setpgid(0, 0);
      int devnull = ::open("/dev/null", O_RDONLY);
      if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
      if (devnull < 0) ::close(STDIN_FILENO);
      ::dup2(out_pipe[1], STDOUT_FILENO);
      ::dup2(err_pipe[1], STDERR_FILENO);
      if (::chdir(options_.roots.front().c_str()) != 0) ::_exit(127);
      ::putenv(discovery.data());
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    if (pid < 0) {
      ::close(out_pipe[0]);
      ::close(err_pipe[0]);
      return r;
    }
    ::setpgid(pid, pid);  // also here: no race with the kill below
    r.started = true;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options_.tool_timeout_s);
    bool out_open = true, err_open = true, killed = false;
    auto kill_child = [&] {
      if (!killed) ::kill(-pid, SIGKILL);
      killed = true;
    };
    // Messages already read along with the call (a cancellation sent right
    // behind it) count as much as those that arrive later.
    bool cancel_now = false;
    WhileRunning(id, &cancel_now);
    if (cancel_now) {
      r.cancelled = true;
      kill_child();
    }
    while (out_open || err_open) {
      pollfd fds[3] = {{out_open ? out_pipe[0] : -1, POLLIN, 0},
                       {err_open ? err_pipe[0] : -1, POLLIN, 0},
                       {reader_.eof() ? -1 : reader_.fd(), POLLIN, 0}};
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0) {
        r.timed_out = true;
        kill_child();
        left = 1000;
      }
      int n = ::poll(fds, 3, static_cast<int>(std::min<int64_t>(left, 1000)));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      char chunk[65536];
      for (int i = 0; i < 2; ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        ssize_t got = ::read(fds[i].fd, chunk, sizeof(chunk));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
          (i == 0 ? out_open : err_open) = false;
          continue;
        }
        std::string& sink = i == 0 ? r.out : r.err;
        if (sink.size() < kMaxChildOutputBytes) sink.append(chunk, static_cast<size_t>(got));
      }
      if (fds[2].revents & (POLLIN | POLLHUP | POLLERR)) {
        if (!reader_.Fill()) {
          // The client went away: nobody wants the result.
          r.cancelled = true;
          kill_child();
        }
        bool cancel = false;
        WhileRunning(id, &cancel);
        if (cancel) {
          r.cancelled = true;
          kill_child();
        }
      }
    }
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    return r;
  }

  void CallTool(const Json& id, const Json& params) {
    const Json* name = params.Find("name");
    if (name == nullptr || !name->is_string()) {
      Send(ErrorResponse(id, kInvalidParams, "tools/call needs the tool's name"));
      return;
    }
    const Tool* tool = nullptr;
    for (const Tool& t : tools_) {
      if (t.name == name->as_string()) tool = &t;
    }
    if (tool == nullptr) {
      Send(ErrorResponse(id, kInvalidParams, fmt::format("unknown tool '{}'", name->as_string())));
      return;
    }
    static const Json kNone = Json::Object();
    const Json* arguments = params.Find("arguments");
    if (arguments == nullptr || arguments->is_null()) arguments = &kNone;
    ToolArgv argv = BuildArgv(*tool, *arguments, options_.roots);
    if (!argv.protocol_error.empty()) {
      Send(ErrorResponse(id, kInvalidParams, argv.protocol_error));
      return;
    }
    if (!argv.tool_error.empty()) {
      Send(ResultResponse(id, ToolError(argv.tool_error)));
      return;
    }
    ChildOutput child = RunChild(argv.args, id);
    if (child.cancelled) return;  // a cancelled request gets no response
    if (!child.started) {
      Send(ResultResponse(id, ToolError("could not start tracelint for this call")));
      return;
    }
    if (child.timed_out) {
      Send(ResultResponse(id, ToolError(fmt::format(
                                  "{} took longer than {} s and was stopped", tool->name,
                                  options_.tool_timeout_s))));
      return;
    }
    if (child.signal != 0) {
      Send(ResultResponse(id, ToolError(fmt::format("tracelint {} was killed by signal {}",
                                                    tool->command, child.signal))));
      return;
    }
    // Exit codes with no result (docs/design/contract.md, "Exit codes").
    bool no_result = child.exit_code == 2 || child.exit_code == 3 || child.exit_code == 6 ||
                     child.exit_code == 127 || child.exit_code < 0;
    if (tool->command == "rules") no_result = child.exit_code != 0;
    absl::StatusOr<Json> doc = Json::Parse(child.out, 512);
    if (no_result || !doc.ok() || !doc->is_object()) {
      Send(ResultResponse(id, ToolError(fmt::format("tracelint {} exited {}: {}", tool->command,
                                                    child.exit_code, Message(child.err)))));
      return;
    }
    Json structured = *std::move(doc);
    std::vector<std::string> trimmed = TrimToFit(structured, options_.max_result_bytes);
    Json content = Json::Array();
    content.Push(TextContent(structured.Dump()));
    std::vector<std::string> warnings;
    for (const std::string& line : Lines(child.err)) {
      if (line.rfind("tracelint: warning: ", 0) == 0) warnings.push_back(line.substr(20));
    }
    std::string note;
    if (!trimmed.empty()) {
      note = fmt::format(
          "tracelint: the result was over {} bytes, so the tails of its largest arrays were "
          "dropped (every array keeps its first element and the result still matches the "
          "output schema): {}. For everything, run `tracelint {} --format json` yourself, or "
          "narrow the call (rules, top).",
          options_.max_result_bytes, fmt::join(trimmed, "; "), tool->command);
    }
    if (!warnings.empty() || !note.empty()) {
      std::string text;
      for (const std::string& w : warnings) text += "tracelint: warning: " + w + "\n";
      text += note;
      while (!text.empty() && text.back() == '\n') text.pop_back();
      content.Push(TextContent(std::move(text)));
    }
    Json meta = Json::Object();
    meta.Set("tracelint/exit_code", child.exit_code);
    Json w = Json::Array();
    for (std::string& s : warnings) w.Push(std::move(s));
    meta.Set("tracelint/warnings", std::move(w));
    if (!trimmed.empty()) {
      Json t = Json::Array();
      for (std::string& s : trimmed) t.Push(std::move(s));
      meta.Set("tracelint/trimmed", std::move(t));
    }
    Json result = Json::Object();
    result.Set("content", std::move(content));
    result.Set("structuredContent", std::move(structured));
    result.Set("isError", false);
    result.Set("_meta", std::move(meta));
    Send(ResultResponse(id, std::move(result)));
  }

  const ServerOptions& options_;
  std::vector<Tool> tools_;
  LineReader reader_;
  int out_fd_;
  std::ostream& log_;
  std::deque<std::string> queued_;
  bool initialize_seen_ = false;
  bool initialized_ = false;
};

}  // namespace

const std::vector<std::string>& SupportedProtocolVersions() {
  static const auto* versions = new std::vector<std::string>{"2025-06-18", "2025-11-25"};
  return *versions;
}

int Serve(const OptionTable& table, const ServerOptions& options, int in_fd, int out_fd,
          std::ostream& log) {
  // A client that closes its end mid-write must not kill the server with
  // SIGPIPE before it has cleaned up its children.
  ::signal(SIGPIPE, SIG_IGN);
  Server server(table, options, in_fd, out_fd, log);
  return server.Run();
}

}  // namespace tracelint::mcp
