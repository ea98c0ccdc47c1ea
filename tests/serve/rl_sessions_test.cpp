// RL sessions that hold a training run: kept in the journal across a restart (with the
// evaluation of a step under way), expired when idle, closed by a route, bounded per client and
// in all; finished evaluations kept for a count or a time. And a load test: 1,000 sessions open
// at once through a restart lose nothing and evaluate nothing twice.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "service_harness.hpp"

namespace ptxbench::serve {
namespace {
namespace fs = std::filesystem;
using namespace ptxbench::testing;
using nlohmann::json;

httplib::Result post(httplib::Client& http, const std::string& path, const json& body) {
  return http.Post(path.c_str(), body.dump(), "application/json");
}

json reset_body(int max_turns = 8) {
  return {{"arch", "hopper"}, {"task", "gemm_n7168_k5120"}, {"max_turns", max_turns}};
}

std::string open_session(httplib::Client& http, int max_turns = 8) {
  auto reset = post(http, "/v1/env/reset", reset_body(max_turns));
  if (!reset || reset->status != 200) return "";
  return body_of(reset)["session"].get<std::string>();
}

std::size_t json_files(const fs::path& dir) {
  std::size_t count = 0;
  for (const auto& entry : fs::directory_iterator(dir))
    count += entry.path().extension() == ".json";
  return count;
}

TEST(RlSessions, SurviveARestart) {
  util::TempDir dir;
  const auto journal = dir.path() / "journal";
  GatedEvaluator evaluator;
  std::string session;
  {
    ServiceHarness harness(evaluator.function(), {}, journal);
    auto http = harness.client(kTrainer);
    session = open_session(*http);
    ASSERT_FALSE(session.empty());
    auto step = post(*http, "/v1/env/step", {{"session", session}, {"reply", pass_reply(1.1, 1)}});
    ASSERT_EQ(step->status, 200) << step->body;
    EXPECT_EQ(body_of(step)["turn"], 1);
  }
  EXPECT_EQ(json_files(journal / "sessions"), 1u);
  ServiceHarness restarted(evaluator.function(), {}, journal);
  auto http = restarted.client(kTrainer);
  auto step = post(*http, "/v1/env/step", {{"session", session}, {"reply", pass_reply(1.2, 2)}});
  ASSERT_EQ(step->status, 200) << step->body;
  EXPECT_EQ(body_of(step)["turn"], 2);
  // Still the trainer's alone.
  auto other = post(*restarted.client(kAgent), "/v1/env/step",
                    {{"session", session}, {"reply", pass_reply(1.2, 3)}});
  EXPECT_EQ(other->status, 404);
}

// A step whose evaluation was still queued when the service drained: the same reply sent to the
// restarted service gets that evaluation's result; it is evaluated once, and another reply for
// the same turn is refused.
TEST(RlSessions, AStepCutShortByARestartIsEvaluatedOnce) {
  util::TempDir dir;
  const auto journal = dir.path() / "journal";
  const auto reply = pass_reply(1.5, 42);
  std::string session;
  GatedEvaluator first(false);
  {
    ServiceHarness harness(first.function(), {.limits = {.capacity = 8, .workers = 1}}, journal);
    auto http = harness.client(kTrainer);
    session = open_session(*http);
    ASSERT_FALSE(session.empty());
    // The one worker is busy with another evaluation, so the step's stays queued.
    ASSERT_EQ(post(*http, "/v1/evaluations",
                   {{"task", "gemm_n7168_k5120"}, {"arch", "hopper"}, {"reply", "busy"}})
                  ->status,
              202);
    ASSERT_TRUE(first.wait_started(1));
    int step_status = 0;
    std::thread stepper([&] {
      auto client = harness.client(kTrainer);
      step_status = post(*client, "/v1/env/step", {{"session", session}, {"reply", reply}})->status;
    });
    for (int i = 0; i < 100 && harness.service().queue().counts().queued == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_EQ(harness.service().queue().counts().queued, 1u);
    EXPECT_FALSE(harness.service().queue().drain_for(std::chrono::milliseconds(50)));
    stepper.join();
    EXPECT_EQ(step_status, 503);
    first.open();
  }
  EXPECT_EQ(first.evaluated().count(reply), 0u);
  GatedEvaluator second;
  ServiceHarness restarted(second.function(), {}, journal);
  auto http = restarted.client(kTrainer);
  auto other = post(*http, "/v1/env/step", {{"session", session}, {"reply", pass_reply(9, 9)}});
  EXPECT_EQ(other->status, 409) << other->body;
  auto step = post(*http, "/v1/env/step", {{"session", session}, {"reply", reply}});
  ASSERT_EQ(step->status, 200) << step->body;
  EXPECT_EQ(body_of(step)["turn"], 1);
  EXPECT_EQ(second.evaluated().at(reply), 1);
}

TEST(RlSessions, IdleSessionsExpire) {
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function(),
                         {.sessions = {.idle_timeout = std::chrono::milliseconds(300)}});
  auto http = harness.client(kTrainer);
  const auto session = open_session(*http);
  ASSERT_FALSE(session.empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  auto step = post(*http, "/v1/env/step", {{"session", session}, {"reply", pass_reply(1)}});
  EXPECT_EQ(step->status, 404) << step->body;
  EXPECT_NE(body_of(step)["error"].get<std::string>().find("expired"), std::string::npos);
}

TEST(RlSessions, ARouteClosesASession) {
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function());
  auto http = harness.client(kTrainer);
  const auto session = open_session(*http);
  ASSERT_FALSE(session.empty());
  EXPECT_EQ(harness.client(kAgent)->Delete("/v1/env/sessions/" + session)->status, 404);
  EXPECT_EQ(http->Delete("/v1/env/sessions/" + session)->status, 204);
  EXPECT_EQ(http->Delete("/v1/env/sessions/" + session)->status, 404);
  auto step = post(*http, "/v1/env/step", {{"session", session}, {"reply", pass_reply(1)}});
  EXPECT_EQ(step->status, 404);
}

// Per client: 429 (an ended episode's session gives way first); in all: 503.
TEST(RlSessions, SessionsAreBoundedPerClientAndInAll) {
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function(), {.sessions = {.per_client = 2, .total = 3}});
  auto trainer = harness.client(kTrainer);
  auto agent = harness.client(kAgent);
  const auto ended = open_session(*trainer, 1);
  ASSERT_FALSE(open_session(*trainer).empty());
  auto step = post(*trainer, "/v1/env/step", {{"session", ended}, {"reply", pass_reply(1)}});
  ASSERT_TRUE(body_of(step)["done"].get<bool>());
  // The ended episode's session gives way; then the trainer is at its limit.
  ASSERT_FALSE(open_session(*trainer).empty());
  auto refused = post(*trainer, "/v1/env/reset", reset_body());
  EXPECT_EQ(refused->status, 429) << refused->body;
  EXPECT_EQ(refused->get_header_value("Retry-After"), "5");
  ASSERT_FALSE(open_session(*agent).empty());
  auto full = post(*agent, "/v1/env/reset", reset_body());
  EXPECT_EQ(full->status, 503) << full->body;
  EXPECT_NE(body_of(full)["error"].get<std::string>().find("limit of 3 sessions"),
            std::string::npos);
}

std::string submit_and_wait(httplib::Client& http, int tag) {
  auto submitted =
      post(http, "/v1/evaluations",
           {{"task", "gemm_n7168_k5120"}, {"arch", "hopper"}, {"reply", pass_reply(1, tag)}});
  const auto id = body_of(submitted)["id"].get<std::string>();
  http.Get("/v1/evaluations/" + id + "/stream");
  return id;
}

TEST(RlSessions, FinishedEvaluationsAreKeptForACountThenRemoved) {
  util::TempDir dir;
  const auto journal = dir.path() / "journal";
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function(), {.limits = {.keep_done_count = 2}}, journal);
  auto http = harness.client(kTrainer);
  const auto oldest = submit_and_wait(*http, 1);
  const auto middle = submit_and_wait(*http, 2);
  const auto newest = submit_and_wait(*http, 3);
  EXPECT_EQ(http->Get("/v1/evaluations/" + oldest)->status, 404);
  EXPECT_EQ(http->Get("/v1/evaluations/" + middle)->status, 200);
  EXPECT_EQ(http->Get("/v1/evaluations/" + newest)->status, 200);
  EXPECT_EQ(json_files(journal / "done"), 2u);
}

