// The reward: each term where it applies, no reward for what the judge could not establish,
// and the config's parser.
#include "ptxbench/serve/reward.hpp"

#include <gtest/gtest.h>

#include "../agent/sample_evaluations.hpp"

namespace ptxbench::serve {
namespace {
using namespace ptxbench::testing;

TEST(Reward, EachTermAddsWhereItApplies) {
  const RewardConfig config;  // 0.1 compile, 0.3 correct, 0.3 executed, 0.3 per 1x up to 3x
  EXPECT_DOUBLE_EQ(*reward_of(no_code(), config), 0.0);
  EXPECT_DOUBLE_EQ(*reward_of(compile_error(), config), 0.0);
  EXPECT_DOUBLE_EQ(*reward_of(incorrect(), config), 0.1);
  EXPECT_DOUBLE_EQ(*reward_of(passed(1.5), config), 0.1 + 0.3 + 0.3 + 0.3 * 1.5);
}

TEST(Reward, SpeedupIsCapped) {
  const RewardConfig config{.speedup = 1.0, .speedup_cap = 2.0};
  EXPECT_DOUBLE_EQ(*reward_of(passed(10.0), config), 0.1 + 0.3 + 0.3 + 2.0);
}

TEST(Reward, NoRewardForAVerdictTheJudgeCouldNotEstablish) {
  EXPECT_FALSE(reward_of(not_run(), {}).has_value());
  auto internal = passed(2.0);
  internal.verdict = eval::Verdict::kInternalError;
  EXPECT_FALSE(reward_of(internal, {}).has_value());
}

TEST(Reward, ConfigKeepsDefaultsForMissingKeys) {
  auto config = reward_config_from_json({{"speedup", 0.5}}, "reward.json");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_DOUBLE_EQ(config->speedup, 0.5);
  EXPECT_DOUBLE_EQ(config->compile, 0.1);
  EXPECT_EQ(to_json(*config)["speedup"], 0.5);
}

TEST(Reward, ConfigErrorsNameFileAndKey) {
  auto unknown = reward_config_from_json({{"speed", 1}}, "reward.json");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().message.rfind("reward.json: speed: unknown key", 0), 0u);
  auto negative = reward_config_from_json({{"correct", -1}}, "reward.json");
  ASSERT_FALSE(negative.has_value());
  EXPECT_EQ(negative.error().message, "reward.json: correct: expected a number >= 0");
}

}  // namespace
}  // namespace ptxbench::serve
