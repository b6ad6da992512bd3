#include "cli/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <iostream>

namespace tracelint {
namespace {

// Below this the report cannot show a finding's line at all.
constexpr int kMinColumns = 20;
constexpr int kDefaultColumns = 80;

}  // namespace

int TerminalColumns(int fd) {
  if (::isatty(fd) != 1) return 0;
  struct winsize ws {};
  if (::ioctl(fd, TIOCGWINSZ, &ws) != 0) return 0;
  return ws.ws_col;
}

int ReportWidth(bool is_terminal, int ioctl_columns, const char* columns_env) {
  if (!is_terminal) return 0;
  if (columns_env != nullptr) {
    std::string_view text(columns_env);
    int columns = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), columns);
    if (ec == std::errc() && ptr == text.data() + text.size() && columns > 0) {
      return std::max(columns, kMinColumns);
    }
  }
  if (ioctl_columns > 0) return std::max(ioctl_columns, kMinColumns);
  return kDefaultColumns;
}

bool UseColor(std::string_view mode, bool is_terminal, const char* no_color_env) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  bool no_color = no_color_env != nullptr && no_color_env[0] != '\0';
  return is_terminal && !no_color;
}

bool IsStdoutTerminal(const std::ostream& out) { return &out == &std::cout && ::isatty(1) == 1; }

}  // namespace tracelint
