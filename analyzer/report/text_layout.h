#ifndef TRACELINT_ANALYZER_REPORT_TEXT_LAYOUT_H_
#define TRACELINT_ANALYZER_REPORT_TEXT_LAYOUT_H_

// Terminal layout for the text report: display width, cutting with an
// ellipsis at character boundaries, wrapping, aligned tables that split into
// column groups when wider than the terminal, ANSI colour, and the duration
// formats a reader expects. Text given here is already escaped
// (EscapeTerminal): no control characters, valid UTF-8.

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/base/time.h"

namespace tracelint::text {

// Columns a string takes: one per code point (escaped text has no controls;
// wide CJK characters count as one, which only makes a line a little short).
size_t Width(std::string_view s);

// `s` cut to at most `width` columns, ending in "…" when cut; 0 = no limit.
std::string Fit(std::string_view s, size_t width);
// The same, ending at a word break when one lies in the last third of what
// is kept, without the punctuation before it: a shortened sentence.
std::string FitAtWord(std::string_view s, size_t width);
// The same, cutting the middle ("sampled_r…-0.json.gz"): paths and file
// names differ at both ends.
std::string FitMiddle(std::string_view s, size_t width);

// Words of `s` on lines of at most `width` columns (0: one line), every line
// starting with `indent`, the first with `first_indent`. A word longer than
// a line is cut with an ellipsis. Each line ends in '\n'.
std::string Wrap(std::string_view s, size_t width, std::string_view first_indent,
                 std::string_view indent);

// Left- or right-padded to `width` columns.
std::string PadRight(std::string_view s, size_t width);
std::string PadLeft(std::string_view s, size_t width);

// SGR colours for severities and headings; Paint returns `s` unchanged when
// colour is off, so the plain layout never depends on it.
enum class Color { kBold, kRed, kYellow, kCyan, kDim, kGreen };
std::string Paint(std::string_view s, Color c, bool enabled);

// Durations: Ms in milliseconds with three significant digits ("24.5 ms",
// "613 ms", "0.175 ms", "9810 ms"), for step-level numbers a reader compares
// down a column, and in seconds from 10 s ("98.2 s", a long window); Dur
// picks the unit ("1.96 s", "12.0 ms", "29.2 us", "850 ns").
std::string Ms(TimeNs ns);
std::string Dur(TimeNs ns);
// "48.9%".
std::string Pct(double share);

// A table: a header row and rows of cells; column 0 is the label, kept when
// a table wider than `width` is split into groups of columns printed one
// under the other.
class Table {
 public:
  // `right_aligned[i]`: column i is a number.
  Table(std::vector<std::string> header, std::vector<bool> right_aligned);
  void AddRow(std::vector<std::string> cells);
  // Lines start with `indent`; 0 width: no limit. A lone last column that
  // does not fit (a name) is cut with an ellipsis instead of split off.
  std::string Render(size_t width, std::string_view indent = "  ") const;
  // Cuts the last column's cells in the middle (FitMiddle) so that the table
  // fits `width` when its other columns do: for file names.
  void FitLastColumnMiddle(size_t width, std::string_view indent = "  ");

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace tracelint::text

#endif  // TRACELINT_ANALYZER_REPORT_TEXT_LAYOUT_H_
