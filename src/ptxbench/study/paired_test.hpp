// Paired tests of a tuned model against the base over the same cells (task, arch, context,
// sample): an exact McNemar test on a yes/no outcome (correct, PASSED, fast_1: only the
// discordant pairs carry information) and a sign-flip permutation test on the mean of paired
// differences (speedups). Both two-sided; the permutation test is exact up to 2^20 sign
// patterns and a seeded Monte Carlo beyond, so a page is the same on every run.
#pragma once
#include <cstdint>
#include <span>

namespace ptxbench::study {

struct McNemar {
  int base_only = 0;   // pairs where the base succeeds and the tuned model fails
  int tuned_only = 0;  // the other way round
  double p = 1;
};
// Two-sided exact binomial test of base_only against tuned_only (p = 1 without discordant pairs).
McNemar mcnemar_exact(int base_only, int tuned_only);

struct SignFlip {
  int n = 0;
  double mean = 0;  // mean paired difference (tuned - base)
  double p = 1;
};
SignFlip sign_flip_test(std::span<const double> differences, std::uint64_t seed = 20260101,
                        int monte_carlo = 20000);

}  // namespace ptxbench::study
