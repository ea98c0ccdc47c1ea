#include "ptxbench/cli/fixit_pipeline.hpp"

#include <fmt/format.h>

#include <mutex>

#include "ptxbench/agent/config_file.hpp"
#include "ptxbench/agent/demo.hpp"
#include "ptxbench/agent/evaluation_service.hpp"
#include "ptxbench/agent/run_executor.hpp"
#include "ptxbench/cli/command.hpp"
#include "ptxbench/task/task_loader.hpp"
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

TeacherChoice teacher_from_json(const Json& json, const fs::path& base, const fs::path& solutions) {
  TeacherChoice choice;
  if (json.is_string() && json.get<std::string>() == "replay")
    choice.replay_solutions = solutions.string();
  if (json.is_object()) {
    if (json.contains("config"))
      choice.config_file = (base / json["config"].get<std::string>()).string();
    if (json.contains("command")) choice.command = json["command"].get<std::vector<std::string>>();
    choice.name = json.value("name", "");
  }
  return choice;
}

// Reads a field of `all`'s config, with the field named in the error.
template <class T>
util::Expected<T> field(const Json& json, const char* name, T fallback) {
  if (!json.contains(name)) return fallback;
  try {
    return json.at(name).get<T>();
  } catch (const Json::exception&) {
    return util::make_error(fmt::format("{}: wrong type", name));
  }
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
  static const std::set<std::string> kFields{
      "fixit",   "runs",   "tasks_dir", "gpu",     "parallel", "mine",     "recipes",
      "teacher", "repair", "explainer", "explain", "export",   "solutions"};
  if (!json.is_object()) return complain("expected a mapping");
  for (const auto& [key, value] : json.items())
    if (!kFields.contains(key)) return complain(key + ": unknown field");
  fs::path base = config_path.parent_path();
  auto folder_name = field<std::string>(json, "fixit", "");
  auto runs = field<std::vector<std::string>>(json, "runs", {});
  if (!folder_name || folder_name->empty()) return complain("fixit: the Fixit folder is required");
  if (!runs) return complain(runs.error().message);
  fs::path solutions = json.contains("solutions") ? base / json["solutions"].get<std::string>()
                                                  : agent::default_solutions_dir();
  auto suite =
      task::load_suite(json.contains("tasks_dir") ? base / json["tasks_dir"].get<std::string>()
                                                  : task::default_tasks_dir());
  if (!suite) return complain(suite.error().message);
  FixitEnvironment env{.suite = std::move(*suite),
                       .gpu = json.value("gpu", true),
                       .parallel = json.value("parallel", 2)};

  Json mine = json.value("mine", Json::object());
  fixit::MineFilters filters{.tasks = mine.value("tasks", std::vector<std::string>{}),
                             .models = mine.value("models", std::vector<std::string>{}),
                             .include_not_run = mine.value("include_not_run", false)};
  for (const auto& name : mine.value("verdicts", std::vector<std::string>{})) {
    auto verdict = eval::parse_verdict(name);
    if (!verdict) return complain("mine.verdicts: unknown verdict " + name);
    filters.verdicts.insert(*verdict);
  }
  for (int turn : mine.value("turns", std::vector<int>{})) filters.turns.insert(turn);
  auto recipes = recipes_from_json(
      json.value("recipes", Json::array({{{"name", "volume"}, {"mode", "volume"}}})));
  if (!recipes) return complain(recipes.error().message);
  Json repair = json.value("repair", Json::object());
  fixit::RepairOptions repair_options{.max_turns = repair.value("turns", 4),
                                      .concurrency = repair.value("concurrency", 2),
                                      .strict = repair.value("strict", true)};
  if (repair.contains("speedup_floor"))
    repair_options.speedup_floor = repair["speedup_floor"].get<double>();
  Json explain = json.value("explain", Json::object());
  auto bin = fixit::find_length_bin(explain.value("length", "medium"));
  if (!bin) return complain("explain.length: " + bin.error().message);
  fixit::ExplainOptions explain_options{
      .limits = {.bin = *bin, .token_budget = explain.value("token_budget", 2000)},
      .max_attempts = explain.value("max_attempts", 3)};
  Json exporting = json.value("export", Json::object());
  TeacherChoice teacher = teacher_from_json(json.value("teacher", Json("replay")), base, solutions);
  TeacherChoice explainer = teacher_from_json(
      json.value("explainer", json.value("teacher", Json("replay"))), base, solutions);

  auto folder = fixit::FixitFolder::open(
      fs::path(*folder_name).is_absolute() ? fs::path(*folder_name) : base / *folder_name);
  if (!folder) return complain(folder.error().message);
  std::vector<fs::path> run_paths;
  for (const auto& run : *runs)
    run_paths.push_back(fs::path(run).is_absolute() ? fs::path(run) : base / run);
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
    std::vector<fs::path> kernelgen =
        exporting.value("kernelgen", false) ? run_paths : std::vector<fs::path>{};
    if (int code = fixit_export(*folder, env, recipe.name,
                                exporting.value("include_unverified", false), kernelgen);
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
  auto folder = fixit::FixitFolder::open(options.out);
  if (!folder) {
    fmt::print(stderr, "ptxbench fixit demo: {}\n", folder.error().message);
    return kExitUsage;
  }
  // 1. The demo run: the project's solutions and broken controls replayed through the loop.
  fs::path source_run = folder->root() / "source-run";
  agent::SolutionScan scan = agent::scan_solutions(options.solutions_dir);
  agent::DemoPlan demo = agent::plan_demo(env.suite, scan, prompt::ContextLevel::kNone,
                                          prompt::default_context_dir(), env.parallel);
  fmt::print("fixit demo: 1/7 replaying {} solution file(s) into {}\n", demo.entries.size(),
             source_run.string());
  std::fflush(stdout);
  {
    auto directory = agent::RunDirectory::open(source_run);
    if (!directory) {
      fmt::print(stderr, "ptxbench fixit demo: {}\n", directory.error().message);
      return kExitUsage;
    }
    auto service = agent::make_evaluation_service(env.gpu, env.parallel, std::chrono::seconds(300));
    std::mutex mutex;
    agent::RunObserver observer{.on_turn = [&mutex](const agent::TurnEvent& event) {
      std::lock_guard lock(mutex);
      fmt::print(stderr, "  {}\n", agent::describe(event));
    }};
    auto summary = agent::execute_run(demo.plan, *directory, service->function(), observer);
    if (!summary) {
      fmt::print(stderr, "ptxbench fixit demo: {}\n", summary.error().message);
      return kExitUsage;
    }
    fmt::print("{}", agent::render_demo_table(demo.entries, summary->trajectories));
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
          fixit_repair(*folder, env, "demo", replay, {.max_turns = 2, .concurrency = env.parallel});
      code != kExitOk)
    return code;
  fmt::print("fixit demo: 5/7 verify\n");
  if (int code = fixit_verify(*folder, env, false, false); code != kExitOk) return code;
  fmt::print("fixit demo: 6/7 explain (replay explainer, {} length)\n", bin->name);
  if (int code = fixit_explain(*folder, env, "demo", replay, {.limits = {.bin = *bin}});
      code != kExitOk)
    return code;
  fmt::print("fixit demo: 7/7 export (unverified rows included, marked \"verified\": false)\n");
  if (int code = fixit_export(*folder, env, "demo", /*include_unverified=*/true, {source_run});
      code != kExitOk)
    return code;
  auto card = util::read_file(folder->export_dir("demo") / "README.md");
  if (card) fmt::print("\n{}", *card);
  fmt::print("\nFixit folder: {}\n", folder->root().string());
  return kExitOk;
}

}  // namespace ptxbench::cli
