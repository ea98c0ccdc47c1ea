"""Each RL adapter against a running `ptxbench serve`, then a thousand RL sessions at once while
the GPU judges kernels (part 55-rl-adapters; docs/training-with-ptxbench.md).

1. Adapters, each through its own entry point, on three replies (the expert GEMM, a broken GEMM,
   a reply without code): TRL's `KernelReward`, verl's `compute_score_batch`, verifiers'
   `load_environment` (through a stand-in of vf.Rubric / vf.SingleTurnEnv: verifiers is not
   installable on the GPU machine) and the OpenEnv-style `KernelEnv`.
2. Load: SESSIONS sessions opened at once; each takes one step from THREADS trainer threads.
   GPU_STEPS of them step with a distinct copy of the expert kernel (judged on the GPU), the rest
   with a reply without code (judged at once). Recorded: every step answered, latency p50/p95 of
   the steps without code while the GPU works, the GPU steps' rewards, every session closed.

Prints one JSON summary; exits 1 when a check fails. With --no-gpu (a service started with
--no-gpu, how this script is tried on a CPU machine) the kernels' verdicts are NOT_RUN and their
rewards null, which is then what is checked."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ptxbench_client import Client, ServiceError
from ptxbench_client.openenv import KernelEnv
from ptxbench_client.trl import KernelReward
from ptxbench_client.verl import compute_score_batch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "serve"))
from verifiers_stand_in import install_verifiers_stand_in  # noqa: E402  (verifiers' interface)

TASK = "gemm_n7168_k5120"
NO_CODE = "I would tile it in shared memory first."


def fenced(code: str) -> str:
    return "```cuda\n" + code + "\n```\n"


def percentile(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))], 3)


def adapters(client: Client, url: str, token: str, replies: list[str], gpu: bool) -> dict:
    """Scores of the three replies through each adapter: {adapter: [score, ...]}, plus verdicts."""
    out: dict = {}
    trl = KernelReward(client)
    out["trl"] = {"scores": trl([[{"role": "assistant", "content": r}] for r in replies],
                                task=[TASK] * len(replies)),
                  "verdicts": [(p or {}).get("verdict") for p in trl.last_parts]}
    # verl takes numbers only: a null reward (NOT_RUN without a GPU) is scored as null_reward.
    verl = compute_score_batch(["ptxbench"] * len(replies), replies, [TASK] * len(replies),
                               url=url, token=token, null_reward=None if gpu else float("nan"))
    out["verl"] = {"scores": [v["score"] for v in verl], "verdicts": [v["verdict"] for v in verl]}
    try:
        install_verifiers_stand_in()
        from ptxbench_client.verifiers_env import load_environment

        env = load_environment(tasks=[TASK], url=url, token=token,
                               null_reward=None if gpu else float("nan"))
        row = env.dataset[0]
        scores = [asyncio.run(env.rubric.score([{"role": "assistant", "content": r}],
                                               row["answer"], row["info"])) for r in replies]
        out["verifiers"] = {"scores": scores}
    except ImportError as error:  # `datasets` missing: said, not passed
        out["verifiers"] = {"not_run": str(error)}
    env = KernelEnv(client, max_turns=1)
    env.reset(task=TASK)
    step = env.step(replies[0])
    env.close()
    out["openenv"] = {"reward": step.reward, "done": step.done,
                      "verdict": step.info["reward_parts"].get("verdict")}
    return out


def load(client: Client, expert: str, sessions: int, gpu_steps: int, threads: int) -> dict:
    started = time.time()
    episodes = []
    refused = 0
    for _ in range(sessions):
        try:
            episodes.append(client.reset("hopper", task=TASK, max_turns=1))
        except ServiceError:
            refused += 1
    opened_s = time.time() - started
    replies = [fenced(expert + f"\n// copy {i}\n") if i < gpu_steps else NO_CODE
               for i in range(len(episodes))]
    latencies: dict[str, list[float]] = {"gpu": [], "no_code": []}
    rewards: dict[str, list] = {"gpu": [], "no_code": []}
    errors: list[str] = []

    def one(i: int) -> None:
        kind = "gpu" if i < gpu_steps else "no_code"
        t = time.time()
        try:  # the client retries refusals (429/503) after their Retry-After
            result = client.step(episodes[i], replies[i])
            rewards[kind].append(result.reward)
        except ServiceError as error:
            errors.append(f"{error}")
        latencies[kind].append(time.time() - t)

    t = time.time()
    # The GPU steps go first so that the steps without code are answered while the GPU works.
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(one, range(len(episodes))))
    steps_s = time.time() - t
    closed = 0
    for episode in episodes:
        try:
            client.close(episode)
            closed += 1
        except ServiceError as error:
            errors.append(f"close: {error}")
    return {"sessions": sessions, "opened": len(episodes), "refused": refused,
            "open_seconds": round(opened_s, 1), "step_seconds": round(steps_s, 1),
            "no_code_p50_s": percentile(latencies["no_code"], 0.5),
            "no_code_p95_s": percentile(latencies["no_code"], 0.95),
            "gpu_p50_s": percentile(latencies["gpu"], 0.5),
            "gpu_max_s": percentile(latencies["gpu"], 1.0),
            "answered": len(latencies["gpu"]) + len(latencies["no_code"]),
            "gpu_rewards": rewards["gpu"], "no_code_rewards": sorted(set(rewards["no_code"])),
            "closed": closed, "errors": errors[:20], "error_count": len(errors)}


def check(summary: dict, gpu: bool) -> list[str]:
    problems = []
    a = summary["adapters"]
    for name in ("trl", "verl"):
        verdicts = a[name]["verdicts"]
        expected = ["PASSED" if gpu else "NOT_RUN", None, "NO_CODE"]
        if verdicts[0] != expected[0] or verdicts[2] != expected[2]:
            problems.append(f"{name}: verdicts {verdicts}, expected {expected[0]}, ..., NO_CODE")
    trl = a["trl"]["scores"]
    if trl[2] != -0.5:
        problems.append(f"trl: the reply without code scored {trl[2]}, not -0.5")
    if gpu and not (trl[0] is not None and trl[0] > 0 and (trl[1] is None or trl[1] < trl[0])):
        problems.append(f"trl: expert {trl[0]} should score above 0 and above broken {trl[1]}")
    for name in ("verl", "verifiers"):
        if "scores" not in a[name]:  # not run is a problem, never a pass
            problems.append(f"{name}: not run ({a[name].get('not_run')})")
        elif a[name]["scores"][2] != -0.5:
            problems.append(f"{name}: the reply without code scored {a[name]['scores'][2]}")
        elif gpu and a[name]["scores"] != trl:
            problems.append(f"{name} scores {a[name]['scores']} differ from TRL's {trl}")
    if a["openenv"]["verdict"] != ("PASSED" if gpu else "NOT_RUN") or not a["openenv"]["done"]:
        problems.append(f"openenv: expert step {a['openenv']}")
    if gpu and a["openenv"]["reward"] != trl[0]:
        problems.append(f"openenv: expert step reward {a['openenv']['reward']}, TRL's {trl[0]}")
    load_ = summary["load"]
    if load_["opened"] != load_["sessions"] or load_["answered"] != load_["opened"]:
        problems.append(f"load: {load_['opened']} opened, {load_['answered']} answered "
                        f"of {load_['sessions']}")
    if load_["error_count"] or load_["closed"] != load_["opened"]:
        problems.append(f"load: {load_['error_count']} errors, {load_['closed']} closed")
    if load_["no_code_rewards"] != [-0.5]:
        problems.append(f"load: rewards without code {load_['no_code_rewards']}")
    if gpu and any(r is None or r <= 0 for r in load_["gpu_rewards"]):
        problems.append(f"load: GPU step rewards {load_['gpu_rewards']}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--expert", required=True, type=Path)
    parser.add_argument("--broken", required=True, type=Path)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--gpu-steps", type=int, default=8)
    parser.add_argument("--threads", type=int, default=48)  # the service allows 64 per address
    parser.add_argument("--no-gpu", action="store_true")
    args = parser.parse_args()
    client = Client(args.url, args.token)
    expert = args.expert.read_text()
    replies = [fenced(expert), fenced(args.broken.read_text()), NO_CODE]
    t = time.time()
    summary = {"adapters": adapters(client, args.url, args.token, replies, not args.no_gpu)}
    summary["adapters_seconds"] = round(time.time() - t, 1)
    summary["load"] = load(client, expert, args.sessions, args.gpu_steps, args.threads)
    summary["health"] = client.health()
    summary["problems"] = check(summary, not args.no_gpu)
    print(json.dumps(summary, indent=1, default=str))
    return 1 if summary["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
