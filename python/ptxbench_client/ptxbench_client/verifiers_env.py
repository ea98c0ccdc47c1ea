"""A verifiers / prime-rl environment backed by the service (docs/training-with-ptxbench.md):

    # in an environment package's module: load_environment is what `prime env` / vf-eval load
    from ptxbench_client.verifiers_env import load_environment

Each row's prompt is the service's prompt of its task (GET /v1/tasks/{task}/prompt) and its
`answer` the task's name; the rubric's one reward function sends the rollout's completions to
the service, one batch per scoring call. verifiers takes numbers only: a reward of None (the
judge could not establish a verdict) raises NoReward unless null_reward= says what to score.
"""

from __future__ import annotations

from typing import Any

from ptxbench_client.scoring import completion_text, score_replies
from ptxbench_client.settings import client_from, number_or_raise


def kernel_rows(client, tasks: list[str], arch: str, context: str) -> list[dict[str, Any]]:
    return [{"prompt": client.prompt(task, arch, context), "answer": task,
             "info": {"task": task, "arch": arch}} for task in tasks]


def load_environment(tasks: list[str] | None = None, split: str = "train", arch: str = "hopper",
                     context: str = "none", url: str | None = None, token: str | None = None,
                     reward: dict[str, Any] | None = None, null_reward: float | None = None,
                     **env_args: Any):
    """A vf.SingleTurnEnv over the service's tasks of `split` (or the given `tasks`). Held-out
    tasks stay out of a train environment: only `split`'s tasks are listed."""
    import verifiers as vf
    from datasets import Dataset

    client = client_from(url, token)
    if tasks is None:
        tasks = [t["name"] for t in client.tasks() if t.get("split") == split]
    dataset = Dataset.from_list(kernel_rows(client, tasks, arch, context))

    async def ptxbench_reward(completion, answer, info=None, **_: Any) -> float:
        row_arch = (info or {}).get("arch", arch)
        result = score_replies(client, [answer], [row_arch], [completion_text(completion)],
                               reward=reward)[0]
        verdict = (result.get("parts") or {}).get("verdict", "unknown")
        return number_or_raise(result.get("reward"), verdict, null_reward)

    rubric = vf.Rubric(funcs=[ptxbench_reward], weights=[1.0])
    return vf.SingleTurnEnv(dataset=dataset, rubric=rubric, **env_args)
