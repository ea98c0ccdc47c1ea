// The engine's settings read from YAML/JSON: every field, its range (a number past int's range
// is refused, not wrapped), unknown fields and those the command does not offer.
#include "ptxbench/eval/settings.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ptxbench::eval {
namespace {
using ::testing::HasSubstr;
using Json = nlohmann::json;

util::Expected<EvaluationSettings> read(const Json& json, SettingSet offered = SettingSet::all()) {
  return read_settings(json, {}, offered, "evaluation");
}

TEST(Settings, EveryFieldIsRead) {
  auto settings = read(Json{{"sandbox", "off"},
                            {"compile_timeout_s", 30},
                            {"compile_memory_gib", 4},
                            {"parallel", 3},
                            {"gpu", false},
                            {"gpus", "0,1"},
                            {"gpu_concurrency", 4},
                            {"correctness_rule", "matches_library"},
                            {"racecheck_timeout_s", 40},
                            {"time_workloads", "all"},
                            {"keep_artifacts", "kept"}});
  ASSERT_TRUE(settings.has_value()) << settings.error().message;
  EXPECT_EQ(settings->sandbox, sandbox::Mode::kOff);
  EXPECT_EQ(settings->compile_timeout, std::chrono::seconds(30));
  EXPECT_EQ(settings->compile_memory_limit_bytes, std::uint64_t{4} << 30);
  EXPECT_EQ(settings->parallel, 3);
  EXPECT_FALSE(settings->gpu);
  EXPECT_EQ(settings->gpus, "0,1");
  EXPECT_EQ(settings->gpu_concurrency, 4);
  EXPECT_EQ(settings->correctness_rule, task::CorrectnessRule::kMatchesLibrary);
  EXPECT_EQ(settings->judge.racecheck_timeout, std::chrono::seconds(40));
  EXPECT_TRUE(settings->judge.timed_workloads.all);
  EXPECT_EQ(settings->keep_artifacts, "kept");
  // What is written is read back the same.
  auto again = read(settings_to_json(*settings, SettingSet::all()));
  ASSERT_TRUE(again.has_value()) << again.error().message;
  EXPECT_EQ(settings_to_json(*again, SettingSet::all()),
            settings_to_json(*settings, SettingSet::all()));
}

TEST(Settings, TheSeedPoolAndVerdictCacheAreRead) {
  auto settings = read(Json{{"seed_pool", 16}, {"verdict_cache", "verdicts"}});
  ASSERT_TRUE(settings.has_value()) << settings.error().message;
  EXPECT_EQ(settings->seed_pool, 16);
  EXPECT_EQ(settings->verdict_cache, "verdicts");
  const auto json = settings_to_json(*settings, SettingSet::all());
  EXPECT_EQ(json.at("seed_pool"), 16);
  EXPECT_EQ(json.at("verdict_cache"), "verdicts");
  EXPECT_THAT(read(Json{{"seed_pool", -1}}).error().message, HasSubstr("evaluation.seed_pool"));
  EXPECT_FALSE(read(Json{{"seed_pool", (1 << 20) + 1}}).has_value());
  EXPECT_THAT(read(Json{{"verdict_cache", "v"}}, SettingSet::all().without(Setting::kVerdictCache))
                  .error()
                  .message,
              HasSubstr("verdict_cache: not a setting of this command"));
}

// A verdict cache with a fresh seed every verdict would never answer: the settings as a whole
// are refused (open_engine), whichever source set them.
TEST(Settings, AVerdictCacheWithoutASeedIsAProblem) {
  EvaluationSettings settings;
  EXPECT_FALSE(settings_problem(settings));
  settings.verdict_cache = "verdicts";
  const auto problem = settings_problem(settings);
  ASSERT_TRUE(problem);
  EXPECT_THAT(*problem, HasSubstr("--verdict-cache (verdict_cache): needs --seed or --seed-pool"));
  settings.seed_pool = 2;
  EXPECT_FALSE(settings_problem(settings));
  settings.seed_pool = 0;
  settings.input_seed = 7;
  EXPECT_FALSE(settings_problem(settings));
}

TEST(Settings, TheReferenceCacheIsOffByDefaultAndRead) {
  EXPECT_FALSE(EvaluationSettings{}.judge.reference_cache);
  auto settings = read(Json{{"reference_cache", true}, {"seed_pool", 4}});
  ASSERT_TRUE(settings.has_value()) << settings.error().message;
  EXPECT_TRUE(settings->judge.reference_cache);
  EXPECT_EQ(settings_to_json(*settings, SettingSet::all()).at("reference_cache"), true);
  EXPECT_THAT(read(Json{{"reference_cache", "yes"}}).error().message, HasSubstr("reference_cache"));
}

TEST(Settings, NumbersOutOfRangeAreRefusedNotWrapped) {
  // get<int> would wrap 4294967297 to 1.
  auto wrapped = read(Json{{"parallel", 4294967297LL}});
  ASSERT_FALSE(wrapped.has_value());
  EXPECT_THAT(wrapped.error().message, HasSubstr("evaluation.parallel: expected an integer"));
  EXPECT_FALSE(read(Json{{"compile_timeout_s", 0.4}}).has_value());
  EXPECT_FALSE(read(Json{{"compile_timeout_s", 0}}).has_value());
  EXPECT_FALSE(read(Json{{"racecheck_timeout_s", 3601}}).has_value());
  EXPECT_FALSE(read(Json{{"gpu_concurrency", 0}}).has_value());
  EXPECT_FALSE(read(Json{{"gpu_concurrency", 65}}).has_value());
  EXPECT_FALSE(read(Json{{"gpu", "yes"}}).has_value());
  EXPECT_THAT(read(Json{{"sandbox", "loose"}}).error().message,
              HasSubstr("evaluation.sandbox: expected strict, best-effort or off"));
  EXPECT_THAT(read(Json{{"time_workloads", ","}}).error().message,
              HasSubstr("evaluation.time_workloads"));
}

TEST(Settings, UnknownAndUnofferedFieldsAreErrors) {
  EXPECT_EQ(read(Json{{"paralel", 2}}).error().message, "evaluation.paralel: unknown field");
  const SettingSet offered = SettingSet::all().without(Setting::kKeepArtifacts);
  EXPECT_EQ(read(Json{{"keep_artifacts", "x"}}, offered).error().message,
            "evaluation.keep_artifacts: not a setting of this command");
  EXPECT_FALSE(read(Json::array()).has_value());
  // A caller's own fields are left to it.
  EXPECT_TRUE(read_settings(Json{{"all_turns_without_gpu", true}}, {}, offered, "evaluation",
                            {"all_turns_without_gpu"})
                  .has_value());
}

TEST(Settings, TheCorrectnessRuleIsLaidOverEveryTask) {
  std::vector<task::Task> suite(2);
  apply_correctness_rule({}, suite);
  EXPECT_EQ(suite[0].tolerance.rule, task::Tolerance{}.rule);
  apply_correctness_rule({.correctness_rule = task::CorrectnessRule::kMatchesLibrary}, suite);
  for (const auto& task : suite)
    EXPECT_EQ(task.tolerance.rule, task::CorrectnessRule::kMatchesLibrary);
}

}  // namespace
}  // namespace ptxbench::eval
