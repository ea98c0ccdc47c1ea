// Balance arithmetic on hand-made sets whose answers are worked out by hand in the comments.
#include "ptxbench/fixit/balance.hpp"

#include <gtest/gtest.h>

#include <map>

#include "fixit_samples.hpp"

namespace ptxbench::fixit {
namespace {

using eval::Verdict;
using testing::mined_row;

std::vector<MinedRow> rows_with(const std::string& task,
                                std::vector<std::pair<Verdict, int>> strata, int& serial) {
  std::vector<MinedRow> rows;
  for (auto [verdict, count] : strata)
    for (int i = 0; i < count; ++i) rows.push_back(mined_row(task, verdict, 1, serial++));
  return rows;
}

std::map<std::string, int> taken_per_stratum(const Selection& selection, const std::string& task) {
  std::map<std::string, int> out;
  for (const auto& [key, count] : selection.strata.at(task)) out[key] = count.taken;
  return out;
}

TEST(LargestRemainder, QuotasOfTenSeatsByHand) {
  // sizes 5,3,2 and 4 seats: quotas 2.0, 1.2, 0.8 -> floors 2,1,0; the one seat left goes to the
  // largest remainder (0.8).
  EXPECT_EQ(largest_remainder({5, 3, 2}, 4, {0, 1, 2}), (std::vector<int>{2, 1, 1}));
  // sizes 6,3,1 and 7 seats: 4.2, 2.1, 0.7 -> 4,2,0 + 1 to the third.
  EXPECT_EQ(largest_remainder({6, 3, 1}, 7, {0, 1, 2}), (std::vector<int>{4, 2, 1}));
  // Exact quotas need no rounding.
  EXPECT_EQ(largest_remainder({4, 2}, 3, {0, 1}), (std::vector<int>{2, 1}));
  // More seats than rows: everything.
  EXPECT_EQ(largest_remainder({2, 1}, 10, {0, 1}), (std::vector<int>{2, 1}));
  EXPECT_EQ(largest_remainder({}, 3, {}), (std::vector<int>{}));
  EXPECT_EQ(largest_remainder({3, 3}, 0, {0, 1}), (std::vector<int>{0, 0}));
}

TEST(LargestRemainder, TiesGoToTheLargerGroupThenToTheTieOrder) {
  // sizes 2,4 with 3 seats: 1.0, 2.0 exact. sizes 3,1 with 2 seats: 1.5, 0.5 -> 1,0 and both
  // remainders 0.5: the larger group (3) gets it.
  EXPECT_EQ(largest_remainder({3, 1}, 2, {1, 0}), (std::vector<int>{2, 0}));
  // Equal sizes, equal remainders: the lower tie rank wins.
  EXPECT_EQ(largest_remainder({1, 1}, 1, {5, 2}), (std::vector<int>{0, 1}));
  EXPECT_EQ(largest_remainder({1, 1}, 1, {2, 5}), (std::vector<int>{1, 0}));
}

TEST(Balance, PerTaskCapKeepsTheMixOfErrorKinds) {
  int serial = 0;
  auto rows = rows_with(
      "gemm_a",
      {{Verdict::kCompileError, 5}, {Verdict::kIncorrectNumerical, 3}, {Verdict::kTimeout, 2}},
      serial);
  auto more = rows_with("gemm_b", {{Verdict::kCompileError, 1}}, serial);
  rows.insert(rows.end(), more.begin(), more.end());
  Selection selection = balance(rows, {.name = "b", .per_task_cap = 4, .seed = 7});
  EXPECT_EQ(selection.ids.size(), 5u);  // 4 of gemm_a + the 1 of gemm_b
  auto a = taken_per_stratum(selection, "gemm_a");
  EXPECT_EQ(a["COMPILE_ERROR/turn-1"], 2);
  EXPECT_EQ(a["INCORRECT_NUMERICAL/turn-1"], 1);
  EXPECT_EQ(a["TIMEOUT/turn-1"], 1);
  EXPECT_EQ(selection.strata.at("gemm_a").at("COMPILE_ERROR/turn-1").available, 5);
  EXPECT_EQ(taken_per_stratum(selection, "gemm_b")["COMPILE_ERROR/turn-1"], 1);
}

TEST(Balance, TotalIsSplitOverTasksThenOverStrata) {
  int serial = 0;
  // gemm_a: 6 rows, gemm_b: 3, gemm_c: 1; total 5 -> 3.0, 1.5, 0.5 -> 3,1,0 + 1 seat for the
  // tie of 0.5 and 0.5: gemm_b is larger.
  auto rows = rows_with("gemm_a", {{Verdict::kCompileError, 6}}, serial);
  for (auto& extra : {rows_with("gemm_b", {{Verdict::kTimeout, 3}}, serial),
                      rows_with("gemm_c", {{Verdict::kTimeout, 1}}, serial)})
    rows.insert(rows.end(), extra.begin(), extra.end());
  Selection selection = balance(rows, {.name = "t", .total = 5});
  EXPECT_EQ(taken_per_stratum(selection, "gemm_a")["COMPILE_ERROR/turn-1"], 3);
  EXPECT_EQ(taken_per_stratum(selection, "gemm_b")["TIMEOUT/turn-1"], 2);
  EXPECT_EQ(taken_per_stratum(selection, "gemm_c")["TIMEOUT/turn-1"], 0);
}

TEST(Balance, StrataAreVerdictKindAndTurn) {
  std::vector<MinedRow> rows;
  for (int i = 0; i < 4; ++i) rows.push_back(mined_row("gemm_a", Verdict::kCompileError, 1, i));
  for (int i = 4; i < 8; ++i) rows.push_back(mined_row("gemm_a", Verdict::kCompileError, 2, i));
  Selection selection = balance(rows, {.name = "t", .per_task_cap = 2});
  auto a = taken_per_stratum(selection, "gemm_a");
  EXPECT_EQ(a["COMPILE_ERROR/turn-1"], 1);
  EXPECT_EQ(a["COMPILE_ERROR/turn-2"], 1);
}

TEST(Balance, SeededAndDeterministic) {
  int serial = 0;
  auto rows = rows_with("gemm_a", {{Verdict::kCompileError, 20}}, serial);
  Recipe recipe{.name = "s", .per_task_cap = 5, .seed = 1};
  EXPECT_EQ(balance(rows, recipe).ids, balance(rows, recipe).ids);
  bool differs = false;
  for (std::uint64_t seed = 2; seed < 12 && !differs; ++seed) {
    Recipe other = recipe;
    other.seed = seed;
    auto ids = balance(rows, other).ids;
    EXPECT_EQ(ids.size(), 5u);
    differs = ids != balance(rows, recipe).ids;
  }
  EXPECT_TRUE(differs) << "the seed never changed which rows were taken";
}

TEST(Balance, VolumeTakesEverything) {
  int serial = 0;
  auto rows = rows_with("gemm_a", {{Verdict::kCompileError, 7}, {Verdict::kTimeout, 2}}, serial);
  Selection selection =
      balance(rows, {.name = "v", .mode = RecipeMode::kVolume, .per_task_cap = 1});
  EXPECT_EQ(selection.ids.size(), 9u);
}

TEST(Recipe, BadFieldsAreNamed) {
  EXPECT_EQ(recipe_from_json({{"per_task_cap", 0}}).error().message,
            "per_task_cap: expected an integer from 1 to 2147483647 (got 0)");
  EXPECT_EQ(recipe_from_json({{"total", 4294967297LL}}).error().message,
            "total: expected an integer from 1 to 2147483647 (got 4294967297)");
  EXPECT_EQ(recipe_from_json({{"mode", "most"}}).error().message,
            "mode: expected balanced or volume, got most");
  EXPECT_EQ(recipe_from_json({{"cap", 3}}).error().message, "cap: unknown field");
  // A wrongly typed field is refused with its name, never read as its default.
  EXPECT_EQ(recipe_from_json({{"name", 3}}).error().message, "name: expected a string");
  EXPECT_EQ(recipe_from_json({{"mode", true}}).error().message, "mode: expected a string");
  EXPECT_EQ(recipe_from_json({{"total", "9"}}).error().message,
            "total: expected an integer from 1 to 2147483647 (got \"9\")");
  EXPECT_EQ(recipe_from_json({{"seed", -1}}).error().message,
            "seed: expected a non-negative integer (got -1)");
  EXPECT_EQ(recipe_from_json({{"seed", 1.5}}).error().message,
            "seed: expected a non-negative integer (got 1.5)");
  EXPECT_EQ(recipe_from_json(nlohmann::json::array()).error().message, "expected a mapping");
  auto recipe = recipe_from_json({{"name", "x"}, {"total", 9}, {"seed", 4}});
  ASSERT_TRUE(recipe);
  auto again = recipe_from_json(to_json(*recipe));
  ASSERT_TRUE(again);
  EXPECT_EQ(to_json(*again), to_json(*recipe));
}

TEST(Selection, RoundTrips) {
  int serial = 0;
  auto rows = rows_with("gemm_a", {{Verdict::kCompileError, 3}}, serial);
  Selection selection = balance(rows, {.name = "r", .per_task_cap = 2});
  auto back = selection_from_json(to_json(selection));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(to_json(*back), to_json(selection));
}

TEST(Selection, BadFieldsAreNamed) {
  int serial = 0;
  auto rows = rows_with("gemm_a", {{Verdict::kCompileError, 3}}, serial);
  const nlohmann::json good = to_json(balance(rows, {.name = "r", .per_task_cap = 2}));
  auto problem = [&good](const nlohmann::json& patch) {
    auto bad = selection_from_json(good.patch(patch));
    return bad ? std::string("accepted") : bad.error().message;
  };
  const std::string stratum = "/strata/gemm_a/COMPILE_ERROR~1turn-1";
  EXPECT_EQ(problem({{{"op", "replace"}, {"path", stratum + "/taken"}, {"value", "2"}}}),
            "strata.gemm_a.COMPILE_ERROR/turn-1.taken: expected an integer from 0 to 2147483647 "
            "(got \"2\")");
  EXPECT_EQ(problem({{{"op", "add"}, {"path", stratum + "/kept"}, {"value", 1}}}),
            "strata.gemm_a.COMPILE_ERROR/turn-1.kept: unknown field");
  EXPECT_EQ(problem({{{"op", "replace"}, {"path", "/strata/gemm_a"}, {"value", 1}}}),
            "strata.gemm_a: expected a mapping");
  EXPECT_EQ(problem({{{"op", "replace"}, {"path", "/ids/1"}, {"value", 7}}}),
            "ids[1]: expected a string");
  EXPECT_EQ(problem({{{"op", "replace"}, {"path", "/ids"}, {"value", "all"}}}),
            "ids: expected a list");
  EXPECT_EQ(problem({{{"op", "remove"}, {"path", "/ids"}}}), "ids: required");
  EXPECT_EQ(problem({{{"op", "replace"}, {"path", "/recipe/seed"}, {"value", "4"}}}),
            "recipe: seed: expected a non-negative integer (got \"4\")");
  EXPECT_EQ(problem({{{"op", "add"}, {"path", "/note"}, {"value", ""}}}), "note: unknown field");
  EXPECT_EQ(problem(nlohmann::json::array()), "accepted");
}

}  // namespace
}  // namespace ptxbench::fixit
