"""The study's other paths on the CPU: training under `accelerate launch` as two data-parallel
processes, tuned runs served through `serving.engine: vllm`, and the base model writing its own
reasoning (`reasoning: {source: self}`).

vLLM cannot run here (no GPU); a stand-in `vllm` program on PATH takes `vllm serve`'s arguments and
serves them with the builtin server, so the study's vLLM path (argument building, a free port,
polling /health, adapters as LoRA modules) runs for real up to vLLM itself. `engine: auto` is
used: the study must itself see vllm on PATH and wait on /health (vLLM writes no ready file)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from study_launch import EXPLANATION, SELF_EXPLANATION, TASK, run_study, trained_rows, write_launch_study
from test_study import python

STAND_IN = """#!{python}
# Stand-in for `vllm serve` (tests only): records its arguments, then serves them with the
# builtin server on the same port.
import json, os, sys
args = sys.argv[1:]
with open({log!r}, "a") as log:
    log.write(json.dumps(args) + "\\n")
assert args[0] == "serve", args
base, rest = args[1], args[2:]
def value(flag):
    return rest[rest.index(flag) + 1]
adapters = []
if "--lora-modules" in rest:
    for item in rest[rest.index("--lora-modules") + 1:]:
        if item.startswith("--"):
            break
        adapters += ["--adapter", item]
os.execv(sys.executable, [sys.executable, "-m", "ptxbench_train", "serve", "--engine", "builtin",
                          "--base", base, "--served-name", value("--served-model-name"),
                          "--host", value("--host"), "--port", value("--port"),
                          "--max-new-tokens", "8", *adapters])
"""


def stand_in_vllm(folder: Path) -> Path:
    folder.mkdir()
    program = folder / "vllm"
    program.write_text(STAND_IN.format(python=python(), log=str(folder / "calls.jsonl")))
    program.chmod(0o755)
    return folder


def test_accelerate_training_vllm_serving_and_self_reasoning(tiny_model, tmp_path):
    bin_dir = stand_in_vllm(tmp_path / "bin")
    study = write_launch_study(tmp_path, tiny_model, training="launcher: accelerate, gpus: 2",
                               serving="engine: auto", reasoning="source: self")
    out = tmp_path / "study"
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}"}
    done = run_study(study, out, env=env)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]

    # accelerate: two processes trained one data-parallel group; the card is written once.
    card = json.loads((out / "steps/train/tuned/train/run_card.json").read_text())
    assert card["processes"] == 2 and card["steps"] == 2, card
    log = (out / "steps/train/tuned/log.txt").read_text()
    assert "accelerate.commands.launch --multi_gpu --num_processes 2" in log, log[-3000:]

    # reasoning: self: the base model's explanation is in the rows, the teacher's explainer's is not.
    rows = trained_rows(out)
    assert SELF_EXPLANATION.strip()[:60] in rows and EXPLANATION.strip()[:60] not in rows
    assert (out / "fixit/replayed/export/tuned" / "short-base").is_dir()

    # vLLM (engine auto, vllm on PATH): `vllm serve` got the adapter as a LoRA module on a port of its own; the run used it.
    calls = [json.loads(line) for line in (bin_dir / "calls.jsonl").read_text().splitlines()]
    assert len(calls) == 1, calls
    argv = calls[0]
    assert argv[:2] == ["serve", str(tiny_model)] and "--enable-lora" in argv, argv
    assert argv[argv.index("--lora-modules") + 1] == f"tuned={out / 'steps/train/tuned/train/adapter'}"
    port = argv[argv.index("--port") + 1]
    run_yaml = (out / "steps/run/tuned/run.yaml").read_text()
    assert f"http://127.0.0.1:{port}/v1" in run_yaml, run_yaml
    trajectories = list((out / "steps/run/tuned/run").rglob("*.json"))
    assert any(TASK in p.name for p in trajectories), [p.name for p in trajectories]
    assert (out / "comparison" / "comparison.md").is_file()


def test_more_processes_than_gpus_is_refused(tmp_path, monkeypatch, capsys):
    import torch

    from ptxbench_train.cli import main

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert main(["train", "--base", "x", "--data", str(tmp_path), "--out", str(tmp_path / "o"),
                 "--gpus", "4"]) == 2
    assert "--gpus 4: this machine shows 1 GPU(s)" in capsys.readouterr().err



def test_counts_below_one_are_usage_errors(tmp_path, capsys):
    import pytest

    from ptxbench_train.cli import main

    for flag in ("--gpus", "--max-steps"):
        with pytest.raises(SystemExit) as stopped:
            main(["train", "--base", "x", "--data", str(tmp_path), "--out", str(tmp_path / "o"),
                  flag, "0"])
        assert stopped.value.code == 2
        assert "expected an integer of at least 1, got 0" in capsys.readouterr().err
