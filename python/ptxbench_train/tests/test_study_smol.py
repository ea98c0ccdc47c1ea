"""examples/study-smol cut down for a CPU: SmolLM2-135M-Instruct made from the pinned package's
GGUF, served by the builtin server for the base run (real weights, real tokens), its replies
without code mined and repaired by a replayed teacher, one LoRA variant trained for two steps,
the tuned model served and evaluated on a seen and a held-out task, one comparison page.

Cut from the example file itself (so the example is read by `ptxbench study` here): two tasks,
one sample, one turn, no GPU stages, a CPU recipe, and GEMM tasks with a teacher whose kernel is
short (the Hopper GEMM of the compile tests without its comments, 3.5k tokens): an expert
attention repair makes a ~29k-token row. Only the seen task's replies are mined, so training has
no held-out rows to score (a 7k-token row is over a minute a pass on two cores)."""

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import yaml

from conftest import HERE
from test_ptxbench_run import ptxbench
from test_study import KERNEL, python

ROOT = HERE.parent.parent.parent
EXAMPLE = ROOT / "examples" / "study-smol"
CPU_RECIPE = """name: smol-cpu
lora_rank: 8
lora_alpha: 16
target_modules: all-linear
learning_rate: 1.0e-3
epochs: 1
batch_size: 1
gradient_accumulation_steps: 1
max_length: 8192
bf16: false
gradient_checkpointing: false
save_strategy: "no"
eval_strategy: "no"
logging_steps: 1
kinds: [fixit]
verified_only: false
"""


def cut_down(tmp: Path, weights: Path) -> Path:
    study = yaml.safe_load((EXAMPLE / "study.yaml").read_text())
    assert study["fixit"]["mine"] == {"include_no_code": True}  # the example mines prose replies
    assert "model" not in study["base"]  # the study serves the base model itself
    cache = str(tmp / "compile-cache")
    tasks = ["gemm_n4096_k4096", "gemm_n7168_k5120"]
    study["splits"] = {"heldout": [{"name": "sizes", "tasks": ["gemm_n7168_k5120"]}]}
    study["out"] = str(tmp / "study")
    study["grid"].update(tasks=tasks, samples=1, turns=1,
                         evaluation={"gpu": False, "parallel": 2, "compile_cache": cache})
    study["base"]["weights"] = str(weights)
    teacher = tmp / "teacher"
    teacher.mkdir()
    kernel = re.sub(r"//[^\n]*|/\*.*?\*/", "", KERNEL.read_text(), flags=re.S)
    kernel = re.sub(r"\n\s*\n+", "\n", kernel)
    for task in tasks:
        (teacher / f"{task}.md").write_text("```cuda\n" + kernel + "\n```\n")
    study["teachers"][0]["model"]["path"] = str(teacher)
    study["teachers"][0]["explainer"]["path"] = str(EXAMPLE / "explanation.md")
    study["fixit"]["evaluation"] = {"gpu": False, "parallel": 2, "compile_cache": cache}
    study["fixit"]["include_unverified"] = True
    study["fixit"]["mine"]["tasks"] = ["gemm_n4096_k4096"]
    (tmp / "smol-cpu.yaml").write_text(CPU_RECIPE)
    study["training"] = {"recipe": str(tmp / "smol-cpu.yaml"), "max_steps": 2, "python": python()}
    study["serving"] = {"engine": "builtin", "max_new_tokens": 24, "max_tokens": 24, "temperature": 0}
    study["variants"] = [v for v in study["variants"] if v["name"] == "fixit-balanced"]
    path = tmp / "study.yaml"
    path.write_text(yaml.safe_dump(study, sort_keys=False))
    return path


def test_smol_study_on_the_cpu(tmp_path):
    started = time.monotonic()
    weights = tmp_path / "smollm2-135m"
    made = subprocess.run([sys.executable, "-m", "ptxbench_train", "base-model", str(weights)],
                          capture_output=True, text=True, cwd=HERE.parent, timeout=600)
    assert made.returncode == 0, made.stderr[-3000:]
    built = time.monotonic()
    done = subprocess.run([ptxbench(), "study", str(cut_down(tmp_path, weights))],
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    print(f"base model {built - started:.0f} s, study {time.monotonic() - built:.0f} s")
    out = tmp_path / "study"

    # The base model really answered: its replies are tokens it generated, one per cell.
    base = [json.loads(p.read_text()) for p in (out / "steps/run/smollm2/run/trajectories").glob("*.json")]
    assert len(base) == 2
    for record in base:
        replies = [m for m in record["messages"] if m["role"] == "assistant"]
        assert len(replies) == 1 and replies[0]["content"].strip(), record["info"]
        assert record["turns"][0]["usage"]["completion_tokens"] > 0, record["turns"][0]

    data = json.loads((out / "steps/data/fixit-balanced/data.json").read_text())
    assert data["train"]["fixit"] == 1 and data["heldout"]["fixit"] == 0, data
    tables = {t["name"]: t for t in json.loads((out / "comparison/comparison.json").read_text())}
    training = tables["runs"]["rows"]
    assert [r["variant"] for r in training] == ["fixit-balanced"]
    assert training[0]["steps"] == 2 and isinstance(training[0]["train_loss_last"], float), training
    replies = tables["replies"]["rows"]
    assert {(r["split"], r["model"]) for r in replies} == {
        (s, m) for s in ("train", "sizes") for m in ("smollm2", "fixit-balanced")}
    assert all(r["trajectories"] == 1 for r in replies), replies
    page = (out / "comparison/comparison.md").read_text()
    for needle in ("How far the replies got", "Training per data variant", "fixit-balanced", "sizes"):
        assert needle in page, needle
