#ifndef TRACELINT_CLI_CLI_DOCS_H_
#define TRACELINT_CLI_CLI_DOCS_H_

// Everything said about the command line is generated from the option table
// (option_table.h) that the commands declare their flags into, the same
// declarations CLI11 parses with: shell completions (with each choice
// option's values), the man page, and the "did you mean" for a mistyped
// command or option. Nothing here is written by hand per option, so it
// cannot drift from `--help`.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "cli/option_table.h"

namespace tracelint {

// A whole number of at least `min`; the error reads "must be at least 1,
// not 0" (CLI11 prefixes the option: "--top: must be at least 1, not 0").
CLI::Validator AtLeast(int64_t min);
// A whole number from `min` to `max` ("must be from 0 to 1024, not 5000").
CLI::Validator Between(int64_t min, int64_t max);
// A finite number >= 0 (NaN, inf and negative values are usage errors).
CLI::Validator FiniteAtLeastZero();

// Completion scripts: shell is "bash", "zsh" or "fish"; nullopt otherwise.
std::optional<std::string> CompletionScript(const CLI::App& app, const OptionTable& table,
                                            std::string_view shell);

// The man page (roff, section 1).
std::string ManPage(const CLI::App& app, const OptionTable& table, std::string_view version);

// The candidate closest to `typed` by edit distance, when close enough to be
// a typo (at most a third of its length, and at least 1, edits away).
std::optional<std::string> ClosestName(std::string_view typed,
                                       const std::vector<std::string>& candidates);

// Checks the words of a command line (argv without the program name) against
// the app before CLI11 parses them, so that a typo gets "unknown command
// 'analyse'; did you mean 'analyze'?" rather than CLI11's generic message.
// Returns that one-line message, or nullopt when every command and option
// is known.
std::optional<std::string> CheckUnknownWords(const CLI::App& app,
                                             const std::vector<std::string>& words);

// `tracelint` with no arguments: the commands, one line each, and where to
// read more (printed on stderr, exit 2).
std::string ShortHelp(const CLI::App& app);

// tracelint's own one-line message for a CLI11 parse error (without the
// "tracelint: " prefix): a missing path names the command and what it
// takes, a single-value option given twice says so, a number too large for
// its option says so. Other errors keep CLI11's text.
std::string UsageErrorText(const CLI::ParseError& e, const CLI::App& app);

}  // namespace tracelint

#endif  // TRACELINT_CLI_CLI_DOCS_H_
