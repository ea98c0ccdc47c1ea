"""Summarises `ptxbench eval --json` output (JSON Lines): per candidate the verdict, wall time and
its split over stages, and the headline timing; the mean latency of each stage and the
throughput of the stream (verdicts per GPU-hour, compiles overlapped) against the goals (a good
core-GEMM verdict in <= 10 s, >= 400 verdicts per GPU-hour, a slow or hostile one in <= 30 s);
then the repeatability of candidates evaluated several times (files named <stem>_<n>.cu):
max/min - 1 of their headline medians.
Usage: summarize_evaluations.py EVALS.jsonl [TOTAL_WALL_SECONDS]"""
import collections
import json
import os
import re
import sys

from evaluation_records import read_evaluations

STAGES = ["compile", "static_sass", "sanitize", "correctness", "dynamic_sass", "timing"]


def headline(evaluation):
    for w in evaluation.get("workloads", []):
        if w.get("headline"):
            return w
    return {}


GOOD_SECONDS, SLOW_SECONDS, VERDICTS_PER_GPU_HOUR = 10.0, 30.0, 400.0


def stage_seconds(evaluation):
    seconds = {s["stage"]: s.get("seconds", 0.0) for s in evaluation.get("stages", [])}
    seconds["compile"] = evaluation.get("compile", {}).get("seconds", seconds.get("compile", 0.0))
    return seconds


def print_latency(evaluations, total):
    """Mean latency per stage, the slowest verdicts, and the stream's throughput vs the goals."""
    print("\nmean latency per stage over", len(evaluations), "verdicts:")
    for stage in STAGES:
        values = [stage_seconds(e).get(stage, 0.0) for e in evaluations]
        print(f"  {stage:<12} {sum(values) / len(values):6.2f} s (max {max(values):.2f} s)")
    walls = [e.get("wall_seconds", 0.0) for e in evaluations]
    gpu = [sum(stage_seconds(e).get(s, 0.0) for s in STAGES[2:]) for e in evaluations]
    good = [e.get("wall_seconds", 0.0) for e in evaluations if e.get("verdict") == "PASSED"]
    other = [e.get("wall_seconds", 0.0) for e in evaluations if e.get("verdict") != "PASSED"]
    if good:
        print(f"verdict latency of passing candidates: max {max(good):.1f} s "
              f"(goal <= {GOOD_SECONDS:.0f} s: {'met' if max(good) <= GOOD_SECONDS else 'NOT met'})")
    if other:
        print(f"verdict latency of the others: max {max(other):.1f} s "
              f"(goal <= {SLOW_SECONDS:.0f} s: {'met' if max(other) <= SLOW_SECONDS else 'NOT met'})")
    print(f"GPU stages: {sum(gpu):.1f} s in all, {sum(gpu) / len(gpu):.2f} s per verdict")
    if total:
        rate = 3600.0 * len(evaluations) / total
        print(f"{len(evaluations)} verdicts in {total:.1f} s of wall time (compiles overlapped): "
              f"{rate:.0f} verdicts per GPU-hour (goal >= {VERDICTS_PER_GPU_HOUR:.0f}: "
              f"{'met' if rate >= VERDICTS_PER_GPU_HOUR else 'NOT met'}); the sum of the verdicts' "
              f"own wall times is {sum(walls):.1f} s")


def main():
    evaluations = read_evaluations(sys.argv[1])
    total = float(sys.argv[2]) if len(sys.argv) > 2 else None
    print("| candidate | verdict | wall s | " + " | ".join(STAGES) +
          " | candidate ms | baseline ms | speedup | TFLOP/s |")
    print("|---|---|---|" + "---|" * len(STAGES) + "---|---|---|---|")
    groups = collections.defaultdict(list)
    for e in evaluations:
        name = os.path.basename(e.get("source_name", "?"))
        seconds = {s["stage"]: s.get("seconds", 0.0) for s in e.get("stages", [])}
        seconds["compile"] = e.get("compile", {}).get("seconds", seconds.get("compile", 0.0))
        w = headline(e)
        cand, base = w.get("candidate") or {}, w.get("baseline") or {}
        cells = " | ".join(f"{seconds.get(s, 0.0):.1f}" for s in STAGES)
        fmt = lambda x, spec: format(x, spec) if isinstance(x, (int, float)) else "-"
        print(f"| {name} | {e['verdict']} | {e.get('wall_seconds', 0):.1f} | {cells} | "
              f"{fmt(cand.get('median_ms'), '.4f')} | {fmt(base.get('median_ms'), '.4f')} | "
              f"{fmt(w.get('speedup'), '.3f')} | {fmt(w.get('tflops'), '.0f')} |")
        match = re.match(r"(.+)_\d+\.cu$", name)
        if match and cand.get("median_ms"):
            groups[match.group(1)].append((cand["median_ms"], base.get("median_ms")))
    if evaluations:
        print_latency(evaluations, total)
    for stem, runs in groups.items():
        cands = [c for c, _ in runs]
        bases = [b for _, b in runs if b]
        line = (f"\nrepeatability of {stem} over {len(runs)} evaluations: candidate medians "
                f"{', '.join(f'{c:.4f}' for c in cands)} ms, max/min - 1 = "
                f"{max(cands) / min(cands) - 1:.4%}")
        if bases:
            line += f"; baseline max/min - 1 = {max(bases) / min(bases) - 1:.4%}"
        print(line)


if __name__ == "__main__":
    main()
