"""scripts/fixit-loop.sh --tiny end to end on the CPU, then again: every step is skipped."""

import os
import subprocess
from pathlib import Path

from conftest import HERE
from test_ptxbench_run import ptxbench

ROOT = HERE.parent.parent.parent
LOOP = ROOT / "scripts" / "fixit-loop.sh"


def run_loop(work: Path, recipe: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PTXBENCH_TRAIN_PYTHON": os.environ.get("PTXBENCH_TRAIN_PYTHON", "") or
           str(ROOT / ".deps" / "python-train" / "bin" / "python")}
    return subprocess.run(["bash", str(LOOP), "--tiny", "--work", str(work), "--ptxbench", ptxbench(),
                           "--recipe", str(recipe)], env=env, capture_output=True, text=True, timeout=1500)


def test_tiny_loop_runs_and_resumes(tmp_path):
    recipe = tmp_path / "quick.yaml"
    recipe.write_text("name: quick\nlora_rank: 8\nlora_alpha: 16\nlearning_rate: 1.0e-2\nepochs: 1\n"
                      "max_steps: 3\nbatch_size: 2\nmax_length: 4096\nbf16: false\n"
                      "gradient_checkpointing: false\nsave_strategy: \"no\"\neval_strategy: \"no\"\n"
                      "verified_only: false\n")
    work = tmp_path / "loop"
    first = run_loop(work, recipe)
    assert first.returncode == 0, first.stdout[-4000:] + first.stderr[-4000:]
    for path in ("tiny-model/config.json", "runs/base/run.json", "runs/tuned/run.json",
                 "train/run_card.json", "train/adapter/adapter_config.json", "train/loss.png",
                 "report/report.html", "report/tables/comparison.csv"):
        assert (work / path).exists(), path
    assert "serving base, tuned at http://127.0.0.1:" in (work / "server.log").read_text()
    again = run_loop(work, recipe)
    assert again.returncode == 0, again.stdout[-4000:] + again.stderr[-4000:]
    for step in ("tiny model", "base run", "train", "tuned run"):
        assert f"fixit-loop: {step}: " in again.stdout and "skipped" in again.stdout, again.stdout
    assert again.stdout.count("skipped") >= 4
