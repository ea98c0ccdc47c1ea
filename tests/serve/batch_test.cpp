// Batches over HTTP: many candidates in one request, their rewards and reward parts by poll and
// by stream, the batch's own reward function, and idempotency keys that hold across a retry, a
// refusal and a restart of the service.
#include <gtest/gtest.h>

#include "ptxbench/serve/batch.hpp"
#include "service_harness.hpp"

namespace ptxbench::serve {
namespace {
using namespace ptxbench::testing;
using nlohmann::json;

constexpr const char* kTask = "gemm_n7168_k5120";

json item(const std::string& key, const std::string& reply) {
  return {{"key", key}, {"task", kTask}, {"arch", "hopper"}, {"reply", reply}};
}

httplib::Result post_batch(httplib::Client& http, const json& body) {
  return http.Post("/v1/batches", body.dump(), "application/json");
}

json wait_all(httplib::Client& http, const std::string& id) {
  auto res = http.Get(("/v1/batches/" + id + "?wait_s=30").c_str());
  EXPECT_EQ(res->status, 200) << res->body;
  return body_of(res);
}

TEST(Batches, ResultsCarryRewardAndPartsUnderTheBatchsRewardFunction) {
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function(), {.limits = {.workers = 2}});
  auto http = harness.client(kTrainer);
  auto res = post_batch(
      *http,
      {{"items", {item("a", pass_reply(1.5)), item("b", "no code"), item("c", pass_reply(2.5))}},
       {"reward", {{"kind", "tiered"}}}});
  ASSERT_EQ(res->status, 202) << res->body;
  const auto submitted = body_of(res);
  EXPECT_EQ(submitted["total"], 3);
  EXPECT_EQ(submitted["refused"], 0);
  const auto batch = wait_all(*http, submitted["id"]);
  EXPECT_EQ(batch["done"], 3);
  EXPECT_EQ(batch["reward"]["kind"], "tiered");
  EXPECT_EQ(batch["reward"]["version"], kRewardVersion);
  const auto& items = batch["items"];
  EXPECT_EQ(items[0]["key"], "a");
  EXPECT_DOUBLE_EQ(items[0]["reward"].get<double>(), 0.6);
  EXPECT_DOUBLE_EQ(items[1]["reward"].get<double>(), -0.5);
  EXPECT_DOUBLE_EQ(items[2]["reward"].get<double>(), 0.8);
  EXPECT_EQ(items[0]["parts"]["verdict"], "PASSED");
  EXPECT_DOUBLE_EQ(items[0]["parts"]["speedup"].get<double>(), 1.5);
  EXPECT_FALSE(items[1]["parts"]["compiled"]);
  EXPECT_FALSE(items[0].contains("record"));
  auto with_records = body_of(
      http->Get(("/v1/batches/" + submitted["id"].get<std::string>() + "?records=1").c_str()));
  EXPECT_EQ(with_records["items"][1]["record"]["verdict"], "NO_CODE");
}

TEST(Batches, ARetriedKeyNeverEvaluatesTwice) {
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function());
  auto http = harness.client(kTrainer);
  const json body{{"items", {item("k1", pass_reply(1.2, 1)), item("k2", pass_reply(1.2, 2))}}};
  auto first = body_of(post_batch(*http, body));
  wait_all(*http, first["id"]);
  auto again = post_batch(*http, body);
  ASSERT_EQ(again->status, 202);
  const auto second = body_of(again);
  EXPECT_NE(second["id"], first["id"]);
  EXPECT_TRUE(second["items"][0]["reused"]);
  EXPECT_EQ(second["items"][0]["evaluation_id"], first["items"][0]["evaluation_id"]);
  EXPECT_EQ(second["items"][1]["state"], "done");
  EXPECT_EQ(evaluator.evaluated().at(pass_reply(1.2, 1)), 1);
  EXPECT_EQ(evaluator.evaluated().at(pass_reply(1.2, 2)), 1);
  // A key is the client's promise that the candidate is the same one.
  auto changed = body_of(post_batch(*http, {{"items", {item("k1", pass_reply(3.0))}}}));
  EXPECT_EQ(changed["items"][0]["state"], "refused");
  EXPECT_EQ(changed["items"][0]["status"], 409);
  // Keys are per client: another client's k1 is its own.
  auto other = body_of(post_batch(*harness.client(kAgent), {{"items", {item("k1", "x")}}}));
  EXPECT_FALSE(other["items"][0]["reused"]);
  EXPECT_EQ(http->Get(("/v1/batches/" + other["id"].get<std::string>()).c_str())->status, 404);
}

TEST(Batches, RefusedItemsAreRetriedWithTheirKeys) {
  GatedEvaluator evaluator(/*open=*/false);
  ServiceHarness harness(evaluator.function());
  auto http = harness.client(kAgent);  // two in flight at most
  const json body{{"items",
                   {item("r1", pass_reply(1.0, 1)), item("r2", pass_reply(1.0, 2)),
                    item("r3", pass_reply(1.0, 3))}}};
  auto res = post_batch(*http, body);
  ASSERT_EQ(res->status, 202);
  EXPECT_EQ(res->get_header_value("Retry-After"), "5");
  const auto first = body_of(res);
  EXPECT_EQ(first["refused"], 1);
  EXPECT_EQ(first["items"][2]["state"], "refused");
  EXPECT_EQ(first["items"][2]["status"], 429);
  evaluator.open();
  wait_all(*http, first["id"]);
  const auto retry = body_of(post_batch(*http, body));
  EXPECT_EQ(retry["refused"], 0);
  EXPECT_TRUE(retry["items"][0]["reused"]);
  EXPECT_FALSE(retry["items"][2]["reused"]);
  EXPECT_EQ(wait_all(*http, retry["id"])["done"], 3);
  for (const auto& [text, times] : evaluator.evaluated()) EXPECT_EQ(times, 1) << text;
}

