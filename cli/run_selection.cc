#include "cli/run_selection.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <istream>

#include "fmt/format.h"

namespace tracelint {
namespace {

bool LooksLikeJson(std::string_view head) {
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
      static_cast<unsigned char>(head[1]) == 0x8b) {
    return true;  // gzip: only JSON traces come compressed
  }
  size_t i = head.find_first_not_of(" \t\r\n");
  return i != std::string_view::npos && (head[i] == '{' || head[i] == '[');
}

}  // namespace

absl::StatusOr<StdinTrace> StdinTrace::Read(std::istream& in) {
  // Copied in 1 MiB chunks: a huge (or endless) stdin costs disk, not
  // memory; the parsers' limits then apply to the file.
  constexpr size_t kChunkBytes = size_t{1} << 20;
  std::string chunk(kChunkBytes, '\0');
  auto fill = [&] {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    return static_cast<size_t>(in.gcount());
  };
  size_t n = fill();
  if (n == 0) {
    return absl::InvalidArgumentError("-: empty input on stdin; expected a trace");
  }
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  std::string_view head(chunk.data(), std::min<size_t>(n, 64));
  std::string suffix = LooksLikeJson(head) ? ".json" : ".xplane.pb";
  std::string pattern = (dir / ("tracelint-stdin-XXXXXX" + suffix)).string();
  int fd = mkstemps(pattern.data(), static_cast<int>(suffix.size()));
  if (fd < 0) {
    return absl::UnavailableError(fmt::format("-: cannot create a temporary file in {}",
                                              dir.string()));
  }
  StdinTrace trace(pattern);
  bool write_failed = false;
  while (n > 0 && !write_failed) {
    size_t written = 0;
    while (written < n) {
      ssize_t w = ::write(fd, chunk.data() + written, n - written);
      if (w <= 0) {
        write_failed = true;
        break;
      }
      written += static_cast<size_t>(w);
    }
    n = fill();
  }
  ::close(fd);
  if (write_failed) {
    return absl::UnavailableError(fmt::format("-: cannot write the temporary file {}", pattern));
  }
  return trace;
}

StdinTrace::~StdinTrace() {
  if (!path_.empty()) std::remove(path_.c_str());
}

std::string ListRunsText(const AnalyzedRun& analyzed) {
  const Discovery& d = analyzed.discovery;
  std::string out;
  if (!d.runs.empty()) out += fmt::format("TensorBoard runs: {}\n", fmt::join(d.runs, ", "));
  // The same names, in the same order, as the --span error lists.
  if (!d.spans.empty()) {
    out += fmt::format("profiling spans, oldest first: {}\n", fmt::join(d.spans, ", "));
  }
  if (!d.span_choice.empty()) out += fmt::format("note: {}\n", d.span_choice);
  for (const std::string& note : d.notes) out += fmt::format("note: {}\n", note);
  for (const std::string& w : analyzed.run.warnings) out += fmt::format("warning: {}\n", w);
  out += DescribeRuns(analyzed.file_facts, analyzed.grouping);
  return out;
}

std::string SeveralRunsMessage(const std::string& input, const AnalyzedRun& analyzed) {
  std::string out = fmt::format("{} holds {} runs, not one:\n", input,
                                analyzed.grouping.runs.size());
  for (const std::string& why : analyzed.grouping.reasons) out += fmt::format("  ({})\n", why);
  out += DescribeRuns(analyzed.file_facts, analyzed.grouping);
  if (analyzed.discovery.runs_to_pick) {
    out += fmt::format(
        "pick one: --run NAME for one of the TensorBoard runs above ({}), or `tracelint batch "
        "{}` to analyse each\n",
        fmt::join(analyzed.discovery.runs, ", "), input);
  } else {
    out +=
        "pick one: `tracelint analyze FILE...` with the files of one run, --span/--run for a "
        "profiling span or TensorBoard run, or `tracelint batch` to analyse each\n";
  }
  return out;
}

}  // namespace tracelint