TEST(RlSessions, FinishedEvaluationsAreKeptForATimeThenRemoved) {
  util::TempDir dir;
  const auto journal = dir.path() / "journal";
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function(),
                         {.limits = {.keep_done_for = std::chrono::seconds(1)}}, journal);
  auto http = harness.client(kTrainer);
  const auto old = submit_and_wait(*http, 1);
  EXPECT_EQ(http->Get("/v1/evaluations/" + old)->status, 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const auto fresh = submit_and_wait(*http, 2);
  EXPECT_EQ(http->Get("/v1/evaluations/" + old)->status, 404);
  EXPECT_EQ(http->Get("/v1/evaluations/" + fresh)->status, 200);
  EXPECT_EQ(json_files(journal / "done"), 1u);
}

// 1,000 sessions open at once; every one takes two steps from 8 trainer threads while the
// service is restarted in the middle of the second steps. Every session is there afterwards at
// turn 2, and every reply was evaluated exactly once (by one service or the other).
TEST(RlSessionsLoad, AThousandSessionsThroughARestartLoseNothing) {
  constexpr int kSessions = 1000, kThreads = 8;
  // The journal syncs every file it writes (about 4 ms each on a disk, some 7,000 here); in
  // memory (/dev/shm) the test measures the service, not the disk.
  util::TempDir dir;
  const auto journal = fs::is_directory("/dev/shm") ? fs::path("/dev/shm") / dir.path().filename()
                                                    : dir.path() / "journal";
  struct Remove {
    fs::path path;
    ~Remove() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  } remove_journal{journal};
  const ServiceOptions options{.limits = {.capacity = 2 * kSessions, .workers = 4},
                               .http = {.threads = 32},
                               .sessions = {.per_client = 2 * kSessions, .total = 2 * kSessions}};
  GatedEvaluator before, after;
  auto harness = std::make_unique<ServiceHarness>(before.function(), options, journal);
  std::atomic<int> port{harness->port()};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);

  // One request, retried (the same body) through refusals and the restart.
  auto call = [&](const std::string& path, const json& body) -> json {
    while (std::chrono::steady_clock::now() < deadline) {
      httplib::Client http("127.0.0.1", port.load());
      http.set_bearer_token_auth(kTrainer.token.c_str());
      http.set_read_timeout(30, 0);
      auto got = http.Post(path.c_str(), body.dump(), "application/json");
      if (got && got->status == 200) return json::parse(got->body);
      if (got && got->status != 503 && got->status != 429) return {{"status", got->status}};
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return {{"status", "timed out"}};
  };

  std::vector<std::vector<std::string>> sessions(kThreads);
  std::vector<std::vector<json>> second_steps(kThreads);
  std::atomic<int> second_done{0};
  auto run = [&](int step) {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t, step] {
        if (step == 0) {
          for (int i = 0; i < kSessions / kThreads; ++i)
            sessions[t].push_back(call("/v1/env/reset", reset_body()).value("session", ""));
          return;
        }
        for (std::size_t i = 0; i < sessions[t].size(); ++i) {
          const int tag = step * 100'000 + t * 1000 + static_cast<int>(i);
          auto result =
              call("/v1/env/step", {{"session", sessions[t][i]}, {"reply", pass_reply(1, tag)}});
          if (step == 2) {
            second_steps[t].push_back(result);
            ++second_done;
          }
        }
      });
    }
    return threads;
  };
  for (auto& t : run(0)) t.join();
  for (auto& t : run(1)) t.join();
  EXPECT_EQ(harness->service().queue().counts().done, static_cast<std::size_t>(kSessions));
  auto stepping = run(2);
  while (second_done < kSessions / 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  harness.reset();  // drains: steps under way finish, queued ones wait for the next service
  harness = std::make_unique<ServiceHarness>(after.function(), options, journal);
  port = harness->port();
  for (auto& t : stepping) t.join();

  int at_turn_two = 0;
  for (int t = 0; t < kThreads; ++t) {
    for (const auto& result : second_steps[t]) at_turn_two += result.value("turn", 0) == 2;
  }
  EXPECT_EQ(at_turn_two, kSessions);
  std::map<std::string, int> evaluated = before.evaluated();
  for (const auto& [text, count] : after.evaluated()) evaluated[text] += count;
  EXPECT_EQ(evaluated.size(), static_cast<std::size_t>(2 * kSessions));
  int twice = 0;
  for (const auto& [text, count] : evaluated) twice += count != 1;
  EXPECT_EQ(twice, 0) << "replies evaluated more than once";
  EXPECT_GT(after.evaluated().size(), 0u) << "the restart came after every step";
  EXPECT_EQ(json_files(journal / "sessions"), static_cast<std::size_t>(kSessions));
}

}  // namespace
}  // namespace ptxbench::serve
