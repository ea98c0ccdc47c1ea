"""verl adapters (docs/training-with-ptxbench.md).

Single-turn: a custom reward function, set in the trainer's config as
    custom_reward_function.path=<this file>  custom_reward_function.name=compute_score
    (or compute_score_batch with reward_model.reward_manager=batch)
The row's `ground_truth` (reward_model.ground_truth) is the task's name; `extra_info` may carry
"arch". The service is PTXBENCH_URL / PTXBENCH_TOKEN, or custom_reward_function.reward_kwargs.

Multi-turn: `KernelAgentLoop`, registered as agent loop "ptxbench_kernel": each turn the policy
writes a reply, the service judges it and its feedback is the next user message (mask 0); the
episode's last reward is the rollout's reward_score. verl is imported only by the agent loop.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any
from uuid import uuid4

from ptxbench_client.scoring import score_replies
from ptxbench_client.settings import client_from, number_or_raise


def _flatten(result: dict[str, Any], null_reward: float | None) -> dict[str, Any]:
    """verl's dict form: "score" is the reward, the rest goes to its reward_extra_info."""
    parts = result.get("parts") or {}
    verdict = parts.get("verdict", result.get("state", "unknown"))
    return {
        "score": number_or_raise(result.get("reward"), verdict, null_reward),
        "verdict": verdict,
        "compiled": float(bool(parts.get("compiled"))),
        "correct": float(bool(parts.get("correct"))),
        "verified": float(bool(parts.get("verified"))),
        "speedup": float(parts.get("speedup") or 0.0),
    }


def compute_score_batch(data_sources: list[str], solution_strs: list[str],
                        ground_truths: list[str], extra_infos: list[dict | None] | None = None,
                        *, url: str | None = None, token: str | None = None,
                        arch: str = "hopper", reward: dict[str, Any] | None = None,
                        null_reward: float | None = None, salt: str = "") -> list[dict[str, Any]]:
    """One service batch for verl's BatchRewardManager."""
    infos = extra_infos or [None] * len(solution_strs)
    arches = [(info or {}).get("arch", arch) for info in infos]
    results = score_replies(client_from(url, token), list(ground_truths), arches,
                            list(solution_strs), reward=reward, salt=salt)
    return [_flatten(r, null_reward) for r in results]


def compute_score(data_source: str, solution_str: str, ground_truth: str,
                  extra_info: dict | None = None, **options: Any) -> dict[str, Any]:
    """verl's compute_score(data_source, solution_str, ground_truth, extra_info) -> dict."""
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info],
                               **options)[0]


def _agent_loop_class():
    from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput, register

    @register("ptxbench_kernel")
    class KernelAgentLoop(AgentLoopBase):
        """Multi-turn rollouts against the service's RL environment. Options (agent loop
        config, or PTXBENCH_* variables): url, token, arch, context, max_turns, reward."""

        def __init__(self, *args: Any, url: str | None = None, token: str | None = None,
                     arch: str | None = None, context: str | None = None,
                     max_turns: int | None = None, reward: dict[str, Any] | None = None,
                     **kwargs: Any):
            super().__init__(*args, **kwargs)
            self.client = client_from(url, token)
            self.arch = arch or os.environ.get("PTXBENCH_ARCH", "hopper")
            self.context = context or os.environ.get("PTXBENCH_CONTEXT", "none")
            self.max_turns = int(max_turns or os.environ.get("PTXBENCH_MAX_TURNS", 4))
            self.reward = reward
            self.response_length = self.config.actor_rollout_ref.rollout.response_length

        def _ids(self, messages: list[dict[str, str]], generation_prompt: bool) -> list[int]:
            out = self.tokenizer.apply_chat_template(
                messages, add_generation_prompt=generation_prompt, tokenize=True,
                return_dict=True)
            return list(out["input_ids"])

        def _tokens(self, messages: list[dict[str, str]], first: bool) -> list[int]:
            if first:
                return self._ids(messages, True)
            # The tokens a message adds after the conversation so far: rendered with a stand-in
            # first message and cut after it, so that no system prompt is repeated.
            anchor = [{"role": "user", "content": "."}]
            base = self._ids(anchor, False)
            return self._ids(anchor + messages, True)[len(base):]

        async def run(self, sampling_params: dict[str, Any], **kwargs: Any):
            loop = asyncio.get_running_loop()
            info = kwargs.get("extra_info") or {}
            task = info.get("task") or (kwargs.get("reward_model") or {}).get("ground_truth")
            episode = await loop.run_in_executor(None, lambda: self.client.reset(
                self.arch, task=task, context=self.context, max_turns=self.max_turns,
                seed=int(info.get("seed", 0)), reward=self.reward))
            prompt_ids = self._tokens(episode.messages, first=True)
            response_ids: list[int] = []
            mask: list[int] = []
            rewards: list[float | None] = []
            turns = 0
            while len(response_ids) < self.response_length:
                output = await self.server_manager.generate(
                    request_id=uuid4().hex, prompt_ids=prompt_ids + response_ids,
                    sampling_params=sampling_params)
                generated = list(getattr(output, "token_ids", output))
                response_ids += generated
                mask += [1] * len(generated)
                turns += 1
                reply = self.tokenizer.decode(generated, skip_special_tokens=True)
                step = await loop.run_in_executor(None, lambda: self.client.step(episode, reply))
                rewards.append(step.reward)
                if step.done:
                    break
                feedback = self._tokens([{"role": "user", "content": step.feedback}], first=False)
                response_ids += feedback
                mask += [0] * len(feedback)
            return AgentLoopOutput(
                prompt_ids=prompt_ids,
                response_ids=response_ids[: self.response_length],
                response_mask=mask[: self.response_length],
                # None (NOT_RUN, INTERNAL_ERROR): verl falls back to its reward function
                reward_score=rewards[-1] if rewards else None,
                num_turns=2 * turns,
                metrics={},
                extra_fields={"turn_scores": rewards},
            )

    return KernelAgentLoop


def __getattr__(name: str):
    # `KernelAgentLoop` is built on first use, so the reward function needs no verl installed.
    if name == "KernelAgentLoop":
        cls = _agent_loop_class()
        globals()[name] = cls
        return cls
    raise AttributeError(name)
