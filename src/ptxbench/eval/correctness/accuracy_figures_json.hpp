// JSON form of AccuracyFigures, as the evaluation record holds them (docs/result-schema.md):
// {"max_abs": {"candidate", "library", "budget"}, "mean_abs": {...},
//  "relative_frobenius": {...}, "candidate_duels_lost", "library_duels_lost",
//  "allowed_duels_lost", "first_lost_index", "candidate_non_finite", "compared", "passed"}.
#pragma once
#include <nlohmann/json.hpp>

#include "ptxbench/eval/correctness/accuracy_rule.hpp"

namespace ptxbench::eval::correctness {

nlohmann::json to_json(const AccuracyFigures& figures);
// Missing fields keep their defaults; a non-object gives default figures (not passed).
AccuracyFigures accuracy_figures_from_json(const nlohmann::json& json);

}  // namespace ptxbench::eval::correctness
