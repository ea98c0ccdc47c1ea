#include "ptxbench/model/provider_config.hpp"

#include <gtest/gtest.h>

namespace ptxbench::model {
namespace {

using Json = nlohmann::json;

TEST(ProviderConfig, DefaultsPerKind) {
  auto openai = provider_config_from_json(Json{{"name", "gpt-x"}, {"provider", "openai"}}, "/base");
  ASSERT_TRUE(openai) << openai.error().message;
  EXPECT_EQ(openai->model, "gpt-x");
  EXPECT_EQ(openai->base_url, "https://api.openai.com/v1");
  EXPECT_EQ(openai->api_key_env, "OPENAI_API_KEY");
  auto anthropic =
      provider_config_from_json(Json{{"name", "c"}, {"provider", "anthropic"}}, "/base");
  ASSERT_TRUE(anthropic);
  EXPECT_EQ(anthropic->base_url, "https://api.anthropic.com");
  EXPECT_EQ(anthropic->api_key_env, "ANTHROPIC_API_KEY");
}

TEST(ProviderConfig, ReadsEveryField) {
  Json json = Json::parse(R"({
    "name": "local", "provider": "openai", "model": "Qwen/Q", "base_url": "http://h:8000/v1",
    "api_key_env": "", "temperature": 0.6, "top_p": 0.95, "max_tokens": 32000,
    "extra_body": {"chat_template_kwargs": {"enable_thinking": true}}, "stream": true,
    "headers": {"X-Org": "o"}, "timeout_s": 900,
    "retries": {"max_attempts": 3, "initial_backoff_s": 0.5, "max_backoff_s": 30},
    "limits": {"requests_per_minute": 30, "concurrency": 8, "burst": 4}})");
  auto config = provider_config_from_json(json, "/base");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->model, "Qwen/Q");
  EXPECT_EQ(config->api_key_env, "");
  EXPECT_EQ(*config->temperature, 0.6);
  EXPECT_EQ(*config->max_tokens, 32000);
  EXPECT_TRUE(config->stream);
  EXPECT_EQ(config->extra_body["chat_template_kwargs"]["enable_thinking"], true);
  EXPECT_EQ(config->timeout, std::chrono::seconds(900));
  EXPECT_EQ(config->retry.max_attempts, 3);
  EXPECT_EQ(config->retry.initial_backoff, std::chrono::milliseconds(500));
  EXPECT_EQ(config->limits.concurrency, 8);
  EXPECT_EQ(config->limits.requests_per_minute, 30);
  EXPECT_EQ(config->headers.at("X-Org"), "o");
}

TEST(ProviderConfig, UnknownAndMistypedFieldsAreErrors) {
  auto unknown =
      provider_config_from_json(Json{{"name", "m"}, {"provider", "openai"}, {"temprature", 1}}, "");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("temprature"), std::string::npos);
  auto mistyped = provider_config_from_json(
      Json{{"name", "m"}, {"provider", "openai"}, {"max_tokens", "many"}}, "");
  ASSERT_FALSE(mistyped);
  EXPECT_NE(mistyped.error().message.find("max_tokens"), std::string::npos);
  auto nested = provider_config_from_json(
      Json{{"name", "m"}, {"provider", "openai"}, {"limits", {{"concurency", 2}}}}, "");
  ASSERT_FALSE(nested);
  EXPECT_NE(nested.error().message.find("concurency"), std::string::npos);
  EXPECT_FALSE(provider_config_from_json(Json{{"name", "m"}, {"provider", "gpt"}}, ""));
  EXPECT_FALSE(provider_config_from_json(Json{{"provider", "openai"}}, ""));
}

TEST(ProviderConfig, CommandAndReplayNeedTheirTarget) {
  EXPECT_FALSE(provider_config_from_json(Json{{"name", "m"}, {"provider", "command"}}, ""));
  EXPECT_FALSE(provider_config_from_json(Json{{"name", "m"}, {"provider", "replay"}}, ""));
  auto command = provider_config_from_json(
      Json{{"name", "m"}, {"provider", "command"}, {"command", "python3  agent.py --fast"}}, "");
  ASSERT_TRUE(command);
  EXPECT_EQ(command->command, (std::vector<std::string>{"python3", "agent.py", "--fast"}));
  auto replay = provider_config_from_json(
      Json{{"name", "m"}, {"provider", "replay"}, {"path", "runs/old"}}, "/cfg");
  ASSERT_TRUE(replay);
  EXPECT_EQ(replay->replay_path, std::filesystem::path("/cfg/runs/old"));
}

TEST(ProviderConfig, JsonForTheRecordCarriesNoHeaderValues) {
  auto config = provider_config_from_json(
      Json{{"name", "m"}, {"provider", "openai"}, {"headers", {{"X-Secret", "s3cr3t"}}}}, "");
  ASSERT_TRUE(config);
  std::string text = to_json(*config).dump();
  EXPECT_EQ(text.find("s3cr3t"), std::string::npos);
  EXPECT_NE(text.find("X-Secret"), std::string::npos);
  EXPECT_NE(text.find("OPENAI_API_KEY"), std::string::npos);
}

}  // namespace
}  // namespace ptxbench::model
