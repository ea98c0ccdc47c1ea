#include "ptxbench/eval/correctness/accuracy_rule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace ptxbench::eval::correctness {
namespace {

double mean(double sum, std::int64_t count) {
  return count > 0 ? sum / static_cast<double>(count) : 0.0;
}

// ‖e‖ / ‖r‖, or ‖e‖ alone where the reference is all zeros.
double relative_norm(double error_squares, double reference_squares) {
  double error = std::sqrt(error_squares);
  return reference_squares > 0 ? error / std::sqrt(reference_squares) : error;
}

AggregateFigure figure(double candidate, double library, double floor) {
  return AggregateFigure{
      .candidate = candidate, .library = library, .budget = kLibraryErrorFactor * library + floor};
}

// P(X >= lost) for X ~ Binomial(lost + won, 1/2): the chance that an implementation exactly as
// accurate as the library loses at least `lost` of the duels that one of the two lost. Exact
// (log-space terms) up to 2000 duels, the normal approximation with continuity correction above.
double chance_of_losing_at_least(std::int64_t lost, std::int64_t won) {
  const std::int64_t n = lost + won;
  if (lost <= 0) return 1.0;
  if (n > 2000) {
    const double half = static_cast<double>(n) / 2;
    const double z = (static_cast<double>(lost) - 0.5 - half) / std::sqrt(half / 2);
    return 0.5 * std::erfc(z / std::sqrt(2.0));
  }
  const double log_choose_all = std::lgamma(static_cast<double>(n) + 1);
  double tail = 0;
  for (std::int64_t i = lost; i <= n; ++i) {
    tail += std::exp(log_choose_all - std::lgamma(static_cast<double>(i) + 1) -
                     std::lgamma(static_cast<double>(n - i) + 1) -
                     static_cast<double>(n) * std::log(2.0));
  }
  return std::min(tail, 1.0);
}

}  // namespace

std::int64_t duels_lost_allowance(std::int64_t library_duels_lost) {
  auto allowed =
      static_cast<std::int64_t>(kLibraryErrorFactor * static_cast<double>(library_duels_lost));
  // Beyond k·L, as many more as chance explains (a one-sided sign test): with few duels lost
  // on either side the ratio says nothing; with many, k·L is the looser bound and decides.
  while (chance_of_losing_at_least(allowed + 1, library_duels_lost) >= kDuelChanceLevel) {
    ++allowed;
  }
  return allowed;
}

double output_resolution(task::DType dtype) {
  switch (dtype) {
    case task::DType::kBFloat16:
      return std::ldexp(1.0, -8);
    case task::DType::kFloat16:
      return std::ldexp(1.0, -11);
    case task::DType::kFloat32:
      return std::ldexp(1.0, -16);
    case task::DType::kFloat8E4M3:
      return std::ldexp(1.0, -4);
    case task::DType::kFloat8E5M2:
      return std::ldexp(1.0, -3);
    case task::DType::kInt32:
    case task::DType::kInt64:
      return 0.0;
  }
  return 0.0;
}

AccuracyFigures judge_accuracy(const AccuracyTotals& t, task::DType dtype) {
  const double u = output_resolution(dtype);
  // The candidate's mean is over its finite elements; any non-finite one fails on its own.
  const std::int64_t candidate_count = t.compared - t.candidate_non_finite;
  AccuracyFigures f;
  f.max_abs = figure(t.candidate.max_abs, t.library.max_abs, u * t.reference.max_abs);
  f.mean_abs =
      figure(mean(t.candidate.sum_abs, candidate_count), mean(t.library.sum_abs, t.compared),
             u * mean(t.reference.sum_abs, t.compared));
  f.relative_frobenius = figure(relative_norm(t.candidate.sum_squares, t.reference.sum_squares),
                                relative_norm(t.library.sum_squares, t.reference.sum_squares), u);
  f.candidate_duels_lost = t.candidate_duels_lost;
  f.library_duels_lost = t.library_duels_lost;
  f.allowed_duels_lost = duels_lost_allowance(t.library_duels_lost);
  f.first_lost_index = t.first_lost_index;
  f.candidate_non_finite = t.candidate_non_finite;
  f.compared = t.compared;
  f.passed = t.compared > 0 && t.candidate_non_finite == 0 && f.max_abs.within() &&
             f.mean_abs.within() && f.relative_frobenius.within() &&
             f.candidate_duels_lost <= f.allowed_duels_lost;
  return f;
}

std::string accuracy_failure(const AccuracyFigures& f) {
  if (f.passed) return "";
  std::vector<std::string> reasons;
  if (f.compared == 0) reasons.push_back("no element could be compared");
  if (f.candidate_non_finite > 0)
    reasons.push_back(fmt::format("{} NaN/Inf elements", f.candidate_non_finite));
  auto aggregate = [&](const char* name, const AggregateFigure& a) {
    if (!a.within())
      reasons.push_back(fmt::format("{} {:.4g} > budget {:.4g} (library {:.4g})", name, a.candidate,
                                    a.budget, a.library));
  };
  aggregate("max abs error", f.max_abs);
  aggregate("mean abs error", f.mean_abs);
  aggregate("relative Frobenius error", f.relative_frobenius);
  if (f.candidate_duels_lost > f.allowed_duels_lost)
    reasons.push_back(fmt::format("{} elements less accurate than the library's (allowed {})",
                                  f.candidate_duels_lost, f.allowed_duels_lost));
  return fmt::format("{}", fmt::join(reasons, "; "));
}

std::string accuracy_summary(const AccuracyFigures& f) {
  return fmt::format(
      "vs high-precision reference: max abs {:.3g} (library {:.3g}), mean abs {:.3g} (library "
      "{:.3g}), rel Frobenius {:.3g} (library {:.3g}); elements less accurate than the library "
      "{} (library vs candidate {})",
      f.max_abs.candidate, f.max_abs.library, f.mean_abs.candidate, f.mean_abs.library,
      f.relative_frobenius.candidate, f.relative_frobenius.library, f.candidate_duels_lost,
      f.library_duels_lost);
}

}  // namespace ptxbench::eval::correctness
