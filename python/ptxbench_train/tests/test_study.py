"""`ptxbench study` end to end on the CPU: a replay base model, a replay teacher and explainer,
two data variants trained on the tiny random model, tuned runs served by the builtin server, the
comparison page. One copy of the study is killed with SIGKILL during a tuned run and resumed;
another finishes the same steps without interruption: both pages are the same bytes."""

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from conftest import HERE
from test_ptxbench_run import ptxbench

ROOT = HERE.parent.parent.parent
KERNEL = ROOT / "tests" / "compile" / "data" / "hopper_wgmma_tma.cu"
EXPLANATION = (
    "I start from the compiler's complaint: the kernel did not build, so nothing about its "
    "numbers can be judged yet. The message points at the line where I used a name the device "
    "code never declared. I first suspected the launch bounds, but those only change register "
    "allocation and would not stop the build. The smallest change that keeps the rest intact is "
    "to write the store through a plain float pointer, one element per thread, and check again "
    "that every thread index stays inside the elements a single warp touches.\n")
BROKEN = "My kernel:\n```cuda\n__global__ void k(float* o) { o[0] = undeclared_value; }\n```\n"


def python() -> str:
    return os.environ.get("PTXBENCH_TRAIN_PYTHON") or str(ROOT / ".deps" / "python-train" / "bin" / "python")


def teacher_and_fixit(tmp: Path, cache: Path) -> str:
    """A replay teacher (the kernel that compiles) and explainer (EXPLANATION), and the study's
    `teachers:` and `fixit:` sections for them (no GPU: repairs stay unverified)."""
    teacher = tmp / "teacher"
    teacher.mkdir()
    (teacher / "turn-1.md").write_text("The store needs a declared value.\n```cuda\n" +
                                       KERNEL.read_text() + "\n```\n")
    explainer = tmp / "explainer"
    explainer.mkdir()
    (explainer / "turn-1.md").write_text(EXPLANATION)
    return f"""teachers:
  - name: replayed
    model: {{provider: replay, path: "{teacher}"}}
    explainer: {{provider: replay, path: "{explainer}"}}
fixit:
  evaluation: {{gpu: false, parallel: 1, compile_cache: "{cache}"}}
  repair: {{turns: 1, concurrency: 1}}
  include_unverified: true
"""


def write_study(tmp: Path, model: Path) -> Path:
    base = tmp / "base-replies"
    base.mkdir()
    for task in ("gemm_n4096_k4096", "gemm_n7168_k5120"):
        (base / f"{task}.md").write_text(BROKEN)
    published = tmp / "published"  # the published figures' format, one made-up row
    published.mkdir()
    (published / "correctness_rate_by_release_date.csv").write_text(
        "model,arch,definition,exp_dir,turn_limit,n_trajectories,correct,correctness_rate\n"
        "Published-M,hopper,gemm_n4096_k4096,/x/a,1,10,4,0.4\n")
    cache = tmp / "compile-cache"
    study = tmp / "study.yaml"
    study.write_text(f"""
out: study-a
grid:
  tasks: [gemm_n4096_k4096, gemm_n7168_k5120]
  archs: [hopper]
  contexts: [none]
  samples: 1
  turns: 1
  evaluation: {{gpu: false, parallel: 1, compile_cache: "{cache}"}}
base:
  name: base
  model: {{provider: replay, path: "{base}"}}
  weights: "{model}"
{teacher_and_fixit(tmp, cache)}splits:
  heldout:
    - {{name: sizes, tasks: ["gemm_n7168_*"]}}
training: {{recipe: tiny, max_steps: 2, python: "{python()}"}}
published: published
serving: {{engine: builtin, max_new_tokens: 8, max_tokens: 8, temperature: 0}}
variants:
  - {{name: fixit-short, data: fixit, reasoning: {{source: teacher, length: short}}}}
  - {{name: both-capped, data: both, volume: 1, balance: {{mode: volume}}, reasoning: {{length: short}}}}
  - {{name: in-context, retrieval: true, reasoning: {{length: short}}}}
""")
    return study


def study_argv(study: Path, out: Path, *extra: str) -> list[str]:
    return [ptxbench(), "study", str(study), "--out", str(out), *extra]


def run(argv: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=900)


