#include "ptxbench/agent/run_config.hpp"

#include <fnmatch.h>

#include <fmt/format.h>

#include <set>

#include "ptxbench/agent/config_file.hpp"
#include "ptxbench/util/field_reader.hpp"

namespace ptxbench::agent {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

fs::path resolve(const fs::path& base_dir, const std::string& text) {
  fs::path path(text);
  return path.is_absolute() || base_dir.empty() ? path : base_dir / path;
}

// A list field may also be written as one string ("tasks: core").
util::Expected<std::vector<std::string>> string_list(const Json& json, std::string_view field) {
  if (json.is_string()) return std::vector<std::string>{json.get<std::string>()};
  if (!json.is_array())
    return util::make_error(fmt::format("{}: expected a list of strings", field));
  std::vector<std::string> out;
  for (const auto& item : json) {
    if (!item.is_string())
      return util::make_error(fmt::format("{}: expected a list of strings", field));
    out.push_back(item.get<std::string>());
  }
  return out;
}

util::Expected<int> int_in_range(const Json& json, std::string_view field, int min, int max) {
  if (auto problem = util::integer_problem(json, min, max))
    return util::make_error(fmt::format("{}: {}", field, *problem));
  return static_cast<int>(json.get<std::int64_t>());
}

util::Expected<RunEvaluation> evaluation_from_json(const Json& json) {
  auto read = eval::read_settings(json, {}, kRunSettings, "evaluation", {"all_turns_without_gpu"});
  if (!read) return read.error();
  RunEvaluation settings;
  static_cast<eval::EvaluationSettings&>(settings) = *read;
  if (json.contains("all_turns_without_gpu")) {
    if (!json["all_turns_without_gpu"].is_boolean())
      return util::make_error("evaluation.all_turns_without_gpu: expected true or false");
    settings.all_turns_without_gpu = json["all_turns_without_gpu"].get<bool>();
  }
  return settings;
}

util::Expected<std::vector<Cell>> cells_from_json(const Json& json) {
  if (!json.is_array()) return util::make_error("cells: expected a list of {task, context}");
  std::vector<Cell> cells;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const Json& item = json[i];
    const std::string field = fmt::format("cells[{}]", i);
    if (item.is_string()) {
      auto cell = parse_cell(item.get<std::string>());
      if (!cell) return util::make_error(field + ": " + cell.error().message);
      cells.push_back(*cell);
      continue;
    }
    if (!item.is_object() || !item.contains("task") || !item["task"].is_string())
      return util::make_error(field + ": expected {task: NAME, context: LEVEL}");
    for (const auto& member : item.items()) {
      if (member.key() != "task" && member.key() != "context")
        return util::make_error(fmt::format("{}.{}: unknown field", field, member.key()));
    }
    Cell cell{.task = item["task"].get<std::string>()};
    if (item.contains("context")) {
      auto level = item["context"].is_string()
                       ? prompt::parse_context_level(item["context"].get<std::string>())
                       : std::nullopt;
      if (!level)
        return util::make_error(field + ".context: expected none, isa, guide or examples");
      cell.context = *level;
    }
    cells.push_back(cell);
  }
  if (cells.empty()) return util::make_error("cells: the list is empty");
  return cells;
}

}  // namespace

const std::set<std::string>& run_grid_fields() {
  static const std::set<std::string> fields{
      "tasks", "archs",   "contexts",       "cells",      "samples",
      "turns", "history", "target_speedup", "evaluation", "context_dir"};
  return fields;
}

const std::set<std::string>& run_config_fields() {
  static const std::set<std::string> fields = [] {
    auto all = run_grid_fields();
    all.insert({"models", "out", "tasks_dir", "retrieval"});
    return all;
  }();
  return fields;
}

util::Expected<std::vector<arch::Arch>> parse_arch_list(const std::vector<std::string>& names) {
  std::vector<arch::Arch> out;
  for (const auto& name : names) {
    auto parsed = arch::parse(name);
    if (!parsed)
      return util::make_error(fmt::format("arch '{}': expected hopper or blackwell", name));
    if (std::find(out.begin(), out.end(), *parsed) == out.end()) out.push_back(*parsed);
  }
  return out;
}

util::Expected<std::vector<prompt::ContextLevel>> parse_context_list(
    const std::vector<std::string>& names) {
  std::vector<prompt::ContextLevel> out;
  for (const auto& name : names) {
    auto parsed = prompt::parse_context_level(name);
    if (!parsed) {
      return util::make_error(
          fmt::format("context '{}': expected none, isa, guide or examples", name));
    }
    if (std::find(out.begin(), out.end(), *parsed) == out.end()) out.push_back(*parsed);
  }
  return out;
}

