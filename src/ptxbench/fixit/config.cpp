#include "ptxbench/fixit/config.hpp"

#include <fmt/format.h>

#include <limits>
#include <string>

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

// A section of the config ("mine", "repair", ...): absent or null reads as empty.
Json section(const Json& json, const char* name, Json fallback = Json::object()) {
  return json.contains(name) && !json[name].is_null() ? json[name] : fallback;
}

// Reads `section` with `read_fields`, then keeps its first problem (or unknown field) in `top`.
template <class ReadFields>
void read_section(util::FieldReader& top, const Json& section, const std::string& name,
                  ReadFields read_fields) {
  util::FieldReader read(section, name + ".");
  read_fields(read);
  if (const auto& problem = read.finish(); !problem.empty()) top.fail("", problem);
}

fs::path relative_to(const fs::path& base, const std::string& path) {
  return fs::path(path).is_absolute() ? fs::path(path) : base / path;
}

// "replay", {config: FILE} or {command: [PROGRAM, ...]}; a problem is kept in `top`.
TeacherChoice teacher_from_json(util::FieldReader& top, const Json& json, const std::string& path,
                                const fs::path& base, const fs::path& solutions) {
  constexpr const char* kExpected =
      "expected \"replay\", {config: FILE} or {command: [PROGRAM, ...]}";
  TeacherChoice choice;
  if (json.is_string()) {
    if (json.get<std::string>() == "replay")
      choice.replay_solutions = solutions.string();
    else
      top.fail(path, kExpected);
    return choice;
  }
  std::string config;
  read_section(top, json, path, [&](util::FieldReader& read) {
    read.read("config", config);
    read.read("command", choice.command);
    read.read("name", choice.name);
  });
  if (!config.empty()) choice.config_file = relative_to(base, config).string();
  if (choice.config_file.empty() && choice.command.empty()) top.fail(path, kExpected);
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
  util::FieldReader read(json, "");
  const fs::path base = config_path.parent_path();
  std::string folder_name, solutions_dir, tasks_dir;
  std::vector<std::string> runs;
  read.read("fixit", folder_name);
  read.read("runs", runs);
  read.read("solutions", solutions_dir);
  read.read("tasks_dir", tasks_dir);
  FixitConfig config;
  // The engine's settings: `evaluation` only (eval/settings.hpp); the older top-level `gpu` and
  // `parallel` are named with their new place.
  eval::EvaluationSettings& settings = config.settings;
  for (const char* moved : {"gpu", "parallel"}) {
    read.mark(moved);
    if (json.contains(moved))
      read.fail(moved, fmt::format("moved: write it as evaluation.{}", moved));
  }
  read.mark("evaluation");
  if (read.ok() && json.contains("evaluation")) {
    auto read_settings =
        eval::read_settings(json["evaluation"], settings, kFixitSettings, "evaluation");
    if (!read_settings) read.fail("", read_settings.error().message);
    if (read_settings) settings = *read_settings;
  }

  ChainPlan& plan = config.plan;
  read.mark("mine");
  read_section(read, section(json, "mine"), "mine", [&](util::FieldReader& mine) {
    MineFilters& filters = plan.filters;
    std::vector<std::string> verdicts, contexts;
    mine.read("tasks", filters.tasks);
    mine.read("models", filters.models);
    mine.read("include_not_run", filters.include_not_run);
    mine.read("include_no_code", filters.include_no_code);
    mine.read("verdicts", verdicts);
    mine.read("contexts", contexts);
    for (const auto& name : verdicts) {
      auto verdict = eval::parse_verdict(name);
      if (!verdict) mine.fail("verdicts", "unknown verdict " + name);
      if (verdict) filters.verdicts.insert(*verdict);
    }
    for (const auto& name : contexts) {
      auto level = prompt::parse_context_level(name);
      if (!level) mine.fail("contexts", "unknown context level " + name);
      if (level) filters.contexts.insert(*level);
    }
    // Each turn checked as a whole number first: get<std::vector<int>> would wrap 4294967297.
    mine.mark("turns");
    if (!mine.ok() || !mine.has("turns")) return;
    if (!mine.at("turns").is_array()) return mine.fail("turns", "expected a list of turn numbers");
    for (const Json& turn : mine.at("turns")) {
      if (auto problem = util::integer_problem(turn, 1, std::numeric_limits<int>::max()))
        return mine.fail("turns", "turns are numbered from 1: " + *problem);
      filters.turns.insert(turn.get<int>());
    }
  });

  read.mark("repair");
  plan.repair = RepairOptions{};
  read_section(read, section(json, "repair"), "repair", [&](util::FieldReader& repair) {
    repair.read_integer("turns", 1, 64, plan.repair.max_turns);
    repair.read_integer("concurrency", 1, 256, plan.repair.concurrency);
    repair.read("strict", plan.repair.strict);
    repair.read("speedup_floor", plan.repair.speedup_floor);
    if (const auto& floor = plan.repair.speedup_floor; floor && !(*floor > 0 && *floor < 1e6))
      repair.fail("speedup_floor", "expected a number > 0");
  });
  read.mark("explain");
  plan.explain = ExplainOptions{};
  read_section(read, section(json, "explain"), "explain", [&](util::FieldReader& explain) {
    std::string length = "medium";
    explain.read("length", length);
    explain.read_integer("token_budget", 1, 1'000'000, plan.explain.limits.token_budget);
    explain.read_integer("max_attempts", 1, 100, plan.explain.max_attempts);
    auto bin = find_length_bin(length);
    if (!bin) explain.fail("length", bin.error().message);
    if (bin) plan.explain.limits.bin = *bin;
  });
  bool kernelgen = false;
  read.mark("export");
  read_section(read, section(json, "export"), "export", [&](util::FieldReader& exporting) {
    exporting.read("include_unverified", plan.include_unverified);
    exporting.read("kernelgen", kernelgen);
  });

  const fs::path solutions =
      solutions_dir.empty() ? agent::default_solutions_dir() : relative_to(base, solutions_dir);
  read.mark("teacher");
  read.mark("explainer");
  const Json teacher_json = section(json, "teacher", Json("replay"));
  plan.teacher = teacher_from_json(read, teacher_json, "teacher", base, solutions);
  plan.explainer =
      teacher_from_json(read, section(json, "explainer", teacher_json),
                        read.has("explainer") ? "explainer" : "teacher", base, solutions);
  read.mark("recipes");
  auto recipes = recipes_from_json(
      section(json, "recipes", Json::array({{{"name", "volume"}, {"mode", "volume"}}})));
  if (!recipes) read.fail("", recipes.error().message);
  if (recipes) plan.recipes = *recipes;
  if (read.ok() && folder_name.empty()) read.fail("fixit", "the Fixit folder is required");
  if (const auto& problem = read.finish(); !problem.empty()) return complain(problem);

  config.folder = relative_to(base, folder_name);
  if (!tasks_dir.empty()) config.tasks_dir = relative_to(base, tasks_dir);
  for (const auto& run : runs) plan.runs.push_back(relative_to(base, run));
  config.kernelgen = kernelgen;
  if (kernelgen) plan.kernelgen_runs = plan.runs;
  return config;
}

}  // namespace ptxbench::fixit
