#include "ptxbench/eval/timing/timing_judgement.hpp"

#include <gtest/gtest.h>

#include "ptxbench/eval/timing/timing_record.hpp"

namespace ptxbench::eval::worker {
namespace {

nlohmann::json reply(double candidate_ms, double baseline_ms, bool outputs_match = true) {
  auto stats = [](double ms) {
    return to_json(TimingStats{.median_ms = ms,
                               .q1_ms = ms * 0.99,
                               .q3_ms = ms * 1.01,
                               .samples = 20,
                               .sm_clock_mhz = 1755,
                               .kernels_per_call = 1,
                               .converged = true});
  };
  return {{"candidate", stats(candidate_ms)},
          {"baseline", stats(baseline_ms)},
          {"outputs_match", outputs_match},
          {"blocking_kernel", true}};
}

TEST(TimingJudgement, SpeedupIsBaselineOverCandidate) {
  auto j = judge_timing(reply(2.0, 1.0), 2e12);
  EXPECT_EQ(j.verdict, Verdict::kPassed) << j.message;
  ASSERT_TRUE(j.speedup.has_value());
  EXPECT_DOUBLE_EQ(*j.speedup, 0.5);
  ASSERT_TRUE(j.tflops.has_value());
  EXPECT_DOUBLE_EQ(*j.tflops, 1000.0);  // 2e12 FLOP in 2 ms
  EXPECT_EQ(j.candidate->samples, 20);
  EXPECT_NE(j.message.find("0.500x"), std::string::npos) << j.message;
}

TEST(TimingJudgement, TimedOutputsThatDifferAreIncorrect) {
  auto j = judge_timing(reply(0.1, 1.0, false), 1e9);
  EXPECT_EQ(j.verdict, Verdict::kIncorrectNumerical);
}

TEST(TimingJudgement, MalformedRepliesAreOurFault) {
  EXPECT_EQ(judge_timing(nlohmann::json("x"), 1).verdict, Verdict::kInternalError);
  auto empty = reply(1, 1);
  empty["candidate"]["samples"] = 0;
  EXPECT_EQ(judge_timing(empty, 1).verdict, Verdict::kInternalError);
  auto missing = reply(1, 1);
  missing.erase("baseline");
  EXPECT_EQ(judge_timing(missing, 1).verdict, Verdict::kInternalError);
}

TEST(TimingJudgement, StatsRoundTrip) {
  TimingStats t{.median_ms = 0.75, .samples = 12, .dropped_throttled = 2, .converged = true};
  auto back = timing_from_json(to_json(t));
  ASSERT_TRUE(back.has_value());
  EXPECT_DOUBLE_EQ(back->median_ms, 0.75);
  EXPECT_EQ(back->dropped_throttled, 2);
  EXPECT_TRUE(back->converged);
  EXPECT_FALSE(timing_from_json(nlohmann::json::object()).has_value());
}

}  // namespace
}  // namespace ptxbench::eval::worker
