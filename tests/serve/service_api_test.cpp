// The HTTP API end to end over loopback, with a fake evaluation function: tasks and prompts,
// submit/poll/stream, authentication, size limits, 429s and the drain's 503.
#include <gtest/gtest.h>

#include <thread>

#include "ptxbench/eval/evaluation_json.hpp"
#include "service_harness.hpp"

namespace ptxbench::serve {
namespace {
using namespace ptxbench::testing;
using nlohmann::json;

json submission(const std::string& reply) {
  return {{"task", "gemm_n7168_k5120"}, {"arch", "hopper"}, {"reply", reply}};
}

TEST(ServiceApi, HealthNeedsNoTokenEverythingElseDoes) {
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function());
  httplib::Client anonymous("127.0.0.1", harness.port());
  auto health = anonymous.Get("/v1/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(body_of(health)["status"], "ok");
  auto tasks = anonymous.Get("/v1/tasks");
  ASSERT_TRUE(tasks);
  EXPECT_EQ(tasks->status, 401);
  EXPECT_EQ(tasks->get_header_value("WWW-Authenticate"), "Bearer");
  anonymous.set_bearer_token_auth("not-a-token-of-the-service");
  EXPECT_EQ(anonymous.Get("/v1/tasks")->status, 401);
  EXPECT_EQ(harness.client(kTrainer)->Get("/v1/tasks")->status, 200);
}

TEST(ServiceApi, TasksDefinitionsAndPromptsPerContextLevel) {
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function());
  auto http = harness.client(kTrainer);
  auto tasks = body_of(http->Get("/v1/tasks"))["tasks"];
  EXPECT_EQ(tasks.size(), serve_suite().size());
  auto task = http->Get("/v1/tasks/gemm_n7168_k5120");
  ASSERT_EQ(task->status, 200);
  EXPECT_EQ(body_of(task)["definition"]["name"], "gemm_n7168_k5120");
  EXPECT_EQ(http->Get("/v1/tasks/gemm_nope")->status, 404);
  auto none = body_of(http->Get("/v1/tasks/gemm_n7168_k5120/prompt?arch=hopper&context=none"));
  auto guide = body_of(http->Get("/v1/tasks/gemm_n7168_k5120/prompt?arch=hopper&context=guide"));
  ASSERT_EQ(none["messages"].size(), 2u);
  EXPECT_GT(guide["messages"][0]["content"].get<std::string>().size(),
            none["messages"][0]["content"].get<std::string>().size());
  EXPECT_EQ(none["messages"][1], guide["messages"][1]);
  EXPECT_EQ(http->Get("/v1/tasks/gemm_n7168_k5120/prompt?arch=ampere")->status, 400);
}

TEST(ServiceApi, SubmitPollAndStreamGiveTheEvalJsonRecord) {
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function());
  auto http = harness.client(kTrainer);
  auto submitted =
      http->Post("/v1/evaluations", submission(pass_reply(1.25)).dump(), "application/json");
  ASSERT_EQ(submitted->status, 202) << submitted->body;
  const auto id = body_of(submitted)["id"].get<std::string>();
  EXPECT_EQ(submitted->get_header_value("Location"), "/v1/evaluations/" + id);

  std::string stream;
  auto streamed =
      http->Get("/v1/evaluations/" + id + "/stream", [&](const char* data, std::size_t size) {
        stream.append(data, size);
        return true;
      });
  ASSERT_TRUE(streamed);
  EXPECT_EQ(streamed->get_header_value("Content-Type"), "text/event-stream");
  const auto at = stream.find("event: record\ndata: ");
  ASSERT_NE(at, std::string::npos) << stream;
  const auto line = stream.substr(at + 20, stream.find('\n', at + 20) - at - 20);
  auto record = eval::evaluation_from_json(json::parse(line));
  ASSERT_TRUE(record.has_value()) << record.error().message;
  EXPECT_EQ(record->verdict, eval::Verdict::kPassed);
  EXPECT_DOUBLE_EQ(*record->headline_speedup(), 1.25);

  auto polled = body_of(http->Get("/v1/evaluations/" + id));
  EXPECT_EQ(polled["state"], "done");
  EXPECT_EQ(polled["record"], json::parse(line));
  // Another client cannot see it.
  EXPECT_EQ(harness.client(kAgent)->Get("/v1/evaluations/" + id)->status, 404);
}

