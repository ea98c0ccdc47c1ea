#include "ptxbench/eval/correctness/accuracy_totals.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace ptxbench::eval::correctness {
namespace {

TEST(AccuracyTotals, SumsTheErrorsOfBothAgainstTheReference) {
  std::vector<float> reference{1, -2, 4, 0};
  std::vector<float> library{1.5f, -2, 4, 0.25f};
  std::vector<float> candidate{1, -3, 4, NAN};
  AccuracyTotals t = accumulate_on_cpu(candidate, library, reference, ElementBudget{});
  EXPECT_EQ(t.elements, 4);
  EXPECT_EQ(t.compared, 4);
  EXPECT_EQ(t.candidate_non_finite, 1);
  EXPECT_DOUBLE_EQ(t.candidate.max_abs, 1.0);
  EXPECT_DOUBLE_EQ(t.candidate.sum_abs, 1.0);
  EXPECT_DOUBLE_EQ(t.library.max_abs, 0.5);
  EXPECT_DOUBLE_EQ(t.library.sum_abs, 0.75);
  EXPECT_DOUBLE_EQ(t.library.sum_squares, 0.25 + 0.0625);
  EXPECT_DOUBLE_EQ(t.reference.max_abs, 4.0);
  EXPECT_DOUBLE_EQ(t.reference.sum_squares, 21.0);
  EXPECT_EQ(t.candidate_duels_lost, 1);  // element 1: 1.0 > 2·0 + 0.01 + 0.02
  EXPECT_EQ(t.library_duels_lost, 1);    // element 0: 0.5 > 2·0 + 0.01 + 0.01
  EXPECT_EQ(t.first_lost_index, 1);
}

TEST(AccuracyTotals, ChunksMergeToTheWhole) {
  std::vector<float> reference, library, candidate;
  for (int i = 0; i < 1000; ++i) {
    reference.push_back(std::sin(0.1f * static_cast<float>(i)) * 10);
    library.push_back(reference.back() + 0.01f * std::cos(static_cast<float>(i)));
    candidate.push_back(reference.back() + (i % 97 == 50 ? 1.0f : 0.002f));
  }
  ElementBudget budget;
  AccuracyTotals whole = accumulate_on_cpu(candidate, library, reference, budget);
  AccuracyTotals merged;
  for (std::size_t begin = 0; begin < reference.size(); begin += 300) {
    std::size_t count = std::min<std::size_t>(300, reference.size() - begin);
    merged.merge(accumulate_on_cpu(std::span(candidate).subspan(begin, count),
                                   std::span(library).subspan(begin, count),
                                   std::span(reference).subspan(begin, count), budget));
  }
  EXPECT_EQ(merged.elements, whole.elements);
  EXPECT_EQ(merged.candidate_duels_lost, whole.candidate_duels_lost);
  EXPECT_EQ(merged.first_lost_index, whole.first_lost_index);
  EXPECT_EQ(whole.first_lost_index, 50);
  EXPECT_DOUBLE_EQ(merged.candidate.max_abs, whole.candidate.max_abs);
  EXPECT_NEAR(merged.candidate.sum_abs, whole.candidate.sum_abs, 1e-9);
  EXPECT_NEAR(merged.library.sum_squares, whole.library.sum_squares, 1e-9);
}

TEST(AccuracyTotals, JsonRoundTrip) {
  AccuracyTotals t;
  t.elements = 10;
  t.compared = 9;
  t.candidate_non_finite = 1;
  t.candidate = {.max_abs = 0.5, .sum_abs = 1.5, .sum_squares = 0.75};
  t.library = {.max_abs = 0.25, .sum_abs = 1, .sum_squares = 0.125};
  t.reference = {.max_abs = 8, .sum_abs = 20, .sum_squares = 100};
  t.candidate_duels_lost = 3;
  t.library_duels_lost = 2;
  t.first_lost_index = 4;
  AccuracyTotals back = accuracy_totals_from_json(to_json(t));
  EXPECT_EQ(to_json(back), to_json(t));
  EXPECT_EQ(accuracy_totals_from_json(nlohmann::json("bad")).first_lost_index, -1);
}

}  // namespace
}  // namespace ptxbench::eval::correctness
