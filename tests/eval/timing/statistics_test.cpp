#include "ptxbench/eval/timing/statistics.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace ptxbench::eval::worker {
namespace {

TEST(Statistics, PercentilesInterpolateBetweenOrderStatistics) {
  std::vector<double> sorted{1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 0.0), 1);
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 1.0), 4);
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(percentile_of_sorted(std::vector<double>{}, 0.5), 0);
}

TEST(Statistics, SummaryIsOrderIndependentAndRobust) {
  SampleSummary s = summarize({5, 1, 3, 2, 4});
  EXPECT_EQ(s.count, 5);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.q1, 2);
  EXPECT_DOUBLE_EQ(s.q3, 4);
  EXPECT_NEAR(s.relative_noise, 2.0 / 1.349 / 3.0, 1e-12);
  // One wild outlier moves neither the median nor the quartiles of a larger sample much.
  std::vector<double> quiet(20, 1.0);
  quiet.push_back(1000.0);
  SampleSummary robust = summarize(quiet);
  EXPECT_DOUBLE_EQ(robust.median, 1.0);
  EXPECT_DOUBLE_EQ(robust.relative_noise, 0.0);
}

TEST(Statistics, EmptyAndSingleSamples) {
  EXPECT_EQ(summarize({}).count, 0);
  SampleSummary one = summarize({2.5});
  EXPECT_DOUBLE_EQ(one.median, 2.5);
  EXPECT_DOUBLE_EQ(one.relative_noise, 0);
}

TEST(Statistics, StopsOnNoiseOnlyWithEnoughSamples) {
  StoppingRule rule{.min_samples = 10, .max_samples = 100, .target_relative_noise = 0.005};
  std::vector<double> steady(9, 1.0);
  EXPECT_FALSE(should_stop(summarize(steady), rule));  // quiet but too few
  steady.push_back(1.0);
  EXPECT_TRUE(should_stop(summarize(steady), rule));
  EXPECT_TRUE(converged(summarize(steady), rule));

  std::vector<double> noisy;
  for (int i = 0; i < 50; ++i) noisy.push_back(i % 2 == 0 ? 1.0 : 1.1);
  EXPECT_FALSE(should_stop(summarize(noisy), rule));
  for (int i = 0; i < 50; ++i) noisy.push_back(i % 2 == 0 ? 1.0 : 1.1);
  EXPECT_TRUE(should_stop(summarize(noisy), rule));  // the sample cap
  EXPECT_FALSE(converged(summarize(noisy), rule));
}

}  // namespace
}  // namespace ptxbench::eval::worker