TEST(ServiceApi, BadRequestsSayWhichFieldIsWrong) {
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function());
  auto http = harness.client(kTrainer);
  auto post = [&](const json& body) {
    auto result = http->Post("/v1/evaluations", body.dump(), "application/json");
    return std::pair{result->status, body_of(result)["error"].get<std::string>()};
  };
  EXPECT_EQ(post({{"task", "gemm_n7168_k5120"}, {"arch", "hopper"}}),
            (std::pair{400, std::string("code, reply: give exactly one of them")}));
  EXPECT_EQ(post({{"task", "gemm_n7168_k5120"}, {"arch", "volta"}, {"code", "x"}}),
            (std::pair{400, std::string("arch: volta: expected hopper or blackwell")}));
  EXPECT_EQ(post({{"task", "gemm_nope"}, {"arch", "hopper"}, {"code", "x"}}),
            (std::pair{400, std::string("task: no task named gemm_nope")}));
  EXPECT_EQ(post({{"task", "gemm_n7168_k5120"}, {"arch", "hopper"}, {"code", "x"}, {"x", 1}}),
            (std::pair{400, std::string("x: unknown field")}));
  auto garbage = http->Post("/v1/evaluations", "{", "application/json");
  EXPECT_EQ(garbage->status, 400);
}

TEST(ServiceApi, RequestsOverTheSizeLimitGet413) {
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function(), {.max_body_bytes = 4096});
  auto http = harness.client(kTrainer);
  auto big =
      http->Post("/v1/evaluations", submission(std::string(8192, 'x')).dump(), "application/json");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  EXPECT_EQ(http->Post("/v1/evaluations", submission("small").dump(), "application/json")->status,
            202);
}

TEST(ServiceApi, PerClientLimitAndFullQueueGet429) {
  GatedEvaluator evaluator(false);
  ServiceHarness harness(evaluator.function(), {.limits = {.capacity = 3, .workers = 1}});
  auto agent = harness.client(kAgent);  // at most 2 in flight
  auto trainer = harness.client(kTrainer);
  auto submit = [](httplib::Client& http, int tag) {
    return http.Post("/v1/evaluations", submission(pass_reply(1, tag)).dump(), "application/json")
        ->status;
  };
  EXPECT_EQ(submit(*agent, 1), 202);
  ASSERT_TRUE(evaluator.wait_started(1));
  EXPECT_EQ(submit(*agent, 2), 202);
  EXPECT_EQ(submit(*agent, 3), 429);  // the agent's limit
  EXPECT_EQ(submit(*trainer, 4), 202);
  EXPECT_EQ(submit(*trainer, 5), 202);
  EXPECT_EQ(submit(*trainer, 6), 429);  // the queue holds 3
  auto refused =
      trainer->Post("/v1/evaluations", submission(pass_reply(1, 7)).dump(), "application/json");
  EXPECT_EQ(refused->get_header_value("Retry-After"), "5");
  evaluator.open();
}

TEST(ServiceApi, DrainingRefusesNewWorkWith503) {
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function());
  auto http = harness.client(kTrainer);
  harness.service().queue().drain();
  auto late = http->Post("/v1/evaluations", submission("x").dump(), "application/json");
  ASSERT_TRUE(late);
  EXPECT_EQ(late->status, 503);
  EXPECT_EQ(late->get_header_value("Retry-After"), "30");
  EXPECT_EQ(body_of(http->Get("/v1/health"))["status"], "draining");
}

// A drain lets the evaluation under way finish: a client streaming it gets its record, while the
// stream of one still queued ends with `event: draining`.
TEST(ServiceApi, ADrainFinishesTheRunningEvaluationForItsStream) {
  GatedEvaluator evaluator(false);
  ServiceHarness harness(evaluator.function(), {.limits = {.capacity = 4, .workers = 1}});
  auto http = harness.client(kTrainer);
  const auto running = body_of(http->Post("/v1/evaluations", submission(pass_reply(2, 1)).dump(),
                                          "application/json"))["id"]
                           .get<std::string>();
  const auto queued = body_of(http->Post("/v1/evaluations", submission(pass_reply(2, 2)).dump(),
                                         "application/json"))["id"]
                          .get<std::string>();
  ASSERT_TRUE(evaluator.wait_started(1));
  std::string running_events, queued_events;
  std::thread streams([&] {
    auto client = harness.client(kTrainer);
    running_events = client->Get("/v1/evaluations/" + running + "/stream")->body;
    queued_events = client->Get("/v1/evaluations/" + queued + "/stream")->body;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the first stream is open
  EXPECT_FALSE(harness.service().queue().drain_for(std::chrono::milliseconds(100)));
  evaluator.open();
  EXPECT_TRUE(harness.service().queue().drain_for(std::chrono::seconds(10)));
  streams.join();
  EXPECT_NE(running_events.find("event: record"), std::string::npos) << running_events;
  EXPECT_NE(queued_events.find("event: draining"), std::string::npos) << queued_events;
  EXPECT_EQ(evaluator.evaluated().size(), 1u);
}

}  // namespace
}  // namespace ptxbench::serve
