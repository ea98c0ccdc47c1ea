// The one stage chain of `fixit all` and `fixit demo`: the stages in order, each outcome handed
// to the observer, and a stage's problem stopping the chain with the stage named.
#include "ptxbench/fixit/chain.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../agent/sample_evaluations.hpp"
#include "ptxbench/agent/run_directory.hpp"
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

}  // namespace
}  // namespace ptxbench::fixit
