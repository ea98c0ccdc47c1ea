"""benchmarks/pair_statistics.py and the pair order of interleaved_baselines.py (no GPU, no
PyTorch: the script imports PyTorch only when it runs)."""
import unittest

import interleaved_baselines
from pair_statistics import (bootstrap_median_interval, median, pair_ratios, percentile,
                             summarize_pairs, verdict)


class PercentileTest(unittest.TestCase):
    def test_interpolates_between_closest_ranks(self):
        values = [4.0, 1.0, 3.0, 2.0]
        self.assertEqual(percentile(values, 0), 1.0)
        self.assertEqual(percentile(values, 100), 4.0)
        self.assertAlmostEqual(percentile(values, 50), 2.5)
        self.assertAlmostEqual(percentile(values, 25), 1.75)

    def test_median_of_odd_and_even_counts(self):
        self.assertEqual(median([3.0, 1.0, 2.0]), 2.0)
        self.assertAlmostEqual(median([1.0, 2.0, 3.0, 10.0]), 2.5)

    def test_refuses_no_values_and_bad_percentiles(self):
        with self.assertRaises(ValueError):
            percentile([], 50)
        with self.assertRaises(ValueError):
            percentile([1.0], 101)


class PairRatioTest(unittest.TestCase):
    def test_divides_pair_by_pair(self):
        self.assertEqual(pair_ratios([2.0, 3.0], [1.0, 4.0]), [2.0, 0.75])

    def test_refuses_unpaired_or_empty_or_non_positive(self):
        with self.assertRaises(ValueError):
            pair_ratios([1.0], [1.0, 2.0])
        with self.assertRaises(ValueError):
            pair_ratios([], [])
        with self.assertRaises(ValueError):
            pair_ratios([1.0], [0.0])


class BootstrapTest(unittest.TestCase):
    def test_constant_data_gives_a_point_interval(self):
        self.assertEqual(bootstrap_median_interval([1.5] * 30, resamples=200), (1.5, 1.5))

    def test_same_seed_same_interval_and_the_interval_holds_the_median(self):
        values = [1.0 + 0.01 * ((i * 37) % 23) for i in range(101)]
        first = bootstrap_median_interval(values, resamples=500, seed=7)
        self.assertEqual(first, bootstrap_median_interval(values, resamples=500, seed=7))
        self.assertLessEqual(first[0], median(values))
        self.assertGreaterEqual(first[1], median(values))
        self.assertLess(first[0], first[1])

    def test_more_pairs_narrow_the_interval(self):
        spread = lambda n: [1.0 + 0.1 * ((i * 7919) % 97) / 97 for i in range(n)]
        narrow = bootstrap_median_interval(spread(1000), resamples=300, seed=1)
        wide = bootstrap_median_interval(spread(20), resamples=300, seed=1)
        self.assertLess(narrow[1] - narrow[0], wide[1] - wide[0])


class SummaryTest(unittest.TestCase):
    def test_ratio_cancels_drift_common_to_both_calls_of_a_pair(self):
        # Both sides slow down by the same factor over time (clock drift); PyTorch is always 2%
        # slower than ours within a pair, though its fastest call beats our slowest.
        ours = [1.0 + 0.2 * i / 99 for i in range(100)]
        theirs = [1.02 * t for t in ours]
        summary = summarize_pairs(theirs, ours, resamples=300)
        self.assertAlmostEqual(summary["ratio_median"], 1.02)
        self.assertAlmostEqual(summary["ratio_low"], 1.02)
        self.assertEqual(summary["pairs"], 100)
        self.assertLess(summary["numerator"]["min_ms"], summary["denominator"]["q3_ms"])
        self.assertEqual(verdict(summary, 0.98), "met")

    def test_verdicts(self):
        self.assertEqual(verdict({"ratio_low": 0.97, "ratio_high": 0.99}, 0.98), "unsettled")
        self.assertEqual(verdict({"ratio_low": 0.90, "ratio_high": 0.95}, 0.98), "not met")
        self.assertEqual(verdict({"ratio_low": 0.98, "ratio_high": 1.01}, 0.98), "met")


class PairOrderTest(unittest.TestCase):
    def test_sides_alternate_which_goes_first(self):
        orders = [interleaved_baselines.side_order(i) for i in range(4)]
        self.assertEqual(orders, [(0, 1), (1, 0), (0, 1), (1, 0)])


if __name__ == "__main__":
    unittest.main()
