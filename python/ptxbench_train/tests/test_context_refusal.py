"""A prompt longer than the served model's context is refused for its cell, with the reason in
that trajectory, never cut to fit: `ptxbench run` against the builtin server serving a model of
8,192 positions, where one task's prompt fits and the other's (a larger context level) does not."""

import json
import signal
import subprocess

from conftest import corpus
from test_ptxbench_run import ptxbench
from test_server import start_server

from ptxbench_train.tiny_model import build_tiny_model


def test_an_over_long_prompt_is_refused_in_its_trajectory(tmp_path):
    model = build_tiny_model(tmp_path / "short-context", size="tiny", corpus=corpus(),
                             max_positions=8192, vocab_size=1024)
    proc, ready = start_server(model, {}, tmp_path)
    try:
        config = tmp_path / "run.yaml"
        config.write_text(json.dumps({
            "out": str(tmp_path / "run"), "tasks": ["gemm_n4096_k4096"], "archs": ["hopper"],
            "contexts": ["none", "guide"], "samples": 1, "turns": 1,
            "evaluation": {"gpu": False, "parallel": 1},
            "models": [{"name": "short", "provider": "openai", "base_url": ready["base_url"],
                        "model": "base", "api_key_env": "", "max_tokens": 8}]}))
        done = subprocess.run([ptxbench(), "run", "--config", str(config)], capture_output=True,
                              text=True, timeout=600)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr  # 1: a cell ended on a provider error
    records = {json.loads(p.read_text())["info"]["context_level"]: json.loads(p.read_text())
               for p in (tmp_path / "run" / "trajectories").glob("*.json")}
    assert set(records) == {"none", "guide"}
    fits, too_long = records["none"], records["guide"]
    assert len(fits["turns"]) == 1 and fits["turns"][0]["usage"]["prompt_tokens"] < 8192
    assert too_long["turns"] == [], too_long["turns"]
    assert not [m for m in too_long["messages"] if m["role"] == "assistant"]
    error = too_long["info"]["error"]
    assert "HTTP 400" in error and "exceeds the model's context of 8192" in error, error
