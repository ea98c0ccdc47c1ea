"""`ptxbench serve --no-gpu` (PTXBENCH_EXE) on a free port for the Python tests: a reply without
code is judged NO_CODE, a compiling kernel NOT_RUN (reward null), by the real service."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import tempfile
import time

TOKEN = "adapter-test-token-0123456789"
TASK = "gemm_n7168_k5120"


class Service:
    def __init__(self, *, reward: dict | None = None, max_in_flight: int = 64,
                 extra_flags: list[str] | None = None):
        self.dir = tempfile.TemporaryDirectory()
        root = pathlib.Path(self.dir.name)
        (root / "tokens").write_text(f"trainer {TOKEN} {max_in_flight}\n")
        flags = []
        if reward is not None:
            (root / "reward.json").write_text(json.dumps(reward))
            flags += ["--reward", str(root / "reward.json")]
        port_file = root / "port"
        self.process = subprocess.Popen(
            [os.environ["PTXBENCH_EXE"], "serve", "--no-gpu", "--sandbox", "best-effort",
             "--port", "0", "--port-file", str(port_file), "--journal", str(root / "journal"),
             "--tokens", str(root / "tokens"), "--workers", "2", *flags, *(extra_flags or [])])
        for _ in range(600):
            if port_file.exists() and port_file.read_text().strip():
                break
            if self.process.poll() is not None:
                raise RuntimeError(f"ptxbench serve exited with {self.process.returncode}")
            time.sleep(0.1)
        self.url = f"http://127.0.0.1:{port_file.read_text().strip()}"
        self.token = TOKEN

    def close(self) -> int:
        self.process.terminate()
        code = self.process.wait(timeout=120)
        self.dir.cleanup()
        return code
