"""Statistics of paired timings (no dependencies beyond the standard library): each pair holds
one call of each side measured back to back, so the per-pair ratio cancels the clock and power
drift both calls saw, and its median with a bootstrap interval says how sure the comparison is.
Used by interleaved_baselines.py; tested by tests/benchmarks/pair_statistics_test.py."""
import random


def percentile(values, q):
    """The q-th percentile (0..100) with linear interpolation between closest ranks."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q} outside 0..100")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    lower = int(position)
    upper = min(lower + 1, len(ordered) - 1)
    return ordered[lower] + (ordered[upper] - ordered[lower]) * (position - lower)


def median(values):
    return percentile(values, 50)


def pair_ratios(numerators, denominators):
    """numerator[i] / denominator[i] for each pair; both lists come from the same pairs."""
    if len(numerators) != len(denominators):
        raise ValueError(f"{len(numerators)} numerators for {len(denominators)} denominators")
    if not numerators:
        raise ValueError("no pairs")
    if any(d <= 0 for d in denominators):
        raise ValueError("a denominator is not positive")
    return [n / d for n, d in zip(numerators, denominators)]


def bootstrap_median_interval(values, resamples=2000, confidence=0.95, seed=0):
    """Percentile-bootstrap interval of the median: the median of `resamples` resamples (with
    replacement, same size) drawn by a generator seeded with `seed`, cut at the two tails."""
    if not values:
        raise ValueError("bootstrap of no values")
    if resamples < 1 or not 0 < confidence < 1:
        raise ValueError("need resamples >= 1 and 0 < confidence < 1")
    generator = random.Random(seed)
    medians = [median(generator.choices(values, k=len(values))) for _ in range(resamples)]
    tail = (1 - confidence) / 2 * 100
    return percentile(medians, tail), percentile(medians, 100 - tail)


def summarize_pairs(numerator_ms, denominator_ms, resamples=2000, confidence=0.95, seed=0):
    """Medians and interquartile ranges of both sides, and the median per-pair ratio
    numerator/denominator with its bootstrap interval."""
    ratios = pair_ratios(numerator_ms, denominator_ms)
    low, high = bootstrap_median_interval(ratios, resamples, confidence, seed)

    def side(times):
        return {"median_ms": median(times), "q1_ms": percentile(times, 25),
                "q3_ms": percentile(times, 75), "min_ms": min(times)}

    return {"pairs": len(ratios), "numerator": side(numerator_ms),
            "denominator": side(denominator_ms), "ratio_median": median(ratios),
            "ratio_low": low, "ratio_high": high, "confidence": confidence,
            "resamples": resamples, "seed": seed}


def verdict(summary, goal):
    """'met' when the whole interval is at or above the goal, 'not met' when it is entirely
    below, 'unsettled' when it straddles the goal."""
    if summary["ratio_low"] >= goal:
        return "met"
    if summary["ratio_high"] < goal:
        return "not met"
    return "unsettled"
