#include "ptxbench/eval/correctness/accuracy_totals.hpp"

#include <algorithm>

namespace ptxbench::eval::correctness {
namespace {

nlohmann::json sums_json(const ErrorSums& s) {
  return {{"max_abs", s.max_abs}, {"sum_abs", s.sum_abs}, {"sum_squares", s.sum_squares}};
}

ErrorSums sums_from_json(const nlohmann::json& j) {
  ErrorSums s;
  if (!j.is_object()) return s;
  s.max_abs = j.value("max_abs", 0.0);
  s.sum_abs = j.value("sum_abs", 0.0);
  s.sum_squares = j.value("sum_squares", 0.0);
  return s;
}

}  // namespace

void ErrorSums::merge(const ErrorSums& other) {
  max_abs = std::max(max_abs, other.max_abs);
  sum_abs += other.sum_abs;
  sum_squares += other.sum_squares;
}

void AccuracyTotals::merge(const AccuracyTotals& other) {
  if (first_lost_index < 0 && other.first_lost_index >= 0) {
    first_lost_index = elements + other.first_lost_index;
  }
  elements += other.elements;
  compared += other.compared;
  candidate_non_finite += other.candidate_non_finite;
  candidate.merge(other.candidate);
  library.merge(other.library);
  reference.merge(other.reference);
  candidate_duels_lost += other.candidate_duels_lost;
  library_duels_lost += other.library_duels_lost;
}

nlohmann::json to_json(const AccuracyTotals& t) {
  return {{"elements", t.elements},
          {"compared", t.compared},
          {"candidate_non_finite", t.candidate_non_finite},
          {"candidate_error", sums_json(t.candidate)},
          {"library_error", sums_json(t.library)},
          {"reference_magnitude", sums_json(t.reference)},
          {"candidate_duels_lost", t.candidate_duels_lost},
          {"library_duels_lost", t.library_duels_lost},
          {"first_lost_index", t.first_lost_index}};
}

AccuracyTotals accuracy_totals_from_json(const nlohmann::json& j) {
  AccuracyTotals t;
  if (!j.is_object()) return t;
  t.elements = j.value("elements", std::int64_t{0});
  t.compared = j.value("compared", std::int64_t{0});
  t.candidate_non_finite = j.value("candidate_non_finite", std::int64_t{0});
  t.candidate = sums_from_json(j.value("candidate_error", nlohmann::json{}));
  t.library = sums_from_json(j.value("library_error", nlohmann::json{}));
  t.reference = sums_from_json(j.value("reference_magnitude", nlohmann::json{}));
  t.candidate_duels_lost = j.value("candidate_duels_lost", std::int64_t{0});
  t.library_duels_lost = j.value("library_duels_lost", std::int64_t{0});
  t.first_lost_index = j.value("first_lost_index", std::int64_t{-1});
  return t;
}

AccuracyTotals accumulate_on_cpu(std::span<const float> candidate, std::span<const float> library,
                                 std::span<const float> reference, const ElementBudget& budget) {
  AccuracyTotals t;
  std::size_t n = std::min({candidate.size(), library.size(), reference.size()});
  t.elements = static_cast<std::int64_t>(n);
  for (std::size_t i = 0; i < n; ++i) {
    ElementAccuracy e = classify_element(candidate[i], library[i], reference[i], budget);
    if (!e.compared) continue;
    ++t.compared;
    t.library.add(e.library_error);
    t.reference.add(e.reference_magnitude);
    if (!e.candidate_finite) {
      ++t.candidate_non_finite;
      continue;
    }
    t.candidate.add(e.candidate_error);
    if (e.library_lost) ++t.library_duels_lost;
    if (e.candidate_lost) {
      ++t.candidate_duels_lost;
      if (t.first_lost_index < 0) t.first_lost_index = static_cast<std::int64_t>(i);
    }
  }
  return t;
}

}  // namespace ptxbench::eval::correctness
