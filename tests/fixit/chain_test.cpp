// The one stage chain of `fixit all` and `fixit demo`: the stages in order, each outcome handed
// to the observer, and a stage's problem stopping the chain with the stage named; `fixit all`'s
// flags laid over its config, and both refused before they write when no engine opens.
#include "ptxbench/fixit/chain.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../agent/sample_evaluations.hpp"
#include "ptxbench/agent/run_directory.hpp"
#include "ptxbench/fixit/all.hpp"
#include "ptxbench/fixit/demo.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::fixit {
namespace {

namespace fs = std::filesystem;

// A run with two failing first turns.
void write_run(const fs::path& run) {
  auto dir = agent::RunDirectory::open(run);
  ASSERT_TRUE(dir) << dir.error().message;
  dir->write_run_json({{"config", nlohmann::json::object()}});
  int sample = 0;
  for (const char* code : {"int broken_a;", "int broken_b;"}) {
    agent::Trajectory t;
    t.info.id = fmt::format("model__gemm_n7168_k5120__hopper__none__s{}", sample++);
    t.info.model = "model";
    t.info.task = "gemm_n7168_k5120";
    t.info.status = agent::TrajectoryStatus::kFinished;
    t.messages = {{.role = "system", .content = "SYSTEM"},
                  {.role = "user", .content = "TASK"},
                  {.role = "assistant",
                   .content = std::string("```cuda\n") + code + "\n```\n",
                   .extra = {{"turn", 1}}},
                  {.role = "user", .content = "It failed.", .extra = {{"turn", 1}}}};
    eval::Evaluation evaluation = testing::compile_error();
    evaluation.task = t.info.task;
    t.turns.push_back({.turn = 1, .evaluation = evaluation, .feedback = "It failed."});
    dir->save_trajectory(t);
  }
}

struct Seen {
  std::vector<std::string> begun;
  std::vector<std::size_t> outcomes;  // the variant index of each outcome
  ChainObserver observer() {
    return {.on_begin = [this](std::string_view stage) { begun.emplace_back(stage); },
            .on_outcome = [this](const StageOutcome& o) { outcomes.push_back(o.index()); }};
  }
};

class Chain : public ::testing::Test {
 protected:
  void SetUp() override {
    write_run(dir_.path() / "run");
    auto env = load_environment({}, kFixitDefaults);
    ASSERT_TRUE(env) << env.error().message;
    env_ = std::move(*env);
  }
  util::TempDir dir_;
  Environment env_;
};

TEST_F(Chain, StopsAtTheStageWhoseTeacherIsMissingAfterMiningAndBalancing) {
  auto folder = FixitFolder::open(dir_.path() / "f");
  ASSERT_TRUE(folder) << folder.error().message;
  Seen seen;
  auto failure = run_chain(*folder, env_, {.runs = {dir_.path() / "run"}}, seen.observer());
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->stage, "repair");
  EXPECT_FALSE(failure->internal);
  EXPECT_NE(failure->message.find("no teacher"), std::string::npos) << failure->message;
  EXPECT_EQ(seen.begun, (std::vector<std::string>{"mine", "balance", "repair"}));
  ASSERT_EQ(seen.outcomes.size(), 2u);
  EXPECT_EQ(seen.outcomes[0], 0u);  // MineOutcome
  EXPECT_EQ(seen.outcomes[1], 1u);  // the balance outcomes
  auto mined = folder->read_mined();
  ASSERT_TRUE(mined);
  EXPECT_EQ(mined->size(), 2u);
  EXPECT_TRUE(fs::exists(folder->selection_path("volume")));
}

TEST_F(Chain, AnEngineThatCannotOpenStopsTheRepairStage) {
  auto folder = FixitFolder::open(dir_.path() / "f");
  ASSERT_TRUE(folder) << folder.error().message;
  int opened = 0;
  env_.open_engine = [&opened](
                         const eval::EvaluationSettings&,
                         std::string_view stage) -> util::Expected<std::shared_ptr<eval::Engine>> {
    ++opened;
    return util::make_error(std::string("no engine for ") + std::string(stage));
  };
  ChainPlan plan{.runs = {dir_.path() / "run"}, .teacher = {.command = {"true"}}};
  auto failure = run_chain(*folder, env_, plan);
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->stage, "repair");
  EXPECT_EQ(failure->message, "no engine for repair");
  EXPECT_EQ(opened, 1);
}

