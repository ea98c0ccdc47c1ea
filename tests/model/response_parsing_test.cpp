#include <gtest/gtest.h>

#include "ptxbench/model/anthropic_provider.hpp"
#include "ptxbench/model/command_provider.hpp"
#include "ptxbench/model/http_error.hpp"
#include "ptxbench/model/openai_provider.hpp"

namespace ptxbench::model {
namespace {

HttpResponse ok(std::string body) {
  return HttpResponse{.status = 200, .body = std::move(body)};
}

TEST(ChatCompletion, KeepsContentReasoningUsageAndFinishReason) {
  auto result = parse_chat_completion(ok(R"({"model":"m-1","choices":[{"finish_reason":"stop",
    "message":{"role":"assistant","content":"```cuda\nx\n```","reasoning_content":"think"}}],
    "usage":{"prompt_tokens":10,"completion_tokens":20,
             "completion_tokens_details":{"reasoning_tokens":7}}})"));
  ASSERT_TRUE(result.ok()) << result.error().message;
  const Reply& reply = result.reply();
  EXPECT_EQ(reply.content, "```cuda\nx\n```");
  EXPECT_EQ(reply.reasoning_content, "think");
  EXPECT_EQ(reply.finish_reason, "stop");
  EXPECT_EQ(reply.model, "m-1");
  EXPECT_EQ(reply.usage.prompt_tokens, 10);
  EXPECT_EQ(reply.usage.completion_tokens, 20);
  EXPECT_EQ(reply.usage.reasoning_tokens, 7);
}

TEST(ChatCompletion, ReadsOpenRouterStyleReasoningAndNullContent) {
  auto result = parse_chat_completion(ok(
      R"({"choices":[{"finish_reason":"length","message":{"content":null,"reasoning":"long"}}]})"));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.reply().content, "");
  EXPECT_EQ(result.reply().reasoning_content, "long");
  EXPECT_FALSE(result.reply().usage.prompt_tokens.has_value());
}

TEST(ChatCompletion, UnusableBodiesAreRetryableErrors) {
  for (const char* body : {"{not json", "[]", R"({"choices":[]})", R"({"choices":[{}]})",
                           R"({"error":{"message":"x"}})", ""}) {
    auto result = parse_chat_completion(ok(body));
    ASSERT_FALSE(result.ok()) << body;
    EXPECT_TRUE(result.error().retryable) << body;
    EXPECT_NE(result.error().message.find("unusable reply"), std::string::npos);
  }
}

TEST(ChatCompletionStream, AccumulatesDeltasAndUsage) {
  auto result = parse_chat_completion_stream(
      ok(": keep-alive\n\n"
         "data: {\"model\":\"m\",\"choices\":[{\"delta\":{\"reasoning_content\":\"a\"}}]}\n\n"
         "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\r\n\r\n"
         "data: {\"choices\":[{\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n"
         "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4}}\n\n"
         "data: [DONE]\n\n"));
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result.reply().content, "Hello");
  EXPECT_EQ(result.reply().reasoning_content, "a");
  EXPECT_EQ(result.reply().finish_reason, "stop");
  EXPECT_EQ(result.reply().usage.completion_tokens, 4);
}

TEST(ChatCompletionStream, CutShortOrMalformedIsAnError) {
  EXPECT_FALSE(
      parse_chat_completion_stream(ok("data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n"))
          .ok());
  EXPECT_FALSE(parse_chat_completion_stream(ok("data: {oops\n\n")).ok());
  EXPECT_FALSE(parse_chat_completion_stream(ok("data: [DONE]\n\n")).ok());
}

TEST(AnthropicMessage, SplitsTextAndThinking) {
  auto result =
      parse_anthropic_message(ok(R"({"type":"message","model":"c","stop_reason":"end_turn",
    "content":[{"type":"thinking","thinking":"hmm","signature":"s"},{"type":"text","text":"A"},
               {"type":"text","text":"B"}],
    "usage":{"input_tokens":5,"cache_read_input_tokens":100,"output_tokens":9}})"));
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result.reply().content, "AB");
  EXPECT_EQ(result.reply().reasoning_content, "hmm");
  EXPECT_EQ(result.reply().finish_reason, "end_turn");
  EXPECT_EQ(result.reply().usage.prompt_tokens, 105);
  EXPECT_EQ(result.reply().usage.completion_tokens, 9);
}

TEST(AnthropicMessage, EmptyContentIsAReplyWithoutText) {
  auto result = parse_anthropic_message(ok(R"({"content":[],"stop_reason":"max_tokens"})"));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.reply().content, "");
  EXPECT_FALSE(parse_anthropic_message(ok(R"({"type":"error","error":{}})")).ok());
  EXPECT_FALSE(parse_anthropic_message(ok("nope")).ok());
}

TEST(HttpFailure, ClassifiesStatusesAndTransportErrors) {
  EXPECT_FALSE(http_failure(ok("{}")).has_value());
  for (int status : {408, 409, 425, 429, 500, 502, 503, 529}) {
    auto error = http_failure(HttpResponse{.status = status});
    ASSERT_TRUE(error);
    EXPECT_TRUE(error->retryable) << status;
    EXPECT_EQ(error->http_status, status);
  }
  for (int status : {400, 401, 403, 404, 422}) {
    EXPECT_FALSE(http_failure(HttpResponse{.status = status})->retryable) << status;
  }
  auto timeout =
      http_failure(HttpResponse{.transport_error = "Operation timed out", .timed_out = true});
  ASSERT_TRUE(timeout);
  EXPECT_TRUE(timeout->retryable);
  EXPECT_NE(timeout->message.find("timed out"), std::string::npos);
}

TEST(HttpFailure, QuotesTheServiceMessage) {
  auto error = http_failure(HttpResponse{
      .status = 400,
      .body =
          R"({"type":"error","error":{"type":"invalid_request_error","message":"bad max_tokens"}})"});
  ASSERT_TRUE(error);
  EXPECT_NE(error->message.find("invalid_request_error: bad max_tokens"), std::string::npos);
}

TEST(RetryAfter, ReadsMillisecondsSecondsAndDates) {
  EXPECT_EQ(retry_after_of(HttpResponse{.headers = {{"retry-after-ms", "250"}}}),
            std::chrono::milliseconds(250));
  EXPECT_EQ(retry_after_of(HttpResponse{.headers = {{"retry-after", "3"}}}),
            std::chrono::milliseconds(3000));
  EXPECT_EQ(
      retry_after_of(HttpResponse{.headers = {{"retry-after", "Wed, 21 Oct 2015 07:28:00 GMT"}}}),
      std::chrono::milliseconds(0));  // in the past: no wait
  EXPECT_FALSE(retry_after_of(HttpResponse{.headers = {{"retry-after", "soon"}}}).has_value());
  EXPECT_FALSE(retry_after_of(HttpResponse{}).has_value());
}

TEST(CommandOutput, JsonObjectOrPlainText) {
  Reply json = parse_command_output(
      R"({"content":"c","reasoning_content":"r","usage":{"prompt_tokens":1,"completion_tokens":2}})");
  EXPECT_EQ(json.content, "c");
  EXPECT_EQ(json.reasoning_content, "r");
  EXPECT_EQ(json.usage.completion_tokens, 2);
  Reply plain = parse_command_output("just text\n");
  EXPECT_EQ(plain.content, "just text\n");
  Reply other_json = parse_command_output(R"({"answer": 1})");
  EXPECT_EQ(other_json.content, R"({"answer": 1})");
}

}  // namespace
}  // namespace ptxbench::model
