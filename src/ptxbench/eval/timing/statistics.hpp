// Robust summaries of timing samples and the stopping rule of the timing loop. The spread is
// measured with quartiles so one preempted sample does not decide when to stop.
#pragma once
#include <span>
#include <vector>

namespace ptxbench::eval::worker {

struct SampleSummary {
  int count = 0;
  double median = 0;
  double q1 = 0;  // 25th percentile (linear interpolation between order statistics)
  double q3 = 0;  // 75th percentile
  double min = 0;
  double max = 0;
  // Robust relative standard deviation: IQR / 1.349 / median (1.349 IQR = one sigma for a
  // normal distribution). 0 for fewer than two samples or a zero median.
  double relative_noise = 0;
};

// Percentile p in [0, 1] of sorted values, interpolating linearly.
double percentile_of_sorted(std::span<const double> sorted, double p);

SampleSummary summarize(std::vector<double> samples);

struct StoppingRule {
  int min_samples = 10;
  int max_samples = 2000;
  double target_relative_noise = 0.005;
};

// Enough samples, and either quiet enough or at the sample cap.
bool should_stop(const SampleSummary& summary, const StoppingRule& rule);
// Stopped because the noise fell under the target (not because of a cap or the time limit).
bool converged(const SampleSummary& summary, const StoppingRule& rule);

}  // namespace ptxbench::eval::worker
