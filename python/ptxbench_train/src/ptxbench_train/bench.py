"""Serving throughput: a bounded number of chat completions against an OpenAI-compatible server."""

from __future__ import annotations

import json
import statistics
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor


def chat_once(base_url: str, model: str, prompt: str, max_tokens: int, timeout_s: float = 600) -> dict:
    body = {"model": model, "messages": [{"role": "user", "content": prompt}],
            "max_tokens": max_tokens, "temperature": 0}
    request = urllib.request.Request(f"{base_url.rstrip('/')}/chat/completions",
                                     data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=timeout_s) as reply:
        data = json.loads(reply.read())
    data["latency_s"] = time.perf_counter() - started
    return data


def throughput(base_url: str, model: str, requests: int, concurrency: int, max_tokens: int,
               prompt: str = "Write a CUDA kernel that adds two vectors.") -> dict:
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        replies = list(pool.map(lambda _: chat_once(base_url, model, prompt, max_tokens), range(requests)))
    wall = time.perf_counter() - started
    completion = sum(r["usage"]["completion_tokens"] for r in replies)
    prompt_tokens = sum(r["usage"]["prompt_tokens"] for r in replies)
    latencies = [r["latency_s"] for r in replies]
    return {
        "model": model, "requests": requests, "concurrency": concurrency, "max_tokens": max_tokens,
        "wall_s": round(wall, 3), "completion_tokens": completion, "prompt_tokens": prompt_tokens,
        "completion_tokens_per_s": round(completion / wall, 2) if wall > 0 else None,
        "requests_per_s": round(requests / wall, 3) if wall > 0 else None,
        "latency_median_s": round(statistics.median(latencies), 3),
        "latency_max_s": round(max(latencies), 3),
    }
