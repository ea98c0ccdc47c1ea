#include "ptxbench/eval/timing/timing_judgement.hpp"

#include <gtest/gtest.h>

#include "ptxbench/eval/timing/timed_output_rule.hpp"

namespace ptxbench::eval::worker {
namespace {

timing::TimingReply reply(double candidate_ms, double baseline_ms, bool outputs_match = true) {
  auto side = [](double ms) {
    return timing::TimingSide{.stats = TimingStats{.median_ms = ms,
                                                   .q1_ms = ms * 0.99,
                                                   .q3_ms = ms * 1.01,
                                                   .samples = 20,
                                                   .sm_clock_mhz = 1755,
                                                   .kernels_per_call = 1,
                                                   .converged = true}};
  };
  timing::TimingReply r;
  r.candidate = side(candidate_ms);
  r.baseline = side(baseline_ms);
  r.outputs_match = outputs_match;
  r.blocking_kernel = true;
  return r;
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
  auto r = reply(0.1, 1.0, false);
  r.output_checks = {{.name = "dK", .totals = {.elements = 1000000, .mismatches = 250000}}};
  auto j = judge_timing(r, 1e9);
  EXPECT_EQ(j.verdict, Verdict::kIncorrectNumerical);
  EXPECT_NE(j.message.find("dK: 250000 of 1000000 elements differ (allowed 100)"),
            std::string::npos)
      << j.message;
}

// Work skipped or cached after the checked calls changes a large part of an output; a few
// near-ties in millions (an honest backward's dK at S = 4096 on the H200) do not fail it.
TEST(TimedOutputRule, NearTiesPassSkippedWorkFails) {
  EXPECT_TRUE(timing::timed_output_agrees({.elements = 25165824, .mismatches = 5}));
  EXPECT_TRUE(timing::timed_output_agrees({.elements = 25165824, .mismatches = 2516}));
  EXPECT_FALSE(timing::timed_output_agrees({.elements = 25165824, .mismatches = 2517}));
  EXPECT_FALSE(timing::timed_output_agrees({.elements = 64, .mismatches = 1}));
  EXPECT_FALSE(
      timing::timed_output_agrees({.elements = 25165824, .mismatches = 1, .nan_count = 1}));
  EXPECT_FALSE(timing::timed_output_agrees({.elements = 0}));
}

TEST(TimingJudgement, RepliesWithoutSamplesAreOurFault) {
  auto empty = reply(1, 1);
  empty.candidate.stats.samples = 0;
  EXPECT_EQ(judge_timing(empty, 1).verdict, Verdict::kInternalError);
  auto no_baseline = reply(1, 1);
  no_baseline.baseline.stats.samples = 0;
  EXPECT_EQ(judge_timing(no_baseline, 1).verdict, Verdict::kInternalError);
}

TEST(TimingJudgement, LaunchesAndTheBlockerAreReported) {
  auto r = reply(1, 1);
  r.blocking_kernel = false;
  r.launches = {{.name = "_Z4gemmv", .resources = {.launches = 12, .dynamic_shared_bytes = 4096}}};
  auto j = judge_timing(r, 1);
  ASSERT_EQ(j.launches.size(), 1u);
  EXPECT_EQ(j.launches[0].first, "_Z4gemmv");
  EXPECT_EQ(j.launches[0].second.dynamic_shared_bytes, 4096);
  EXPECT_NE(j.message.find("without the blocking kernel"), std::string::npos) << j.message;
}

}  // namespace
}  // namespace ptxbench::eval::worker
