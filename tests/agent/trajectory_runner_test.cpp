#include "ptxbench/agent/trajectory_runner.hpp"

#include <gtest/gtest.h>

#include "fakes.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::agent {
namespace {

using testing::code_reply;
using testing::FakeProvider;

class TrajectoryRunnerTest : public ::testing::Test {
 protected:
  util::TempDir dir_;
  RunDirectory run_ = std::move(RunDirectory::open(dir_.path() / "run").value());
  TrajectorySpec spec_{.model = "fake",
                       .provider = "command",
                       .task = &testing::gemm_task(),
                       .arch = arch::Arch::kHopper,
                       .context = prompt::ContextLevel::kNone,
                       .sample = 0};
  std::vector<TurnEvent> events_;

  Trajectory run(FakeProvider& provider, AgentOptions options,
                 std::optional<Trajectory> existing = std::nullopt) {
    TrajectoryRunner runner(run_, provider, &testing::fake_evaluate, options,
                            [this](const TurnEvent& event) { events_.push_back(event); });
    return runner.run(spec_, testing::kPrompt, std::move(existing));
  }
  Trajectory saved() { return std::move(**run_.load_trajectory(spec_.id())); }
};

TEST_F(TrajectoryRunnerTest, RunsAllTurnsAndRecordsEach) {
  FakeProvider provider([](const auto&, const model::CallContext& context) {
    return model::CallResult(code_reply(context.turn == 2 ? "broken" : "PASS 0.5"));
  });
  Trajectory t = run(provider, {.max_turns = 3});
  EXPECT_EQ(t.info.status, TrajectoryStatus::kFinished);
  EXPECT_EQ(t.info.exit_status, "max_turns");
  ASSERT_EQ(t.turns.size(), 3u);
  EXPECT_EQ(t.turns[1].evaluation.verdict, eval::Verdict::kCompileError);
  EXPECT_EQ(t.messages.size(), 2u + 2 * 3);
  EXPECT_EQ(t.messages[0].content, "SYSTEM");
  EXPECT_EQ(t.messages[1].content, "TASK");
  EXPECT_EQ(t.messages[4].role, "assistant");
  EXPECT_EQ(t.messages[4].turn, 2);
  EXPECT_EQ(t.messages[5].content, t.turns[1].feedback);
  EXPECT_NE(t.turns[1].feedback.find("COMPILE_ERROR"), std::string::npos);
  EXPECT_EQ(t.turns[0].usage.prompt_tokens, 100);
  EXPECT_EQ(t.turns[0].latency_s, 0.25);
  EXPECT_TRUE(t.turns[0].code_hash.has_value());
  // The model saw the growing conversation: 2, 4, 6 messages.
  auto calls = provider.calls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].messages, 2u);
  EXPECT_EQ(calls[2].messages, 6u);
  EXPECT_EQ(calls[2].context.turn, 3);
  EXPECT_EQ(calls[2].context.trajectory_id, "fake__gemm_n7168_k5120__hopper__none__s0");
  // Saved as returned, with the raw replies beside it.
  EXPECT_EQ(to_json(saved()), to_json(t));
  EXPECT_TRUE(std::filesystem::exists(run_.response_path(t.info.id, 3)));
  EXPECT_EQ(events_.size(), 3u);
}

TEST_F(TrajectoryRunnerTest, NoCodeIsATurnNotAnEnd) {
  FakeProvider provider([](const auto&, const auto&) {
    return model::CallResult(model::Reply{.content = "I cannot help with that."});
  });
  Trajectory t = run(provider, {.max_turns = 2});
  ASSERT_EQ(t.turns.size(), 2u);
  EXPECT_EQ(t.turns[0].evaluation.verdict, eval::Verdict::kNoCode);
  EXPECT_FALSE(t.turns[0].code_hash.has_value());
  EXPECT_EQ(t.info.status, TrajectoryStatus::kFinished);
}

TEST_F(TrajectoryRunnerTest, StopsAtTheTargetSpeedup) {
  FakeProvider provider([](const auto&, const model::CallContext& context) {
    return model::CallResult(code_reply(context.turn == 1 ? "PASS 0.8" : "PASS 1.2"));
  });
  Trajectory t = run(provider, {.max_turns = 8, .target_speedup = 1.0});
  EXPECT_EQ(t.turns.size(), 2u);
  EXPECT_EQ(t.info.exit_status, "target_speedup");
}

