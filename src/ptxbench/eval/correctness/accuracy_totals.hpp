// What one pass over an output gathers for the "as accurate as the library" rule: sums of the
// candidate's and the library's errors against the high-precision reference, the reference's
// own magnitude, and the element duels (accuracy_element.hpp). Every field is a count, a sum or
// a maximum, so totals of chunks (GPU blocks, trials) merge exactly and 50M-element outputs are
// reduced in one streaming pass.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>

#include "ptxbench/eval/correctness/accuracy_element.hpp"

namespace ptxbench::eval::correctness {

struct ErrorSums {
  double max_abs = 0;
  double sum_abs = 0;
  double sum_squares = 0;

  void add(double abs_value) {
    max_abs = abs_value > max_abs ? abs_value : max_abs;
    sum_abs += abs_value;
    sum_squares += abs_value * abs_value;
  }
  void merge(const ErrorSums& other);
};

struct AccuracyTotals {
  std::int64_t elements = 0;              // every element of the output
  std::int64_t compared = 0;              // elements where the reference and the library are finite
  std::int64_t candidate_non_finite = 0;  // NaN/Inf in the candidate where the reference is finite
  ErrorSums candidate;                    // |c - r| over compared elements with a finite c
  ErrorSums library;                      // |l - r| over compared elements
  ErrorSums reference;                    // |r| over compared elements
  std::int64_t candidate_duels_lost = 0;
  std::int64_t library_duels_lost = 0;
  std::int64_t first_lost_index = -1;  // flat index of the candidate's first lost duel

  void merge(const AccuracyTotals& other);  // `other` covers later elements than *this
};

nlohmann::json to_json(const AccuracyTotals& totals);
// Missing fields stay 0 / -1; a non-object gives empty totals.
AccuracyTotals accuracy_totals_from_json(const nlohmann::json& json);

// The CPU implementation of the pass (the reference the GPU kernel is tested against).
AccuracyTotals accumulate_on_cpu(std::span<const float> candidate, std::span<const float> library,
                                 std::span<const float> reference, const ElementBudget& budget);

}  // namespace ptxbench::eval::correctness
