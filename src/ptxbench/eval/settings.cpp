#include "ptxbench/eval/settings.hpp"

#include <algorithm>
#include <thread>

#include "ptxbench/eval/setting_table.hpp"
#include "ptxbench/util/field_reader.hpp"

namespace ptxbench::eval {

using Json = nlohmann::json;

util::Expected<EvaluationSettings> read_settings(const Json& mapping, EvaluationSettings settings,
                                                 SettingSet offered, std::string_view where,
                                                 const std::vector<std::string>& caller_fields,
                                                 std::span<const SettingRow> table) {
  util::FieldReader fields(mapping, where.empty() ? std::string() : std::string(where) + ".");
  for (const auto& key : caller_fields) fields.mark(key);
  for (const auto& row : table) {
    fields.mark(row.field);
    if (!fields.ok() || !fields.has(row.field)) continue;
    if (!offered.has(row.setting)) {
      fields.fail(row.field, "not a setting of this command");
      continue;
    }
    if (auto problem = apply_setting(row, fields.at(row.field), settings))
      fields.fail(row.field, *problem);
  }
  if (const auto& problem = fields.finish(); !problem.empty()) return util::make_error(problem);
  return settings;
}

Json settings_to_json(const EvaluationSettings& settings, SettingSet offered,
                      std::span<const SettingRow> table) {
  Json json = Json::object();
  for (const auto& row : table) {
    if (!offered.has(row.setting)) continue;
    Json value = row.get(settings);
    if (!value.is_null()) json[std::string(row.field)] = std::move(value);
  }
  return json;
}

Json verdict_deciding_settings(const EvaluationSettings& settings,
                               std::span<const SettingRow> table) {
  Json json = Json::object();
  for (const auto& row : table) {
    if (row.decides_verdict) json[std::string(row.field)] = row.get(settings);
  }
  return json;
}

std::optional<std::string> settings_problem(const EvaluationSettings& settings,
                                            std::span<const SettingRow> table) {
  for (const auto& row : table) {
    if (row.check == nullptr) continue;
    if (auto problem = row.check(settings); !problem.empty())
      return std::string(row.name()) + " (" + std::string(row.field) + "): " + problem;
  }
  return std::nullopt;
}

std::string_view to_string(JudgeMode mode) {
  return mode == JudgeMode::kWarm ? "warm" : "fresh";
}

int parallel_compiles(const EvaluationSettings& settings) {
  if (settings.parallel > 0) return settings.parallel;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void apply_correctness_rule(const EvaluationSettings& settings, task::Task& task) {
  if (settings.correctness_rule) task.tolerance.rule = *settings.correctness_rule;
}

void apply_correctness_rule(const EvaluationSettings& settings, std::vector<task::Task>& suite) {
  for (auto& task : suite) apply_correctness_rule(settings, task);
}

}  // namespace ptxbench::eval
