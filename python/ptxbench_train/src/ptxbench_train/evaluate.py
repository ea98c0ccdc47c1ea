"""Re-evaluation: the same `ptxbench run` grid for the base and the tuned model, then one
`ptxbench report` comparing the two runs (train split apart from held-out split)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

# The fields each side's run config sets itself; every other field is run.yaml's and is checked
# by `ptxbench run` when it reads the config (docs/running.md), so no copy of its list lives here.
LOOP_FIELDS = {"models", "out"}


class GridError(ValueError):
    pass


@dataclass(frozen=True)
class Side:
    label: str  # run label in the report: base, tuned
    model: str  # model name the server serves


def load_grid(path: str | Path) -> dict:
    path = Path(path)
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise GridError(f"{path}: grid: expected a mapping")
    for key in data:
        if key in LOOP_FIELDS:
            raise GridError(f"{path}: {key}: not a grid field (the loop sets {' and '.join(sorted(LOOP_FIELDS))})")
    for key in ("tasks_dir", "context_dir"):  # run configs resolve paths against their own folder
        if key in data:
            data[key] = str((path.parent / data[key]).resolve())
    return data


def run_config(grid: dict, side: Side, base_url: str, out_dir: Path, model_options: dict) -> dict:
    model = {"name": side.model, "provider": "openai", "base_url": base_url, "model": side.model,
             "api_key_env": "", **model_options}
    return {"out": str(out_dir.resolve()), **grid, "models": [model]}


def write_configs(grid: dict, sides: list[Side], base_url: str, work: Path,
                  model_options: dict) -> dict[str, Path]:
    work.mkdir(parents=True, exist_ok=True)
    paths = {}
    for side in sides:
        config = run_config(grid, side, base_url, work / "runs" / side.label, model_options)
        path = work / f"{side.label}.run.yaml"
        path.write_text(yaml.safe_dump(config, sort_keys=False))
        paths[side.label] = path
    return paths


def report_argv(ptxbench: str, work: Path, labels: list[str]) -> list[str]:
    argv = [ptxbench, "report", *(f"{label}={work / 'runs' / label}" for label in labels),
            "--out", str(work / "report")]
    if len(labels) == 2:
        argv += ["--compare", f"run={labels[0]}:{labels[1]}"]
    return argv


def run_and_report(ptxbench: str, configs: dict[str, Path], work: Path) -> int:
    """`ptxbench run` for each side (a rerun resumes), then the comparison report."""
    worst = 0
    for label, config in configs.items():
        print(f"evaluate: {label}: {ptxbench} run --config {config}", flush=True)
        code = subprocess.call([ptxbench, "run", "--config", str(config)])
        if code not in (0, 1):  # 1: some trajectories ended on provider errors; still reported
            print(f"evaluate: {label}: ptxbench run exited {code}", file=sys.stderr)
            return code
        worst = max(worst, code)
    argv = report_argv(ptxbench, work, list(configs))
    print("evaluate: " + " ".join(argv), flush=True)
    code = subprocess.call(argv)
    return code or worst
