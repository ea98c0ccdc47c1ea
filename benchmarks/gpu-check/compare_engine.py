"""Compares the evaluation records that the engine part of scripts/gpu-check.sh collected through
each command (eval, run, serve, fixit): every record found under RESULTS (JSON Lines files,
trajectories, Fixit folders) is keyed by (task, source_hash); for each key it prints the verdict
and headline speedup per command, and flags a key whose verdicts differ, or whose speedups
differ by more than NOISE (relative, default 0.05). Exits 1 on a difference, 2 when fewer than
two commands produced records for any key (nothing was compared).
Usage: compare_engine.py RESULTS [NOISE]"""
import json
import os
import sys
from collections import defaultdict


def records_in(value):
    """Every evaluation record nested anywhere in a JSON value."""
    if isinstance(value, dict):
        if "verdict" in value and "source_hash" in value and "stages" in value:
            yield value
            return
        for item in value.values():
            yield from records_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from records_in(item)


def json_values(path):
    with open(path, errors="replace") as f:
        text = f.read()
    try:
        yield json.loads(text)
        return
    except ValueError:
        pass
    for line in text.splitlines():
        try:
            yield json.loads(line)
        except ValueError:
            continue


def command_of(relative):
    head = relative.split(os.sep, 1)[0]
    for name in ("eval", "run", "serve", "fixit"):
        if head.startswith(name):
            return name
    return None


def headline_speedup(record):
    for workload in record.get("workloads") or []:
        if workload.get("headline"):
            return workload.get("speedup")
    return None


def main():
    results = sys.argv[1]
    noise = float(sys.argv[2]) if len(sys.argv) > 2 else 0.05
    seen = defaultdict(dict)  # (task, hash) -> command -> (verdict, speedup)
    for folder, _, files in os.walk(results):
        for name in files:
            if not name.endswith((".json", ".jsonl")):
                continue
            path = os.path.join(folder, name)
            command = command_of(os.path.relpath(path, results))
            if command is None:
                continue
            for value in json_values(path):
                for record in records_in(value):
                    key = (record.get("task"), record["source_hash"])
                    seen[key].setdefault(command, (record["verdict"], headline_speedup(record)))
    compared = differ = 0
    for (task, source_hash), by_command in sorted(seen.items()):
        cells = ", ".join(f"{c}: {v} {s if s is None else f'{s:.3f}x'}" for c, (v, s) in sorted(by_command.items()))
        verdicts = {v for v, _ in by_command.values()}
        speedups = [s for _, s in by_command.values() if s is not None]
        spread = (max(speedups) - min(speedups)) / max(speedups) if len(speedups) > 1 else 0.0
        if len(by_command) < 2:
            print(f"-- {task} {source_hash}: one command only ({cells})")
            continue
        compared += 1
        bad = len(verdicts) > 1 or spread > noise
        differ += bad
        print("BAD" if bad else "ok ", task, source_hash, cells, f"speedup spread {spread:.1%}")
    print(f"{compared} candidate(s) compared across commands, {differ} differ")
    if compared == 0:
        return 2
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
