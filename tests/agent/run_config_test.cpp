#include "ptxbench/agent/run_config.hpp"

#include <gtest/gtest.h>

#include "ptxbench/agent/config_file.hpp"
#include "ptxbench/config.hpp"
#include "ptxbench/task/task_loader.hpp"

namespace ptxbench::agent {
namespace {

util::Expected<RunConfig> parse(std::string_view yaml) {
  auto json = parse_yaml(yaml, "test.yaml");
  if (!json) return json.error();
  return run_config_from_json(*json, "/configs");
}

TEST(RunConfig, ReadsAYamlGrid) {
  auto config = parse(R"(
out: runs/grid
tasks: [core, "gemm_n4096_*"]
archs: [hopper, blackwell]
contexts: [none, guide]
samples: 3
turns: 4
history: last-2
target_speedup: 1.0
evaluation: {gpu: false, parallel: 2, compile_timeout_s: 120, correctness_rule: matches_library}
models:
  - name: local
    provider: openai
    base_url: http://127.0.0.1:8000/v1
    api_key_env: ""
    model: "1.5"
  - {name: me, provider: command, command: [python3, agent.py]}
)");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->out, std::filesystem::path("/configs/runs/grid"));
  EXPECT_EQ(config->tasks, (std::vector<std::string>{"core", "gemm_n4096_*"}));
  EXPECT_EQ(config->archs.size(), 2u);
  EXPECT_EQ(config->contexts[1], prompt::ContextLevel::kGuide);
  EXPECT_EQ(config->samples, 3);
  EXPECT_EQ(config->history.last_k, 2);
  EXPECT_EQ(config->target_speedup, 1.0);
  EXPECT_FALSE(config->evaluation.gpu);
  EXPECT_EQ(config->evaluation.compile_timeout, std::chrono::seconds(120));
  EXPECT_EQ(config->evaluation.correctness_rule, task::CorrectnessRule::kMatchesLibrary);
  ASSERT_EQ(config->models.size(), 2u);
  EXPECT_EQ(config->models[0].api_key_env, "");
  EXPECT_EQ(config->models[0].model, "1.5") << "a quoted scalar stays a string";
  EXPECT_EQ(config->models[1].command, (std::vector<std::string>{"python3", "agent.py"}));
  EXPECT_TRUE(validate(*config));
}

TEST(RunConfig, RejectsMistakes) {
  EXPECT_FALSE(parse("sample: 3"));
  EXPECT_FALSE(parse("samples: 0"));
  EXPECT_FALSE(parse("archs: [ampere]"));
  EXPECT_FALSE(parse("contexts: [all]"));
  EXPECT_FALSE(parse("history: recent"));
  EXPECT_FALSE(parse("evaluation: {gpus: 2}"));
  EXPECT_FALSE(parse("evaluation: {correctness_rule: close_enough}"));
  EXPECT_FALSE(parse("models: [{name: x, provider: openai, tempertaure: 1}]"));
  auto broken = parse("tasks: [core");
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("test.yaml"), std::string::npos);
  auto no_models = parse("out: x");
  ASSERT_TRUE(no_models);
  EXPECT_FALSE(validate(*no_models));
  auto no_out = parse("models: [{name: x, provider: replay, path: r}]");
  ASSERT_TRUE(no_out);
  EXPECT_FALSE(validate(*no_out));
  auto twice = parse(
      "out: o\nmodels: [{name: x, provider: replay, path: r}, {name: x, provider: replay, path: "
      "s}]");
  ASSERT_TRUE(twice);
  EXPECT_FALSE(validate(*twice));
}

TEST(RunConfig, TheExampleConfigIsValid) {
  auto path = std::filesystem::path(config::kSourceDir) / "examples" / "run.yaml";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
  auto config = load_run_config(path);
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_TRUE(validate(*config));
  auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite);
  EXPECT_TRUE(select_tasks(*suite, config->tasks));
}

TEST(SelectTasks, CoreAllNamesAndGlobs) {
  auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite) << suite.error().message;
  auto core = select_tasks(*suite, {"core"});
  ASSERT_TRUE(core);
  EXPECT_EQ(core->size(), 5u);
  for (const auto* task : *core) EXPECT_TRUE(task->core);
  auto all = select_tasks(*suite, {"all", "core"});
  ASSERT_TRUE(all);
  EXPECT_EQ(all->size(), suite->size()) << "each task once";
  auto glob = select_tasks(*suite, {"gemm_*"});
  ASSERT_TRUE(glob);
  for (const auto* task : *glob) EXPECT_EQ(task->name.rfind("gemm_", 0), 0u);
  EXPECT_FALSE(select_tasks(*suite, {"gemm_nope"}));
}

TEST(RunConfig, RecordHasTheGridAndNoSecrets) {
  ::setenv("PTXBENCH_TEST_SECRET", "sk-never-written", 1);
  auto config =
      parse("out: o\nmodels: [{name: x, provider: openai, api_key_env: PTXBENCH_TEST_SECRET}]");
  ASSERT_TRUE(config);
  auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite);
  auto tasks = select_tasks(*suite, config->tasks);
  ASSERT_TRUE(tasks);
  std::string text = to_json(*config, *tasks).dump();
  EXPECT_EQ(text.find("sk-never-written"), std::string::npos);
  EXPECT_EQ(grid_of(*config, *tasks)["tasks"].size(), 5u);
}

}  // namespace
}  // namespace ptxbench::agent
