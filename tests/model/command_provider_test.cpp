// The command provider through the real process runner and /bin/sh.
#include "ptxbench/model/command_provider.hpp"

#include <gtest/gtest.h>

namespace ptxbench::model {
namespace {

using Json = nlohmann::json;

CommandProvider make(std::string script,
                     std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  ProviderConfig config{.name = "agent", .kind = ProviderKind::kCommand, .model = "agent"};
  config.command = {"/bin/sh", "-c", std::move(script)};
  config.timeout = timeout;
  return CommandProvider(config, std::make_shared<util::SystemProcessRunner>());
}

const CallContext kContext{.trajectory_id = "agent__t__hopper__none__s1",
                           .task = "t",
                           .arch = "hopper",
                           .context_level = "none",
                           .sample = 1,
                           .turn = 2};

TEST(CommandProvider, WritesTheConversationToStdin) {
  auto provider = make("cat");  // echoes its stdin: the reply is the request
  CallResult result = provider.complete({{"system", "s"}, {"user", "u"}}, kContext);
  ASSERT_TRUE(result.ok()) << result.error().message;
  Json request = Json::parse(result.reply().content);
  EXPECT_EQ(request["messages"][1]["content"], "u");
  EXPECT_EQ(request["context"]["trajectory_id"], "agent__t__hopper__none__s1");
  EXPECT_EQ(request["context"]["turn"], 2);
  EXPECT_EQ(request["model"], "agent");
}

TEST(CommandProvider, ReadsAJsonReplyAndSeesItsEnvironment) {
  auto provider = make(
      R"(cat >/dev/null; printf '{"content":"turn %s of %s","usage":{"completion_tokens":3}}' "$PTXBENCH_TURN" "$PTXBENCH_TRAJECTORY_ID")");
  CallResult result = provider.complete({{"user", "u"}}, kContext);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result.reply().content, "turn 2 of agent__t__hopper__none__s1");
  EXPECT_EQ(result.reply().usage.completion_tokens, 3);
  EXPECT_GT(result.reply().latency_s, 0);
}

TEST(CommandProvider, TimeoutIsRetryable) {
  auto provider = make("sleep 10", std::chrono::milliseconds(200));
  auto start = std::chrono::steady_clock::now();
  CallResult result = provider.complete({{"user", "u"}}, kContext);
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.error().retryable);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(CommandProvider, FailingProgramIsAPermanentErrorWithItsStderr) {
  auto provider = make("echo 'no model loaded' >&2; exit 3");
  CallResult result = provider.complete({{"user", "u"}}, kContext);
  ASSERT_FALSE(result.ok());
  EXPECT_FALSE(result.error().retryable);
  EXPECT_NE(result.error().message.find("exit 3"), std::string::npos) << result.error().message;
  EXPECT_NE(result.error().message.find("no model loaded"), std::string::npos);
}

TEST(CommandProvider, MissingProgramIsAnError) {
  ProviderConfig config{.name = "x", .kind = ProviderKind::kCommand};
  config.command = {"ptxbench-no-such-program"};
  CommandProvider provider(config, std::make_shared<util::SystemProcessRunner>());
  CallResult result = provider.complete({}, kContext);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("not found"), std::string::npos);
}

}  // namespace
}  // namespace ptxbench::model