util::Expected<Cell> parse_cell(std::string_view text) {
  const auto colon = text.rfind(':');
  Cell cell{.task = std::string(text.substr(0, colon))};
  if (cell.task.empty())
    return util::make_error(fmt::format("'{}': expected TASK[:CONTEXT]", text));
  if (colon != std::string_view::npos) {
    auto level = prompt::parse_context_level(text.substr(colon + 1));
    if (!level) {
      return util::make_error(fmt::format("'{}': context '{}' is not none, isa, guide or examples",
                                          text, text.substr(colon + 1)));
    }
    cell.context = *level;
  }
  return cell;
}

int effective_turns(const RunConfig& config) {
  return config.evaluation.gpu || config.evaluation.all_turns_without_gpu ? config.turns : 1;
}

std::vector<std::string> task_selectors(const RunConfig& config) {
  if (config.cells.empty()) return config.tasks;
  std::vector<std::string> names;
  for (const auto& cell : config.cells) names.push_back(cell.task);
  return names;
}

util::Expected<RunConfig> run_config_from_json(const Json& json, const fs::path& base_dir) {
  if (!json.is_object()) return util::make_error("run config: expected a mapping at the top");
  for (const auto& item : json.items()) {
    if (!run_config_fields().contains(item.key())) {
      return util::make_error(fmt::format("{}: unknown field", item.key()));
    }
  }
  RunConfig config;
  if (json.contains("models")) {
    if (!json["models"].is_array()) return util::make_error("models: expected a list");
    for (const auto& entry : json["models"]) {
      auto model = model::provider_config_from_json(entry, base_dir);
      if (!model) return model.error();
      config.models.push_back(std::move(*model));
    }
  }
  if (json.contains("tasks")) {
    auto tasks = string_list(json["tasks"], "tasks");
    if (!tasks) return tasks.error();
    config.tasks = std::move(*tasks);
  }
  if (json.contains("archs")) {
    auto names = string_list(json["archs"], "archs");
    if (!names) return names.error();
    auto archs = parse_arch_list(*names);
    if (!archs) return archs.error();
    config.archs = std::move(*archs);
  }
  if (json.contains("contexts")) {
    auto names = string_list(json["contexts"], "contexts");
    if (!names) return names.error();
    auto levels = parse_context_list(*names);
    if (!levels) return levels.error();
    config.contexts = std::move(*levels);
  }
  if (json.contains("samples")) {
    auto samples = int_in_range(json["samples"], "samples", 1, kMaxSamples);
    if (!samples) return samples.error();
    config.samples = *samples;
  }
  if (json.contains("turns")) {
    auto turns = int_in_range(json["turns"], "turns", 1, kMaxTurns);
    if (!turns) return turns.error();
    config.turns = *turns;
  }
  if (json.contains("cells")) {
    if (json.contains("tasks") || json.contains("contexts"))
      return util::make_error("cells: give cells, or tasks and contexts, not both");
    auto cells = cells_from_json(json["cells"]);
    if (!cells) return cells.error();
    config.cells = std::move(*cells);
  }
  if (json.contains("history")) {
    if (!json["history"].is_string()) return util::make_error("history: expected full or last-K");
    auto history = parse_history_policy(json["history"].get<std::string>());
    if (!history) return history.error();
    config.history = *history;
  }
  if (json.contains("target_speedup") && !json["target_speedup"].is_null()) {
    const Json& target = json["target_speedup"];
    if (!target.is_number() || !(target.get<double>() > 0) ||
        target.get<double>() > kMaxTargetSpeedup) {
      return util::make_error(fmt::format(
          "target_speedup: expected a number above 0 and at most {}", kMaxTargetSpeedup));
    }
    config.target_speedup = json["target_speedup"].get<double>();
  }
  if (json.contains("evaluation")) {
    auto evaluation = evaluation_from_json(json["evaluation"]);
    if (!evaluation) return evaluation.error();
    config.evaluation = *evaluation;
  }
  if (json.contains("retrieval")) {
    const Json& retrieval = json["retrieval"];
    if (!retrieval.is_object())
      return util::make_error("retrieval: expected {fixit: FOLDER, k: N}");
    for (const auto& [key, value] : retrieval.items()) {
      if (key == "fixit") {
        if (!value.is_string()) return util::make_error("retrieval.fixit: expected a path");
        config.retrieval.fixit = resolve(base_dir, value.get<std::string>());
      } else if (key == "k") {
        auto k = int_in_range(value, "retrieval.k", 1, kMaxRetrieveK);
        if (!k) return k.error();
        config.retrieval.k = *k;
      } else {
        return util::make_error(
            fmt::format("retrieval.{}: unknown field (expected fixit, k)", key));
      }
    }
  }
  for (auto [field, target] :
       {std::pair{"out", &config.out}, std::pair{"tasks_dir", &config.tasks_dir},
        std::pair{"context_dir", &config.context_dir}}) {
    if (!json.contains(field) || json[field].is_null()) continue;
    if (!json[field].is_string())
      return util::make_error(fmt::format("{}: expected a path", field));
    *target = resolve(base_dir, json[field].get<std::string>());
  }
  return config;
}

