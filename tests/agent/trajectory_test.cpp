#include "ptxbench/agent/trajectory.hpp"

#include <gtest/gtest.h>

#include "sample_evaluations.hpp"

namespace ptxbench::agent {
namespace {

using Json = nlohmann::json;

Trajectory sample() {
  Trajectory t;
  t.info = {.id = "claude-x__gemm_n7168_k5120__hopper__isa__s0",
            .model = "claude-x",
            .provider = "anthropic",
            .task = "gemm_n7168_k5120",
            .arch = arch::Arch::kHopper,
            .context_level = prompt::ContextLevel::kIsa,
            .sample = 0,
            .split = "train",
            .max_turns = 8,
            .status = TrajectoryStatus::kRunning,
            .ptxbench_version = "0.1.0",
            .created_at = "2026-11-29T15:00:00Z",
            .updated_at = "2026-11-29T15:01:00Z"};
  t.messages = {{.role = "system", .content = "sys"},
                {.role = "user", .content = "task"},
                {.role = "assistant",
                 .content = "reply",
                 .reasoning_content = "why",
                 .turn = 1,
                 .extra = {{"finish_reason", "stop"}}},
                {.role = "user", .content = "feedback", .turn = 1}};
  t.turns = {{.turn = 1,
              .usage = {.prompt_tokens = 1200, .completion_tokens = 3000, .reasoning_tokens = 800},
              .latency_s = 41.2,
              .code_hash = "0123456789abcdef",
              .evaluation = testing::not_run(),
              .feedback = "feedback"}};
  return t;
}

TEST(TrajectoryId, JoinsTheCellAndSanitises) {
  EXPECT_EQ(trajectory_id("claude-x", "gemm_n7168_k5120", arch::Arch::kHopper,
                          prompt::ContextLevel::kIsa, 0),
            "claude-x__gemm_n7168_k5120__hopper__isa__s0");
  EXPECT_EQ(trajectory_id("org/Model 7B:v2", "t", arch::Arch::kBlackwell,
                          prompt::ContextLevel::kNone, 12),
            "org-Model-7B-v2__t__blackwell__none__s12");
}

TEST(TrajectoryJson, HasTheDocumentedLayout) {
  Json json = to_json(sample());
  EXPECT_EQ(json["trajectory_format"], "mini-swe-agent-1");
  EXPECT_EQ(json["ptxbench_format"], 1);
  for (const char* key :
       {"id", "model", "provider", "task", "arch", "context_level", "sample", "split", "max_turns",
        "status", "exit_status", "ptxbench_version", "created_at", "updated_at"}) {
    EXPECT_TRUE(json["info"].contains(key)) << key;
  }
  EXPECT_EQ(json["info"]["arch"], "hopper");
  EXPECT_EQ(json["info"]["context_level"], "isa");
  EXPECT_EQ(json["info"]["status"], "running");
  EXPECT_TRUE(json["info"]["exit_status"].is_null());
  EXPECT_EQ(json["messages"][2]["reasoning_content"], "why");
  EXPECT_EQ(json["messages"][2]["extra"]["turn"], 1);
  EXPECT_FALSE(json["messages"][0].contains("extra"));
  EXPECT_FALSE(json["messages"][0].contains("reasoning_content"));
  const Json& turn = json["turns"][0];
  EXPECT_EQ(turn["usage"]["reasoning_tokens"], 800);
  EXPECT_EQ(turn["latency_s"], 41.2);
  EXPECT_TRUE(turn["cost_usd"].is_null());
  EXPECT_EQ(turn["code_hash"], "0123456789abcdef");
  EXPECT_EQ(turn["evaluation"]["verdict"], "NOT_RUN");
  EXPECT_EQ(turn["feedback"], "feedback");
}

TEST(TrajectoryJson, RoundTrips) {
  Trajectory original = sample();
  original.info.status = TrajectoryStatus::kFailed;
  original.info.exit_status = "provider_error";
  original.info.error = "HTTP 401";
  auto back = trajectory_from_json(Json::parse(to_json(original).dump()));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(to_json(*back), to_json(original));
  EXPECT_EQ(back->turns[0].evaluation.verdict, eval::Verdict::kNotRun);
  EXPECT_EQ(back->info.error, "HTTP 401");
}

// The turn is a typed field of a message; on disk it stays the "turn" member of "extra", so a
// file written before reads the same and a file written now is byte for byte the same.
TEST(TrajectoryJson, TheTurnOfAMessageIsTypedAndKeepsItsPlaceOnDisk) {
  const std::string text = to_json(sample()).dump();
  auto back = trajectory_from_json(Json::parse(text));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_FALSE(back->messages[1].turn.has_value());  // the task prompt
  EXPECT_EQ(back->messages[2].turn, 1);
  EXPECT_EQ(back->messages[3].turn, 1);
  EXPECT_FALSE(back->messages[2].extra.contains("turn"));  // not twice
  EXPECT_EQ(back->messages[2].extra["finish_reason"], "stop");
  EXPECT_EQ(to_json(*back).dump(), text);

  Json old = to_json(sample());
  old["messages"][3]["extra"] = {{"turn", 7}};  // as every earlier file has it
  back = trajectory_from_json(old);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->messages[3].turn, 7);
  EXPECT_TRUE(back->messages[3].extra.empty());

  old["messages"][3]["extra"] = {{"turn", "seven"}};
  EXPECT_FALSE(trajectory_from_json(old));
  old["messages"][3]["extra"] = {{"turn", 4294967297LL}};
  EXPECT_FALSE(trajectory_from_json(old));
}

TEST(TrajectoryJson, BadFilesAreErrorsNotExceptions) {
  EXPECT_FALSE(trajectory_from_json(Json::array()));
  EXPECT_FALSE(trajectory_from_json(Json{{"ptxbench_format", 99}}));
  Json broken = to_json(sample());
  broken["info"]["arch"] = "ampere";
  EXPECT_FALSE(trajectory_from_json(broken));
  broken = to_json(sample());
  broken["turns"][0].erase("evaluation");
  EXPECT_FALSE(trajectory_from_json(broken));
}

TEST(Timestamp, IsIsoUtc) {
  std::string now = utc_timestamp();
  ASSERT_EQ(now.size(), 20u);
  EXPECT_EQ(now[10], 'T');
  EXPECT_EQ(now.back(), 'Z');
}

}  // namespace
}  // namespace ptxbench::agent
