#include "analyzer/report/text_layout.h"

#include <algorithm>
#include <cmath>

#include "fmt/format.h"

namespace tracelint::text {
namespace {

constexpr std::string_view kEllipsis = "…";

bool IsContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Byte offset after the first `columns` code points of `s`.
size_t BytesOfColumns(std::string_view s, size_t columns) {
  size_t i = 0;
  for (size_t seen = 0; i < s.size(); ++i) {
    if (IsContinuation(s[i])) continue;
    if (seen == columns) return i;
    ++seen;
  }
  return s.size();
}

// Byte offset where the last `columns` code points of `s` begin.
size_t BytesOfLastColumns(std::string_view s, size_t columns) {
  size_t i = s.size();
  for (size_t seen = 0; i > 0 && seen < columns;) {
    --i;
    if (!IsContinuation(s[i])) ++seen;
  }
  return i;
}

// Three significant digits, never fewer than the integer part and never
// more than three decimals ("0.002 ms", not "0.0020 ms").
std::string Significant(double v, std::string_view unit) {
  double a = std::fabs(v);
  int decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return fmt::format("{:.{}f} {}", v, decimals, unit);
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A unit word, with the punctuation that may follow it.
bool IsUnit(std::string_view w) {
  while (!w.empty() && (w.back() == ',' || w.back() == ';' || w.back() == ')' ||
                        w.back() == '.' || w.back() == ':')) {
    w.remove_suffix(1);
  }
  for (std::string_view unit : {"s", "ms", "us", "ns", "MiB", "GiB", "GB/s", "SMs"}) {
    if (w == unit) return true;
  }
  return false;
}

}  // namespace

size_t Width(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += IsContinuation(c) ? 0 : 1;
  return n;
}

std::string Fit(std::string_view s, size_t width) {
  if (width == 0 || Width(s) <= width) return std::string(s);
  if (width == 1) return std::string(kEllipsis);
  return std::string(s.substr(0, BytesOfColumns(s, width - 1))) + std::string(kEllipsis);
}

std::string FitAtWord(std::string_view s, size_t width) {
  if (width <= 1 || Width(s) <= width) return Fit(s, width);
  std::string_view head = s.substr(0, BytesOfColumns(s, width - 1));
  size_t space = head.find_last_of(' ');
  if (space != std::string_view::npos && Width(head.substr(0, space)) >= (width - 1) * 2 / 3) {
    head = head.substr(0, space);
  }
  while (!head.empty() && std::string_view(" ,;:(").find(head.back()) != std::string_view::npos) {
    head.remove_suffix(1);
  }
  return std::string(head) + std::string(kEllipsis);
}

std::string FitMiddle(std::string_view s, size_t width) {
  if (width == 0 || Width(s) <= width) return std::string(s);
  if (width < 5) return Fit(s, width);
  size_t tail = (width - 1) / 2;
  size_t head = width - 1 - tail;
  return std::string(s.substr(0, BytesOfColumns(s, head))) + std::string(kEllipsis) +
         std::string(s.substr(BytesOfLastColumns(s, tail)));
}

std::string Wrap(std::string_view s, size_t width, std::string_view first_indent,
                 std::string_view indent) {
  std::string out;
  std::string line(first_indent);
  size_t line_width = Width(first_indent);
  bool line_has_word = false;
  auto flush = [&] {
    out += line;
    out += '\n';
    line = std::string(indent);
    line_width = Width(indent);
    line_has_word = false;
  };
  size_t pos = 0;
  while (pos < s.size()) {
    while (pos < s.size() && s[pos] == ' ') ++pos;
    if (pos >= s.size()) break;
    size_t end = s.find(' ', pos);
    if (end == std::string_view::npos) end = s.size();
    // A number and its unit stay on one line ("24.5 ms", not "24.5\n ms").
    if (end < s.size() && end > pos && IsDigit(s[end - 1])) {
      size_t next = s.find(' ', end + 1);
      if (next == std::string_view::npos) next = s.size();
      if (IsUnit(s.substr(end + 1, next - end - 1))) end = next;
    }
    std::string_view word = s.substr(pos, end - pos);
    pos = end;
    size_t w = Width(word);
    size_t needed = w + (line_has_word ? 1 : 0);
    if (width > 0 && line_has_word && line_width + needed > width) flush();
    if (line_has_word) {
      line += ' ';
      ++line_width;
    }
    size_t room = width > line_width ? width - line_width : 1;
    std::string fitted = width > 0 ? Fit(word, room) : std::string(word);
    line += fitted;
    line_width += Width(fitted);
    line_has_word = true;
  }
  if (line_has_word || out.empty()) flush();
  return out;
}

std::string PadRight(std::string_view s, size_t width) {
  size_t w = Width(s);
  return std::string(s) + std::string(w < width ? width - w : 0, ' ');
}

std::string PadLeft(std::string_view s, size_t width) {
  size_t w = Width(s);
  return std::string(w < width ? width - w : 0, ' ') + std::string(s);
}

std::string Paint(std::string_view s, Color c, bool enabled) {
  if (!enabled || s.empty()) return std::string(s);
  std::string_view sgr;
  switch (c) {
    case Color::kBold: sgr = "1"; break;
    case Color::kRed: sgr = "1;31"; break;
    case Color::kYellow: sgr = "33"; break;
    case Color::kCyan: sgr = "36"; break;
    case Color::kDim: sgr = "2"; break;
    case Color::kGreen: sgr = "32"; break;
  }
  return fmt::format("\033[{}m{}\033[0m", sgr, s);
}

// Milliseconds, the unit of step times, up to 10 s; a longer window reads
// "98.2 s", not "98153 ms".
std::string Ms(TimeNs ns) {
  double v = static_cast<double>(ns);
  if (std::fabs(v) >= 10 * kNsPerS) return Significant(v / kNsPerS, "s");
  return Significant(v / kNsPerMs, "ms");
}

std::string Dur(TimeNs ns) {
  double v = static_cast<double>(ns);
  double a = std::fabs(v);
  if (a >= kNsPerS) return Significant(v / kNsPerS, "s");
  if (a >= kNsPerMs) return Significant(v / kNsPerMs, "ms");
  if (a >= kNsPerUs) return Significant(v / kNsPerUs, "us");
  return fmt::format("{} ns", ns);
}

std::string Pct(double share) { return fmt::format("{:.1f}%", 100 * share); }

Table::Table(std::vector<std::string> header, std::vector<bool> right_aligned)
    : header_(std::move(header)), right_(std::move(right_aligned)) {
  right_.resize(header_.size(), false);
}

void Table::AddRow(std::vector<std::string> cells) {
  cells.resize(header_.size());
  rows_.push_back(std::move(cells));
}

void Table::FitLastColumnMiddle(size_t width, std::string_view indent) {
  const size_t n = header_.size();
  if (width == 0 || n < 2) return;
  size_t start = Width(indent);
  for (size_t c = 0; c + 1 < n; ++c) {
    size_t col = Width(header_[c]);
    for (const auto& row : rows_) col = std::max(col, Width(row[c]));
    start += col + 2;
  }
  size_t room = width > start ? width - start : 0;
  if (room < 8) return;  // the table splits instead
  for (auto& row : rows_) row[n - 1] = FitMiddle(row[n - 1], room);
}

std::string Table::Render(size_t width, std::string_view indent) const {
  const size_t n = header_.size();
  if (n == 0) return "";
  std::vector<size_t> col(n, 0);
  for (size_t c = 0; c < n; ++c) {
    col[c] = Width(header_[c]);
    for (const auto& row : rows_) col[c] = std::max(col[c], Width(row[c]));
  }
  constexpr size_t kGap = 2;
  const size_t base = Width(indent) + col[0];
  // Column groups after the label: as many columns as fit in each.
  std::vector<std::pair<size_t, size_t>> groups;
  for (size_t c = 1; c < n;) {
    size_t used = base;
    size_t first = c;
    while (c < n && (c == first || width == 0 || used + kGap + col[c] <= width)) {
      used += kGap + col[c];
      ++c;
    }
    groups.emplace_back(first, c);
  }
  if (groups.empty()) groups.emplace_back(1, 1);
  // A last group holding only a left-aligned name joins the previous group
  // and is cut instead: a name column alone under the table reads badly.
  if (groups.size() > 1 && groups.back().second - groups.back().first == 1 &&
      !right_[groups.back().first]) {
    groups.pop_back();
    groups.back().second = n;
  }
  std::string out;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (g > 0) out += '\n';
    auto line = [&](const std::vector<std::string>& cells) {
      std::string s(indent);
      s += right_[0] ? PadLeft(cells[0], col[0]) : PadRight(cells[0], col[0]);
      for (size_t c = groups[g].first; c < groups[g].second; ++c) {
        s += std::string(kGap, ' ');
        bool last = c + 1 == groups[g].second;
        s += right_[c] ? PadLeft(cells[c], col[c]) : last ? cells[c] : PadRight(cells[c], col[c]);
      }
      while (!s.empty() && s.back() == ' ') s.pop_back();
      out += Fit(s, width);
      out += '\n';
    };
    line(header_);
    for (const auto& row : rows_) line(row);
  }
  return out;
}

}  // namespace tracelint::text
