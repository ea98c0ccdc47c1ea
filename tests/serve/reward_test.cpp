// The reward: each kind (weighted, tiered, pass@speedup) where it applies, no reward for what the
// judge could not establish, the parts a trainer shapes its own from, and the config's parser.
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

eval::Evaluation timed_outputs_changed() {
  auto e = passed(2.5);
  e.verdict = eval::Verdict::kIncorrectNumerical;
  e.stage(eval::Stage::kTiming).status = eval::StageStatus::kFailed;
  return e;
}

TEST(Reward, TieredTableIsDrKernelsByDefault) {
  const RewardConfig config{.kind = RewardKind::kTiered};
  EXPECT_DOUBLE_EQ(*reward_of(no_code(), config), -0.5);
  EXPECT_DOUBLE_EQ(*reward_of(compile_error(), config), -0.5);
  EXPECT_DOUBLE_EQ(*reward_of(incorrect(), config), -0.3);
  EXPECT_DOUBLE_EQ(*reward_of(instructions_not_executed(), config), -0.3);
  EXPECT_DOUBLE_EQ(*reward_of(passed(0.8), config), -0.1);
  EXPECT_DOUBLE_EQ(*reward_of(passed(1.0), config), 0.2);
  EXPECT_DOUBLE_EQ(*reward_of(passed(1.3), config), 0.4);
  EXPECT_DOUBLE_EQ(*reward_of(passed(1.5), config), 0.6);
  EXPECT_DOUBLE_EQ(*reward_of(passed(2.9), config), 0.8);
  EXPECT_DOUBLE_EQ(*reward_of(passed(7.0), config), 1.0);
  EXPECT_FALSE(reward_of(not_run(), config).has_value());
}

TEST(Reward, GamingVerdictsGetThePenalty) {
  const RewardConfig config{.kind = RewardKind::kTiered};
  auto forbidden = compile_error();
  forbidden.verdict = eval::Verdict::kForbidden;
  EXPECT_DOUBLE_EQ(*reward_of(forbidden, config), -1.0);
  auto inputs = incorrect();
  inputs.verdict = eval::Verdict::kInputsModified;
  EXPECT_DOUBLE_EQ(*reward_of(inputs, config), -1.0);
  EXPECT_DOUBLE_EQ(*reward_of(timed_outputs_changed(), config), -1.0);
  // Wrong in the correctness stage (timing never ran) is only incorrect.
  EXPECT_DOUBLE_EQ(*reward_of(incorrect(), config), -0.3);
}

TEST(Reward, PassedWithoutATimingHasNoTier) {
  auto untimed = passed(2.0);
  untimed.workloads[1].speedup.reset();
  EXPECT_FALSE(reward_of(untimed, {.kind = RewardKind::kTiered}).has_value());
  EXPECT_DOUBLE_EQ(*reward_of(untimed, {.kind = RewardKind::kPassAtSpeedup}), 0.0);
}

TEST(Reward, PassAtSpeedupIsAnIndicator) {
  const RewardConfig config{.kind = RewardKind::kPassAtSpeedup, .threshold = 1.2};
  EXPECT_DOUBLE_EQ(*reward_of(passed(1.2), config), 1.0);
  EXPECT_DOUBLE_EQ(*reward_of(passed(1.19), config), 0.0);
  EXPECT_DOUBLE_EQ(*reward_of(instructions_not_executed(), config), 0.0);
  EXPECT_DOUBLE_EQ(*reward_of(no_code(), config), 0.0);
  EXPECT_FALSE(reward_of(not_run(), config).has_value());
}

TEST(Reward, PartsCarryWhatATrainerShapesFrom) {
  auto parts = to_json(reward_parts(passed(1.5)));
  EXPECT_EQ(parts["verdict"], "PASSED");
  EXPECT_TRUE(parts["compiled"]);
  EXPECT_TRUE(parts["correct"]);
  EXPECT_TRUE(parts["verified"]);
  EXPECT_DOUBLE_EQ(parts["speedup"].get<double>(), 1.5);
  EXPECT_TRUE(parts["speed_of_light"].is_null());  // the sample has no bound
  EXPECT_EQ(parts["families"][0]["family"], "GMMA");
  EXPECT_DOUBLE_EQ(parts["families"][0]["flop_share"].get<double>(), 0.999);
  EXPECT_TRUE(parts["families"][1]["flop_share"].is_null());
  EXPECT_FALSE(parts["exploits"]["forbidden"]);
  auto gamed = to_json(reward_parts(timed_outputs_changed()));
  EXPECT_TRUE(gamed["exploits"]["outputs_changed_between_timed_calls"]);
  EXPECT_FALSE(gamed["correct"]);
  auto wrong = to_json(reward_parts(incorrect()));
  EXPECT_FALSE(wrong["exploits"]["outputs_changed_between_timed_calls"]);
  EXPECT_TRUE(wrong["compiled"]);
}

