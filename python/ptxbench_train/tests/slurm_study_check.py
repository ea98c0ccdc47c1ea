"""The study's `launcher: slurm` on a real single-node Slurm cluster (slurm-wlm and munge from
deps/apt.txt, started for this test by tests/slurm/slurm_cluster.sh): the training step runs as a
Slurm job step through `srun` with the study's options (`gpus: 2`: an accelerate group of two
processes inside the step, on the CPU here), and the study waits for it.

Not named test_*.py: ctest runs it through tests/slurm/run_if_slurm.sh, which reports it as skipped
(not passed) on a machine without Slurm."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import HERE
from study_launch import run_study, write_launch_study

CLUSTER = HERE.parent.parent.parent / "tests" / "slurm" / "slurm_cluster.sh"


@pytest.fixture
def slurm_conf():
    # Short path: munge's socket path must fit a sockaddr_un.
    folder = Path(tempfile.mkdtemp(prefix="ptxslurm-"))
    started = subprocess.run(["bash", str(CLUSTER), "start", str(folder)], capture_output=True,
                             text=True, timeout=120)
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        line = [x for x in started.stdout.splitlines() if x.startswith("SLURM_CONF=")][-1]
        yield line.split("=", 1)[1]
    finally:
        subprocess.run(["bash", str(CLUSTER), "stop", str(folder)], timeout=60)
        subprocess.run(["rm", "-rf", str(folder)])


def test_training_runs_as_a_slurm_job_step(tiny_model, tmp_path, slurm_conf):
    study = write_launch_study(tmp_path, tiny_model,
                               training="launcher: slurm, gpus: 2, "
                               "slurm: [--ntasks=1, --cpus-per-task=2, --job-name=ptx-study]",
                               serving="engine: builtin", reasoning="source: teacher")
    out = tmp_path / "study"
    done = run_study(study, out, "--stop-after", "train/tuned", env={"SLURM_CONF": slurm_conf})
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    log = (out / "steps/train/tuned/log.txt").read_text()
    assert log.startswith("$ srun --ntasks=1 --cpus-per-task=2 --job-name=ptx-study "), log[:500]
    assert " --gpus 2" in log.splitlines()[0], log[:500]  # two processes inside the job step
    card = json.loads((out / "steps/train/tuned/train/run_card.json").read_text())
    assert card["steps"] == 2 and card["processes"] == 2, card
    assert card["hardware"]["slurm"]["job_id"], card["hardware"]
    assert card["hardware"]["slurm"]["node"] == "ptxnode", card["hardware"]
