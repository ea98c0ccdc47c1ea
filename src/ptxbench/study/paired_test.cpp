#include "ptxbench/study/paired_test.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "ptxbench/report/statistics.hpp"

namespace ptxbench::study {

McNemar mcnemar_exact(int base_only, int tuned_only) {
  McNemar out{.base_only = base_only, .tuned_only = tuned_only};
  const int n = base_only + tuned_only;
  if (n == 0) return out;
  const int k = std::min(base_only, tuned_only);
  // P(X <= k) for X ~ Binomial(n, 1/2), summed in log space (n may be large).
  double tail = 0;
  for (int i = 0; i <= k; ++i)
    tail += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) -
                     n * std::log(2.0));
  out.p = std::min(1.0, 2 * tail);
  return out;
}

SignFlip sign_flip_test(std::span<const double> differences, std::uint64_t seed, int monte_carlo) {
  SignFlip out{.n = static_cast<int>(differences.size())};
  if (differences.empty()) return out;
  double sum = 0;
  for (double d : differences) sum += d;
  out.mean = sum / out.n;
  const double observed = std::abs(sum);
  const double tolerance = 1e-12 * (1 + observed);
  std::uint64_t extreme = 0, total = 0;
  auto count = [&](double flipped_sum) {
    ++total;
    if (std::abs(flipped_sum) >= observed - tolerance) ++extreme;
  };
  if (out.n <= 20) {
    for (std::uint64_t pattern = 0; pattern < (std::uint64_t{1} << out.n); ++pattern) {
      double s = 0;
      for (int i = 0; i < out.n; ++i) s += (pattern >> i & 1) ? -differences[i] : differences[i];
      count(s);
    }
  } else {
    std::mt19937_64 rng(seed);
    for (int r = 0; r < monte_carlo; ++r) {
      double s = 0;
      for (double d : differences) s += report::uniform_index(rng, 2) ? -d : d;
      count(s);
    }
    // The observed pattern itself counts once, so p is never 0 (Phipson and Smyth).
    ++extreme;
    ++total;
  }
  out.p = static_cast<double>(extreme) / static_cast<double>(total);
  return out;
}

}  // namespace ptxbench::study
