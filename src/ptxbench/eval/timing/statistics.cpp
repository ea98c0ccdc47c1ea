#include "ptxbench/eval/timing/statistics.hpp"

#include <algorithm>
#include <cmath>

namespace ptxbench::eval::worker {

double percentile_of_sorted(std::span<const double> sorted, double p) {
  if (sorted.empty()) return 0;
  double position = std::clamp(p, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  auto lower = static_cast<std::size_t>(std::floor(position));
  std::size_t upper = std::min(lower + 1, sorted.size() - 1);
  double fraction = position - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

SampleSummary summarize(std::vector<double> samples) {
  SampleSummary s;
  s.count = static_cast<int>(samples.size());
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  s.median = percentile_of_sorted(samples, 0.5);
  s.q1 = percentile_of_sorted(samples, 0.25);
  s.q3 = percentile_of_sorted(samples, 0.75);
  constexpr double kIqrPerSigma = 1.349;
  if (s.count >= 2 && s.median > 0) s.relative_noise = (s.q3 - s.q1) / kIqrPerSigma / s.median;
  return s;
}

bool converged(const SampleSummary& summary, const StoppingRule& rule) {
  return summary.count >= rule.min_samples && summary.relative_noise < rule.target_relative_noise;
}

bool should_stop(const SampleSummary& summary, const StoppingRule& rule) {
  return converged(summary, rule) || summary.count >= rule.max_samples;
}

}  // namespace ptxbench::eval::worker
