#include "ptxbench/eval/correctness/accuracy_figures_json.hpp"

namespace ptxbench::eval::correctness {
namespace {

nlohmann::json aggregate_json(const AggregateFigure& a) {
  return {{"candidate", a.candidate}, {"library", a.library}, {"budget", a.budget}};
}

AggregateFigure aggregate_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return {};
  return AggregateFigure{.candidate = j.value("candidate", 0.0),
                         .library = j.value("library", 0.0),
                         .budget = j.value("budget", 0.0)};
}

}  // namespace

nlohmann::json to_json(const AccuracyFigures& f) {
  return {{"max_abs", aggregate_json(f.max_abs)},
          {"mean_abs", aggregate_json(f.mean_abs)},
          {"relative_frobenius", aggregate_json(f.relative_frobenius)},
          {"candidate_duels_lost", f.candidate_duels_lost},
          {"library_duels_lost", f.library_duels_lost},
          {"allowed_duels_lost", f.allowed_duels_lost},
          {"first_lost_index", f.first_lost_index},
          {"candidate_non_finite", f.candidate_non_finite},
          {"compared", f.compared},
          {"passed", f.passed}};
}

AccuracyFigures accuracy_figures_from_json(const nlohmann::json& j) {
  AccuracyFigures f;
  if (!j.is_object()) return f;
  f.max_abs = aggregate_from_json(j.value("max_abs", nlohmann::json{}));
  f.mean_abs = aggregate_from_json(j.value("mean_abs", nlohmann::json{}));
  f.relative_frobenius = aggregate_from_json(j.value("relative_frobenius", nlohmann::json{}));
  f.candidate_duels_lost = j.value("candidate_duels_lost", std::int64_t{0});
  f.library_duels_lost = j.value("library_duels_lost", std::int64_t{0});
  f.allowed_duels_lost = j.value("allowed_duels_lost", std::int64_t{0});
  f.first_lost_index = j.value("first_lost_index", std::int64_t{-1});
  f.candidate_non_finite = j.value("candidate_non_finite", std::int64_t{0});
  f.compared = j.value("compared", std::int64_t{0});
  f.passed = j.value("passed", false);
  return f;
}

}  // namespace ptxbench::eval::correctness
