"""Speed of one candidate over a task family, from `ptxbench eval --json` output: a Markdown table
per timed workload (ours and the baseline in the same run, both as milliseconds and TFLOP/s,
baseline / ours > 1 when ours is faster), the geometric mean of baseline / ours over the selected
workloads, then the headline figures (each task's headline workload, the core task's first).

Usage:
  ptxbench eval KERNEL.cu --task 'gemm_*' --arch hopper --time-workloads M8192,M8828 --json \\
      > family.json
  family_speed.py family.json [more.json ...] [--workloads M8192,M8828] [--tasks-dir tasks]
      [--baseline cuBLASLt]

Several files (a family evaluated in parts) are read as one list.

--workloads: the workloads the geometric mean covers (default: every timed workload); a selected
workload that was not timed (its evaluation failed first) is listed and counted as missing.
M comes from the task files (--tasks-dir, default the repository's tasks/), else from the
workload's name. Exit 0 whatever the verdicts; 2 when the input is not evaluation records."""
import argparse
import glob
import json
import math
import os
import re
import sys

from evaluation_records import read_evaluations

REPO_TASKS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tasks")


class Malformed(Exception):
    pass


def load_evaluations(path):
    try:
        evaluations = read_evaluations(path)
    except (OSError, ValueError) as e:
        raise Malformed(f"{path}: {e}")
    for i, e in enumerate(evaluations):
        if not isinstance(e, dict) or not isinstance(e.get("task"), str):
            raise Malformed(f"{path}: record {i} is not an evaluation (no task)")
        if not isinstance(e.get("workloads", []), list):
            raise Malformed(f"{path}: record {i} ({e['task']}): workloads is not a list")
        for w in e.get("workloads", []):
            if not isinstance(w, dict) or not isinstance(w.get("workload"), str):
                raise Malformed(f"{path}: record {i} ({e['task']}): a workload without a name")
            for key in ("speedup", "tflops"):
                if w.get(key) is not None and not isinstance(w[key], (int, float)):
                    raise Malformed(f"{path}: {e['task']} {w['workload']}: {key} is not a number")
            for side in ("candidate", "baseline"):
                stats = w.get(side)
                if stats is not None and not isinstance(stats, dict):
                    raise Malformed(f"{path}: {e['task']} {w['workload']}: {side} is not an object")
    return evaluations


def load_tasks(tasks_dir):
    """Task name -> task JSON, for M and the core flag; empty when the directory is absent."""
    tasks = {}
    for path in glob.glob(os.path.join(tasks_dir, "**", "*.json"), recursive=True):
        try:
            with open(path) as f:
                task = json.load(f)
        except (OSError, ValueError):
            continue
        if isinstance(task, dict) and isinstance(task.get("name"), str):
            tasks[task["name"]] = task
    return tasks


def m_of(task, workload_name):
    for w in (task or {}).get("workloads", []):
        if w.get("name") == workload_name and "M" in w.get("axes", {}):
            return str(w["axes"]["M"])
    match = re.match(r"M(\d+)", workload_name)
    return match.group(1) if match else "-"


def median_ms(stats):
    if isinstance(stats, dict) and isinstance(stats.get("median_ms"), (int, float)):
        return float(stats["median_ms"])
    return None


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def fmt(value, digits):
    return "-" if value is None else f"{value:.{digits}f}"


