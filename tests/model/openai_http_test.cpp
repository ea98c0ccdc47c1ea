// The real libcurl client and OpenAI-compatible provider against a loopback server.
#include <gtest/gtest.h>

#include <cstdlib>

#include "loopback_server.hpp"
#include "ptxbench/extract/extract.hpp"
#include "ptxbench/model/provider_factory.hpp"

namespace ptxbench::model {
namespace {

using Json = nlohmann::json;
using testing::LoopbackServer;

constexpr const char* kCompletion = R"({"id":"c1","model":"served-model","choices":[{"index":0,
  "finish_reason":"stop","message":{"role":"assistant","content":"```cuda\n__global__ void k(){}\n```",
  "reasoning_content":"first I think"}}],
  "usage":{"prompt_tokens":11,"completion_tokens":22,"completion_tokens_details":{"reasoning_tokens":5}}})";

ProviderConfig openai_config(const LoopbackServer& server, Json extra = Json::object()) {
  Json json{
      {"name", "local"},
      {"provider", "openai"},
      {"base_url", server.url() + "/v1"},
      {"api_key_env", ""},
      {"timeout_s", 10},
      {"retries", {{"max_attempts", 3}, {"initial_backoff_s", 0.01}, {"max_backoff_s", 0.05}}}};
  json.update(extra);
  auto config = provider_config_from_json(json, "");
  EXPECT_TRUE(config) << config.error().message;
  return *config;
}

std::shared_ptr<Provider> make(const ProviderConfig& config) {
  auto provider = make_provider(config);
  EXPECT_TRUE(provider) << provider.error().message;
  return *provider;
}

const Conversation kConversation{{"system", "be terse"}, {"user", "write a kernel"}};

TEST(OpenAiHttp, SendsTheDocumentedRequestAndKeepsReasoning) {
  ::setenv("PTXBENCH_TEST_OPENAI_KEY", "sk-loopback", 1);
  LoopbackServer server([](int, const httplib::Request&, httplib::Response& response) {
    response.set_content(kCompletion, "application/json");
  });
  auto config = openai_config(server, {{"api_key_env", "PTXBENCH_TEST_OPENAI_KEY"},
                                       {"model", "org/model-7b"},
                                       {"temperature", 0.2},
                                       {"top_p", 0.9},
                                       {"max_tokens", 1234},
                                       {"headers", {{"X-Title", "ptxbench"}}},
                                       {"extra_body", {{"seed", 7}, {"top_p", 0.95}}}});
  CallResult result = make(config)->complete(kConversation, CallContext{});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result.reply().content, "```cuda\n__global__ void k(){}\n```");
  EXPECT_EQ(result.reply().reasoning_content, "first I think");
  EXPECT_EQ(result.reply().usage.prompt_tokens, 11);
  EXPECT_EQ(result.reply().usage.reasoning_tokens, 5);
  EXPECT_EQ(result.reply().model, "served-model");
  EXPECT_GT(result.reply().latency_s, 0);

  auto seen = server.seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].path, "/v1/chat/completions");
  EXPECT_EQ(seen[0].header("Authorization"), "Bearer sk-loopback");
  EXPECT_EQ(seen[0].header("Content-Type"), "application/json");
  EXPECT_EQ(seen[0].header("X-Title"), "ptxbench");
  Json body = Json::parse(seen[0].body);
  EXPECT_EQ(body["model"], "org/model-7b");
  EXPECT_EQ(body["messages"], Json::parse(R"([{"role":"system","content":"be terse"},
                                              {"role":"user","content":"write a kernel"}])"));
  EXPECT_EQ(body["temperature"], 0.2);
  EXPECT_EQ(body["max_tokens"], 1234);
  EXPECT_EQ(body["top_p"], 0.95) << "extra_body overrides";
  EXPECT_EQ(body["seed"], 7);
  EXPECT_FALSE(body.contains("stream"));
}

TEST(OpenAiHttp, NoKeyMeansNoAuthorizationHeader) {
  LoopbackServer server([](int, const httplib::Request&, httplib::Response& response) {
    response.set_content(kCompletion, "application/json");
  });
  ASSERT_TRUE(make(openai_config(server))->complete(kConversation, {}).ok());
  EXPECT_EQ(server.seen().at(0).header("Authorization"), "");
}

