// Stage 2, balance: which mined rows to repair, by a declared recipe. `balanced` caps each task
// and splits its quota over the strata (verdict kind, turn) in proportion to their sizes with
// largest-remainder rounding, so each task keeps its mix of error kinds; `volume` takes every
// row. Ties in the remainders go to the larger stratum, then to the seeded order; rows within a
// stratum are taken in the seeded order (a hash of seed and row id, the same on every machine).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/fixit/rows.hpp"

namespace ptxbench::fixit {

enum class RecipeMode { kBalanced, kVolume };

struct Recipe {
  std::string name = "balanced";
  RecipeMode mode = RecipeMode::kBalanced;
  std::optional<int> per_task_cap;  // balanced: at most this many rows of one task
  std::optional<int> total;         // balanced: at most this many rows, split over tasks likewise
  std::uint64_t seed = 0;
};

// Unknown fields, a bad mode or a cap below 1 are errors naming the field.
util::Expected<Recipe> recipe_from_json(const nlohmann::json& json);
nlohmann::json to_json(const Recipe& recipe);

// Largest-remainder apportionment of `seats` over groups of the given sizes (seats <= the
// sum of sizes). `tie_order[i]`: rank of group i among equal remainders of equal size (lower
// first). The result never gives a group more than its size.
std::vector<int> largest_remainder(const std::vector<int>& sizes, int seats,
                                   const std::vector<std::uint64_t>& tie_order);

struct StratumCount {
  int available = 0;
  int taken = 0;
};

struct Selection {
  Recipe recipe;
  std::vector<std::string> ids;  // mined row ids, in mined order
  // task -> "<VERDICT>/turn-<N>" -> counts
  std::map<std::string, std::map<std::string, StratumCount>> strata;
};

Selection balance(const std::vector<MinedRow>& rows, const Recipe& recipe);

nlohmann::json to_json(const Selection& selection);
util::Expected<Selection> selection_from_json(const nlohmann::json& json);

}  // namespace ptxbench::fixit
