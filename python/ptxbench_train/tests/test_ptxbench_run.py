"""`ptxbench run` against the built-in server, base and tuned side by side, then the comparison
report: the loop of `ptxbench-train evaluate` with the tiny model (its replies are junk; the
verdicts record that)."""

import json
import os
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from conftest import HERE, ROWS
from test_server import SRC, start_server

from ptxbench_train.recipe import load_recipe
from ptxbench_train.train import TrainRequest, train


def ptxbench() -> str:
    path = os.environ.get("PTXBENCH")
    assert path and Path(path).exists(), "PTXBENCH must name the ptxbench binary (ctest sets it)"
    return path


def test_base_and_tuned_runs_and_report(tiny_model, tmp_path):
    recipe = replace(load_recipe("tiny"), max_steps=2, eval_strategy="no", save_strategy="no")
    adapter = train(TrainRequest(base_model=str(tiny_model), data=[str(ROWS)], out=tmp_path / "train",
                                 recipe=recipe))["adapter"]
    grid = tmp_path / "grid.yaml"
    grid.write_text("tasks: [gemm_n4096_k4096]\narchs: [hopper]\ncontexts: [none]\nsamples: 1\n"
                    "turns: 2\nevaluation: {gpu: false, parallel: 1, all_turns_without_gpu: true}\n")
    proc, ready = start_server(tiny_model, {"tuned": adapter}, tmp_path)
    try:
        work = tmp_path / "eval"
        result = subprocess.run(
            [sys.executable, "-m", "ptxbench_train", "evaluate", "--ptxbench", ptxbench(),
             "--base-url", ready["base_url"], "--grid", str(grid), "--work", str(work),
             "--side", "base=base", "--side", "tuned=tuned", "--max-tokens", "16", "--concurrency", "1"],
            env={**os.environ, "PYTHONPATH": SRC}, capture_output=True, text=True, timeout=900)
        assert result.returncode == 0, result.stdout + result.stderr
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
    for side in ("base", "tuned"):
        trajectories = list((work / "runs" / side / "trajectories").glob("*.json"))
        assert len(trajectories) == 1, side
        record = json.loads(trajectories[0].read_text())
        verdicts = [t["evaluation"]["verdict"] for t in record["turns"]]
        assert len(verdicts) == 2 and record["info"]["status"] == "finished", record["info"]
        assert record["info"]["model"] == side
        # Junk from a random model: no code block, or code that fails; never a correct kernel.
        assert all(v and v not in ("PASSED", "INSTRUCTIONS_NOT_EXECUTED") for v in verdicts), verdicts
    runs_table = (work / "report" / "tables" / "runs.csv").read_text()
    assert "base" in runs_table and "tuned" in runs_table
    assert (work / "report" / "report.html").exists()
    assert (work / "report" / "tables" / "comparison.csv").exists()
