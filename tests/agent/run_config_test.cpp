#include "ptxbench/agent/run_config.hpp"

#include <gtest/gtest.h>

#include <string>

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

// The message of a config that must be refused.
std::string refusal(std::string_view yaml) {
  auto config = parse(yaml);
  if (config) {
    auto valid = validate(*config);
    return valid ? std::string("(accepted)") : valid.error().message;
  }
  return config.error().message;
}

TEST(RunConfig, EveryNumberIsRangeChecked) {
  EXPECT_NE(refusal("samples: 4294967297").find("samples: expected an integer from 1 to"),
            std::string::npos);
  EXPECT_NE(refusal("turns: 100000").find("turns:"), std::string::npos);
  EXPECT_NE(refusal("evaluation: {compile_timeout_s: 0.4}").find("evaluation.compile_timeout_s"),
            std::string::npos);
  EXPECT_NE(refusal("evaluation: {compile_timeout_s: 1e30}").find("evaluation.compile_timeout_s"),
            std::string::npos);
  EXPECT_NE(refusal("evaluation: {parallel: -4}").find("evaluation.parallel"), std::string::npos);
  EXPECT_NE(refusal("target_speedup: -2").find("target_speedup"), std::string::npos);
  EXPECT_NE(refusal("target_speedup: .nan").find("target_speedup"), std::string::npos);
  const std::string model = "models: [{name: x, provider: openai, ";
  EXPECT_NE(refusal(model + "retries: {max_attempts: -1}}]").find("retries.max_attempts"),
            std::string::npos);
  EXPECT_NE(refusal(model + "retries: {initial_backoff_s: -5}}]").find("initial_backoff_s"),
            std::string::npos);
  EXPECT_NE(refusal(model + "retries: {jitter: -0.5}}]").find("retries.jitter"), std::string::npos);
  EXPECT_NE(refusal(model + "timeout_s: 1e30}]").find("timeout_s"), std::string::npos);
  EXPECT_NE(refusal(model + "max_tokens: 4294967297}]").find("max_tokens"), std::string::npos);
  EXPECT_NE(refusal(model + "limits: {concurrency: 0}}]").find("limits.concurrency"),
            std::string::npos);
  EXPECT_NE(refusal(model + "max_reply_bytes: 10}]").find("max_reply_bytes"), std::string::npos);
  // In range is still fine.
  auto fine = parse("samples: 2\nevaluation: {compile_timeout_s: 30, parallel: 0}");
  ASSERT_TRUE(fine) << fine.error().message;
  EXPECT_EQ(fine->evaluation.compile_timeout, std::chrono::seconds(30));
}

TEST(RunConfig, DuplicateKeysAndAliasBombsAreErrors) {
  auto duplicate = parse("samples: 1\nturns: 2\nsamples: 3\n");
  ASSERT_FALSE(duplicate);
  EXPECT_NE(duplicate.error().message.find("test.yaml: line 3: samples: duplicate key"),
            std::string::npos)
      << duplicate.error().message;
  // Nine levels of ten aliases each: 10^9 values once expanded.
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) bomb += (j ? ", *a" : "*a") + std::to_string(i - 1);
    bomb += "]\n";
  }
  auto exploded = parse(bomb);
  ASSERT_FALSE(exploded);
  EXPECT_NE(exploded.error().message.find("alias"), std::string::npos) << exploded.error().message;
}

TEST(RunConfig, CellsListExplicitPairs) {
  auto config = parse("cells: [{task: gemm_n7168_k5120, context: isa}, \"mha_fwd_lse_d128:none\"]");
  ASSERT_TRUE(config) << config.error().message;
  ASSERT_EQ(config->cells.size(), 2u);
  EXPECT_EQ(config->cells[0].context, prompt::ContextLevel::kIsa);
  EXPECT_EQ(task_selectors(*config),
            (std::vector<std::string>{"gemm_n7168_k5120", "mha_fwd_lse_d128"}));
  EXPECT_FALSE(parse("cells: [{task: a, context: all}]"));
  EXPECT_FALSE(parse("cells: [a]\ntasks: [b]"));
  EXPECT_FALSE(parse("cells: []"));
}

TEST(RunConfig, WithoutTheGpuOneTurnUnlessAsked) {
  auto config = parse("turns: 5\nevaluation: {gpu: false}");
  ASSERT_TRUE(config);
  EXPECT_EQ(effective_turns(*config), 1);
  config->evaluation.all_turns_without_gpu = true;
  EXPECT_EQ(effective_turns(*config), 5);
  config->evaluation.gpu = true;
  config->evaluation.all_turns_without_gpu = false;
  EXPECT_EQ(effective_turns(*config), 5);
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
