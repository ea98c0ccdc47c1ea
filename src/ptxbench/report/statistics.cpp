#include "ptxbench/report/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ptxbench/util/check.hpp"

namespace ptxbench::report {

std::optional<double> Proportion::rate() const {
  if (n <= 0) return std::nullopt;
  return static_cast<double>(k) / n;
}

std::optional<Interval> Proportion::interval() const {
  return wilson_interval(k, n);
}

std::optional<Interval> wilson_interval(int k, int n, double z) {
  if (n <= 0) return std::nullopt;
  PTXBENCH_CHECK(k >= 0 && k <= n, "successes outside [0, n]");
  const double nn = n;
  const double p = k / nn;
  const double z2 = z * z;
  const double centre = (p + z2 / (2 * nn)) / (1 + z2 / nn);
  const double half = z / (1 + z2 / nn) * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
  // At k == 0 or k == n the bound is exactly 0 or 1; rounding must not move it off.
  return Interval{.lo = k == 0 ? 0.0 : std::max(0.0, centre - half),
                  .hi = k == n ? 1.0 : std::min(1.0, centre + half)};
}

Difference newcombe_difference(const Proportion& a, const Proportion& b, double z) {
  auto ia = wilson_interval(a.k, a.n, z);
  auto ib = wilson_interval(b.k, b.n, z);
  if (!ia || !ib) return {};
  const double pa = *a.rate();
  const double pb = *b.rate();
  const double d = pb - pa;
  const double lower = std::sqrt((pb - ib->lo) * (pb - ib->lo) + (ia->hi - pa) * (ia->hi - pa));
  const double upper = std::sqrt((ib->hi - pb) * (ib->hi - pb) + (pa - ia->lo) * (pa - ia->lo));
  return {.value = d, .interval = Interval{.lo = d - lower, .hi = d + upper}};
}

double quantile_sorted(std::span<const double> sorted, double q) {
  PTXBENCH_CHECK(!sorted.empty(), "quantile of an empty sample");
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const auto above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

std::optional<double> median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  return quantile_sorted(values, 0.5);
}

std::size_t uniform_index(std::mt19937_64& rng, std::size_t n) {
  PTXBENCH_CHECK(n > 0, "index into an empty range");
  const std::uint64_t range = n;
  // The largest multiple of n that fits: values at or above it would favour small indices.
  const std::uint64_t limit =
      std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % range;
  std::uint64_t draw = 0;
  do {
    draw = rng();
  } while (draw >= limit);
  return static_cast<std::size_t>(draw % range);
}

double statistic_median(std::span<const double> values) {
  std::vector<double> copy(values.begin(), values.end());
  return median(std::move(copy)).value_or(0.0);
}

double statistic_max(std::span<const double> values) {
  PTXBENCH_CHECK(!values.empty(), "max of an empty sample");
  return *std::max_element(values.begin(), values.end());
}

namespace {

void resample(std::mt19937_64& rng, std::span<const double> sample, std::vector<double>& out) {
  out.resize(sample.size());
  for (auto& value : out) value = sample[uniform_index(rng, sample.size())];
}

Interval percentile_interval(std::vector<double> replicates) {
  std::sort(replicates.begin(), replicates.end());
  return {.lo = quantile_sorted(replicates, 0.025), .hi = quantile_sorted(replicates, 0.975)};
}

}  // namespace

Estimate bootstrap(std::span<const double> sample, const Statistic& statistic,
                   const BootstrapSettings& settings) {
  if (sample.empty()) return {};
  if (settings.resamples == 0) {
    return {.value = statistic(sample), .n = static_cast<int>(sample.size())};
  }
  PTXBENCH_CHECK(settings.resamples > 0, "negative number of resamples");
  std::mt19937_64 rng(settings.seed);
  std::vector<double> replicates;
  replicates.reserve(static_cast<std::size_t>(settings.resamples));
  std::vector<double> drawn;
  for (int i = 0; i < settings.resamples; ++i) {
    resample(rng, sample, drawn);
    replicates.push_back(statistic(drawn));
  }
  return {.value = statistic(sample),
          .interval = percentile_interval(std::move(replicates)),
          .n = static_cast<int>(sample.size())};
}

Estimate bootstrap_difference(std::span<const double> a, std::span<const double> b,
                              const Statistic& statistic, const BootstrapSettings& settings) {
  if (a.empty() || b.empty()) return {};
  if (settings.resamples == 0) {
    return {.value = statistic(b) - statistic(a), .n = static_cast<int>(a.size() + b.size())};
  }
  PTXBENCH_CHECK(settings.resamples > 0, "negative number of resamples");
  std::mt19937_64 rng(settings.seed);
  std::vector<double> replicates;
  replicates.reserve(static_cast<std::size_t>(settings.resamples));
  std::vector<double> drawn_a;
  std::vector<double> drawn_b;
  for (int i = 0; i < settings.resamples; ++i) {
    resample(rng, a, drawn_a);
    resample(rng, b, drawn_b);
    replicates.push_back(statistic(drawn_b) - statistic(drawn_a));
  }
  return {.value = statistic(b) - statistic(a),
          .interval = percentile_interval(std::move(replicates)),
          .n = static_cast<int>(a.size() + b.size())};
}

}  // namespace ptxbench::report
