#include "ptxbench/eval/correctness/accuracy_element.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ptxbench/eval/correctness/element_rule.hpp"

namespace ptxbench::eval::correctness {
namespace {

TEST(AccuracyElement, CandidateLosesOnlyBeyondTwiceTheLibrarysErrorPlusTheTolerance) {
  ElementBudget budget{.factor = 2, .atol = 0.01, .rtol = 0.01};
  // reference 1: budget for the candidate = 2 · 0.1 + 0.01 + 0.01 = 0.22
  EXPECT_FALSE(loses_duel(0.21, 0.1, 1.0, budget));
  EXPECT_TRUE(loses_duel(0.23, 0.1, 1.0, budget));
  // where the library is exact, the original tolerance (against the truth) is the budget
  EXPECT_FALSE(loses_duel(0.019, 0.0, 1.0, budget));
  EXPECT_TRUE(loses_duel(0.021, 0.0, 1.0, budget));
}

TEST(AccuracyElement, ClassifiesBothSidesOfTheDuel) {
  ElementBudget budget;
  ElementAccuracy e =
      classify_element(/*candidate=*/1.5, /*library=*/1.0, /*reference=*/1.0, budget);
  EXPECT_TRUE(e.compared);
  EXPECT_TRUE(e.candidate_finite);
  EXPECT_DOUBLE_EQ(e.candidate_error, 0.5);
  EXPECT_DOUBLE_EQ(e.library_error, 0.0);
  EXPECT_TRUE(e.candidate_lost);
  EXPECT_FALSE(e.library_lost);
  ElementAccuracy swapped = classify_element(1.0, 1.5, 1.0, budget);
  EXPECT_FALSE(swapped.candidate_lost);
  EXPECT_TRUE(swapped.library_lost);
}

TEST(AccuracyElement, NonFiniteValuesAreSetApart) {
  ElementBudget budget;
  EXPECT_FALSE(classify_element(1.0, 1.0, NAN, budget).compared);
  EXPECT_FALSE(classify_element(1.0, INFINITY, 1.0, budget).compared);
  ElementAccuracy nan_candidate = classify_element(NAN, 1.0, 1.0, budget);
  EXPECT_TRUE(nan_candidate.compared);
  EXPECT_FALSE(nan_candidate.candidate_finite);
  EXPECT_FALSE(nan_candidate.candidate_lost);  // counted as non-finite, not as a duel
}

// The claim of accuracy_element.hpp: an element within the original rule of the library never
// loses its duel (k >= 1 + rtol).
TEST(AccuracyElement, NeverStricterThanTheOriginalElementRule) {
  std::mt19937_64 random(42);
  std::normal_distribution<double> normal(0, 1);
  std::uniform_real_distribution<double> unit(-1, 1);
  ElementBudget budget{.factor = 2, .atol = 0.01, .rtol = 0.01};
  int checked = 0;
  for (int i = 0; i < 200000; ++i) {
    double reference = normal(random) * std::pow(10.0, unit(random) * 3);
    double library = reference * (1 + 0.05 * unit(random)) + 0.05 * unit(random);
    double candidate = library * (1 + 0.02 * unit(random)) + 0.02 * unit(random);
    if (worker::judge_element(candidate, library, 0.01, 0.01) != worker::ElementOutcome::kMatch)
      continue;
    ++checked;
    ASSERT_FALSE(classify_element(candidate, library, reference, budget).candidate_lost)
        << "c=" << candidate << " l=" << library << " r=" << reference;
  }
  EXPECT_GT(checked, 10000);
}

}  // namespace
}  // namespace ptxbench::eval::correctness
