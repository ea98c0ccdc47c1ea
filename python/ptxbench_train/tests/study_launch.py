"""A one-task study for the launcher tests (accelerate, Slurm, vLLM serving, `reasoning: self`):
a replay base model that also writes its own explanation, a replay teacher, one data variant."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from test_study import BROKEN, EXPLANATION, python, teacher_and_fixit

TASK = "gemm_n4096_k4096"
# The base model's own explanation (reasoning: self); the teacher's explainer writes EXPLANATION.
SELF_EXPLANATION = EXPLANATION.replace("I start from the compiler's complaint",
                                       "Reading my own failed build again")


def write_launch_study(tmp: Path, model: Path, training: str, serving: str, reasoning: str) -> Path:
    base = tmp / "base-replies"
    base.mkdir()
    # The run's calls find the trajectory's own file; the explanation call falls back to turn-1.
    (base / f"base__{TASK}__hopper__none__s0.md").write_text(BROKEN)
    (base / "turn-1.md").write_text(SELF_EXPLANATION)
    cache = tmp / "compile-cache"
    study = tmp / "study.yaml"
    study.write_text(f"""
out: study
grid:
  tasks: [{TASK}]
  archs: [hopper]
  contexts: [none]
  samples: 1
  turns: 1
  evaluation: {{gpu: false, parallel: 1, compile_cache: "{cache}"}}
base:
  name: base
  model: {{provider: replay, path: "{base}"}}
  weights: "{model}"
{teacher_and_fixit(tmp, cache)}training: {{recipe: tiny, max_steps: 2, python: "{python()}", {training}}}
serving: {{{serving}, max_new_tokens: 8, max_tokens: 8, temperature: 0}}
variants:
  - {{name: tuned, data: fixit, reasoning: {{{reasoning}, length: short}}}}
""")
    return study


def run_study(study: Path, out: Path, *extra: str, env: dict | None = None) -> subprocess.CompletedProcess:
    from test_ptxbench_run import ptxbench

    return subprocess.run([ptxbench(), "study", str(study), "--out", str(out), *extra],
                          capture_output=True, text=True, timeout=900, env={**os.environ, **(env or {})})


def trained_rows(out: Path) -> str:
    return (out / "steps/data/tuned/data/train/fixit.jsonl").read_text()
