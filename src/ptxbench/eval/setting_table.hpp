// The engine's settings, one row each (in the manner of ccache's config key table): field name,
// flag, help, type and range, and how the value is read from and written into
// EvaluationSettings. Every form a setting takes is derived from its row: the flag
// (cli/settings_flags.hpp), the field of run.yaml / fixit.yaml / study files / service requests
// and run.json (read_settings, settings_to_json), the verdict cache's key
// (verdict_deciding_settings) and the documentation table (settings_markdown). Adding a setting
// is one row here plus its use.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/eval/settings.hpp"

namespace ptxbench::eval {

// The value's type in files, requests and JSON.
enum class SettingType {
  kInteger,  // a whole number in [min, max]
  kBoolean,  // true/false; its flag takes no value and sets `flag_sets`
  kText,     // a string; `choices` (if any) lists the values allowed
  kFolder,   // a path to a folder (made when needed); a file there is refused. Relative paths
             // are resolved against a study file's folder
};

struct SettingRow {
  Setting setting;
  std::string_view field;  // "compile_timeout_s"
  // "--compile-timeout"; aliases after commas ("--parallel,--jobs"); the first is the name.
  std::string_view flag;
  std::string_view help;  // one sentence or two: the flag's help and the docs' meaning column
  SettingType type = SettingType::kText;
  std::int64_t min = 0;  // kInteger: the range
  std::int64_t max = 0;
  std::vector<std::string_view> choices;  // kText: the values allowed (empty: any)
  bool flag_sets = true;                  // kBoolean: what giving the flag sets (--no-gpu: false)
  // What the docs and help say when the value is unset (get() gives null): "each task's".
  std::string_view unset = "none";
  bool decides_verdict = false;  // part of the verdict cache's key (verdict_cache.hpp)
  // The value held in `settings` as JSON of the row's type; null: unset.
  nlohmann::json (*get)(const EvaluationSettings& settings) = nullptr;
  // Sets the value from JSON of the row's type (range and choices already checked); returns the
  // problem, empty when none.
  std::string (*set)(EvaluationSettings& settings, const nlohmann::json& value) = nullptr;
  // The row's check against the other settings, once every source is laid over them
  // (settings_problem); returns the problem, empty when none. Null: none.
  std::string (*check)(const EvaluationSettings& settings) = nullptr;

  std::string_view name() const { return flag.substr(0, flag.find(',')); }
};

// A row by its setting (every Setting of the table has one).
const SettingRow& row_of(Setting setting, std::span<const SettingRow> table = setting_table());

// The problem with a value of the row's type ("expected an integer from 1 to 3600 (got 0)"),
// then the row's own check; nullopt: none. Every source (flag, file, request) passes this.
std::optional<std::string> apply_setting(const SettingRow& row, const nlohmann::json& value,
                                         EvaluationSettings& settings);

// A flag's text as JSON of the row's type ("30" -> 30), or the problem.
util::Expected<nlohmann::json> setting_value_from_text(const SettingRow& row,
                                                       std::string_view text);

// The value's form in a flag's help: "INT in [1 - 3600]", "{strict,best-effort,off}", "DIR".
std::string setting_value_name(const SettingRow& row);

// How a value is shown in help and docs: `unset` for null, plain for numbers and strings.
std::string setting_value_text(const SettingRow& row, const nlohmann::json& value);

// The documentation table (docs/running.md, "Evaluation settings"): one line per row, field,
// flag, default and meaning; a test keeps the docs equal to it.
std::string settings_markdown(std::span<const SettingRow> table = setting_table());

}  // namespace ptxbench::eval
