// The result record's JSON form: everything survives a round trip; bad input is a value.
#include "ptxbench/eval/evaluation_json.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ptxbench::eval {
namespace {

Evaluation full_record() {
  Evaluation e;
  e.task = "gemm_n7168_k5120";
  e.arch = arch::Arch::kBlackwell;
  e.source_name = "reply.md";
  e.source_hash = "0123456789abcdef";
  e.verdict = Verdict::kIncorrectNumerical;
  e.message = "C: 12 of 58720256 elements outside tolerance";
  e.stages.push_back({.stage = Stage::kExtract, .status = StageStatus::kPassed, .seconds = 0.001});
  e.stages.push_back({.stage = Stage::kCorrectness,
                      .status = StageStatus::kFailed,
                      .seconds = 2.5,
                      .message = "C"});
  e.stages.push_back({.stage = Stage::kSanitize,
                      .status = StageStatus::kNotChecked,
                      .message = "not checked: racecheck (timed out) did not finish"});
  e.stages.push_back({.stage = Stage::kTiming, .status = StageStatus::kSkipped});
  e.compile = {
      .command = {"nvcc", "-O3"}, .seconds = 12.5, .log = "ptxas info", .log_truncated = true};
  e.kernels.push_back({.name = "_Z4gemmv",
                       .display_name = "gemm()",
                       .registers = 168,
                       .shared_bytes = 1024,
                       .spill_store_bytes = 8,
                       .spill_load_bytes = 4,
                       .static_families = {{"UTCMMA", 20}},
                       .executed_families = {{"UTCMMA", 4096}},
                       .executed_flop_share = {{"UTCMMA", 0.98}},
                       .launched = LaunchResources{.launches = 12,
                                                   .registers_per_thread = 240,
                                                   .dynamic_shared_bytes = 200704,
                                                   .grid = {132, 1, 1},
                                                   .block = {384, 1, 1},
                                                   .cluster = {2, 1, 1}}});
  e.families.push_back({.family = "UTCMMA",
                        .requested = true,
                        .static_count = 20,
                        .executed_count = 4096,
                        .flop_share = 0.98,
                        .substantial = true});
  e.families.push_back({.family = "TMEM", .requested = true, .static_count = 4});
  WorkloadResult w{
      .workload = "M8192", .headline = true, .status = Verdict::kIncorrectNumerical, .trials = 3};
  w.outputs.push_back({.name = "C",
                       .max_abs_error = 0.5,
                       .max_rel_error = 2.0,
                       .matched_ratio = 0.9999,
                       .first_bad_index = 77,
                       .nan_count = 1,
                       .passed = false,
                       .rule = task::CorrectnessRule::kAsAccurateAsLibrary,
                       .matches_library = false});
  AccuracyFigures figures;
  figures.max_abs = {.candidate = 0.5, .library = 0.1, .budget = 0.3};
  figures.candidate_duels_lost = 5;
  figures.first_lost_index = 77;
  figures.compared = 1000;
  w.outputs.back().accuracy = figures;
  w.outputs.push_back({.name = "LSE",
                       .matched_ratio = 1,
                       .passed = true,
                       .matches_library = true,
                       .accuracy_unavailable = "no high-precision reference"});
  w.candidate = TimingStats{.median_ms = 0.75, .samples = 50, .converged = true};
  w.baseline = TimingStats{.median_ms = 0.73};
  w.speedup = 0.97;
  w.tflops = 801.5;
  w.speed_of_light = SpeedOfLight{.flops = 6e11,
                                  .bytes = 2e8,
                                  .peak_tflops = 989.4,
                                  .hbm_gbytes_per_s = 4800,
                                  .sm_clock_mhz = 1830,
                                  .compute_bound_ms = 0.606,
                                  .memory_bound_ms = 0.042,
                                  .bound_ms = 0.606,
                                  .fraction = 0.81};
  e.workloads.push_back(w);
  e.workloads.push_back({.workload = "unseen_M8191",
                         .unseen = true,
                         .status = Verdict::kIncorrectNumerical,
                         .trials = 3});
  e.generalisation = Generalisation{.policy = "report",
                                    .shown_passed = 1,
                                    .shown_total = 1,
                                    .unseen_passed = 0,
                                    .unseen_total = 1,
                                    .failed_unseen = {"unseen_M8191"}};
  e.input_seed = 18446744073709551557ull;  // the largest 64-bit prime: every bit survives
  e.toolchain = {{"nvcc", "release 13.0"}, {"gpu", "B200"}};
  e.created_at = "2026-01-01T00:00:00Z";
  e.wall_seconds = 20.25;
  return e;
}

TEST(EvaluationJson, RoundTripKeepsEveryField) {
  const Evaluation original = full_record();
  const auto json = to_json(original);
  EXPECT_EQ(json.at("schema_version"), kSchemaVersion);
  EXPECT_EQ(json.at("verdict"), "INCORRECT_NUMERICAL");
  EXPECT_EQ(json.at("arch"), "blackwell");
  auto back = evaluation_from_json(nlohmann::json::parse(json.dump()));
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(to_json(*back), json);
  EXPECT_EQ(back->families[1].executed_count, std::nullopt);
  EXPECT_EQ(back->headline_speedup(), 0.97);
  EXPECT_EQ(back->find_stage(Stage::kCorrectness)->status, StageStatus::kFailed);
  EXPECT_EQ(back->find_stage(Stage::kSanitize)->status, StageStatus::kNotChecked);
  EXPECT_EQ(json.at("stages")[2].at("status"), "not_checked");
  ASSERT_TRUE(back->kernels[0].launched.has_value());
  EXPECT_EQ(back->kernels[0].launched->dynamic_shared_bytes, 200704);
  EXPECT_EQ(back->kernels[0].launched->cluster[0], 2);
  ASSERT_TRUE(back->workloads[0].speed_of_light.has_value());
  EXPECT_DOUBLE_EQ(back->workloads[0].speed_of_light->fraction, 0.81);
  const auto& outputs = json["workloads"][0]["outputs"];
  EXPECT_EQ(outputs[0]["rule"], "as_accurate_as_library");
  EXPECT_EQ(outputs[0]["as_accurate"], false);
  EXPECT_EQ(outputs[0]["accuracy"]["candidate_duels_lost"], 5);
  EXPECT_TRUE(outputs[1]["as_accurate"].is_null());
  EXPECT_EQ(outputs[1]["rule"], "matches_library");
  EXPECT_TRUE(back->workloads[1].unseen);
  ASSERT_TRUE(back->generalisation.has_value());
  EXPECT_EQ(back->generalisation->failed_unseen, std::vector<std::string>{"unseen_M8191"});
  EXPECT_EQ(back->input_seed, 18446744073709551557ull);
  // Records written before these fields read as "not judged", "no seed".
  auto old = json;
  old.erase("generalisation");
  old.erase("input_seed");
  auto before = evaluation_from_json(old);
  ASSERT_TRUE(before.has_value());
  EXPECT_FALSE(before->generalisation.has_value());
  EXPECT_FALSE(before->input_seed.has_value());
}

TEST(EvaluationJson, RecordsWithoutTheRuleFieldsReadAsTheElementRule) {
  auto json = to_json(full_record());
  auto& output = json["workloads"][0]["outputs"][0];
  for (const char* key : {"rule", "matches_library", "as_accurate", "accuracy"}) output.erase(key);
  output["passed"] = true;
  auto back = evaluation_from_json(json);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  const OutputCheck& check = back->workloads[0].outputs[0];
  EXPECT_EQ(check.rule, task::CorrectnessRule::kMatchesLibrary);
  EXPECT_TRUE(check.matches_library);
  EXPECT_FALSE(check.accuracy.has_value());
  output["rule"] = "close_enough";
  EXPECT_FALSE(evaluation_from_json(json).has_value());
}

TEST(EvaluationJson, OtherSchemaVersionsAreRefused) {
  auto json = to_json(full_record());
  json["schema_version"] = kSchemaVersion + 1;
  auto back = evaluation_from_json(json);
  ASSERT_FALSE(back.has_value());
  EXPECT_THAT(back.error().message, ::testing::HasSubstr("schema_version"));
}

TEST(EvaluationJson, BadFieldsAreNamed) {
  auto json = to_json(full_record());
  json["verdict"] = "GREAT";
  auto back = evaluation_from_json(json);
  ASSERT_FALSE(back.has_value());
  EXPECT_THAT(back.error().message, ::testing::HasSubstr("verdict: unknown value 'GREAT'"));
  json = to_json(full_record());
  json.erase("task");
  EXPECT_FALSE(evaluation_from_json(json).has_value());
  EXPECT_FALSE(evaluation_from_json(nlohmann::json::array()).has_value());
}

TEST(Verdicts, NamesRoundTripAndOnlyTwoAreCorrect) {
  int correct = 0;
  for (int v = 0; v <= static_cast<int>(Verdict::kInternalError); ++v) {
    const auto verdict = static_cast<Verdict>(v);
    EXPECT_EQ(parse_verdict(to_string(verdict)), verdict);
    correct += is_correct(verdict) ? 1 : 0;
  }
  EXPECT_EQ(correct, 2);
  EXPECT_FALSE(is_correct(Verdict::kNotRun));
}

}  // namespace
}  // namespace ptxbench::eval