TEST(Batches, KeysAndBatchesSurviveARestart) {
  util::TempDir journal;
  GatedEvaluator evaluator;
  json first;
  {
    ServiceHarness harness(evaluator.function(), {}, journal.path());
    auto http = harness.client(kTrainer);
    first = body_of(post_batch(*http, {{"items", {item("keep", pass_reply(2.0))}}}));
    wait_all(*http, first["id"]);
  }
  ServiceHarness restarted(evaluator.function(), {}, journal.path());
  auto http = restarted.client(kTrainer);
  const auto old = wait_all(*http, first["id"]);
  EXPECT_EQ(old["items"][0]["state"], "done");
  EXPECT_DOUBLE_EQ(old["items"][0]["reward"].get<double>(), 0.7 + 0.3 * 2.0);
  const auto retry = body_of(post_batch(*http, {{"items", {item("keep", pass_reply(2.0))}}}));
  EXPECT_TRUE(retry["items"][0]["reused"]);
  EXPECT_EQ(retry["items"][0]["evaluation_id"], first["items"][0]["evaluation_id"]);
  EXPECT_EQ(evaluator.evaluated().at(pass_reply(2.0)), 1);
}

TEST(Batches, TheStreamSendsOneResultPerItemThenDone) {
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function());
  auto http = harness.client(kTrainer);
  const auto batch =
      body_of(post_batch(*http, {{"items", {item("s1", pass_reply(1.1)), item("s2", "no code")}}}));
  std::string text;
  auto res = http->Get(("/v1/batches/" + batch["id"].get<std::string>() + "/stream").c_str(),
                       [&](const char* data, std::size_t size) {
                         text.append(data, size);
                         return true;
                       });
  ASSERT_TRUE(res);
  std::size_t results = 0;
  for (auto at = text.find("event: result"); at != std::string::npos;
       at = text.find("event: result", at + 1))
    ++results;
  EXPECT_EQ(results, 2u) << text;
  EXPECT_NE(text.find("event: done"), std::string::npos) << text;
  EXPECT_NE(text.find("\"key\":\"s1\""), std::string::npos);
}

// The batch POST reads its body as /v1/evaluations does: after the token, whatever its
// Content-Type (curl -d sends a form, which httplib alone would hold to 8 KiB).
TEST(Batches, ABatchSentAsAFormOver8KiBIsReadWhole) {
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function());
  auto http = harness.client(kTrainer);
  const std::string padding(16 * 1024, ' ');
  const json body{{"items", {item("big", pass_reply(1.1) + padding)}}};
  auto res = http->Post("/v1/batches", body.dump(), "application/x-www-form-urlencoded");
  ASSERT_EQ(res->status, 202) << res->body;
  EXPECT_EQ(body_of(res)["total"], 1);
  auto unauthorized = harness.client({.name = "stranger", .token = "not-a-token"})
                          ->Post("/v1/batches", body.dump(), "application/json");
  EXPECT_EQ(unauthorized->status, 401);
}

TEST(Batches, BadRequestsNameTheItem) {
  GatedEvaluator evaluator;
  ServiceHarness harness(evaluator.function());
  auto http = harness.client(kTrainer);
  const auto error_of = [&](const json& body) {
    auto res = post_batch(*http, body);
    EXPECT_EQ(res->status, 400) << res->body;
    return body_of(res)["error"].get<std::string>();
  };
  EXPECT_EQ(error_of({{"items", json::array()}}), "items: expected a non-empty list");
  EXPECT_EQ(error_of({{"items", {item("a", "x"), item("a", "y")}}}),
            "items[1].key: a appears twice in the batch");
  EXPECT_EQ(error_of({{"items", {{{"task", kTask}, {"arch", "hopper"}, {"reply", "x"}}}}})
                .rfind("items[0].key: required", 0),
            0u);
  EXPECT_EQ(error_of({{"items", {item("../x", "x")}}}).rfind("items[0].key: required", 0), 0u);
  EXPECT_EQ(error_of({{"items", {{{"key", "a"}, {"task", kTask}, {"arch", "hopper"}}}}}),
            "items[0].code, reply: give exactly one of them");
  EXPECT_EQ(error_of({{"items", {item("a", "x")}}, {"reward", {{"kind", "best"}}}}),
            "reward: kind: expected weighted, tiered or pass_at_speedup");
  json many = json::array();
  for (std::size_t i = 0; i <= kMaxBatchItems; ++i) many.push_back(item(std::to_string(i), "x"));
  EXPECT_EQ(error_of({{"items", many}}), "items: 1025 items; a batch holds at most 1024");
  EXPECT_EQ(http->Get("/v1/batches/b0123456789abcdef?wait_s=99")->status, 404);
}

}  // namespace
}  // namespace ptxbench::serve
