"""What every adapter shares: the text of a completion in any trainer's shape, and scoring a list
of completions through one batch of the service (idempotent: a retried list is not re-judged)."""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from ptxbench_client.client import Client, candidate_key


def completion_text(completion: Any) -> str:
    """A completion as text: a string as is; a conversation (a list of {"role", "content"}
    messages, as TRL and verifiers give chat completions) as its last assistant message."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return str(completion.get("content") or "")
    if isinstance(completion, Sequence):
        for message in reversed(list(completion)):
            if isinstance(message, dict) and message.get("role", "assistant") == "assistant":
                content = message.get("content") or ""
                if isinstance(content, list):  # multimodal parts: keep the text ones
                    content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
                return str(content)
        return ""
    raise TypeError(f"completion: expected a string or a list of messages, got {type(completion)}")


def score_replies(client: Client, tasks: Iterable[str], arches: Iterable[str],
                  replies: Iterable[str], *, reward: dict[str, Any] | None = None,
                  salt: str = "") -> list[dict[str, Any]]:
    """One batch result per reply ({"key", "reward", "parts", ...}), in order. A reward of None
    means the judge could not establish a verdict (NOT_RUN, INTERNAL_ERROR): drop the sample,
    never count it as 0."""
    rows = list(zip(tasks, arches, replies, strict=True))
    keys = [candidate_key(task, arch, reply, salt) for task, arch, reply in rows]
    items: dict[str, dict[str, str]] = {}
    for key, (task, arch, reply) in zip(keys, rows):
        # the same reply twice in one batch is one evaluation
        items.setdefault(key, {"key": key, "task": task, "arch": arch, "reply": reply})
    results = client.evaluate_batch(list(items.values()), reward=reward) if items else []
    by_key = {r["key"]: r for r in results}
    return [by_key[key] for key in keys]
