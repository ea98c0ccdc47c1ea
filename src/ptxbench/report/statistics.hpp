// Intervals for the report: Wilson score intervals for proportions, Newcombe's hybrid score
// interval for a difference of two proportions, and percentile bootstrap intervals over
// trajectories (seeded, so a report is reproducible). docs/reports.md states the formulas.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <vector>

namespace ptxbench::report {

inline constexpr double kZ95 = 1.959963984540054;  // two-sided 95% normal quantile

struct Interval {
  double lo = 0;
  double hi = 0;
};

// k successes out of n. rate() and interval() are empty when n == 0.
struct Proportion {
  int k = 0;
  int n = 0;
  std::optional<double> rate() const;
  std::optional<Interval> interval() const;  // 95% Wilson score interval
};

std::optional<Interval> wilson_interval(int k, int n, double z = kZ95);

// b - a with Newcombe's hybrid score interval (his method 10), built from the two Wilson
// intervals; empty when either side has n == 0.
struct Difference {
  std::optional<double> value;
  std::optional<Interval> interval;
};
Difference newcombe_difference(const Proportion& a, const Proportion& b, double z = kZ95);

// Quantile of sorted values with linear interpolation between order statistics (Hyndman and
// Fan type 7, the default of R and NumPy). values must be sorted and non-empty.
double quantile_sorted(std::span<const double> sorted, double q);
std::optional<double> median(std::vector<double> values);

// Uniform index in [0, n) from a 64-bit Mersenne Twister by rejection sampling: the standard
// distributions are implementation-defined, this is the same on every platform.
std::size_t uniform_index(std::mt19937_64& rng, std::size_t n);

struct BootstrapSettings {
  int resamples = 2000;  // 0: point estimates only, no interval
  std::uint64_t seed = 20260101;
};

// Point estimate and 95% percentile interval of statistic(sample), resampling the sample with
// replacement. Empty when the sample is empty.
struct Estimate {
  std::optional<double> value;
  std::optional<Interval> interval;
  int n = 0;
};
using Statistic = std::function<double(std::span<const double>)>;
Estimate bootstrap(std::span<const double> sample, const Statistic& statistic,
                   const BootstrapSettings& settings);
// statistic(b) - statistic(a), both sides resampled independently.
Estimate bootstrap_difference(std::span<const double> a, std::span<const double> b,
                              const Statistic& statistic, const BootstrapSettings& settings);

double statistic_median(std::span<const double> values);
double statistic_max(std::span<const double> values);

}  // namespace ptxbench::report