TEST(OpenAiHttp, MissingKeyVariableIsAConfigError) {
  ::unsetenv("PTXBENCH_TEST_ABSENT_KEY");
  LoopbackServer server([](int, const httplib::Request&, httplib::Response&) {});
  auto provider =
      make_provider(openai_config(server, {{"api_key_env", "PTXBENCH_TEST_ABSENT_KEY"}}));
  ASSERT_FALSE(provider);
  EXPECT_NE(provider.error().message.find("PTXBENCH_TEST_ABSENT_KEY"), std::string::npos);
}

TEST(OpenAiHttp, Honours429RetryAfterThenSucceeds) {
  LoopbackServer server([](int index, const httplib::Request&, httplib::Response& response) {
    if (index == 0) {
      response.status = 429;
      response.set_header("Retry-After", "1");
      response.set_content(R"({"error":{"message":"rate limited"}})", "application/json");
      return;
    }
    response.set_content(kCompletion, "application/json");
  });
  auto start = std::chrono::steady_clock::now();
  CallResult result = make(openai_config(server))->complete(kConversation, {});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result.reply().attempts, 2);
  EXPECT_EQ(server.seen().size(), 2u);
  EXPECT_GE(seconds, 1.0) << "Retry-After: 1 was not honoured";
  EXPECT_LT(seconds, 8.0);
}

TEST(OpenAiHttp, ServerErrorsAreRetriedUpToTheLimit) {
  LoopbackServer server([](int, const httplib::Request&, httplib::Response& response) {
    response.status = 503;
    response.set_content(R"({"error":{"message":"overloaded"}})", "application/json");
  });
  CallResult result = make(openai_config(server))->complete(kConversation, {});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().attempts, 3);
  EXPECT_EQ(result.error().http_status, 503);
  EXPECT_NE(result.error().message.find("overloaded"), std::string::npos);
  EXPECT_EQ(server.seen().size(), 3u);
}

TEST(OpenAiHttp, ClientErrorsAreNotRetried) {
  LoopbackServer server([](int, const httplib::Request&, httplib::Response& response) {
    response.status = 401;
    response.set_content(R"({"error":{"message":"invalid api key"}})", "application/json");
  });
  CallResult result = make(openai_config(server))->complete(kConversation, {});
  ASSERT_FALSE(result.ok());
  EXPECT_FALSE(result.error().retryable);
  EXPECT_NE(result.error().message.find("invalid api key"), std::string::npos);
  EXPECT_EQ(server.seen().size(), 1u);
}

TEST(OpenAiHttp, TimesOutAndRetries) {
  LoopbackServer server([](int, const httplib::Request&, httplib::Response& response) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    response.set_content(kCompletion, "application/json");
  });
  auto config = openai_config(
      server,
      {{"timeout_s", 0.2}, {"retries", {{"max_attempts", 2}, {"initial_backoff_s", 0.01}}}});
  auto start = std::chrono::steady_clock::now();
  CallResult result = make(config)->complete(kConversation, {});
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.error().retryable);
  EXPECT_EQ(result.error().attempts, 2);
  EXPECT_NE(result.error().message.find("timed out"), std::string::npos) << result.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1400));
}

TEST(OpenAiHttp, MalformedJsonAndEmptyChoicesAreErrorsNotCrashes) {
  for (const char* body : {"{\"choices\": [", R"({"choices": []})"}) {
    LoopbackServer server([body](int, const httplib::Request&, httplib::Response& response) {
      response.set_content(body, "application/json");
    });
    CallResult result =
        make(openai_config(server,
                           {{"retries", {{"max_attempts", 2}, {"initial_backoff_s", 0.01}}}}))
            ->complete(kConversation, {});
    ASSERT_FALSE(result.ok()) << body;
    EXPECT_NE(result.error().message.find("unusable reply"), std::string::npos);
    EXPECT_EQ(server.seen().size(), 2u) << "retried once";
  }
}

TEST(OpenAiHttp, ReplyWithoutCodeIsAnOrdinaryReply) {
  LoopbackServer server([](int, const httplib::Request&, httplib::Response& response) {
    response.set_content(
        R"({"choices":[{"finish_reason":"stop","message":{"content":"I would rather not."}}]})",
        "application/json");
  });
  CallResult result = make(openai_config(server))->complete(kConversation, {});
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(extract::extract_code(result.reply().content).has_value());
}

