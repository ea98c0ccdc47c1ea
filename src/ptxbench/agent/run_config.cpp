#include "ptxbench/agent/run_config.hpp"

#include <fnmatch.h>

#include <fmt/format.h>

#include <set>

#include "ptxbench/agent/config_file.hpp"

namespace ptxbench::agent {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

const std::set<std::string> kKnownFields{"models",     "tasks", "archs",     "contexts",
                                         "samples",    "turns", "history",   "target_speedup",
                                         "evaluation", "out",   "tasks_dir", "context_dir"};

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

util::Expected<int> positive_int(const Json& json, std::string_view field) {
  if (!json.is_number_integer() || json.get<int>() < 1) {
    return util::make_error(fmt::format("{}: expected an integer >= 1", field));
  }
  return json.get<int>();
}

util::Expected<EvaluationSettings> evaluation_from_json(const Json& json) {
  if (!json.is_object()) return util::make_error("evaluation: expected a mapping");
  EvaluationSettings settings;
  for (const auto& item : json.items()) {
    const std::string& key = item.key();
    const Json& value = item.value();
    if (key == "gpu" && value.is_boolean()) {
      settings.gpu = value.get<bool>();
    } else if (key == "parallel" && value.is_number_integer() && value.get<int>() >= 0) {
      settings.parallel = value.get<int>();
    } else if (key == "sandbox" && value.is_string() &&
               sandbox::parse_mode(value.get<std::string>())) {
      settings.sandbox = *sandbox::parse_mode(value.get<std::string>());
    } else if (key == "compile_timeout_s" && value.is_number() && value.get<double>() > 0) {
      settings.compile_timeout =
          std::chrono::seconds(static_cast<std::int64_t>(value.get<double>()));
    } else if (key == "correctness_rule" && value.is_string() &&
               task::parse_correctness_rule(value.get<std::string>())) {
      settings.correctness_rule = task::parse_correctness_rule(value.get<std::string>());
    } else {
      return util::make_error(
          fmt::format("evaluation.{}: unknown field or wrong value {}", key, value.dump()));
    }
  }
  return settings;
}

}  // namespace

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

util::Expected<RunConfig> run_config_from_json(const Json& json, const fs::path& base_dir) {
  if (!json.is_object()) return util::make_error("run config: expected a mapping at the top");
  for (const auto& item : json.items()) {
    if (!kKnownFields.contains(item.key())) {
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
    auto samples = positive_int(json["samples"], "samples");
    if (!samples) return samples.error();
    config.samples = *samples;
  }
  if (json.contains("turns")) {
    auto turns = positive_int(json["turns"], "turns");
    if (!turns) return turns.error();
    config.turns = *turns;
  }
  if (json.contains("history")) {
    if (!json["history"].is_string()) return util::make_error("history: expected full or last-K");
    auto history = parse_history_policy(json["history"].get<std::string>());
    if (!history) return history.error();
    config.history = *history;
  }
  if (json.contains("target_speedup") && !json["target_speedup"].is_null()) {
    if (!json["target_speedup"].is_number() || json["target_speedup"].get<double>() <= 0) {
      return util::make_error("target_speedup: expected a positive number");
    }
    config.target_speedup = json["target_speedup"].get<double>();
  }
  if (json.contains("evaluation")) {
    auto evaluation = evaluation_from_json(json["evaluation"]);
    if (!evaluation) return evaluation.error();
    config.evaluation = *evaluation;
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
  if (config.samples < 1 || config.turns < 1)
    return util::make_error("samples and turns must be >= 1");
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
  return {{"models", models},     {"tasks", task_names},       {"archs", archs},
          {"contexts", contexts}, {"samples", config.samples}, {"turns", config.turns}};
}

Json to_json(const RunConfig& config, const std::vector<const task::Task*>& tasks) {
  Json json = grid_of(config, tasks);
  Json models = Json::array();
  for (const auto& model : config.models) models.push_back(model::to_json(model));
  json["models"] = models;
  json["history"] = config.history.describe();
  json["target_speedup"] = config.target_speedup ? Json(*config.target_speedup) : Json(nullptr);
  json["evaluation"] = {{"gpu", config.evaluation.gpu},
                        {"parallel", config.evaluation.parallel},
                        {"compile_timeout_s", config.evaluation.compile_timeout.count()},
                        {"sandbox", sandbox::to_string(config.evaluation.sandbox)}};
  if (config.evaluation.correctness_rule)
    json["evaluation"]["correctness_rule"] = task::to_string(*config.evaluation.correctness_rule);
  json["task_selectors"] = config.tasks;
  json["tasks_dir"] = config.tasks_dir.string();
  json["context_dir"] = config.context_dir.string();
  return json;
}

}  // namespace ptxbench::agent
