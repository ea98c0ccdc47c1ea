// Interval methods against published values: Newcombe (1998), "Two-sided confidence intervals
// for the single proportion" (Table I, score method without continuity correction) and
// "Interval estimation for the difference between independent proportions" (Table II, method
// 10), both Statistics in Medicine 17.
#include "ptxbench/report/statistics.hpp"

#include <gtest/gtest.h>

#include <map>

namespace ptxbench::report {
namespace {

struct WilsonCase {
  int k;
  int n;
  double lo;
  double hi;
};

class WilsonKnownValues : public ::testing::TestWithParam<WilsonCase> {};

TEST_P(WilsonKnownValues, MatchNewcombeTableI) {
  const auto& c = GetParam();
  auto interval = wilson_interval(c.k, c.n);
  ASSERT_TRUE(interval);
  EXPECT_NEAR(interval->lo, c.lo, 5e-5);
  EXPECT_NEAR(interval->hi, c.hi, 5e-5);
}

INSTANTIATE_TEST_SUITE_P(Newcombe1998, WilsonKnownValues,
                         ::testing::Values(WilsonCase{81, 263, 0.2553, 0.3662},
                                           WilsonCase{15, 148, 0.0624, 0.1605},
                                           WilsonCase{0, 20, 0.0, 0.1611},
                                           WilsonCase{1, 29, 0.0061, 0.1718},
                                           WilsonCase{29, 29, 0.8830, 1.0}));

TEST(Wilson, EdgesAreExactAndEmptySampleHasNone) {
  EXPECT_EQ(wilson_interval(0, 5)->lo, 0.0);
  EXPECT_EQ(wilson_interval(5, 5)->hi, 1.0);
  EXPECT_FALSE(wilson_interval(0, 0));
  const Proportion none{.k = 0, .n = 0};
  EXPECT_FALSE(none.rate());
  EXPECT_FALSE(none.interval());
  const Proportion half{.k = 6, .n = 12};
  EXPECT_DOUBLE_EQ(*half.rate(), 0.5);
  // Symmetric about one half.
  EXPECT_NEAR(half.interval()->lo + half.interval()->hi, 1.0, 1e-12);
}

struct DifferenceCase {
  int k1, n1, k2, n2;
  double lo, hi;
};

class NewcombeKnownValues : public ::testing::TestWithParam<DifferenceCase> {};

TEST_P(NewcombeKnownValues, MatchNewcombeTableIIMethod10) {
  const auto& c = GetParam();
  // Newcombe reports p1 - p2; ours is b - a, so side b is his first sample.
  auto d = newcombe_difference(Proportion{.k = c.k2, .n = c.n2}, Proportion{.k = c.k1, .n = c.n1});
  ASSERT_TRUE(d.value && d.interval);
  EXPECT_NEAR(*d.value, static_cast<double>(c.k1) / c.n1 - static_cast<double>(c.k2) / c.n2, 1e-12);
  EXPECT_NEAR(d.interval->lo, c.lo, 5e-5);
  EXPECT_NEAR(d.interval->hi, c.hi, 5e-5);
}

INSTANTIATE_TEST_SUITE_P(Newcombe1998, NewcombeKnownValues,
                         ::testing::Values(DifferenceCase{56, 70, 48, 80, 0.0524, 0.3339},
                                           DifferenceCase{9, 10, 3, 10, 0.1705, 0.8090},
                                           DifferenceCase{6, 7, 2, 7, 0.0582, 0.8062},
                                           DifferenceCase{5, 56, 0, 29, -0.0381, 0.1926},
                                           DifferenceCase{0, 10, 0, 20, -0.1611, 0.2775},
                                           DifferenceCase{0, 10, 0, 10, -0.2775, 0.2775},
                                           DifferenceCase{10, 10, 0, 20, 0.6791, 1.0},
                                           DifferenceCase{10, 10, 0, 10, 0.6075, 1.0}));

TEST(Newcombe, EmptySideHasNoDifference) {
  auto d = newcombe_difference(Proportion{.k = 0, .n = 0}, Proportion{.k = 3, .n = 4});
  EXPECT_FALSE(d.value);
  EXPECT_FALSE(d.interval);
}

TEST(Quantile, Type7Interpolation) {
  const std::vector<double> v{1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(*median({3, 1, 2}), 2.0);
  EXPECT_FALSE(median({}));
}

TEST(UniformIndex, CoversTheRangeEvenly) {
  std::mt19937_64 rng(7);
  std::map<std::size_t, int> counts;
  constexpr int kDraws = 60000;
  for (int i = 0; i < kDraws; ++i) ++counts[uniform_index(rng, 6)];
  ASSERT_EQ(counts.size(), 6u);
  for (const auto& [index, count] : counts) {
    EXPECT_LT(index, 6u);
    EXPECT_NEAR(count, kDraws / 6, 400) << index;  // ~4.6 standard deviations
  }
}

// For the sample {1, 2, 3} the bootstrap distribution of the median is known exactly: the
// median of three draws is 1 when at least two draws are 1, probability 7/27.
TEST(Bootstrap, MedianOfThreeMatchesTheExactDistribution) {
  const std::vector<double> sample{1, 2, 3};
  int ones = 0;
  const int resamples = 20000;
  std::vector<double> replicates;
  Statistic counting = [&](std::span<const double> values) {
    const double m = statistic_median(values);
    replicates.push_back(m);
    return m;
  };
  auto estimate = bootstrap(sample, counting, {.resamples = resamples, .seed = 11});
  replicates.pop_back();  // the point estimate on the sample itself
  for (double m : replicates) ones += m == 1.0;
  EXPECT_NEAR(static_cast<double>(ones) / resamples, 7.0 / 27.0, 0.01);
  ASSERT_TRUE(estimate.value && estimate.interval);
  EXPECT_EQ(*estimate.value, 2.0);
  EXPECT_EQ(estimate.interval->lo, 1.0);
  EXPECT_EQ(estimate.interval->hi, 3.0);
  EXPECT_EQ(estimate.n, 3);
}

TEST(Bootstrap, SeededAndReproducible) {
  const std::vector<double> sample{0.4, 0.9, 1.1, 1.3, 0.7, 2.0, 0.2};
  auto replicates_of = [&](std::uint64_t seed) {
    std::vector<double> seen;
    Statistic mean = [&seen](std::span<const double> values) {
      double sum = 0;
      for (double v : values) sum += v;
      seen.push_back(sum / static_cast<double>(values.size()));
      return seen.back();
    };
    bootstrap(sample, mean, {.resamples = 50, .seed = seed});
    return seen;
  };
  EXPECT_EQ(replicates_of(1), replicates_of(1));
  EXPECT_NE(replicates_of(1), replicates_of(2));
  auto a = bootstrap(sample, statistic_median, {.resamples = 500, .seed = 1});
  EXPECT_LE(a.interval->lo, *a.value);
  EXPECT_GE(a.interval->hi, *a.value);
}

TEST(Bootstrap, ConstantSampleHasADegenerateInterval) {
  const std::vector<double> sample(9, 1.25);
  auto e = bootstrap(sample, statistic_max, {.resamples = 200, .seed = 3});
  EXPECT_EQ(*e.value, 1.25);
  EXPECT_EQ(e.interval->lo, 1.25);
  EXPECT_EQ(e.interval->hi, 1.25);
}

TEST(Bootstrap, EmptySampleAndNoResamples) {
  EXPECT_FALSE(bootstrap({}, statistic_median, {}).value);
  const std::vector<double> sample{1, 2};
  auto e = bootstrap(sample, statistic_median, {.resamples = 0});
  EXPECT_EQ(*e.value, 1.5);
  EXPECT_FALSE(e.interval);
}

TEST(Bootstrap, DifferenceOfMediansIsBMinusA) {
  const std::vector<double> a{1, 1, 1, 1};
  const std::vector<double> b{3, 3, 3};
  auto d = bootstrap_difference(a, b, statistic_median, {.resamples = 100, .seed = 5});
  EXPECT_EQ(*d.value, 2.0);
  EXPECT_EQ(d.interval->lo, 2.0);
  EXPECT_EQ(d.interval->hi, 2.0);
  EXPECT_FALSE(bootstrap_difference({}, b, statistic_median, {}).value);
}

}  // namespace
}  // namespace ptxbench::report