def row_of(evaluation, w, tasks):
    ours, base = median_ms(w.get("candidate")), median_ms(w.get("baseline"))
    tflops = w.get("tflops")
    base_tflops = tflops * ours / base if tflops and ours and base else None
    return {
        "task": evaluation["task"],
        "source": os.path.basename(evaluation.get("source_name") or "-"),
        "workload": w["workload"],
        "headline": bool(w.get("headline")),
        "M": m_of(tasks.get(evaluation["task"]), w["workload"]),
        "ours_ms": ours,
        "base_ms": base,
        "ours_tflops": tflops,
        "base_tflops": base_tflops,
        "ratio": w.get("speedup"),
        "verdict": evaluation.get("verdict", "?"),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("evaluations", nargs="+",
                        help="`ptxbench eval --json` output (an array or one record per file)")
    parser.add_argument("--workloads", default="",
                        help="comma list of workload names (default: every timed workload)")
    parser.add_argument("--tasks-dir", default=REPO_TASKS)
    parser.add_argument("--baseline", default="cuBLASLt", help="the baseline's name in the table")
    args = parser.parse_args()
    try:
        evaluations = [e for path in args.evaluations for e in load_evaluations(path)]
    except Malformed as e:
        print(f"family_speed.py: {e}", file=sys.stderr)
        return 2
    tasks = load_tasks(args.tasks_dir)
    selected = [name for name in args.workloads.split(",") if name.strip()]
    selected = [name.strip() for name in selected]

    rows, headlines = [], []
    for e in evaluations:
        for w in e.get("workloads", []):
            row = row_of(e, w, tasks)
            if w.get("headline"):
                headlines.append(row)
            if selected and w["workload"] not in selected:
                continue
            if not selected and row["ratio"] is None:
                continue
            rows.append(row)
        if not e.get("workloads"):  # failed before correctness: nothing of it was timed
            for name in selected:
                rows.append(row_of(e, {"workload": name}, tasks))

    several_sources = len({r["source"] for r in rows + headlines}) > 1
    b = args.baseline
    header = (["candidate"] if several_sources else []) + [
        "task", "workload", "M", "ours ms", f"{b} ms", "ours TFLOP/s", f"{b} TFLOP/s",
        f"{b} / ours", "verdict"]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---:" if h in ("M",) or "ms" in h or "TFLOP" in h or "/" in h
                         else "---" for h in header) + "|")
    for r in rows:
        cells = ([r["source"]] if several_sources else []) + [
            r["task"], r["workload"] + (" (headline)" if r["headline"] else ""), r["M"],
            fmt(r["ours_ms"], 3), fmt(r["base_ms"], 3), fmt(r["ours_tflops"], 1),
            fmt(r["base_tflops"], 1), fmt(r["ratio"], 3), r["verdict"]]
        print("| " + " | ".join(cells) + " |")

    timed = [r["ratio"] for r in rows if r["ratio"] is not None]
    missing = len(rows) - len(timed)
    what = f"workloads {','.join(selected)}" if selected else "timed workloads"
    mean = geomean(timed)
    print()
    print(f"Geometric mean of {b} / ours over {len(timed)} {what}: {fmt(mean, 3)}x"
          + (f" ({missing} selected workload(s) not timed)" if missing else ""))

    core = [r for r in headlines if tasks.get(r["task"], {}).get("core")]
    others = [r for r in headlines if r not in core]
    print()
    print("Headline workloads:")
    for r in core + others:
        label = " (core task)" if r in core else ""
        print(f"- {r['task']}{label} {r['workload']}: {fmt(r['ratio'], 3)}x "
              f"(ours {fmt(r['ours_ms'], 3)} ms = {fmt(r['ours_tflops'], 1)} TFLOP/s, "
              f"{b} {fmt(r['base_ms'], 3)} ms = {fmt(r['base_tflops'], 1)} TFLOP/s), {r['verdict']}")
    headline_ratios = [r["ratio"] for r in headlines if r["ratio"] is not None]
    print(f"- geometric mean over {len(headline_ratios)} timed headline workloads: "
          f"{fmt(geomean(headline_ratios), 3)}x")

    failed = [e for e in evaluations if e.get("verdict") != "PASSED"]
    if failed:
        print()
        print("Evaluations that did not pass:")
        for e in failed:
            print(f"- {e['task']} ({os.path.basename(e.get('source_name') or '-')}): "
                  f"{e.get('verdict', '?')}: {e.get('message', '')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
