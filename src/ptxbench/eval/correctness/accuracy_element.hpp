// The element-wise half of the "as accurate as the library" rule, one definition for the GPU
// reduction kernel and the CPU implementation that tests it. Errors are measured against the
// high-precision reference r; c is the candidate's value, l the library's:
//   c loses the element's duel iff |c - r| > k·|l - r| + atol + rtol·|r|
// and the library loses it iff the same holds with c and l swapped. With k >= 1 + rtol an
// element within the original element rule of the library (|c - l| <= atol or <= rtol·|l|)
// never loses, so this half is never stricter than "matches the library" element by element.
#pragma once
#include <cmath>

#if defined(__CUDACC__)
#define PTXBENCH_ACCURACY_HOST_DEVICE __host__ __device__
#else
#define PTXBENCH_ACCURACY_HOST_DEVICE
#endif

namespace ptxbench::eval::correctness {

struct ElementBudget {
  double factor = 2;  // k: how many times the library's own error the candidate may have
  double atol = 1e-2;
  double rtol = 1e-2;
};

// Whether an implementation with error `own_error` loses against one with `other_error` at an
// element whose reference value has magnitude `reference_magnitude`.
PTXBENCH_ACCURACY_HOST_DEVICE inline bool loses_duel(double own_error, double other_error,
                                                     double reference_magnitude,
                                                     const ElementBudget& budget) {
  return own_error > budget.factor * other_error + budget.atol + budget.rtol * reference_magnitude;
}

// One element classified: which sums it enters and who loses its duel. An element enters the
// comparison when the reference and the library are finite there; the candidate's errors count
// only where it is finite too (a non-finite candidate element is counted apart, and fails).
struct ElementAccuracy {
  bool compared = false;
  bool candidate_finite = false;
  double candidate_error = 0;
  double library_error = 0;
  double reference_magnitude = 0;
  bool candidate_lost = false;
  bool library_lost = false;
};

PTXBENCH_ACCURACY_HOST_DEVICE inline ElementAccuracy classify_element(double candidate,
                                                                      double library,
                                                                      double reference,
                                                                      const ElementBudget& budget) {
  ElementAccuracy e;
  if (!std::isfinite(reference) || !std::isfinite(library)) return e;
  e.compared = true;
  e.reference_magnitude = std::fabs(reference);
  e.library_error = std::fabs(library - reference);
  e.candidate_finite = std::isfinite(candidate);
  if (!e.candidate_finite) return e;
  e.candidate_error = std::fabs(candidate - reference);
  e.candidate_lost = loses_duel(e.candidate_error, e.library_error, e.reference_magnitude, budget);
  e.library_lost = loses_duel(e.library_error, e.candidate_error, e.reference_magnitude, budget);
  return e;
}

}  // namespace ptxbench::eval::correctness
