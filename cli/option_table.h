#ifndef TRACELINT_CLI_OPTION_TABLE_H_
#define TRACELINT_CLI_OPTION_TABLE_H_

// The one table of every command's options. Each command declares its flags
// next to its code through CommandFlags, which both adds them to the CLI11
// parser and records them here (name, spellings, type, default, help,
// choices); `--help` (CLI11's, from the same declarations), the shell
// completions, the man page and `tracelint help --json` (which the Python API
// and the MCP server read) are all built from it.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "CLI/CLI.hpp"
#include "fmt/format.h"

namespace tracelint {

struct OptionSpec {
  std::string name;                   // "--format"; a positional's name ("path")
  std::vector<std::string> spellings;  // "-o", "--output" (named options)
  // "flag", "int", "number", "string", "strings" (repeatable or several
  // values), "choice" (one of `choices`).
  std::string type;
  std::vector<std::string> choices;
  std::string default_value;  // as the command line would spell it; "" none
  std::string help;
  bool positional = false;
  bool required = false;
  // Shapes only how the result is written (-o, --format, --annotate,
  // --color, --width, -q/-v, --steps): the Python API and the MCP server
  // leave these out and always read JSON.
  bool output_only = false;
  bool hidden = false;  // testing knobs: parsed, not documented
};

struct CommandSpec {
  std::string name;
  std::string help;
  std::vector<OptionSpec> options;
};

class OptionTable {
 public:
  CommandSpec& AddCommand(std::string name, std::string help);
  const std::vector<CommandSpec>& commands() const { return commands_; }
  const CommandSpec* Find(std::string_view command) const;

  // `tracelint help --json`: {"tool", "version", "commands": [{"name",
  // "help", "options": [...]}]}, options in declaration order.
  std::string HelpJson(std::string_view version) const;

 private:
  std::vector<CommandSpec> commands_;
};

// Traits of one declared option beyond its value.
struct OptionTraits {
  bool output_only = false;
  bool hidden = false;
  bool required = false;
  std::vector<std::string> choices;  // non-empty: a choice option, checked by CLI11
  CLI::Validator check;              // an extra check (AtLeast, NonNegativeNumber)
  bool has_check = false;
  // The default as documented when the variable's initial value is a
  // sentinel (-1: "the terminal's width"); "" for none.
  std::optional<std::string> default_text;
};
OptionTraits OutputOnly();
OptionTraits Choices(std::vector<std::string> choices, bool output_only = false);
OptionTraits Checked(CLI::Validator check);

// "output format: text (the terminal report), json (...)" from a table of
// formats (anything with `name` and `help`), for --format's help.
template <typename Formats>
std::string FormatOptionHelp(const Formats& formats) {
  std::string out = "output format: ";
  bool first = true;
  for (const auto& f : formats) {
    out += fmt::format("{}{} ({})", first ? "" : ", ", f.name, f.help);
    first = false;
  }
  return out;
}

// Declares one command's options on its CLI11 subcommand and in its table
// entry, so the two never disagree.
class CommandFlags {
 public:
  CommandFlags(CLI::App& command, CommandSpec& spec) : command_(command), spec_(spec) {}

  CLI::App& command() { return command_; }

  // A value option; its default is the variable's value now.
  template <typename T>
  CLI::Option* Value(const std::string& names, T& value, const std::string& help,
                     OptionTraits traits = {}) {
    CLI::Option* opt = command_.add_option(names, value, help);
    Record(opt, TypeName<T>(), traits.default_text.value_or(DefaultText(value)), traits);
    return opt;
  }
  // A value option read by a callback (limits with K/M/G, say).
  CLI::Option* Callback(const std::string& names, std::function<void(const std::string&)> set,
                        const std::string& help, std::string type, std::string default_value,
                        OptionTraits traits = {});
  CLI::Option* Flag(const std::string& names, bool& value, const std::string& help,
                    OptionTraits traits = {});
  CLI::Option* FlagCallback(const std::string& names, std::function<void()> on,
                            const std::string& help, OptionTraits traits = {});
  // A positional argument.
  template <typename T>
  CLI::Option* Positional(const std::string& name, T& value, const std::string& help,
                          bool required) {
    CLI::Option* opt = command_.add_option(name, value, help);
    if (required) opt->required();
    OptionTraits traits;
    traits.required = required;
    Record(opt, TypeName<T>(), "", traits);
    return opt;
  }

 private:
  template <typename T>
  static std::string TypeName() {
    if constexpr (std::is_same_v<T, bool>) {
      return "flag";
    } else if constexpr (std::is_integral_v<T>) {
      return "int";
    } else if constexpr (std::is_floating_point_v<T>) {
      return "number";
    } else if constexpr (std::is_same_v<T, std::string>) {
      return "string";
    } else {
      return "strings";
    }
  }
  template <typename T>
  static std::string DefaultText(const T& value) {
    if constexpr (std::is_same_v<T, std::string>) {
      return value;
    } else if constexpr (std::is_arithmetic_v<T>) {
      return fmt::format("{}", value);
    } else {
      return "";
    }
  }
  void Record(CLI::Option* opt, std::string type, std::string default_value,
              const OptionTraits& traits);

  CLI::App& command_;
  CommandSpec& spec_;
};

}  // namespace tracelint

#endif  // TRACELINT_CLI_OPTION_TABLE_H_
