// The whole turn loop against a loopback OpenAI-compatible server with the real libcurl client
// and the real evaluator: a reply without code becomes a NO_CODE turn, the feedback goes back
// to the model, and the next turn goes on.
#include <gtest/gtest.h>

#include "../model/loopback_server.hpp"
#include "ptxbench/agent/trajectory_runner.hpp"
#include "ptxbench/eval/engine.hpp"
#include "ptxbench/model/provider_factory.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::agent {
namespace {

using Json = nlohmann::json;

TEST(HttpLoop, AReplyWithoutCodeIsANoCodeTurn) {
  testing::LoopbackServer server([](int, const httplib::Request&, httplib::Response& response) {
    response.set_content(
        R"({"choices":[{"finish_reason":"stop","message":{"content":"Sorry, no kernel today."}}],
                            "usage":{"prompt_tokens":9,"completion_tokens":5}})",
        "application/json");
  });
  auto config = model::provider_config_from_json(Json{{"name", "loopback"},
                                                      {"provider", "openai"},
                                                      {"base_url", server.url() + "/v1"},
                                                      {"api_key_env", ""}},
                                                 "");
  ASSERT_TRUE(config);
  auto provider = model::make_provider(*config);
  ASSERT_TRUE(provider);
  auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite);
  util::TempDir dir;
  auto run = RunDirectory::open(dir.path());
  ASSERT_TRUE(run);
  auto engine =
      eval::open_engine({.compile_timeout = std::chrono::seconds(60), .parallel = 1, .gpu = false});
  ASSERT_TRUE(engine) << engine.error().message;
  TrajectoryRunner runner(*run, **provider, (*engine)->function(), AgentOptions{.max_turns = 2});
  TrajectorySpec spec{.model = "loopback",
                      .provider = "openai",
                      .task = task::find_task(*suite, "gemm_n7168_k5120"),
                      .arch = arch::Arch::kBlackwell};
  Trajectory t = runner.run(spec, {.system = "S", .task = "T"}, std::nullopt);

  EXPECT_EQ(t.info.status, TrajectoryStatus::kFinished);
  ASSERT_EQ(t.turns.size(), 2u);
  EXPECT_EQ(t.turns[0].evaluation.verdict, eval::Verdict::kNoCode);
  EXPECT_EQ(t.turns[0].usage.completion_tokens, 5);
  EXPECT_NE(t.turns[0].feedback.find("NO_CODE"), std::string::npos);
  auto seen = server.seen();
  ASSERT_EQ(seen.size(), 2u);
  Json second = Json::parse(seen[1].body);
  ASSERT_EQ(second["messages"].size(), 4u);
  EXPECT_EQ(second["messages"][2]["content"], "Sorry, no kernel today.");
  EXPECT_EQ(second["messages"][3]["content"], t.turns[0].feedback);
}

}  // namespace
}  // namespace ptxbench::agent
