#include "ptxbench/fixit/config.hpp"

#include <fmt/format.h>

#include <optional>
#include <set>

#include "ptxbench/agent/config_file.hpp"
#include "ptxbench/agent/solution_catalog.hpp"
#include "ptxbench/util/field_reader.hpp"

namespace ptxbench::fixit {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

util::Expected<std::vector<Recipe>> recipes_from_json(const Json& json) {
  const Json& list = json.is_object() && json.contains("recipes") ? json["recipes"] : json;
  if (!list.is_array()) return util::make_error("recipes: expected a list");
  std::vector<Recipe> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    auto recipe = recipe_from_json(list[i]);
    if (!recipe) return util::make_error(fmt::format("recipes[{}]: {}", i, recipe.error().message));
    out.push_back(*recipe);
  }
  return out;
}

// Typed reads of `all`'s config. A missing field gives the fallback; a wrong type, an unknown
// key or a number out of range is kept as the first problem, named by its path ("repair.turns").
class ConfigReader {
 public:
  template <class T>
  T get(const Json& json, const std::string& path, const char* name, T fallback) {
    if (!json.is_object() || !json.contains(name)) return fallback;
    try {
      return json.at(name).get<T>();
    } catch (const Json::exception&) {
      complain(path + name, "wrong type");
      return fallback;
    }
  }
  int integer(const Json& json, const std::string& path, const char* name, int fallback, int min,
              int max) {
    const Json& value = json.is_object() && json.contains(name) ? json.at(name) : Json(fallback);
    if (util::integer_problem(value, min, max)) {
      complain(path + name, fmt::format("expected a whole number from {} to {}", min, max));
      return fallback;
    }
    return static_cast<int>(value.get<std::int64_t>());
  }
  // `json` must be a mapping (or absent) whose keys are among `known`.
  void keys(const Json& json, const std::string& path, const std::set<std::string>& known) {
    if (json.is_null()) return;
    if (!json.is_object()) return complain(path.substr(0, path.size() - 1), "expected a mapping");
    for (const auto& [key, value] : json.items())
      if (!known.contains(key)) complain(path + key, "unknown field");
  }
  // An empty path: `problem` names its field itself.
  void complain(const std::string& path, const std::string& problem) {
    if (!problem_) problem_ = path.empty() ? problem : path + ": " + problem;
  }
  const std::optional<std::string>& problem() const { return problem_; }

 private:
  std::optional<std::string> problem_;
};

fs::path relative_to(const fs::path& base, const std::string& path) {
  return fs::path(path).is_absolute() ? fs::path(path) : base / path;
}

TeacherChoice teacher_from_json(ConfigReader& reader, const Json& json, const std::string& path,
                                const fs::path& base, const fs::path& solutions) {
  TeacherChoice choice;
  if (json.is_string()) {
    if (json.get<std::string>() == "replay")
      choice.replay_solutions = solutions.string();
    else
      reader.complain(path, "expected \"replay\", {config: FILE} or {command: [PROGRAM, ...]}");
    return choice;
  }
  reader.keys(json, path + ".", {"config", "command", "name"});
  auto config = reader.get<std::string>(json, path + ".", "config", "");
  if (!config.empty()) choice.config_file = relative_to(base, config).string();
  choice.command = reader.get<std::vector<std::string>>(json, path + ".", "command", {});
  choice.name = reader.get<std::string>(json, path + ".", "name", "");
  if (choice.config_file.empty() && choice.command.empty())
    reader.complain(path, "expected \"replay\", {config: FILE} or {command: [PROGRAM, ...]}");
  return choice;
}

}  // namespace

util::Expected<std::vector<Recipe>> load_recipes(const fs::path& path) {
  auto json = agent::load_yaml_file(path);
  if (!json) return json.error();
  auto recipes = recipes_from_json(*json);
  if (!recipes) return util::make_error(path.string() + ": " + recipes.error().message);
  return recipes;
}

