#include "ptxbench/eval/correctness/output_comparison.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ptxbench/eval/correctness/element_rule.hpp"

namespace ptxbench::eval::worker {
namespace {

constexpr double kTol = 1e-2;
const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

TEST(ElementRule, FailsOnlyWhenBothAbsoluteAndRelativeErrorsAreLarge) {
  EXPECT_EQ(judge_element(1.0, 1.0, kTol, kTol), ElementOutcome::kMatch);
  // Large relative error but tiny absolute error: passes (atol).
  EXPECT_EQ(judge_element(0.005, 0.0, kTol, kTol), ElementOutcome::kMatch);
  // Large absolute error but small relative error: passes (rtol).
  EXPECT_EQ(judge_element(1000.5, 1000.0, kTol, kTol), ElementOutcome::kMatch);
  // Both large: fails.
  EXPECT_EQ(judge_element(1.1, 1.0, kTol, kTol), ElementOutcome::kMismatch);
  EXPECT_EQ(judge_element(-1.0, 1.0, kTol, kTol), ElementOutcome::kMismatch);
}

TEST(ElementRule, NonFiniteValues) {
  EXPECT_EQ(judge_element(kNan, 1.0, kTol, kTol), ElementOutcome::kNan);
  EXPECT_EQ(judge_element(kInf, 1.0, kTol, kTol), ElementOutcome::kInf);
  EXPECT_EQ(judge_element(-kInf, 1.0, kTol, kTol), ElementOutcome::kInf);
  EXPECT_EQ(judge_element(kNan, kNan, kTol, kTol), ElementOutcome::kMatch);
  EXPECT_EQ(judge_element(kInf, kInf, kTol, kTol), ElementOutcome::kMatch);
  EXPECT_EQ(judge_element(-kInf, kInf, kTol, kTol), ElementOutcome::kInf);
  EXPECT_EQ(judge_element(1.0, kNan, kTol, kTol), ElementOutcome::kMismatch);
}

TEST(CompareOnCpu, CountsErrorsAndTheFirstBadIndex) {
  std::vector<float> reference{1, 2, 3, 4, 5, 0};
  std::vector<float> candidate{1, 2.5f, 3, kNan, 5.001f, kInf};
  ComparisonTotals t = compare_on_cpu(candidate, reference, kTol, kTol);
  EXPECT_EQ(t.elements, 6);
  EXPECT_EQ(t.mismatches, 3);
  EXPECT_EQ(t.nan_count, 1);
  EXPECT_EQ(t.inf_count, 1);
  EXPECT_EQ(t.first_bad_index, 1);
  EXPECT_NEAR(t.max_abs_error, 0.5, 1e-6);
  EXPECT_NEAR(t.max_rel_error, 0.25, 1e-6);
}

TEST(OutputCheck, MatchedRatioAndNonFiniteDecidePassing) {
  task::Tolerance strict;  // required_matched_ratio 1.0
  ComparisonTotals clean{.elements = 100};
  EXPECT_TRUE(make_output_check("C", clean, strict).passed);
  EXPECT_DOUBLE_EQ(make_output_check("C", clean, strict).matched_ratio, 1.0);

  ComparisonTotals one_bad{.elements = 100, .mismatches = 1, .first_bad_index = 7};
  OutputCheck check = make_output_check("C", one_bad, strict);
  EXPECT_FALSE(check.passed);
  EXPECT_DOUBLE_EQ(check.matched_ratio, 0.99);
  EXPECT_EQ(check.first_bad_index, 7);

  task::Tolerance lenient{.required_matched_ratio = 0.95};
  EXPECT_TRUE(make_output_check("C", one_bad, lenient).passed);
  ComparisonTotals one_nan{.elements = 100, .mismatches = 1, .nan_count = 1};
  EXPECT_FALSE(make_output_check("C", one_nan, lenient).passed);  // NaN never passes
}

TEST(OutputCheck, NeverWrittenMeansEveryElementIsNan) {
  EXPECT_TRUE(never_written(ComparisonTotals{.elements = 4, .mismatches = 4, .nan_count = 4}));
  EXPECT_FALSE(never_written(ComparisonTotals{.elements = 4, .mismatches = 3, .nan_count = 3}));
  EXPECT_FALSE(never_written(ComparisonTotals{}));
}

TEST(OutputCheck, TotalsRoundTripThroughJson) {
  ComparisonTotals t{.elements = 10,
                     .mismatches = 2,
                     .nan_count = 1,
                     .inf_count = 0,
                     .max_abs_error = 0.5,
                     .max_rel_error = 2.0,
                     .first_bad_index = 3};
  ComparisonTotals back = totals_from_json(to_json(t));
  EXPECT_EQ(back.elements, 10);
  EXPECT_EQ(back.mismatches, 2);
  EXPECT_EQ(back.first_bad_index, 3);
  EXPECT_DOUBLE_EQ(back.max_rel_error, 2.0);
  EXPECT_EQ(totals_from_json(nlohmann::json("garbage")).elements, 0);
}

TEST(Bfloat16, ConversionRoundsToNearestEven) {
  EXPECT_EQ(float_to_bfloat16(1.0f), 0x3f80);
  EXPECT_FLOAT_EQ(bfloat16_to_float(0x3f80), 1.0f);
  EXPECT_FLOAT_EQ(bfloat16_to_float(float_to_bfloat16(3.140625f)), 3.140625f);
  // 1 + 2^-8 lies halfway between two bf16 values: ties go to the even one (1.0).
  EXPECT_EQ(float_to_bfloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(kNan))));
}

}  // namespace
}  // namespace ptxbench::eval::worker
