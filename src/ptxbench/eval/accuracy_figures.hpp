// The figures of the accuracy rule ("as accurate as the library", eval/correctness/
// accuracy_rule.hpp computes them) as the record keeps them: here, so that the record
// (evaluation.hpp) needs nothing from the stage folders below it.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>

namespace ptxbench::eval {

struct AggregateFigure {
  double candidate = 0;  // the candidate's error against the high-precision reference
  double library = 0;    // the library's error against the same reference
  double budget = 0;     // k · library + the output's resolution at the reference's scale
  bool within() const { return candidate <= budget; }
  double ratio() const {
    if (budget > 0) return candidate / budget;
    return candidate > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  }
};

struct AccuracyFigures {
  AggregateFigure max_abs;
  AggregateFigure mean_abs;
  AggregateFigure relative_frobenius;  // ‖x − r‖₂ / ‖r‖₂
  std::int64_t candidate_duels_lost = 0;
  std::int64_t library_duels_lost = 0;
  std::int64_t allowed_duels_lost = 0;  // duels_lost_allowance(library_duels_lost)
  std::int64_t first_lost_index = -1;
  std::int64_t candidate_non_finite = 0;
  std::int64_t compared = 0;
  bool passed = false;

  // The largest candidate/budget ratio of the aggregates: which of two trials was worse.
  double worst_ratio() const {
    return std::max({max_abs.ratio(), mean_abs.ratio(), relative_frobenius.ratio()});
  }
};

}  // namespace ptxbench::eval