util::Expected<FixitConfig> read_fixit_config(const fs::path& config_path) {
  auto loaded = agent::load_yaml_file(config_path);
  auto complain = [&](const std::string& message) {
    return util::make_error(config_path.string() + ": " + message);
  };
  if (!loaded) return complain(loaded.error().message);
  const Json& json = *loaded;
  if (!json.is_object()) return complain("expected a mapping");
  ConfigReader read;
  read.keys(json, "",
            {"fixit", "runs", "tasks_dir", "gpu", "parallel", "evaluation", "mine", "recipes",
             "teacher", "repair", "explainer", "explain", "export", "solutions"});
  const fs::path base = config_path.parent_path();
  const auto folder_name = read.get<std::string>(json, "", "fixit", "");
  const auto runs = read.get<std::vector<std::string>>(json, "", "runs", {});
  const auto solutions_dir = read.get<std::string>(json, "", "solutions", "");
  const auto tasks_dir = read.get<std::string>(json, "", "tasks_dir", "");
  FixitConfig config;
  // The engine's settings: `evaluation` (eval/settings.hpp), and the older top-level `gpu` and
  // `parallel` beside it.
  eval::EvaluationSettings& settings = config.settings;
  settings.gpu = read.get<bool>(json, "", "gpu", true);
  settings.parallel = read.integer(json, "", "parallel", 2, 1, 256);
  if (json.contains("evaluation")) {
    auto read_settings =
        eval::read_settings(json["evaluation"], settings, kFixitSettings, "evaluation");
    if (!read_settings) read.complain("", read_settings.error().message);
    if (read_settings) settings = *read_settings;
  }

  ChainPlan& plan = config.plan;
  const Json mine = json.value("mine", Json::object());
  read.keys(mine, "mine.", {"verdicts", "turns", "contexts", "tasks", "models", "include_not_run"});
  MineFilters& filters = plan.filters;
  filters.tasks = read.get<std::vector<std::string>>(mine, "mine.", "tasks", {});
  filters.models = read.get<std::vector<std::string>>(mine, "mine.", "models", {});
  filters.include_not_run = read.get<bool>(mine, "mine.", "include_not_run", false);
  for (const auto& name : read.get<std::vector<std::string>>(mine, "mine.", "verdicts", {})) {
    auto verdict = eval::parse_verdict(name);
    if (!verdict) read.complain("mine.verdicts", "unknown verdict " + name);
    if (verdict) filters.verdicts.insert(*verdict);
  }
  for (const auto& name : read.get<std::vector<std::string>>(mine, "mine.", "contexts", {})) {
    auto level = prompt::parse_context_level(name);
    if (!level) read.complain("mine.contexts", "unknown context level " + name);
    if (level) filters.contexts.insert(*level);
  }
  for (int turn : read.get<std::vector<int>>(mine, "mine.", "turns", {})) {
    if (turn < 1) read.complain("mine.turns", "turns are numbered from 1");
    filters.turns.insert(turn);
  }

  const Json repair = json.value("repair", Json::object());
  read.keys(repair, "repair.", {"turns", "concurrency", "strict", "speedup_floor"});
  plan.repair = {.max_turns = read.integer(repair, "repair.", "turns", 4, 1, 64),
                 .concurrency = read.integer(repair, "repair.", "concurrency", 2, 1, 256),
                 .strict = read.get<bool>(repair, "repair.", "strict", true)};
  if (repair.is_object() && repair.contains("speedup_floor")) {
    const double floor = read.get<double>(repair, "repair.", "speedup_floor", 0);
    if (!(floor > 0 && floor < 1e6)) read.complain("repair.speedup_floor", "expected a number > 0");
    plan.repair.speedup_floor = floor;
  }
  const Json explain = json.value("explain", Json::object());
  read.keys(explain, "explain.", {"length", "token_budget", "max_attempts"});
  auto bin = find_length_bin(read.get<std::string>(explain, "explain.", "length", "medium"));
  if (!bin) read.complain("explain.length", bin.error().message);
  plan.explain = {.limits = {.bin = bin ? *bin : LengthBin{},
                             .token_budget = read.integer(explain, "explain.", "token_budget", 2000,
                                                          1, 1'000'000)},
                  .max_attempts = read.integer(explain, "explain.", "max_attempts", 3, 1, 100)};
  const Json exporting = json.value("export", Json::object());
  read.keys(exporting, "export.", {"include_unverified", "kernelgen"});
  plan.include_unverified = read.get<bool>(exporting, "export.", "include_unverified", false);
  const bool kernelgen = read.get<bool>(exporting, "export.", "kernelgen", false);

  const fs::path solutions =
      solutions_dir.empty() ? agent::default_solutions_dir() : relative_to(base, solutions_dir);
  const Json teacher_json = json.value("teacher", Json("replay"));
  plan.teacher = teacher_from_json(read, teacher_json, "teacher", base, solutions);
  plan.explainer =
      teacher_from_json(read, json.value("explainer", teacher_json),
                        json.contains("explainer") ? "explainer" : "teacher", base, solutions);
  auto recipes = recipes_from_json(
      json.value("recipes", Json::array({{{"name", "volume"}, {"mode", "volume"}}})));
  if (!recipes) read.complain("", recipes.error().message);
  if (recipes) plan.recipes = *recipes;
  if (folder_name.empty()) read.complain("fixit", "the Fixit folder is required");
  if (read.problem()) return complain(*read.problem());

  config.folder = relative_to(base, folder_name);
  if (!tasks_dir.empty()) config.tasks_dir = relative_to(base, tasks_dir);
  for (const auto& run : runs) plan.runs.push_back(relative_to(base, run));
  config.kernelgen = kernelgen;
  if (kernelgen) plan.kernelgen_runs = plan.runs;
  return config;
}

}  // namespace ptxbench::fixit
