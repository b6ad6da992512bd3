#include "cli/option_table.h"

#include <utility>

#include "analyzer/report/json_writer.h"

namespace tracelint {

CommandSpec& OptionTable::AddCommand(std::string name, std::string help) {
  commands_.push_back({std::move(name), std::move(help), {}});
  return commands_.back();
}

const CommandSpec* OptionTable::Find(std::string_view command) const {
  for (const CommandSpec& c : commands_) {
    if (c.name == command) return &c;
  }
  return nullptr;
}

std::string OptionTable::HelpJson(std::string_view version) const {
  JsonWriter w;
  w.BeginObject();
  w.Key("tool").String("tracelint");
  w.Key("version").String(version);
  w.Key("commands").BeginArray();
  for (const CommandSpec& c : commands_) {
    w.BeginObject();
    w.Key("name").String(c.name);
    w.Key("help").String(c.help);
    w.Key("options").BeginArray();
    for (const OptionSpec& o : c.options) {
      if (o.hidden) continue;
      w.BeginObject();
      w.Key("name").String(o.name);
      w.Key("spellings").StringArray(o.spellings);
      w.Key("type").String(o.type);
      if (!o.choices.empty()) w.Key("choices").StringArray(o.choices);
      if (o.default_value.empty()) {
        w.Key("default").Null();
      } else {
        w.Key("default").String(o.default_value);
      }
      w.Key("help").String(o.help);
      w.Key("positional").Bool(o.positional);
      w.Key("required").Bool(o.required);
      w.Key("output_only").Bool(o.output_only);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Finish();
}

OptionTraits OutputOnly() {
  OptionTraits t;
  t.output_only = true;
  return t;
}

OptionTraits Choices(std::vector<std::string> choices, bool output_only) {
  OptionTraits t;
  t.choices = std::move(choices);
  t.output_only = output_only;
  return t;
}

OptionTraits Checked(CLI::Validator check) {
  OptionTraits t;
  t.check = std::move(check);
  t.has_check = true;
  return t;
}

CLI::Option* CommandFlags::Callback(const std::string& names,
                                    std::function<void(const std::string&)> set,
                                    const std::string& help, std::string type,
                                    std::string default_value, OptionTraits traits) {
  CLI::Option* opt = command_.add_option_function<std::string>(names, std::move(set), help);
  Record(opt, std::move(type), std::move(default_value), traits);
  return opt;
}

CLI::Option* CommandFlags::Flag(const std::string& names, bool& value, const std::string& help,
                                OptionTraits traits) {
  CLI::Option* opt = command_.add_flag(names, value, help);
  Record(opt, "flag", "", traits);
  return opt;
}

CLI::Option* CommandFlags::FlagCallback(const std::string& names, std::function<void()> on,
                                        const std::string& help, OptionTraits traits) {
  CLI::Option* opt = command_.add_flag_callback(names, std::move(on), help);
  Record(opt, "flag", "", traits);
  return opt;
}

void CommandFlags::Record(CLI::Option* opt, std::string type, std::string default_value,
                          const OptionTraits& traits) {
  if (!traits.choices.empty()) {
    opt->check(CLI::IsMember(traits.choices));
    type = "choice";
  }
  if (traits.has_check) opt->check(traits.check);
  if (traits.required) opt->required();
  if (traits.hidden) opt->group("");
  OptionSpec spec;
  spec.positional = opt->get_positional();
  for (const std::string& s : opt->get_snames()) spec.spellings.push_back("-" + s);
  for (const std::string& l : opt->get_lnames()) spec.spellings.push_back("--" + l);
  spec.name = spec.positional ? opt->get_name(true)
              : opt->get_lnames().empty() ? spec.spellings.front()
                                          : "--" + opt->get_lnames().front();
  spec.type = std::move(type);
  spec.choices = traits.choices;
  spec.default_value = std::move(default_value);
  spec.help = opt->get_description();
  spec.required = traits.required || opt->get_required();
  spec.output_only = traits.output_only;
  spec.hidden = traits.hidden;
  spec_.options.push_back(std::move(spec));
}

}  // namespace tracelint
