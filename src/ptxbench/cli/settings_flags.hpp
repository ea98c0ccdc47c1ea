// The engine's settings as flags, derived from the setting table (eval/setting_table.hpp): one
// function adds them to a command (the same names and help in every command, only those the
// command offers), one reads them over the settings a command starts from (its defaults, or
// run.yaml's `evaluation`). A flag the command does not offer is not registered, so CLI11 refuses
// it as an unknown argument.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ptxbench/eval/engine.hpp"
#include "ptxbench/eval/setting_table.hpp"
#include "ptxbench/eval/settings.hpp"
#include "ptxbench/util/expected.hpp"

namespace CLI {
class App;
}

namespace ptxbench::cli {

// What the user gave, by field name; absent or unset: the starting settings' value stays.
struct SettingsFlags {
  std::map<std::string, std::optional<std::string>, std::less<>> values;  // options
  std::map<std::string, bool, std::less<>> switches;                      // boolean flags
};

// `defaults` supplies the values the help shows.
void add_settings_flags(CLI::App& command, SettingsFlags& flags, eval::SettingSet offered,
                        const eval::EvaluationSettings& defaults = {},
                        std::span<const eval::SettingRow> table = eval::setting_table());

// The flags given laid over `settings`; an error is a usage error naming the flag.
util::Expected<eval::EvaluationSettings> settings_from_flags(
    const SettingsFlags& flags, eval::EvaluationSettings settings,
    std::span<const eval::SettingRow> table = eval::setting_table());

// The engine of a command (eval::open_engine); null after printing "ptxbench COMMAND: problem"
// (the caller exits kExitUsage). Prints the engine's warning, if any.
std::shared_ptr<eval::Engine> open_command_engine(std::string_view command,
                                                  const eval::EvaluationSettings& settings);

}  // namespace ptxbench::cli
