// fixit.yaml, read into the chain's plan: paths relative to the file, the explainer defaulting to
// the teacher, the engine's settings, and errors that name the file and the field.
#include "ptxbench/fixit/config.hpp"

#include <gtest/gtest.h>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::fixit {
namespace {

namespace fs = std::filesystem;

util::Expected<FixitConfig> read_text(const util::TempDir& dir, const std::string& text) {
  util::write_file_atomic(dir.path() / "fixit.yaml", text);
  return read_fixit_config(dir.path() / "fixit.yaml");
}

TEST(FixitConfig, ReadsThePlanWithPathsRelativeToTheFile) {
  util::TempDir dir;
  auto config = read_text(dir, R"(fixit: out/f
runs: [runs/base, /abs/run]
tasks_dir: tasks
evaluation: {gpu: false, parallel: 3}
mine: {verdicts: [COMPILE_ERROR], turns: [1, 2], include_not_run: true, include_no_code: true}
recipes:
  - {name: balanced, per_task_cap: 2}
  - {name: volume, mode: volume}
teacher: {command: [sh, teacher.sh], name: t}
repair: {turns: 2, concurrency: 1, strict: false, speedup_floor: 1.5}
explain: {length: short, token_budget: 900, max_attempts: 2}
export: {include_unverified: true, kernelgen: true}
)");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->folder, dir.path() / "out/f");
  EXPECT_EQ(config->tasks_dir, dir.path() / "tasks");
  EXPECT_FALSE(config->settings.gpu);
  EXPECT_EQ(config->settings.parallel, 3);
  const ChainPlan& plan = config->plan;
  ASSERT_EQ(plan.runs.size(), 2u);
  EXPECT_EQ(plan.runs[0], dir.path() / "runs/base");
  EXPECT_EQ(plan.runs[1], fs::path("/abs/run"));
  EXPECT_EQ(plan.kernelgen_runs, plan.runs);
  EXPECT_EQ(plan.filters.turns, (std::set<int>{1, 2}));
  EXPECT_TRUE(plan.filters.verdicts.contains(eval::Verdict::kCompileError));
  EXPECT_TRUE(plan.filters.include_not_run);
  EXPECT_TRUE(plan.filters.include_no_code);
  ASSERT_EQ(plan.recipes.size(), 2u);
  EXPECT_EQ(plan.recipes[1].mode, RecipeMode::kVolume);
  EXPECT_EQ(plan.teacher.command, (std::vector<std::string>{"sh", "teacher.sh"}));
  EXPECT_EQ(plan.teacher.name, "t");
  EXPECT_EQ(plan.explainer.command, plan.teacher.command);  // the teacher explains by default
  EXPECT_EQ(plan.repair.max_turns, 2);
  EXPECT_FALSE(plan.repair.strict);
  EXPECT_EQ(plan.repair.speedup_floor, 1.5);
  EXPECT_EQ(plan.explain.limits.bin.name, "short");
  EXPECT_EQ(plan.explain.limits.token_budget, 900);
  EXPECT_TRUE(plan.include_unverified);
}

TEST(FixitConfig, DefaultsToOneVolumeRecipeAndTheReplayTeacher) {
  util::TempDir dir;
  // An empty section (null in YAML) is read as absent.
  auto config = read_text(dir, "fixit: f\nsolutions: sol\nmine:\nrepair:\nexplain:\n");
  ASSERT_TRUE(config) << config.error().message;
  ASSERT_EQ(config->plan.recipes.size(), 1u);
  EXPECT_EQ(config->plan.recipes[0].name, "volume");
  EXPECT_EQ(config->plan.teacher.replay_solutions, (dir.path() / "sol").string());
  EXPECT_EQ(config->plan.explainer.replay_solutions, (dir.path() / "sol").string());
  EXPECT_TRUE(config->tasks_dir.empty());
  EXPECT_TRUE(config->plan.kernelgen_runs.empty());
  EXPECT_EQ(config->settings.parallel, 2);
  EXPECT_TRUE(config->settings.gpu);
  EXPECT_EQ(config->plan.repair.max_turns, 4);
  EXPECT_EQ(config->plan.repair.concurrency, 2);
  EXPECT_TRUE(config->plan.repair.strict);
  EXPECT_FALSE(config->plan.repair.speedup_floor);
  EXPECT_EQ(config->plan.explain.limits.bin.name, "medium");
  EXPECT_EQ(config->plan.explain.limits.token_budget, 2000);
  EXPECT_EQ(config->plan.explain.max_attempts, 3);
}

TEST(FixitConfig, ErrorsNameTheFileAndTheField) {
  util::TempDir dir;
  const std::string file = (dir.path() / "fixit.yaml").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"fixit: f\nrepair: {turns: 0}\n", "repair.turns: expected an integer from 1 to 64 (got 0)"},
      {"fixit: f\nmine: {colour: red}\n", "mine.colour: unknown field"},
      {"fixit: f\nmine: {verdicts: [NOPE]}\n", "mine.verdicts: unknown verdict NOPE"},
      {"fixit: f\nmine: {turns: [0]}\n", "mine.turns: turns are numbered from 1"},
      // Read as 64 bits: get<int> would wrap 4294967297 to turn 1.
      {"fixit: f\nmine: {turns: [4294967297]}\n", "(got 4294967297)"},
      {"fixit: f\nmine: {turns: 2}\n", "mine.turns: expected a list of turn numbers"},
      {"fixit: f\nparallel: 3\n", "parallel: moved: write it as evaluation.parallel"},
      {"fixit: f\ngpu: false\n", "gpu: moved: write it as evaluation.gpu"},
      {"fixit: f\nevaluation: {parallel: -1}\n",
       "evaluation.parallel: expected an integer from 0 to 1024 (got -1)"},
      {"fixit: f\nevaluation: {gpu: maybe}\n", "evaluation.gpu: expected true or false"},
      {"fixit: f\nrepair: {speedup_floor: 0}\n", "repair.speedup_floor: expected a number > 0"},
      {"fixit: f\nexport: 3\n", "export: expected a mapping"},
      {"fixit: f\ncolour: red\n", "colour: unknown field"},
      {"fixit: f\nexplain: {length: huge}\n", "explain.length: "},
      {"fixit: f\nteacher: 3\n", "teacher: expected a mapping"},
      {"fixit: f\nteacher: teach\n", "teacher: expected \"replay\""},
      {"fixit: f\nevaluation: {keep_artifacts: all}\n", "evaluation.keep_artifacts"},
      {"runs: [r]\n", "fixit: the Fixit folder is required"},
      {"- a list\n", "expected a mapping"},
  };
  for (const auto& [text, problem] : cases) {
    auto config = read_text(dir, text);
    ASSERT_FALSE(config) << text;
    EXPECT_EQ(config.error().message.rfind(file + ": ", 0), 0u) << config.error().message;
    EXPECT_NE(config.error().message.find(problem), std::string::npos)
        << text << " -> " << config.error().message;
  }
}

TEST(FixitConfig, RecipesFileHoldsAListOrAMapping) {
  util::TempDir dir;
  util::write_file_atomic(dir.path() / "list.yaml", "- {name: a}\n- {name: b, mode: volume}\n");
  util::write_file_atomic(dir.path() / "map.yaml", "recipes: [{name: c}]\n");
  util::write_file_atomic(dir.path() / "bad.yaml", "recipes: [{name: c, mode: sideways}]\n");
  auto list = load_recipes(dir.path() / "list.yaml");
  ASSERT_TRUE(list) << list.error().message;
  EXPECT_EQ(list->size(), 2u);
  auto map = load_recipes(dir.path() / "map.yaml");
  ASSERT_TRUE(map) << map.error().message;
  EXPECT_EQ(map->at(0).name, "c");
  auto bad = load_recipes(dir.path() / "bad.yaml");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("recipes[0]"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace ptxbench::fixit
