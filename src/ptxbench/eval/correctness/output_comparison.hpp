// Totals of the element rule over one output, how they become the record's OutputCheck, and a
// CPU implementation of the rule (the reference the GPU comparison kernel is tested against).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/task/task.hpp"

namespace ptxbench::eval::worker {

struct ComparisonTotals {
  std::int64_t elements = 0;
  std::int64_t mismatches = 0;  // elements failing the rule, NaN and Inf included
  std::int64_t nan_count = 0;
  std::int64_t inf_count = 0;
  double max_abs_error = 0;  // over elements where both values are finite
  double max_rel_error = 0;
  std::int64_t first_bad_index = -1;
};

nlohmann::json to_json(const ComparisonTotals& totals);
ComparisonTotals totals_from_json(const nlohmann::json& json);  // missing fields stay 0 / -1

// Passes when no element is NaN/Inf (against a finite reference) and the share of matching
// elements reaches the task's required ratio.
OutputCheck make_output_check(const std::string& name, const ComparisonTotals& totals,
                              const task::Tolerance& tolerance);

// True when every element is NaN: the candidate never wrote the (poisoned) output.
bool never_written(const ComparisonTotals& totals);

ComparisonTotals compare_on_cpu(std::span<const float> candidate, std::span<const float> reference,
                                double atol, double rtol);

// bfloat16 <-> float (round to nearest even), for tests and host-side checks.
float bfloat16_to_float(std::uint16_t bits);
std::uint16_t float_to_bfloat16(float value);

}  // namespace ptxbench::eval::worker
