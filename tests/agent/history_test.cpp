#include "ptxbench/agent/history.hpp"

#include <gtest/gtest.h>

namespace ptxbench::agent {
namespace {

std::vector<TrajectoryMessage> conversation(int turns) {
  std::vector<TrajectoryMessage> messages{{.role = "system", .content = "S"},
                                          {.role = "user", .content = "T"}};
  for (int turn = 1; turn <= turns; ++turn) {
    messages.push_back({.role = "assistant",
                        .content = "A" + std::to_string(turn),
                        .reasoning_content = "secret",
                        .turn = turn});
    messages.push_back({.role = "user", .content = "F" + std::to_string(turn), .turn = turn});
  }
  return messages;
}

std::string contents(const model::Conversation& messages) {
  std::string out;
  for (const auto& m : messages) out += m.content + " ";
  return out;
}

TEST(History, FullSendsEverythingWithoutReasoning) {
  auto request = request_messages(conversation(3), HistoryPolicy{});
  EXPECT_EQ(contents(request), "S T A1 F1 A2 F2 A3 F3 ");
  EXPECT_EQ(request[2].role, "assistant");
}

TEST(History, LastKKeepsThePromptsAndTheLastTurns) {
  auto request = request_messages(conversation(4), HistoryPolicy{.last_k = 2});
  EXPECT_EQ(contents(request), "S T A3 F3 A4 F4 ");
  EXPECT_EQ(contents(request_messages(conversation(1), HistoryPolicy{.last_k = 2})), "S T A1 F1 ");
  EXPECT_EQ(contents(request_messages(conversation(0), HistoryPolicy{.last_k = 1})), "S T ");
}

TEST(History, ParsesPolicies) {
  EXPECT_FALSE(parse_history_policy("full")->last_k.has_value());
  EXPECT_EQ(parse_history_policy("last-3")->last_k, 3);
  EXPECT_EQ(parse_history_policy("last-3")->describe(), "last-3");
  EXPECT_FALSE(parse_history_policy("last-0"));
  EXPECT_FALSE(parse_history_policy("last-x"));
  EXPECT_FALSE(parse_history_policy("recent"));
}

}  // namespace
}  // namespace ptxbench::agent
