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

double ratio(const AggregateFigure& f) {
  if (f.budget > 0) return f.candidate / f.budget;
  return f.candidate > 0 ? INFINITY : 0.0;
}

}  // namespace

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

double AccuracyFigures::worst_ratio() const {
  return std::max({ratio(max_abs), ratio(mean_abs), ratio(relative_frobenius)});
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
  f.allowed_duels_lost =
      static_cast<std::int64_t>(kLibraryErrorFactor * static_cast<double>(t.library_duels_lost));
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
