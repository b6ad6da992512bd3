#include "cli/help_command.h"

#include <optional>
#include <ostream>

#include "analyzer/base/version.h"
#include "cli/cli_docs.h"
#include "cli/exit_codes.h"

namespace tracelint {

HelpCommands DeclareHelpCommands(CLI::App& app, OptionTable& table, HelpArgs& args) {
  HelpCommands out;
  static constexpr char kHelp[] = "show the help of tracelint or of one command";
  out.help = app.add_subcommand("help", kHelp);
  CommandFlags help(*out.help, table.AddCommand("help", kHelp));
  help.Positional("command", args.topic, "the command to explain", /*required=*/false);
  help.Flag("--json", args.json,
            "every command's options as JSON (name, spellings, type, choices, default, help)");
  static constexpr char kVersion[] = "print the version";
  out.version = app.add_subcommand("version", kVersion);
  table.AddCommand("version", kVersion);
  static constexpr char kCompletions[] = "print the shell completion script (bash, zsh or fish)";
  out.completions = app.add_subcommand("completions", kCompletions);
  CommandFlags completions(*out.completions, table.AddCommand("completions", kCompletions));
  completions.Value("shell", args.shell, "bash, zsh or fish", Choices({"bash", "zsh", "fish"}))
      ->required();
  return out;
}

int RunHelpCommands(const CLI::App& app, const OptionTable& table, const HelpCommands& commands,
                    const HelpArgs& args, const std::string& version, std::ostream& out,
                    std::ostream& err) {
  if (*commands.version) {
    out << version << "\n";
    return kExitOk;
  }
  if (*commands.completions) {
    out << CompletionScript(app, table, args.shell).value_or("");
    return kExitOk;
  }
  if (!*commands.help) return -1;
  if (args.json) {
    out << table.HelpJson(kToolVersion);
    return kExitOk;
  }
  if (!args.topic.empty()) {
    if (std::optional<std::string> unknown = CheckUnknownWords(app, {args.topic})) {
      err << "tracelint: " << *unknown << "\n";
      return kExitUsage;
    }
  }
  const CLI::App* topic = args.topic.empty() ? &app : app.get_subcommand(args.topic);
  // app.help() would show the help of the command being run ("help").
  out << (topic == &app
              ? app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal)
              : topic->help(app.get_name()));
  return kExitOk;
}

}  // namespace tracelint
