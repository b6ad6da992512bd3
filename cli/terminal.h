#ifndef TRACELINT_CLI_TERMINAL_H_
#define TRACELINT_CLI_TERMINAL_H_

// Where the text report goes decides its layout: a terminal gets its width
// and (with --color auto) colour; a pipe or a file gets full-width lines and
// never an escape code.

#include <iosfwd>
#include <string>
#include <string_view>

namespace tracelint {

// Columns of the terminal on `fd` (ioctl TIOCGWINSZ); 0 when `fd` is not a
// terminal or does not say.
int TerminalColumns(int fd);

// The report's width: on a terminal, COLUMNS when it is a positive number
// (the user's override, as shells and Python's shutil read it), else the
// ioctl's columns, else 80; not on a terminal, 0 (no limit).
int ReportWidth(bool is_terminal, int ioctl_columns, const char* columns_env);

// --color auto|always|never: `always` and `never` as said; `auto` colours
// only a terminal, and not when NO_COLOR is set to a non-empty value
// (no-color.org).
bool UseColor(std::string_view mode, bool is_terminal, const char* no_color_env);

// Whether `out` is std::cout and fd 1 is a terminal (a report written with
// -o FILE never is).
bool IsStdoutTerminal(const std::ostream& out);

}  // namespace tracelint

#endif  // TRACELINT_CLI_TERMINAL_H_
