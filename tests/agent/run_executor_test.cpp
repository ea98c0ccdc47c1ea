#include "ptxbench/agent/run_executor.hpp"

#include <gtest/gtest.h>

#include "fakes.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::agent {
namespace {

using testing::code_reply;
using testing::FakeProvider;

class RunExecutorTest : public ::testing::Test {
 protected:
  RunExecutorTest() {
    for (const char* arch : {"hopper", "blackwell"}) {
      util::write_file_atomic(context_.path() / arch / "isa.md", std::string("### ISA of ") + arch);
    }
    config_.out = dir_.path() / "run";
    config_.archs = {arch::Arch::kHopper, arch::Arch::kBlackwell};
    config_.contexts = {prompt::ContextLevel::kNone, prompt::ContextLevel::kIsa};
    config_.samples = 2;
    config_.turns = 2;
    for (const char* name : {"alpha", "beta"}) {
      model::ProviderConfig model{.name = name, .kind = model::ProviderKind::kCommand};
      model.limits.concurrency = name == std::string("alpha") ? 3 : 1;
      config_.models.push_back(model);
    }
  }

  RunPlan plan(std::shared_ptr<model::Provider> provider) {
    std::vector<const task::Task*> tasks{&testing::gemm_task()};
    RunPlan plan{.trajectories = expand_grid(config_, tasks),
                 .agent = {.max_turns = config_.turns},
                 .context_dir = context_.path(),
                 .config = to_json(config_, tasks),
                 .grid = grid_of(config_, tasks)};
    for (const auto& model : config_.models) plan.models.push_back({model, provider});
    return plan;
  }

  util::TempDir dir_, context_;
  RunConfig config_;
};

TEST_F(RunExecutorTest, ExpandsTheGridInOrder) {
  auto specs = expand_grid(config_, {&testing::gemm_task()});
  ASSERT_EQ(specs.size(), 2u * 2 * 2 * 2);
  EXPECT_EQ(specs[0].id(), "alpha__gemm_n7168_k5120__hopper__none__s0");
  EXPECT_EQ(specs[1].id(), "alpha__gemm_n7168_k5120__hopper__none__s1");
  EXPECT_EQ(specs[2].id(), "alpha__gemm_n7168_k5120__hopper__isa__s0");
  EXPECT_EQ(specs.back().id(), "beta__gemm_n7168_k5120__blackwell__isa__s1");
}

TEST_F(RunExecutorTest, RunsEveryTrajectoryOnceAndResumesToNothing) {
  auto provider =
      std::make_shared<FakeProvider>([](const model::Conversation& conversation, const auto&) {
        // The isa level's document reaches the model through the system prompt.
        bool isa = conversation[0].content.find("### ISA of") != std::string::npos;
        return model::CallResult(code_reply(isa ? "PASS 1.5" : "broken"));
      });
  RunPlan run_plan = plan(provider);
  auto directory = RunDirectory::open(config_.out);
  ASSERT_TRUE(directory);
  auto summary = execute_run(run_plan, *directory, &testing::fake_evaluate, {});
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_EQ(summary->trajectories.size(), 16u);
  EXPECT_EQ(summary->finished, 16);
  EXPECT_EQ(summary->turns_run, 32);
  EXPECT_TRUE(summary->internal_errors.empty());
  EXPECT_EQ(provider->calls().size(), 32u);
  for (const auto& t : summary->trajectories) {
    ASSERT_EQ(t.turns.size(), 2u) << t.info.id;
    bool isa = t.info.context_level == prompt::ContextLevel::kIsa;
    EXPECT_EQ(t.turns[0].evaluation.verdict,
              isa ? eval::Verdict::kPassed : eval::Verdict::kCompileError);
  }
  auto run_json = directory->read_run_json();
  ASSERT_TRUE(run_json && *run_json);
  EXPECT_EQ((**run_json)["grid"], run_plan.grid);

  auto again = execute_run(run_plan, *directory, &testing::fake_evaluate, {});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->turns_run, 0);
  EXPECT_EQ(again->finished, 16);
  EXPECT_EQ(provider->calls().size(), 32u);
  EXPECT_EQ((**directory->read_run_json())["sessions"].size(), 2u);
}

TEST_F(RunExecutorTest, RefusesADifferentGridInTheSameDirectory) {
  auto provider = std::make_shared<FakeProvider>(
      [](const auto&, const auto&) { return model::CallResult(code_reply("broken")); });
  auto directory = RunDirectory::open(config_.out);
  ASSERT_TRUE(execute_run(plan(provider), *directory, &testing::fake_evaluate, {}));
  config_.samples = 3;
  auto changed = execute_run(plan(provider), *directory, &testing::fake_evaluate, {});
  ASSERT_FALSE(changed);
  EXPECT_NE(changed.error().message.find("different grid"), std::string::npos);
}

TEST_F(RunExecutorTest, AMissingContextDocumentStopsBeforeAnything) {
  config_.contexts = {prompt::ContextLevel::kGuide};
  auto provider = std::make_shared<FakeProvider>(
      [](const auto&, const auto&) { return model::CallResult(code_reply("broken")); });
  auto directory = RunDirectory::open(config_.out);
  auto summary = execute_run(plan(provider), *directory, &testing::fake_evaluate, {});
  ASSERT_FALSE(summary);
  EXPECT_NE(summary.error().message.find("guide.md"), std::string::npos);
  EXPECT_TRUE(provider->calls().empty());
  EXPECT_FALSE(std::filesystem::exists(directory->run_json_path()));
}

TEST_F(RunExecutorTest, AnInternalErrorLosesOneTrajectoryNotTheRun) {
  auto provider =
      std::make_shared<FakeProvider>([](const auto&, const model::CallContext& context) {
        return model::CallResult(
            code_reply(context.sample == 1 && context.arch == "blackwell" ? "boom" : "broken"));
      });
  EvaluateFn evaluate = [](const task::Task& task, arch::Arch arch,
                           const eval::CandidateInput& input) {
    if (input.text.find("boom") != std::string::npos)
      throw std::runtime_error("evaluator exploded");
    return testing::fake_evaluate(task, arch, input);
  };
  auto directory = RunDirectory::open(config_.out);
  auto summary = execute_run(plan(provider), *directory, evaluate, {});
  ASSERT_TRUE(summary);
  EXPECT_EQ(summary->internal_errors.size(), 4u);  // 2 models x 2 contexts
  EXPECT_EQ(summary->finished, 12);
  EXPECT_NE(summary->internal_errors[0].find("evaluator exploded"), std::string::npos);
}

TEST(RunDirectory, OneProcessAtATime) {
  util::TempDir dir;
  auto first = RunDirectory::open(dir.path());
  ASSERT_TRUE(first);
  auto second = RunDirectory::open(dir.path());
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().message.find("another ptxbench process"), std::string::npos);
}

TEST(RunDirectory, ASavedReplyIsOnlyTakenWhole) {
  util::TempDir dir;
  auto run = RunDirectory::open(dir.path());
  ASSERT_TRUE(run);
  EXPECT_FALSE(run->load_saved_reply("id", 1).has_value());
  run->save_reply("id", 1, model::Reply{.content = "abc", .latency_s = 2.5, .attempts = 3});
  auto reply = run->load_saved_reply("id", 1);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->content, "abc");
  EXPECT_EQ(reply->attempts, 3);
  EXPECT_EQ(reply->latency_s, 2.5);
  util::write_file_atomic(run->response_path("id", 1), "different");  // details no longer match
  EXPECT_FALSE(run->load_saved_reply("id", 1).has_value());
}

}  // namespace
}  // namespace ptxbench::agent