TEST_F(Chain, AMissingRunStopsAtMine) {
  auto folder = FixitFolder::open(dir_.path() / "f");
  ASSERT_TRUE(folder) << folder.error().message;
  Seen seen;
  auto failure = run_chain(*folder, env_, {.runs = {dir_.path() / "nowhere"}}, seen.observer());
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->stage, "mine");
  EXPECT_TRUE(seen.outcomes.empty());
  EXPECT_FALSE(fs::exists(folder->mined_path()));
}

EngineOpener refusing_opener(int& opened) {
  return [&opened](const eval::EvaluationSettings&,
                   std::string_view stage) -> util::Expected<std::shared_ptr<eval::Engine>> {
    ++opened;
    return util::make_error(std::string("no engine for ") + std::string(stage));
  };
}

TEST(AllOverrides, LayTheFlagsOverTheConfigAndKeepTheRest) {
  FixitConfig config{.folder = "f", .kernelgen = true};
  config.plan.runs = {"a"};
  config.plan.kernelgen_runs = {"a"};
  FixitConfig kept = lay_over(config, {});
  EXPECT_EQ(kept.folder, "f");
  EXPECT_EQ(kept.plan.runs, (std::vector<fs::path>{"a"}));
  EXPECT_TRUE(kept.settings.gpu);
  EXPECT_FALSE(kept.plan.include_unverified);
  // export.kernelgen takes the runs in force: the flags' runs when they replace the config's.
  FixitConfig laid = lay_over(
      config, {.folder = "g", .runs = {"b", "c"}, .no_gpu = true, .include_unverified = true});
  EXPECT_EQ(laid.folder, "g");
  EXPECT_EQ(laid.plan.runs, (std::vector<fs::path>{"b", "c"}));
  EXPECT_EQ(laid.plan.kernelgen_runs, laid.plan.runs);
  EXPECT_FALSE(laid.settings.gpu);
  EXPECT_TRUE(laid.plan.include_unverified);
  config.kernelgen = false;
  config.plan.kernelgen_runs.clear();
  EXPECT_TRUE(lay_over(config, {}).plan.kernelgen_runs.empty());
  EXPECT_EQ(lay_over(config, {.kernelgen = true}).plan.kernelgen_runs, config.plan.runs);
}

TEST_F(Chain, AllIsRefusedBeforeItWritesWhenNoEngineOpens) {
  int opened = 0;
  env_.open_engine = refusing_opener(opened);
  FixitConfig config{.folder = dir_.path() / "f"};
  config.plan.runs = {dir_.path() / "run"};
  auto failure = run_all(config, "fixit.yaml", env_);
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->stage, "all");
  EXPECT_EQ(failure->message, "no engine for all");
  EXPECT_EQ(opened, 1);
  EXPECT_FALSE(fs::exists(dir_.path() / "f"));
}

TEST_F(Chain, AllRunsTheChainOverTheConfigsFolder) {
  env_.open_engine = [](const eval::EvaluationSettings&,
                        std::string_view) -> util::Expected<std::shared_ptr<eval::Engine>> {
    return std::shared_ptr<eval::Engine>();
  };
  FixitConfig config{.folder = dir_.path() / "f"};
  config.plan.runs = {dir_.path() / "run"};
  Seen seen;
  auto failure = run_all(config, "fixit.yaml", env_, seen.observer());
  ASSERT_TRUE(failure);  // no teacher: the chain's own stop, after mine and balance
  EXPECT_EQ(failure->stage, "repair");
  EXPECT_EQ(seen.begun, (std::vector<std::string>{"mine", "balance", "repair"}));
  EXPECT_TRUE(fs::exists(dir_.path() / "f" / "mined.jsonl"));
}

TEST_F(Chain, TheDemoIsRefusedBeforeItWritesWhenNoEngineOpens) {
  int opened = 0;
  env_.open_engine = refusing_opener(opened);
  bool replayed = false;
  auto outcome = run_demo(env_, dir_.path() / "demo", {}, LengthBin{.name = "medium"},
                          {.on_replay = [&](const DemoRun&) { replayed = true; }});
  ASSERT_TRUE(outcome.failure);
  EXPECT_EQ(outcome.failure->stage, "demo");
  EXPECT_EQ(outcome.failure->message, "no engine for demo");
  EXPECT_EQ(opened, 1);
  EXPECT_FALSE(replayed);
  EXPECT_FALSE(fs::exists(dir_.path() / "demo"));
}

}  // namespace
}  // namespace ptxbench::fixit
