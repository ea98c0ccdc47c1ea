"""Serving base + LoRA adapters with vLLM's OpenAI-compatible server, where vLLM is installed."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path


class VllmMissing(RuntimeError):
    pass


def adapter_rank(adapter_dir: str) -> int | None:
    config = Path(adapter_dir) / "adapter_config.json"
    try:
        return int(json.loads(config.read_text())["r"])
    except (OSError, KeyError, ValueError):
        return None


def vllm_argv(base_model: str, served_name: str, adapters: dict[str, str], host: str, port: int,
              max_model_len: int | None = None, tensor_parallel: int = 1,
              extra: list[str] | None = None, executable: str = "vllm") -> list[str]:
    """`vllm serve` with the base under served_name and each adapter under its own model name."""
    argv = [executable, "serve", base_model, "--served-model-name", served_name,
            "--host", host, "--port", str(port)]
    if adapters:
        ranks = [r for r in (adapter_rank(p) for p in adapters.values()) if r]
        argv += ["--enable-lora", "--max-loras", str(len(adapters))]
        if ranks:
            argv += ["--max-lora-rank", str(max(ranks))]
        argv += ["--lora-modules", *(f"{name}={path}" for name, path in adapters.items())]
    if max_model_len:
        argv += ["--max-model-len", str(max_model_len)]
    if tensor_parallel > 1:
        argv += ["--tensor-parallel-size", str(tensor_parallel)]
    return argv + list(extra or [])


def exec_vllm(argv: list[str]) -> None:
    """Replace this process with vLLM (it prints its port; SIGTERM stops it gracefully)."""
    path = shutil.which(argv[0])
    if path is None:
        raise VllmMissing(
            "serve: --engine vllm: the 'vllm' program is not on PATH; install vLLM "
            "(pip install vllm) or use --engine builtin"
        )
    print("serve: " + " ".join(argv), flush=True)
    os.execv(path, argv)