util::Expected<RunConfig> load_run_config(const fs::path& path) {
  auto json = load_yaml_file(path);
  if (!json) return json.error();
  auto config = run_config_from_json(*json, fs::absolute(path).parent_path());
  if (!config) return util::make_error(path.string() + ": " + config.error().message);
  return config;
}

util::Expected<bool> validate(const RunConfig& config) {
  if (config.models.empty())
    return util::make_error("no model: give --model/--provider or models: in the config");
  std::set<std::string> names;
  for (const auto& model : config.models) {
    if (!names.insert(model.name).second)
      return util::make_error("model " + model.name + ": named twice");
  }
  if (config.tasks.empty()) return util::make_error("no tasks selected");
  if (config.archs.empty()) return util::make_error("no archs selected");
  if (config.contexts.empty()) return util::make_error("no context levels selected");
  if (config.samples < 1 || config.samples > kMaxSamples)
    return util::make_error(fmt::format("samples: expected 1 to {}", kMaxSamples));
  if (config.turns < 1 || config.turns > kMaxTurns)
    return util::make_error(fmt::format("turns: expected 1 to {}", kMaxTurns));
  if (config.target_speedup &&
      (!(*config.target_speedup > 0) || *config.target_speedup > kMaxTargetSpeedup)) {
    return util::make_error(
        fmt::format("target_speedup: expected a number above 0 and at most {}", kMaxTargetSpeedup));
  }
  if (config.out.empty()) {
    return util::make_error(
        "no run directory: give --out RUN_DIR (rerun with the same one to resume)");
  }
  return true;
}

util::Expected<std::vector<const task::Task*>> select_tasks(
    const std::vector<task::Task>& suite, const std::vector<std::string>& selectors) {
  std::set<const task::Task*> chosen;
  for (const auto& selector : selectors) {
    bool matched = false;
    for (const auto& task : suite) {
      bool match = selector == "all" || (selector == "core" && task.core) ||
                   selector == task.name || ::fnmatch(selector.c_str(), task.name.c_str(), 0) == 0;
      if (match) {
        chosen.insert(&task);
        matched = true;
      }
    }
    if (!matched)
      return util::make_error(fmt::format("tasks: '{}' matches no task in the suite", selector));
  }
  std::vector<const task::Task*> out;
  for (const auto& task : suite) {
    if (chosen.contains(&task)) out.push_back(&task);
  }
  return out;
}

Json grid_of(const RunConfig& config, const std::vector<const task::Task*>& tasks) {
  Json models = Json::array();
  for (const auto& model : config.models) models.push_back(model.name);
  Json task_names = Json::array();
  for (const auto* task : tasks) task_names.push_back(task->name);
  Json archs = Json::array();
  for (auto arch : config.archs) archs.push_back(arch::to_string(arch));
  Json contexts = Json::array();
  for (auto level : config.contexts) contexts.push_back(prompt::to_string(level));
  Json grid{
      {"models", models},     {"tasks", task_names},       {"archs", archs},
      {"contexts", contexts}, {"samples", config.samples}, {"turns", effective_turns(config)}};
  if (!config.cells.empty()) {
    Json cells = Json::array();
    for (const auto& cell : config.cells)
      cells.push_back({{"task", cell.task}, {"context", prompt::to_string(cell.context)}});
    grid["cells"] = std::move(cells);
    grid.erase("contexts");
  }
  return grid;
}

Json to_json(const RunConfig& config, const std::vector<const task::Task*>& tasks) {
  Json json = grid_of(config, tasks);
  Json models = Json::array();
  for (const auto& model : config.models) models.push_back(model::to_json(model));
  json["models"] = models;
  json["history"] = config.history.describe();
  json["target_speedup"] = config.target_speedup ? Json(*config.target_speedup) : Json(nullptr);
  json["evaluation"] = eval::settings_to_json(config.evaluation, kRunSettings);
  json["evaluation"]["all_turns_without_gpu"] = config.evaluation.all_turns_without_gpu;
  json["task_selectors"] = config.tasks;
  json["tasks_dir"] = config.tasks_dir.string();
  json["context_dir"] = config.context_dir.string();
  if (!config.retrieval.fixit.empty())
    json["retrieval"] = {{"fixit", config.retrieval.fixit.string()}, {"k", config.retrieval.k}};
  return json;
}

}  // namespace ptxbench::agent
