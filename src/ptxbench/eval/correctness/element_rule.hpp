// The element rule of correctness, one definition for the GPU comparison kernel and the CPU
// reference used to test it: an element fails iff it is not finite (unless the reference holds
// the same non-finite value) or |x - y| > atol AND |x - y| / (|y| + 1e-8) > rtol.
#pragma once
#include <cmath>

#if defined(__CUDACC__)
#define PTXBENCH_HOST_DEVICE __host__ __device__
#else
#define PTXBENCH_HOST_DEVICE
#endif

namespace ptxbench::eval::worker {

inline constexpr double kRelativeErrorEpsilon = 1e-8;

enum class ElementOutcome { kMatch, kMismatch, kNan, kInf };

struct ElementErrors {
  double abs_error = 0;
  double rel_error = 0;
};

PTXBENCH_HOST_DEVICE inline ElementErrors element_errors(double x, double y) {
  double diff = std::fabs(x - y);
  return ElementErrors{diff, diff / (std::fabs(y) + kRelativeErrorEpsilon)};
}

// x: the candidate's value, y: the reference's.
PTXBENCH_HOST_DEVICE inline ElementOutcome judge_element(double x, double y, double atol,
                                                         double rtol) {
  if (std::isnan(x)) return std::isnan(y) ? ElementOutcome::kMatch : ElementOutcome::kNan;
  if (std::isinf(x))
    return (std::isinf(y) && (x > 0) == (y > 0)) ? ElementOutcome::kMatch : ElementOutcome::kInf;
  if (!std::isfinite(y)) return ElementOutcome::kMismatch;
  ElementErrors e = element_errors(x, y);
  return (e.abs_error > atol && e.rel_error > rtol) ? ElementOutcome::kMismatch
                                                    : ElementOutcome::kMatch;
}

}  // namespace ptxbench::eval::worker
