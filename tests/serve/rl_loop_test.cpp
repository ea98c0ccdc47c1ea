// The RL environment over HTTP, driven by a replay model the way a trainer drives it: reset,
// then a reply per step until done; rewards per reward.hpp, feedback as `ptxbench run` gives it.
#include <gtest/gtest.h>

#include "ptxbench/model/replay_provider.hpp"
#include "service_harness.hpp"

namespace ptxbench::serve {
namespace {
using namespace ptxbench::testing;
using nlohmann::json;

httplib::Result post(httplib::Client& http, const std::string& path, const json& body) {
  return http.Post(path.c_str(), body.dump(), "application/json");
}

TEST(RlLoop, AReplayModelPlaysAnEpisodeToTheTargetSpeedup) {
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function());
  auto http = harness.client(kTrainer);
  auto book = model::load_replay_book(std::string(PTXBENCH_TEST_DATA_DIR) + "/replay");
  ASSERT_TRUE(book.has_value()) << book.error().message;
  model::ReplayProvider provider(std::move(*book));

  auto reset = post(*http, "/v1/env/reset",
                    {{"task", "gemm_n7168_k5120"},
                     {"arch", "hopper"},
                     {"context", "isa"},
                     {"seed", 7},
                     {"max_turns", 8},
                     {"target_speedup", 2.2}});
  ASSERT_EQ(reset->status, 200) << reset->body;
  const auto episode = body_of(reset);  // named: a loop over a temporary's member would dangle
  const auto session = episode["session"].get<std::string>();
  model::Conversation conversation;
  for (const auto& m : episode["messages"]) conversation.push_back({m["role"], m["content"]});
  ASSERT_EQ(conversation.size(), 2u);
  EXPECT_EQ(conversation[0].role, "system");

  std::vector<json> rewards;
  std::vector<std::string> verdicts;
  bool done = false;
  for (int turn = 1; !done; ++turn) {
    ASSERT_LE(turn, 4) << "the episode should have ended at the target";
    auto reply = provider.complete(
        conversation,
        {.task = "gemm_n7168_k5120", .arch = "hopper", .context_level = "isa", .turn = turn});
    ASSERT_TRUE(reply.ok());
    conversation.push_back({"assistant", reply.reply().content});
    auto step =
        post(*http, "/v1/env/step", {{"session", session}, {"reply", reply.reply().content}});
    ASSERT_EQ(step->status, 200) << step->body;
    const auto result = body_of(step);
    EXPECT_EQ(result["turn"], turn);
    EXPECT_FALSE(result["feedback"].get<std::string>().empty());
    conversation.push_back({"user", result["feedback"]});
    rewards.push_back(result["reward"]);
    verdicts.push_back(result["record"]["verdict"]);
    done = result["done"];
  }
  EXPECT_EQ(verdicts, (std::vector<std::string>{"NO_CODE", "COMPILE_ERROR", "PASSED", "PASSED"}));
  EXPECT_DOUBLE_EQ(rewards[0].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(rewards[1].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(rewards[2].get<double>(), 0.7 + 0.3 * 2.0);
  EXPECT_DOUBLE_EQ(rewards[3].get<double>(), 0.7 + 0.3 * 2.5);

  auto after = post(*http, "/v1/env/step", {{"session", session}, {"reply", "more"}});
  EXPECT_EQ(after->status, 409);
  EXPECT_EQ(
      post(*harness.client(kAgent), "/v1/env/step", {{"session", session}, {"reply", "x"}})->status,
      404);
}

TEST(RlLoop, TheSeedPicksTheTaskWhenNoneIsGiven) {
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function());
  auto http = harness.client(kTrainer);
  auto task_of = [&](int seed) {
    return body_of(post(*http, "/v1/env/reset", {{"arch", "hopper"}, {"seed", seed}}))["task"];
  };
  EXPECT_EQ(task_of(3), task_of(3));
  std::set<std::string> seen;
  for (int seed = 0; seed < 8; ++seed) seen.insert(task_of(seed));
  EXPECT_GT(seen.size(), 1u);
  EXPECT_EQ(post(*http, "/v1/env/reset", {{"arch", "hopper"}, {"split", "nope"}})->status, 400);
}

TEST(RlLoop, TheEpisodeEndsAtTheTurnLimitAndTheRewardConfigIsPublished) {
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function(), {.reward = {.speedup = 1.0}});
  auto http = harness.client(kTrainer);
  EXPECT_EQ(body_of(http->Get("/v1/env/reward"))["speedup"], 1.0);
  auto reset = body_of(post(*http, "/v1/env/reset",
                            {{"task", "gemm_n7168_k5120"}, {"arch", "hopper"}, {"max_turns", 1}}));
  auto step = body_of(
      post(*http, "/v1/env/step", {{"session", reset["session"]}, {"reply", pass_reply(1.5)}}));
  EXPECT_TRUE(step["done"]);
  EXPECT_DOUBLE_EQ(step["reward"].get<double>(), 0.7 + 1.5);
}

TEST(RlLoop, AnEpisodeMayChooseItsRewardFunctionAndGetsThePartsBesideIt) {
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function());
  auto http = harness.client(kTrainer);
  auto reset = post(*http, "/v1/env/reset",
                    {{"task", "gemm_n7168_k5120"},
                     {"arch", "hopper"},
                     {"reward", {{"kind", "pass_at_speedup"}, {"threshold", 1.2}}}});
  ASSERT_EQ(reset->status, 200) << reset->body;
  const auto session = body_of(reset)["session"];
  auto step =
      body_of(post(*http, "/v1/env/step", {{"session", session}, {"reply", pass_reply(1.5)}}));
  EXPECT_DOUBLE_EQ(step["reward"].get<double>(), 1.0);
  EXPECT_EQ(step["reward_parts"]["verdict"], "PASSED");
  EXPECT_DOUBLE_EQ(step["reward_parts"]["speedup"].get<double>(), 1.5);
  auto bad = post(*http, "/v1/env/reset",
                  {{"arch", "hopper"}, {"reward", {{"kind", "tiered"}, {"threshold", 1}}}});
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(body_of(bad)["error"].get<std::string>().rfind("reward: threshold: unknown key", 0),
            0u);
}

}  // namespace
}  // namespace ptxbench::serve
