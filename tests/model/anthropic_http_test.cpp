// The real libcurl client and Anthropic Messages provider against a loopback server.
#include <gtest/gtest.h>

#include <cstdlib>

#include "loopback_server.hpp"
#include "ptxbench/model/anthropic_provider.hpp"
#include "ptxbench/model/provider_factory.hpp"

namespace ptxbench::model {
namespace {

using Json = nlohmann::json;
using testing::LoopbackServer;

constexpr const char* kMessage =
    R"({"id":"msg_1","type":"message","role":"assistant","model":"claude-t",
  "stop_reason":"end_turn","content":[{"type":"thinking","thinking":"Let me plan.","signature":"x"},
  {"type":"text","text":"```cuda\nk\n```"}],"usage":{"input_tokens":30,"output_tokens":40}})";

std::shared_ptr<Provider> make(const LoopbackServer& server, Json extra = Json::object()) {
  ::setenv("PTXBENCH_TEST_ANTHROPIC_KEY", "ak-loopback", 1);
  Json json{
      {"name", "claude"},         {"provider", "anthropic"},
      {"base_url", server.url()}, {"api_key_env", "PTXBENCH_TEST_ANTHROPIC_KEY"},
      {"timeout_s", 10},          {"retries", {{"max_attempts", 3}, {"initial_backoff_s", 0.01}}}};
  json.update(extra);
  auto config = provider_config_from_json(json, "");
  EXPECT_TRUE(config) << config.error().message;
  auto provider = make_provider(*config);
  EXPECT_TRUE(provider) << provider.error().message;
  return *provider;
}

TEST(AnthropicHttp, SendsTheMessagesProtocolAndKeepsThinking) {
  LoopbackServer server([](int, const httplib::Request&, httplib::Response& response) {
    response.set_content(kMessage, "application/json");
  });
  Conversation conversation{{"system", "You write kernels."},
                            {"user", "task"},
                            {"assistant", "first try"},
                            {"user", "feedback"},
                            {"user", "and more"}};
  CallResult result =
      make(server, {{"model", "claude-test-1"},
                    {"temperature", 1.0},
                    {"extra_body", {{"thinking", {{"type", "enabled"}, {"budget_tokens", 2048}}}}}})
          ->complete(conversation, CallContext{});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result.reply().content, "```cuda\nk\n```");
  EXPECT_EQ(result.reply().reasoning_content, "Let me plan.");
  EXPECT_EQ(result.reply().finish_reason, "end_turn");
  EXPECT_EQ(result.reply().usage.prompt_tokens, 30);
  EXPECT_EQ(result.reply().usage.completion_tokens, 40);

  auto seen = server.seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].path, "/v1/messages");
  EXPECT_EQ(seen[0].header("x-api-key"), "ak-loopback");
  EXPECT_EQ(seen[0].header("anthropic-version"), "2023-06-01");
  EXPECT_EQ(seen[0].header("Authorization"), "");
  Json body = Json::parse(seen[0].body);
  EXPECT_EQ(body["model"], "claude-test-1");
  EXPECT_EQ(body["system"], "You write kernels.");
  EXPECT_EQ(body["max_tokens"], kAnthropicDefaultMaxTokens);
  EXPECT_EQ(body["thinking"]["budget_tokens"], 2048);
  ASSERT_EQ(body["messages"].size(), 3u) << "system lifted out, neighbouring user turns merged";
  EXPECT_EQ(body["messages"][0]["role"], "user");
  EXPECT_EQ(body["messages"][1]["role"], "assistant");
  EXPECT_EQ(body["messages"][2]["content"], "feedback\n\nand more");
}

TEST(AnthropicHttp, OverloadedIsRetriedAfterTheAskedDelay) {
  LoopbackServer server([](int index, const httplib::Request&, httplib::Response& response) {
    if (index == 0) {
      response.status = 529;
      response.set_header("retry-after-ms", "300");
      response.set_content(
          R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})",
          "application/json");
      return;
    }
    response.set_content(kMessage, "application/json");
  });
  auto start = std::chrono::steady_clock::now();
  CallResult result = make(server)->complete({{"user", "x"}}, {});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result.reply().attempts, 2);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(300));
}

TEST(AnthropicHttp, InvalidRequestIsNotRetriedAndSaysWhy) {
  LoopbackServer server([](int, const httplib::Request&, httplib::Response& response) {
    response.status = 400;
    response.set_content(
        R"({"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}})",
        "application/json");
  });
  CallResult result = make(server)->complete({{"user", "x"}}, {});
  ASSERT_FALSE(result.ok());
  EXPECT_FALSE(result.error().retryable);
  EXPECT_EQ(server.seen().size(), 1u);
  EXPECT_NE(result.error().message.find("invalid_request_error: max_tokens: too large"),
            std::string::npos);
}

TEST(AnthropicHttp, MalformedBodyIsAnErrorValue) {
  LoopbackServer server([](int, const httplib::Request&, httplib::Response& response) {
    response.set_content("<html>gateway</html>", "text/html");
  });
  CallResult result =
      make(server, {{"retries", {{"max_attempts", 1}}}})->complete({{"user", "x"}}, {});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("unusable reply"), std::string::npos);
}

}  // namespace
}  // namespace ptxbench::model
