#include "ptxbench/eval/correctness/accuracy_rule.hpp"
#include "ptxbench/eval/correctness/accuracy_figures_json.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "ptxbench/eval/correctness/output_comparison.hpp"

namespace ptxbench::eval::correctness {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

float to_bf16(float x) {
  return worker::bfloat16_to_float(worker::float_to_bfloat16(x));
}

struct Arrays {
  std::vector<float> reference, library, candidate;
};

// A reference of normal values and a library that rounds it to bfloat16, as any correct bf16
// kernel must.
Arrays rounded_like_bf16(std::size_t n, unsigned seed) {
  std::mt19937 random(seed);
  std::normal_distribution<float> normal(0, 1);
  Arrays a;
  for (std::size_t i = 0; i < n; ++i) {
    a.reference.push_back(normal(random));
    a.library.push_back(to_bf16(a.reference.back()));
  }
  return a;
}

AccuracyFigures judge(const Arrays& a, task::DType dtype = task::DType::kBFloat16) {
  return judge_accuracy(accumulate_on_cpu(a.candidate, a.library, a.reference, ElementBudget{}),
                        dtype);
}

TEST(AccuracyRule, ResolutionOfEachOutputType) {
  EXPECT_DOUBLE_EQ(output_resolution(task::DType::kBFloat16), 1.0 / 256);
  EXPECT_DOUBLE_EQ(output_resolution(task::DType::kFloat32), 1.0 / 65536);
  EXPECT_DOUBLE_EQ(output_resolution(task::DType::kInt32), 0.0);
}

TEST(AccuracyRule, AKernelThatRoundsOnceToBf16PassesEvenWhereTheLibraryIsSloppier) {
  Arrays a = rounded_like_bf16(100000, 1);
  // the library's accumulation adds half an ulp of noise on top of its rounding
  for (std::size_t i = 0; i < a.library.size(); ++i)
    a.library[i] = to_bf16(a.reference[i] * (1 + ((i % 3) - 1.0f) / 512));
  a.candidate = a.reference;
  for (float& x : a.candidate) x = to_bf16(x);
  AccuracyFigures f = judge(a);
  EXPECT_TRUE(f.passed) << accuracy_failure(f);
  EXPECT_LE(f.mean_abs.candidate, f.mean_abs.library);
  EXPECT_EQ(accuracy_failure(f), "");
}

TEST(AccuracyRule, TheLibraryItselfPassesAgainstItself) {
  Arrays a = rounded_like_bf16(10000, 2);
  a.candidate = a.library;
  AccuracyFigures f = judge(a);
  EXPECT_TRUE(f.passed) << accuracy_failure(f);
  EXPECT_EQ(f.candidate_duels_lost, 0);
}

TEST(AccuracyRule, AnExactLibraryLeavesTheResolutionAsTheBudget) {
  // fp32 outputs (an LSE): the library equals the reference; 1e-6 relative noise is within the
  // 2^-16 resolution, 1e-3 is not.
  Arrays a = rounded_like_bf16(1000, 3);
  a.library = a.reference;
  a.candidate = a.reference;
  for (float& x : a.candidate) x *= 1 + 1e-6f;
  EXPECT_TRUE(judge(a, task::DType::kFloat32).passed);
  for (float& x : a.candidate) x *= 1 + 1e-3f;
  AccuracyFigures f = judge(a, task::DType::kFloat32);
  EXPECT_FALSE(f.passed);
  EXPECT_THAT(accuracy_failure(f), HasSubstr("mean abs error"));
}

TEST(AccuracyRule, SystematicallyLessAccurateFailsOnTheMeanWhileMatchingTheLibrary) {
  // An accumulation in bf16: every element off by ~2 ulps. Within atol = rtol = 1e-2 of the
  // library almost everywhere, but four times its mean error.
  Arrays a = rounded_like_bf16(100000, 4);
  for (std::size_t i = 0; i < a.reference.size(); ++i)
    a.candidate.push_back(to_bf16(a.reference[i] * (1 + (i % 2 ? 1.0f : -1.0f) / 64)));
  AccuracyFigures f = judge(a);
  EXPECT_FALSE(f.passed);
  EXPECT_GT(f.mean_abs.candidate, f.mean_abs.budget);
  EXPECT_THAT(accuracy_failure(f), HasSubstr("mean abs error"));
}

TEST(AccuracyRule, NearTiesSplitBetweenCandidateAndLibraryPass) {
  // Ill-conditioned elements: at a few the library is off by 0.5, at as many others the
  // candidate is; elsewhere both round to bf16. Neither is more accurate.
  Arrays a = rounded_like_bf16(50000, 5);
  a.candidate = a.library;
  for (std::size_t i : {100u, 2000u, 30000u}) a.library[i] = a.reference[i] + 0.5f;
  for (std::size_t i : {500u, 7000u, 40000u}) a.candidate[i] = a.reference[i] - 0.5f;
  AccuracyFigures f = judge(a);
  EXPECT_TRUE(f.passed) << accuracy_failure(f);
  EXPECT_EQ(f.candidate_duels_lost, 3);
  EXPECT_EQ(f.library_duels_lost, 3);
  EXPECT_EQ(f.first_lost_index, 500);
}

TEST(AccuracyRule, NearTiesAllLostByTheCandidateFailOnTheirMaximum) {
  Arrays a = rounded_like_bf16(50000, 6);
  a.candidate = a.library;
  for (std::size_t i : {500u, 7000u, 40000u}) a.candidate[i] = a.reference[i] - 0.5f;
  AccuracyFigures f = judge(a);
  EXPECT_FALSE(f.passed);
  EXPECT_EQ(f.candidate_duels_lost, 3);
  EXPECT_EQ(f.allowed_duels_lost, 9);  // 3 of 3 lost is chance; the maximum error is not
  EXPECT_THAT(accuracy_failure(f), HasSubstr("max abs error"));
  EXPECT_THAT(accuracy_failure(f), Not(HasSubstr("less accurate than the library's")));
}

TEST(AccuracyRule, DuelAllowanceIsKTimesTheLibrarysOrWhatChanceExplains) {
  EXPECT_EQ(duels_lost_allowance(0), 9);   // 10 of 10 has a chance of 2^-10 < 1e-3
  EXPECT_EQ(duels_lost_allowance(1), 12);  // 13 of 14: 15 / 2^14 < 1e-3
  EXPECT_EQ(duels_lost_allowance(1000), 2000);
  EXPECT_EQ(duels_lost_allowance(3000000), 6000000);  // the normal approximation's range
  for (std::int64_t lost = 0; lost < 200; ++lost) {
    EXPECT_GE(duels_lost_allowance(lost), 2 * lost);
    EXPECT_GE(duels_lost_allowance(lost + 1), duels_lost_allowance(lost)) << lost;
  }
}

// Two ill-conditioned workloads (spiky attention scores) as the H200 judged them: at one near-tie
// both are off by the same amount, elsewhere the candidate is off once where the library happens
// to be exact, and the library never loses. One lost duel of 50,000 is chance, not a less
// accurate kernel (the maximum and mean errors are the library's); a dozen is not chance.
Arrays one_sided_near_ties(std::size_t lost_by_candidate) {
  Arrays a = rounded_like_bf16(50000, 8);
  a.library[123] = a.reference[123] + 0.5f;
  a.candidate = a.library;
  for (std::size_t i = 0; i < lost_by_candidate; ++i) {
    const std::size_t at = 1000 + 3000 * i;
    a.library[at] = a.reference[at];
    a.candidate[at] = a.reference[at] + 0.3f;
  }
  return a;
}

TEST(AccuracyRule, OneDuelLostWhereTheLibraryLostNoneIsChance) {
  AccuracyFigures f = judge(one_sided_near_ties(1));
  EXPECT_EQ(f.candidate_duels_lost, 1);
  EXPECT_EQ(f.library_duels_lost, 0);
  EXPECT_TRUE(f.passed) << accuracy_failure(f);
}

TEST(AccuracyRule, ADozenDuelsLostWhereTheLibraryLostNoneFail) {
  AccuracyFigures f = judge(one_sided_near_ties(12));
  EXPECT_EQ(f.candidate_duels_lost, 12);
  EXPECT_FALSE(f.passed);
  EXPECT_EQ(accuracy_failure(f), "12 elements less accurate than the library's (allowed 9)");
}

TEST(AccuracyRule, LogBaseTwoInsteadOfNaturalFails) {
  Arrays a;
  for (int i = 0; i < 1000; ++i) {
    a.reference.push_back(7.0f + 0.001f * static_cast<float>(i));
    a.library.push_back(a.reference.back() * (1 + 1e-7f));
    a.candidate.push_back(a.reference.back() / std::log(2.0f));
  }
  AccuracyFigures f = judge(a, task::DType::kFloat32);
  EXPECT_FALSE(f.passed);
  EXPECT_GT(f.relative_frobenius.candidate, 0.4);
}

TEST(AccuracyRule, NonFiniteOrNothingComparedFails) {
  Arrays a = rounded_like_bf16(100, 7);
  a.candidate = a.library;
  a.candidate[10] = NAN;
  AccuracyFigures f = judge(a);
  EXPECT_FALSE(f.passed);
  EXPECT_THAT(accuracy_failure(f), HasSubstr("1 NaN/Inf elements"));
  AccuracyFigures empty = judge_accuracy(AccuracyTotals{}, task::DType::kBFloat16);
  EXPECT_FALSE(empty.passed);
  EXPECT_THAT(accuracy_failure(empty), HasSubstr("no element could be compared"));
}

TEST(AccuracyRule, WorstRatioOrdersTrials) {
  Arrays good = rounded_like_bf16(1000, 8);
  good.candidate = good.library;
  Arrays bad = good;
  bad.candidate[3] += 1;
  EXPECT_LT(judge(good).worst_ratio(), judge(bad).worst_ratio());
  EXPECT_GT(judge(bad).worst_ratio(), 1.0);
}

TEST(AccuracyRule, SummaryNamesBothErrors) {
  Arrays a = rounded_like_bf16(100, 9);
  a.candidate = a.library;
  std::string line = accuracy_summary(judge(a));
  EXPECT_THAT(line, HasSubstr("vs high-precision reference: max abs"));
  EXPECT_THAT(line, HasSubstr("(library "));
  EXPECT_THAT(line, HasSubstr("rel Frobenius"));
}

TEST(AccuracyRule, FiguresJsonRoundTrip) {
  Arrays a = rounded_like_bf16(1000, 10);
  a.candidate = a.library;
  a.candidate[7] += 3;
  AccuracyFigures f = judge(a);
  nlohmann::json j = to_json(f);
  EXPECT_EQ(to_json(accuracy_figures_from_json(j)), j);
  EXPECT_EQ(j["first_lost_index"], 7);
  EXPECT_FALSE(j["passed"].get<bool>());
  EXPECT_FALSE(accuracy_figures_from_json(nlohmann::json(nullptr)).passed);
}

}  // namespace
}  // namespace ptxbench::eval::correctness