def test_study_runs_resumes_after_kill_and_writes_the_same_page(tiny_model, tmp_path):
    study = write_study(tmp_path, tiny_model)
    a, b = tmp_path / "study-a", tmp_path / "study-b"
    bad = run(study_argv(study, a, "--stop-after", "train/nothing"))
    assert bad.returncode == 2 and "--stop-after train/nothing: not a step of this study" in bad.stderr
    assert not a.exists()
    first = run(study_argv(study, a, "--stop-after", "train/both-capped"))
    assert first.returncode == 0, first.stdout[-4000:] + first.stderr[-4000:]
    assert "stopped after train/both-capped" in first.stdout, first.stdout
    for step in ("suite/tasks", "run/base", "data/fixit-short", "train/fixit-short",
                 "run/fixit-short", "data/both-capped", "train/both-capped"):
        assert (a / "steps" / step).is_dir(), step
    assert not (a / "steps" / "run" / "both-capped").exists()
    splits = json.loads((a / "steps/suite/tasks/splits.json").read_text())
    assert splits["gemm_n7168_k5120"] == "sizes" and splits["gemm_n4096_k4096"] == "train"
    task = json.loads(next((a / "steps/suite/tasks/tasks").rglob("gemm_n7168_k5120.json")).read_text())
    assert task["split"] == "heldout"
    data = json.loads((a / "steps/data/both-capped/data.json").read_text())
    assert data["train"]["fixit"] + data["train"]["kernelgen"] == 1, data  # volume: 1
    shutil.copytree(a, b, symlinks=True)

    # A: killed during the last tuned run (once its run folder exists), then resumed.
    killed = subprocess.Popen(study_argv(study, a), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    partial = a / "steps" / "run" / "both-capped.partial" / "run"
    deadline = time.monotonic() + 600
    while not partial.exists() and killed.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert killed.poll() is None, killed.communicate()
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    assert not (a / "comparison").exists()
    resumed = run(study_argv(study, a))
    assert resumed.returncode == 0, resumed.stdout[-4000:] + resumed.stderr[-4000:]
    assert "run/fixit-short: done, skipped" in resumed.stdout, resumed.stdout
    assert "run/both-capped: running" in resumed.stdout, resumed.stdout

    # B: the same steps without a kill.
    straight = run(study_argv(study, b))
    assert straight.returncode == 0, straight.stdout[-4000:] + straight.stderr[-4000:]
    for name in ("comparison.md", "comparison.html", "comparison.json", "tables/comparison.csv"):
        assert (a / "comparison" / name).read_bytes() == (b / "comparison" / name).read_bytes(), name

    page = (a / "comparison" / "comparison.md").read_text()
    for needle in ("fixit-short", "both-capped", "sizes", "inside the noise", "Training per data variant"):
        assert needle in page, needle
    tables = {t["name"]: t for t in json.loads((a / "comparison" / "comparison.json").read_text())}
    training = tables["runs"]["rows"]
    assert [r["variant"] for r in training] == ["fixit-short", "both-capped", "in-context"]
    assert all(r["steps"] == 2 and r["train_seconds"] > 0 for r in training[:2]), training
    assert training[2]["steps"] is None and training[2]["rows_train"] == 1  # in context, not trained
    assert all(r["rows_verified"] == 0 for r in training)  # no GPU here: every repair unverified
    assert "in-context: the teacher's Fixit folder holds no repair verified on a GPU" in page
    metrics = tables["correctness"]["rows"]
    assert {(r["split"], r["model"]) for r in metrics} == {
        (s, m) for s in ("train", "sizes") for m in ("base", "fixit-short", "both-capped", "in-context")}
    assert {r["variant"] for r in tables["comparison"]["rows"]} == {"fixit-short", "both-capped", "in-context"}
    assert all(r["pairs"] == 1 for r in tables["comparison"]["rows"])  # retrieval pairs with none
    published = tables["published_side_by_side"]["rows"]
    assert [(r["model"], r["split"], r["correct_k"], r["correct_n"]) for r in published] == [
        ("Published-M", "train", 4, 10)], published
    retrieval_run = (a / "steps/run/in-context/run.yaml").read_text()
    assert "retrieval" in retrieval_run and str(a / "fixit" / "replayed") in retrieval_run
    assert (a / "comparison" / "comparison.html").read_text().startswith("<!DOCTYPE html>")

    again = run(study_argv(study, a))
    assert again.returncode == 0 and again.stdout.count("done, skipped") == 10, again.stdout