TEST_F(TrajectoryRunnerTest, ProviderFailureEndsAsFailedAndAResumeRetries) {
  std::atomic<bool> down{true};
  FakeProvider provider([&down](const auto&, const model::CallContext& context) {
    if (context.turn == 2 && down) {
      return model::CallResult(
          model::ProviderError{.message = "HTTP 503", .retryable = true, .attempts = 6});
    }
    return model::CallResult(code_reply("PASS 0.5"));
  });
  Trajectory failed = run(provider, {.max_turns = 3});
  EXPECT_EQ(failed.info.status, TrajectoryStatus::kFailed);
  EXPECT_EQ(failed.info.exit_status, "provider_error");
  EXPECT_NE(failed.info.error.find("HTTP 503"), std::string::npos);
  EXPECT_EQ(failed.turns.size(), 1u) << "turns done so far are kept";
  EXPECT_EQ(saved().info.status, TrajectoryStatus::kFailed);

  down = false;
  Trajectory resumed = run(provider, {.max_turns = 3}, saved());
  EXPECT_EQ(resumed.info.status, TrajectoryStatus::kFinished);
  ASSERT_EQ(resumed.turns.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(resumed.turns[static_cast<std::size_t>(i)].turn, i + 1);
  EXPECT_TRUE(resumed.info.error.empty());
}

TEST_F(TrajectoryRunnerTest, ReplayExhaustedFinishesCleanly) {
  FakeProvider provider([](const auto&, const model::CallContext& context) {
    if (context.turn > 1)
      return model::CallResult(model::ProviderError{.message = "no more", .exhausted = true});
    return model::CallResult(code_reply("PASS 0.5"));
  });
  Trajectory t = run(provider, {.max_turns = 8});
  EXPECT_EQ(t.info.status, TrajectoryStatus::kFinished);
  EXPECT_EQ(t.info.exit_status, "replay_exhausted");
  EXPECT_EQ(t.turns.size(), 1u);
}

TEST_F(TrajectoryRunnerTest, ResumeContinuesAfterTheLastCompleteTurn) {
  FakeProvider first(
      [](const auto&, const auto&) { return model::CallResult(code_reply("broken")); });
  run(first, {.max_turns = 2});
  Trajectory partial = saved();
  ASSERT_EQ(partial.turns.size(), 2u);
  // A rerun with more turns allowed would continue; with the same limit nothing is asked.
  FakeProvider second(
      [](const auto&, const auto&) { return model::CallResult(code_reply("PASS 0.7")); });
  Trajectory same = run(second, {.max_turns = 2}, partial);
  EXPECT_TRUE(second.calls().empty());
  EXPECT_EQ(same.turns.size(), 2u);

  partial.info.status = TrajectoryStatus::kRunning;  // as a run killed after turn 2 leaves it
  partial.info.exit_status.clear();
  Trajectory longer = run(second, {.max_turns = 4}, partial);
  ASSERT_EQ(longer.turns.size(), 4u);
  EXPECT_EQ(longer.turns[2].turn, 3);
  EXPECT_EQ(second.calls().front().messages, 2u + 2 * 2)
      << "the conversation up to turn 2 is re-sent";
}

TEST_F(TrajectoryRunnerTest, AReplySavedBeforeAKillIsEvaluatedNotRequestedAgain) {
  FakeProvider provider(
      [](const auto&, const auto&) { return model::CallResult(code_reply("PASS 0.5")); });
  run(provider, {.max_turns = 1});
  Trajectory one = saved();
  // Simulate: turn 2's reply arrived and was saved, then the process died before recording it.
  model::Reply saved_reply = code_reply("PASS 0.9");
  saved_reply.reasoning_content = "kept";
  run_.save_reply(one.info.id, 2, saved_reply);
  one.info.status = TrajectoryStatus::kRunning;
  FakeProvider never([](const auto&, const auto&) {
    return model::CallResult(model::ProviderError{.message = "must not be called"});
  });
  Trajectory t = run(never, {.max_turns = 2}, one);
  EXPECT_TRUE(never.calls().empty());
  ASSERT_EQ(t.turns.size(), 2u);
  EXPECT_EQ(t.turns[1].evaluation.headline_speedup(), 0.9);
  EXPECT_EQ(t.messages[4].reasoning_content, "kept");
  EXPECT_TRUE(events_.back().reused_saved_reply);
}

TEST_F(TrajectoryRunnerTest, LastKHistoryLimitsTheRequest) {
  FakeProvider provider(
      [](const auto&, const auto&) { return model::CallResult(code_reply("broken")); });
  run(provider, {.max_turns = 4, .history = {.last_k = 1}});
  auto calls = provider.calls();
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0].messages, 2u);
  EXPECT_EQ(calls[3].messages, 4u);
  EXPECT_EQ(saved().messages.size(), 10u) << "the file keeps the whole conversation";
}

}  // namespace
}  // namespace ptxbench::agent
