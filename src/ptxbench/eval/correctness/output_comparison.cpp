#include "ptxbench/eval/correctness/output_comparison.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "ptxbench/eval/correctness/element_rule.hpp"

namespace ptxbench::eval::worker {

nlohmann::json to_json(const ComparisonTotals& t) {
  return nlohmann::json{{"elements", t.elements},
                        {"mismatches", t.mismatches},
                        {"nan_count", t.nan_count},
                        {"inf_count", t.inf_count},
                        {"max_abs_error", t.max_abs_error},
                        {"max_rel_error", t.max_rel_error},
                        {"first_bad_index", t.first_bad_index}};
}

ComparisonTotals totals_from_json(const nlohmann::json& j) {
  ComparisonTotals t;
  if (!j.is_object()) return t;
  t.elements = j.value("elements", std::int64_t{0});
  t.mismatches = j.value("mismatches", std::int64_t{0});
  t.nan_count = j.value("nan_count", std::int64_t{0});
  t.inf_count = j.value("inf_count", std::int64_t{0});
  t.max_abs_error = j.value("max_abs_error", 0.0);
  t.max_rel_error = j.value("max_rel_error", 0.0);
  t.first_bad_index = j.value("first_bad_index", std::int64_t{-1});
  return t;
}

OutputCheck make_output_check(const std::string& name, const ComparisonTotals& totals,
                              const task::Tolerance& tolerance) {
  OutputCheck check;
  check.name = name;
  check.max_abs_error = totals.max_abs_error;
  check.max_rel_error = totals.max_rel_error;
  check.matched_ratio = totals.elements == 0
                            ? 1.0
                            : static_cast<double>(totals.elements - totals.mismatches) /
                                  static_cast<double>(totals.elements);
  check.first_bad_index = totals.first_bad_index;
  check.nan_count = totals.nan_count;
  check.inf_count = totals.inf_count;
  check.passed = totals.nan_count == 0 && totals.inf_count == 0 &&
                 check.matched_ratio >= tolerance.required_matched_ratio;
  return check;
}

bool never_written(const ComparisonTotals& totals) {
  return totals.elements > 0 && totals.nan_count == totals.elements;
}

ComparisonTotals compare_on_cpu(std::span<const float> candidate, std::span<const float> reference,
                                double atol, double rtol) {
  ComparisonTotals t;
  t.elements = static_cast<std::int64_t>(std::min(candidate.size(), reference.size()));
  for (std::int64_t i = 0; i < t.elements; ++i) {
    double x = candidate[static_cast<std::size_t>(i)];
    double y = reference[static_cast<std::size_t>(i)];
    if (std::isfinite(x) && std::isfinite(y)) {
      ElementErrors e = element_errors(x, y);
      t.max_abs_error = std::max(t.max_abs_error, e.abs_error);
      t.max_rel_error = std::max(t.max_rel_error, e.rel_error);
    }
    ElementOutcome outcome = judge_element(x, y, atol, rtol);
    if (outcome == ElementOutcome::kMatch) continue;
    ++t.mismatches;
    if (outcome == ElementOutcome::kNan) ++t.nan_count;
    if (outcome == ElementOutcome::kInf) ++t.inf_count;
    if (t.first_bad_index < 0) t.first_bad_index = i;
  }
  return t;
}

float bfloat16_to_float(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

std::uint16_t float_to_bfloat16(float value) {
  auto bits = std::bit_cast<std::uint32_t>(value);
  if (std::isnan(value)) return static_cast<std::uint16_t>((bits >> 16) | 0x40);
  std::uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

}  // namespace ptxbench::eval::worker
