#include "ptxbench/serve/client_tokens.hpp"

#include <gtest/gtest.h>

namespace ptxbench::serve {
namespace {

TEST(ClientTokens, ParsesClientsAndAuthenticatesBearerTokens) {
  auto tokens = parse_client_tokens(
      "# trainers\ntrainer aaaaaaaaaaaaaaaaaaaa 16\n\nagent bbbbbbbbbbbbbbbbbbbb\n", "tokens");
  ASSERT_TRUE(tokens.has_value()) << tokens.error().message;
  EXPECT_EQ(tokens->size(), 2u);
  auto trainer = tokens->authenticate("Bearer aaaaaaaaaaaaaaaaaaaa");
  ASSERT_TRUE(trainer);
  EXPECT_EQ(trainer->name, "trainer");
  EXPECT_EQ(trainer->max_in_flight, 16);
  EXPECT_EQ(tokens->authenticate("Bearer bbbbbbbbbbbbbbbbbbbb")->max_in_flight,
            kDefaultMaxInFlight);
  EXPECT_FALSE(tokens->authenticate("Bearer aaaaaaaaaaaaaaaaaaab"));
  EXPECT_FALSE(tokens->authenticate("aaaaaaaaaaaaaaaaaaaa"));
  EXPECT_FALSE(tokens->authenticate("Bearer "));
  EXPECT_FALSE(tokens->authenticate(""));
}

TEST(ClientTokens, ErrorsNameFileAndLine) {
  auto short_token = parse_client_tokens("a short\n", "tokens");
  ASSERT_FALSE(short_token.has_value());
  EXPECT_EQ(short_token.error().message, "tokens:1: token: shorter than 16 characters");
  auto twice = parse_client_tokens("a aaaaaaaaaaaaaaaaaaaa\nb aaaaaaaaaaaaaaaaaaaa\n", "tokens");
  ASSERT_FALSE(twice.has_value());
  EXPECT_EQ(twice.error().message, "tokens:2: token: also the token of a");
  auto limit = parse_client_tokens("a aaaaaaaaaaaaaaaaaaaa 0\n", "tokens");
  ASSERT_FALSE(limit.has_value());
  EXPECT_EQ(limit.error().message, "tokens:1: MAX_IN_FLIGHT: expected a whole number >= 1");
  EXPECT_FALSE(parse_client_tokens("# nobody\n", "tokens").has_value());
}

}  // namespace
}  // namespace ptxbench::serve
