#include "ptxbench/cli/fixit_pipeline.hpp"

#include <fmt/format.h>

#include <mutex>
#include <optional>
#include <set>

#include "ptxbench/agent/config_file.hpp"
#include "ptxbench/agent/run_executor.hpp"
#include "ptxbench/cli/command.hpp"
#include "ptxbench/cli/settings_flags.hpp"
#include "ptxbench/demo/demo.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/field_reader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

util::Expected<std::vector<fixit::Recipe>> recipes_from_json(const Json& json) {
  const Json& list = json.is_object() && json.contains("recipes") ? json["recipes"] : json;
  if (!list.is_array()) return util::make_error("recipes: expected a list");
  std::vector<fixit::Recipe> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    auto recipe = fixit::recipe_from_json(list[i]);
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

util::Expected<std::vector<fixit::Recipe>> load_recipes(const fs::path& path) {
  auto json = agent::load_yaml_file(path);
  if (!json) return json.error();
  auto recipes = recipes_from_json(*json);
  if (!recipes) return util::make_error(path.string() + ": " + recipes.error().message);
  return recipes;
}

int run_fixit_all(const fs::path& config_path) {
  auto loaded = agent::load_yaml_file(config_path);
  auto complain = [&](const std::string& message) {
    fmt::print(stderr, "ptxbench fixit all: {}: {}\n", config_path.string(), message);
    return static_cast<int>(kExitUsage);
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
  // The engine's settings: `evaluation` (eval/settings.hpp), and the older top-level `gpu` and
  // `parallel` beside it.
  eval::EvaluationSettings settings = kFixitDefaults;
  settings.gpu = read.get<bool>(json, "", "gpu", true);
  settings.parallel = read.integer(json, "", "parallel", 2, 1, 256);
  if (json.contains("evaluation")) {
    auto read_settings =
        eval::read_settings(json["evaluation"], settings, kFixitSettings, "evaluation");
    if (!read_settings) read.complain("", read_settings.error().message);
    if (read_settings) settings = *read_settings;
  }

  const Json mine = json.value("mine", Json::object());
  read.keys(mine, "mine.", {"verdicts", "turns", "contexts", "tasks", "models", "include_not_run"});
  fixit::MineFilters filters{
      .tasks = read.get<std::vector<std::string>>(mine, "mine.", "tasks", {}),
      .models = read.get<std::vector<std::string>>(mine, "mine.", "models", {}),
      .include_not_run = read.get<bool>(mine, "mine.", "include_not_run", false)};
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
  fixit::RepairOptions repair_options{
      .max_turns = read.integer(repair, "repair.", "turns", 4, 1, 64),
      .concurrency = read.integer(repair, "repair.", "concurrency", 2, 1, 256),
      .strict = read.get<bool>(repair, "repair.", "strict", true)};
  if (repair.is_object() && repair.contains("speedup_floor")) {
    const double floor = read.get<double>(repair, "repair.", "speedup_floor", 0);
    if (!(floor > 0 && floor < 1e6)) read.complain("repair.speedup_floor", "expected a number > 0");
    repair_options.speedup_floor = floor;
  }
  const Json explain = json.value("explain", Json::object());
  read.keys(explain, "explain.", {"length", "token_budget", "max_attempts"});
  auto bin = fixit::find_length_bin(read.get<std::string>(explain, "explain.", "length", "medium"));
  if (!bin) read.complain("explain.length", bin.error().message);
  fixit::ExplainOptions explain_options{
      .limits = {.bin = bin ? *bin : fixit::LengthBin{},
                 .token_budget =
                     read.integer(explain, "explain.", "token_budget", 2000, 1, 1'000'000)},
      .max_attempts = read.integer(explain, "explain.", "max_attempts", 3, 1, 100)};
  const Json exporting = json.value("export", Json::object());
  read.keys(exporting, "export.", {"include_unverified", "kernelgen"});
  const bool include_unverified = read.get<bool>(exporting, "export.", "include_unverified", false);
  const bool kernelgen = read.get<bool>(exporting, "export.", "kernelgen", false);

  const fs::path solutions =
      solutions_dir.empty() ? agent::default_solutions_dir() : relative_to(base, solutions_dir);
  const Json teacher_json = json.value("teacher", Json("replay"));
  TeacherChoice teacher = teacher_from_json(read, teacher_json, "teacher", base, solutions);
  TeacherChoice explainer =
      teacher_from_json(read, json.value("explainer", teacher_json),
                        json.contains("explainer") ? "explainer" : "teacher", base, solutions);
  auto recipes = recipes_from_json(
      json.value("recipes", Json::array({{{"name", "volume"}, {"mode", "volume"}}})));
  if (!recipes) read.complain("", recipes.error().message);
  if (folder_name.empty()) read.complain("fixit", "the Fixit folder is required");
  if (read.problem()) return complain(*read.problem());

  auto suite = task::load_suite(tasks_dir.empty() ? task::default_tasks_dir()
                                                  : relative_to(base, tasks_dir));
  if (!suite) return complain(suite.error().message);
  eval::apply_correctness_rule(settings, *suite);
  FixitEnvironment env{.suite = std::move(*suite), .settings = settings};
  // Every recipe is repaired: the engine is opened (or refused) before any stage writes.
  if (!engine_of(env, "all")) return kExitUsage;
  auto folder = fixit::FixitFolder::open(relative_to(base, folder_name));
  if (!folder) return complain(folder.error().message);
  std::vector<fs::path> run_paths;
  for (const auto& run : runs) run_paths.push_back(relative_to(base, run));
  if (int code = fixit_mine(*folder, env, run_paths, filters); code != kExitOk) return code;
  if (int code = fixit_balance(*folder, *recipes); code != kExitOk) return code;
  for (const auto& recipe : *recipes) {
    if (int code = fixit_repair(*folder, env, recipe.name, teacher, repair_options);
        code != kExitOk)
      return code;
    if (int code = fixit_verify(*folder, env, false, false); code != kExitOk) return code;
    if (int code = fixit_explain(*folder, env, recipe.name, explainer, explain_options);
        code != kExitOk)
      return code;
    if (int code = fixit_export(*folder, env, recipe.name, include_unverified,
                                kernelgen ? run_paths : std::vector<fs::path>{},
                                {.length_bin = explain_options.limits.bin.name});
        code != kExitOk)
      return code;
  }
  return kExitOk;
}

int run_fixit_demo(const FixitDemoOptions& options, const FixitEnvironment& env) {
  auto bin = fixit::find_length_bin(options.length);
  if (!bin) {
    fmt::print(stderr, "ptxbench fixit demo: --length: {}\n", bin.error().message);
    return kExitUsage;
  }
  auto engine = engine_of(env, "demo");
  if (!engine) return kExitUsage;
  auto folder = fixit::FixitFolder::open(options.out);
  if (!folder) {
    fmt::print(stderr, "ptxbench fixit demo: {}\n", folder.error().message);
    return kExitUsage;
  }
  // 1. The demo run: the project's solutions and broken controls replayed through the loop.
  fs::path source_run = folder->root() / "source-run";
  agent::SolutionScan scan = agent::scan_solutions(options.solutions_dir);
  demo::DemoPlan demo =
      demo::plan_demo(env.suite, scan, prompt::ContextLevel::kNone, prompt::default_context_dir(),
                      eval::parallel_compiles(env.settings));
  fmt::print("fixit demo: 1/7 replaying {} solution file(s) into {}\n", demo.entries.size(),
             source_run.string());
  std::fflush(stdout);
  {
    auto directory = agent::RunDirectory::open(source_run);
    if (!directory) {
      fmt::print(stderr, "ptxbench fixit demo: {}\n", directory.error().message);
      return kExitUsage;
    }
    std::mutex mutex;
    agent::RunObserver observer{.on_turn = [&mutex](const agent::TurnEvent& event) {
      std::lock_guard lock(mutex);
      fmt::print(stderr, "  {}\n", agent::describe(event));
    }};
    auto summary = agent::execute_run(demo.plan, *directory, engine->function(), observer);
    if (!summary) {
      fmt::print(stderr, "ptxbench fixit demo: {}\n", summary.error().message);
      return kExitUsage;
    }
    fmt::print("{}", demo::render_demo_table(demo.entries, summary->trajectories));
  }
  // 2-7. The broken controls' failures (their declared verdicts where the GPU stages did not run).
  fmt::print("\nfixit demo: 2/7 mine\n");
  fixit::MineFilters filters{.models = {"broken"}, .include_not_run = true};
  if (int code = fixit_mine(*folder, env, {source_run}, filters); code != kExitOk) return code;
  fmt::print("fixit demo: 3/7 balance (volume: every row)\n");
  fixit::Recipe recipe{.name = "demo", .mode = fixit::RecipeMode::kVolume};
  if (int code = fixit_balance(*folder, {recipe}); code != kExitOk) return code;
  TeacherChoice replay{.replay_solutions = options.solutions_dir.string()};
  fmt::print("fixit demo: 4/7 repair (replay teacher: the expert solutions)\n");
  if (int code =
          fixit_repair(*folder, env, "demo", replay,
                       {.max_turns = 2, .concurrency = eval::parallel_compiles(env.settings)});
      code != kExitOk)
    return code;
  fmt::print("fixit demo: 5/7 verify\n");
  if (int code = fixit_verify(*folder, env, false, false); code != kExitOk) return code;
  fmt::print("fixit demo: 6/7 explain (replay explainer, {} length)\n", bin->name);
  if (int code = fixit_explain(*folder, env, "demo", replay, {.limits = {.bin = *bin}});
      code != kExitOk)
    return code;
  fmt::print("fixit demo: 7/7 export (unverified rows included, marked \"verified\": false)\n");
  fs::path exported;
  if (int code = fixit_export(*folder, env, "demo", /*include_unverified=*/true, {source_run},
                              {.length_bin = bin->name}, &exported);
      code != kExitOk)
    return code;
  auto card = util::read_file(exported / "README.md");
  if (card) fmt::print("\n{}", *card);
  fmt::print("\nFixit folder: {}\n", folder->root().string());
  return kExitOk;
}

}  // namespace ptxbench::cli