TEST(Reward, KindsReadAndWriteTheirOwnFields) {
  auto tiered = reward_config_from_json(
      {{"kind", "tiered"},
       {"version", 1},
       {"gaming", -2},
       {"tiers", {{{"speedup", 1.0}, {"reward", 0.5}}, {{"speedup", 2.0}, {"reward", 1.0}}}}},
      "reward.json");
  ASSERT_TRUE(tiered.has_value()) << tiered.error().message;
  EXPECT_EQ(tiered->kind, RewardKind::kTiered);
  EXPECT_DOUBLE_EQ(tiered->tiered.gaming, -2.0);
  EXPECT_DOUBLE_EQ(tiered->tiered.compile_failure, -0.5);
  EXPECT_DOUBLE_EQ(*reward_of(passed(1.9), *tiered), 0.5);
  auto written = to_json(*tiered);
  EXPECT_EQ(written["kind"], "tiered");
  EXPECT_EQ(written["version"], kRewardVersion);
  EXPECT_EQ(written["tiers"].size(), 2u);
  EXPECT_FALSE(written.contains("speedup_cap"));
  auto again = reward_config_from_json(written, "again");
  ASSERT_TRUE(again.has_value()) << again.error().message;
  EXPECT_EQ(to_json(*again), written);

  auto pass = reward_config_from_json({{"kind", "pass_at_speedup"}, {"threshold", 2}}, "r");
  ASSERT_TRUE(pass.has_value());
  EXPECT_DOUBLE_EQ(pass->threshold, 2.0);
}

TEST(Reward, ConfigRefusesOtherKindsKeysVersionsAndBadTiers) {
  auto other_kind = reward_config_from_json({{"kind", "tiered"}, {"speedup_cap", 2}}, "r.json");
  ASSERT_FALSE(other_kind.has_value());
  EXPECT_EQ(other_kind.error().message.rfind("r.json: speedup_cap: unknown key for kind tiered", 0),
            0u);
  auto version = reward_config_from_json({{"version", 2}}, "r.json");
  ASSERT_FALSE(version.has_value());
  EXPECT_EQ(version.error().message, "r.json: version: this service computes reward version 1");
  // 2^32 + 1 read as an int would be the version 1.
  EXPECT_FALSE(reward_config_from_json({{"version", 4294967297LL}}, "r.json").has_value());
  auto kind = reward_config_from_json({{"kind", "sum"}}, "r.json");
  ASSERT_FALSE(kind.has_value());
  auto unsorted = reward_config_from_json(
      {{"kind", "tiered"},
       {"tiers", {{{"speedup", 2.0}, {"reward", 1.0}}, {{"speedup", 1.0}, {"reward", 0.5}}}}},
      "r.json");
  ASSERT_FALSE(unsorted.has_value());
  EXPECT_NE(unsorted.error().message.find("tiers"), std::string::npos);
}

}  // namespace
}  // namespace ptxbench::serve

namespace ptxbench::serve {
namespace {

// INSTRUCTIONS_ABSENT (decided from the machine code, no GPU): it cannot pass and was never
// checked for correctness, so each kind gives it what a kernel without the requested
// instructions earns, never the reward of a correct or an incorrect one.
TEST(Reward, InstructionsAbsentIsTheNotExecutedEntry) {
  eval::Evaluation absent = testing::compile_error();
  absent.verdict = eval::Verdict::kInstructionsAbsent;
  const RewardConfig tiered{.kind = RewardKind::kTiered,
                            .tiered = {.incorrect = -0.3, .not_executed = -0.2}};
  EXPECT_DOUBLE_EQ(*reward_of(absent, tiered), -0.2);
  EXPECT_DOUBLE_EQ(*reward_of(absent, RewardConfig{.kind = RewardKind::kPassAtSpeedup}), 0.0);
}

}  // namespace
}  // namespace ptxbench::serve
