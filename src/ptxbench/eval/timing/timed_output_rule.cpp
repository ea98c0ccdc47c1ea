#include "ptxbench/eval/timing/timed_output_rule.hpp"

#include <fmt/format.h>

namespace ptxbench::eval::timing {
namespace {

std::int64_t allowed_mismatches(const worker::ComparisonTotals& totals) {
  return totals.elements / kTimedOutputElementsPerMismatch;
}

}  // namespace

bool timed_output_agrees(const worker::ComparisonTotals& totals) {
  return totals.elements > 0 && totals.nan_count == 0 && totals.inf_count == 0 &&
         totals.mismatches <= allowed_mismatches(totals);
}

std::string describe_timed_output(const std::string& name, const worker::ComparisonTotals& totals) {
  std::string text = fmt::format("{}: {} of {} elements differ (allowed {})", name,
                                 totals.mismatches, totals.elements, allowed_mismatches(totals));
  if (totals.nan_count + totals.inf_count > 0)
    text += fmt::format(", {} NaN, {} Inf", totals.nan_count, totals.inf_count);
  return text;
}

}  // namespace ptxbench::eval::timing