TEST(OpenAiHttp, StreamsServerSentEvents) {
  LoopbackServer server([](int, const httplib::Request&, httplib::Response& response) {
    std::vector<std::string> events{
        R"({"model":"m","choices":[{"delta":{"role":"assistant","reasoning_content":"plan "}}]})",
        R"({"choices":[{"delta":{"content":"```cuda\n"}}]})",
        R"({"choices":[{"delta":{"content":"k\n```"},"finish_reason":"stop"}]})",
        R"({"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":6}})", "[DONE]"};
    response.set_chunked_content_provider("text/event-stream",
                                          [events](size_t, httplib::DataSink& sink) {
                                            for (const auto& event : events) {
                                              std::string frame = "data: " + event + "\n\n";
                                              sink.write(frame.data(), frame.size());
                                            }
                                            sink.done();
                                            return true;
                                          });
  });
  CallResult result = make(openai_config(server, {{"stream", true}}))->complete(kConversation, {});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result.reply().content, "```cuda\nk\n```");
  EXPECT_EQ(result.reply().reasoning_content, "plan ");
  EXPECT_EQ(result.reply().usage.completion_tokens, 6);
  Json body = Json::parse(server.seen().at(0).body);
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["stream_options"]["include_usage"], true);
}

TEST(OpenAiHttp, ConnectionRefusedIsRetryable) {
  int port = 0;
  {
    LoopbackServer closed([](int, const httplib::Request&, httplib::Response&) {});
    port = closed.port();
  }
  auto config = provider_config_from_json(
      Json{{"name", "x"},
           {"provider", "openai"},
           {"api_key_env", ""},
           {"base_url", "http://127.0.0.1:" + std::to_string(port) + "/v1"},
           {"retries", {{"max_attempts", 2}, {"initial_backoff_s", 0.01}}}},
      "");
  ASSERT_TRUE(config);
  CallResult result = make(*config)->complete(kConversation, {});
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.error().retryable);
  EXPECT_EQ(result.error().attempts, 2);
  EXPECT_NE(result.error().message.find("request failed"), std::string::npos);
}

}  // namespace
}  // namespace ptxbench::model

namespace ptxbench::model {
namespace {

// A proxy that echoes the request headers in its error page, and a server that echoes them in
// the reply: the key must appear in neither what the provider returns nor anything built on it.
TEST(OpenAiHttp, EchoedKeysAreScrubbed) {
  ::setenv("PTXBENCH_TEST_ECHO_KEY", "sk-echo-4f9a2b7c", 1);
  LoopbackServer server(
      [](int index, const httplib::Request& request, httplib::Response& response) {
        const std::string echoed = "Authorization: " + request.get_header_value("Authorization");
        if (index == 0) {
          response.status = 401;
          response.set_content("<html><pre>" + echoed + "</pre></html>", "text/html");
          return;
        }
        Json body = Json::parse(kCompletion);
        body["choices"][0]["message"]["content"] = "you sent " + echoed;
        response.set_content(body.dump(), "application/json");
      });
  auto provider = make(openai_config(
      server, {{"api_key_env", "PTXBENCH_TEST_ECHO_KEY"}, {"retries", {{"max_attempts", 1}}}}));
  auto failed = provider->complete(kConversation, {});
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message.find("sk-echo-4f9a2b7c"), std::string::npos)
      << failed.error().message;
  EXPECT_NE(failed.error().message.find("Bearer [secret removed]"), std::string::npos)
      << failed.error().message;
  auto echoed = provider->complete(kConversation, {});
  ASSERT_TRUE(echoed.ok()) << echoed.error().message;
  EXPECT_EQ(echoed.reply().content, "you sent Authorization: Bearer [secret removed]");
  // The key did go out: the scrubbing is of what comes back.
  EXPECT_EQ(server.seen().front().header("Authorization"), "Bearer sk-echo-4f9a2b7c");
}

TEST(OpenAiHttp, RepliesOverTheCapAreErrorsNotTurns) {
  LoopbackServer server([](int, const httplib::Request&, httplib::Response& response) {
    Json body = Json::parse(kCompletion);
    body["choices"][0]["message"]["content"] = std::string(300000, 'x');
    response.set_content(body.dump(), "application/json");
  });
  // 100 kB cap: the body (about 300 kB) is cut off in transfer.
  auto provider = make(
      openai_config(server, {{"max_reply_bytes", 100000}, {"retries", {{"max_attempts", 1}}}}));
  auto result = provider->complete(kConversation, {});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("max_reply_bytes"), std::string::npos)
      << result.error().message;
  // 200 kB cap: the transfer fits, the reply itself does not.
  auto looser = make(
      openai_config(server, {{"max_reply_bytes", 200000}, {"retries", {{"max_attempts", 1}}}}));
  auto second = looser->complete(kConversation, {});
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message.find("larger than max_reply_bytes"), std::string::npos)
      << second.error().message;
}

}  // namespace
}  // namespace ptxbench::model
