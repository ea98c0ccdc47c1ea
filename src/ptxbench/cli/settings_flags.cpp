#include "ptxbench/cli/settings_flags.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

namespace ptxbench::cli {

void add_settings_flags(CLI::App& command, SettingsFlags& flags, eval::SettingSet offered,
                        const eval::EvaluationSettings& defaults,
                        std::span<const eval::SettingRow> table) {
  for (const auto& row : table) {
    if (!offered.has(row.setting)) continue;
    const std::string field(row.field);
    const std::string help(row.help);
    if (row.type == eval::SettingType::kBoolean) {
      command.add_flag(std::string(row.flag), flags.switches[field], help);
      continue;
    }
    auto* option = command.add_option(std::string(row.flag), flags.values[field], help);
    if (const auto value = row.get(defaults); !value.is_null())
      option->default_str(eval::setting_value_text(row, value));
    // No CLI11 validator: settings_from_flags checks every value through the table, so a flag
    // and a file's key are refused in the same words.
    option->type_name(eval::setting_value_name(row));
  }
}

util::Expected<eval::EvaluationSettings> settings_from_flags(
    const SettingsFlags& flags, eval::EvaluationSettings settings,
    std::span<const eval::SettingRow> table) {
  for (const auto& row : table) {
    nlohmann::json value;
    if (row.type == eval::SettingType::kBoolean) {
      auto given = flags.switches.find(row.field);
      if (given == flags.switches.end() || !given->second) continue;
      value = row.flag_sets;
    } else {
      auto given = flags.values.find(row.field);
      if (given == flags.values.end() || !given->second) continue;
      auto parsed = eval::setting_value_from_text(row, *given->second);
      if (!parsed)
        return util::make_error(
            fmt::format("{} {}: {}", row.name(), *given->second, parsed.error().message));
      value = std::move(*parsed);
    }
    if (auto problem = eval::apply_setting(row, value, settings)) {
      return util::make_error(row.type == eval::SettingType::kBoolean
                                  ? fmt::format("{}: {}", row.name(), *problem)
                                  : fmt::format("{} {}: {}", row.name(),
                                                *flags.values.at(std::string(row.field)),
                                                *problem));
    }
  }
  return settings;
}

std::shared_ptr<eval::Engine> open_command_engine(std::string_view command,
                                                  const eval::EvaluationSettings& settings) {
  auto engine = eval::open_engine(settings);
  if (!engine) {
    fmt::print(stderr, "ptxbench {}: {}\n", command, engine.error().message);
    return nullptr;
  }
  if (auto warning = (*engine)->warning())
    fmt::print(stderr, "ptxbench {}: WARNING: {}\n", command, *warning);
  if (settings.judge.reference_cache && settings.seed_pool == 0 && !settings.input_seed)
    fmt::print(stderr,
               "ptxbench {}: WARNING: --reference-cache without --seed-pool (or --seed): every "
               "verdict draws fresh seeds, so the reference cache never hits\n",
               command);
  return *engine;
}

}  // namespace ptxbench::cli
