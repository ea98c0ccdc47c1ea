"""The built-in server, as a process: health, models, chat completions for base and adapter,
streaming, errors, and a graceful stop on SIGTERM."""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from conftest import HERE, ROWS

from ptxbench_train.recipe import load_recipe
from ptxbench_train.train import TrainRequest, train

SRC = str(HERE.parent / "src")


def start_server(base, adapters, tmp_path, extra=()):
    ready = tmp_path / "ready.json"
    argv = [sys.executable, "-m", "ptxbench_train", "serve", "--engine", "builtin", "--base", str(base),
            "--served-name", "base", "--port", "0", "--ready-file", str(ready), "--max-new-tokens", "16",
            *(f"--adapter={n}={p}" for n, p in adapters.items()), *extra]
    env = {**os.environ, "PYTHONPATH": SRC}
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.time() + 120
    while not ready.exists():
        if proc.poll() is not None or time.time() > deadline:
            proc.kill()
            raise AssertionError(f"server did not start: {proc.communicate()}")
        time.sleep(0.2)
    return proc, json.loads(ready.read_text())


def get(url):
    with urllib.request.urlopen(url, timeout=60) as r:
        return r.status, json.loads(r.read())


def post(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


@pytest.fixture(scope="module")
def adapter(tiny_model, tmp_path_factory):
    out = tmp_path_factory.mktemp("srv") / "run"
    from dataclasses import replace

    recipe = replace(load_recipe("tiny"), max_steps=2, eval_strategy="no", save_strategy="no")
    return train(TrainRequest(base_model=str(tiny_model), data=[str(ROWS)], out=out, recipe=recipe))["adapter"]


def test_serves_base_and_adapter_then_stops_on_sigterm(tiny_model, adapter, tmp_path):
    proc, ready = start_server(tiny_model, {"tuned": adapter}, tmp_path)
    try:
        url = ready["base_url"]
        root = url[: -len("/v1")]
        assert get(root + "/health") == (200, {"status": "ok", "models": ["base", "tuned"]})
        status, models = get(url + "/models")
        assert [m["id"] for m in models["data"]] == ["base", "tuned"]
        replies = {}
        for name in ("base", "tuned"):
            status, text = post(url + "/chat/completions", {
                "model": name, "messages": [{"role": "user", "content": "Write a kernel."}],
                "max_tokens": 8, "temperature": 0})
            assert status == 200, text
            reply = json.loads(text)
            assert reply["model"] == name and reply["object"] == "chat.completion"
            assert isinstance(reply["choices"][0]["message"]["content"], str)
            assert 1 <= reply["usage"]["completion_tokens"] <= 8 and reply["usage"]["prompt_tokens"] > 3
            replies[name] = reply
        status, text = post(url + "/chat/completions", {
            "model": "tuned", "stream": True, "max_tokens": 4,
            "messages": [{"role": "user", "content": "hi"}]})
        events = [line[6:] for line in text.splitlines() if line.startswith("data: ")]
        assert status == 200 and events[-1] == "[DONE]"
        assert json.loads(events[-2])["usage"]["completion_tokens"] >= 1
        assert post(url + "/chat/completions", {"model": "nope", "messages": [{"role": "user", "content": "x"}]})[0] == 404
        assert post(url + "/chat/completions", {"model": "base"})[0] == 400
        status, text = post(url + "/chat/completions", {"model": "base", "messages": [
            {"role": "user", "content": "x " * 40000}]})
        assert status == 400 and "exceeds the model's context" in text
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert f"port {ready['port']}" in out and "base, tuned" in out and "serve: stopped" in out
