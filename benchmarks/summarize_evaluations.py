"""Summarises `ptxbench eval --json` output: per candidate the verdict, wall time and its split
over stages, and the headline timing; then the repeatability of candidates evaluated several
times (files named <stem>_<n>.cu): max/min - 1 of their headline medians.
Usage: summarize_evaluations.py EVALS.json [TOTAL_WALL_SECONDS]"""
import collections
import json
import os
import re
import sys

STAGES = ["compile", "static_sass", "sanitize", "correctness", "dynamic_sass", "timing"]


def headline(evaluation):
    for w in evaluation.get("workloads", []):
        if w.get("headline"):
            return w
    return {}


def main():
    with open(sys.argv[1]) as f:
        evaluations = json.load(f)
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
    if total is not None and evaluations:
        print(f"\n{len(evaluations)} candidates in {total:.1f} s: {total / len(evaluations):.1f} s per "
              "candidate, back to back in one `ptxbench eval`")
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
