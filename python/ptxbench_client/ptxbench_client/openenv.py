"""An OpenEnv-style session environment (also the shape SkyRL, Tinker and NeMo RL wrap):
`reset()` -> first observation, `step(action)` -> StepOutcome(observation, reward, done, info),
`close()`. One object is one episode at a time over the service's RL environment."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ptxbench_client.client import Client, Episode


@dataclass
class Observation:
    messages: list[dict[str, str]]  # the conversation so far; the last one is the model's prompt
    task: str


@dataclass
class StepOutcome:
    observation: Observation
    reward: float | None  # None: no reward (NOT_RUN, INTERNAL_ERROR); never count it as 0
    done: bool
    info: dict[str, Any] = field(default_factory=dict)  # reward_parts, record, evaluation_id


class KernelEnv:
    def __init__(self, client: Client, *, arch: str = "hopper", context: str = "none",
                 max_turns: int = 4, reward: dict[str, Any] | None = None,
                 target_speedup: float | None = None):
        self.client = client
        self.options = dict(context=context, max_turns=max_turns, reward=reward,
                            target_speedup=target_speedup)
        self.arch = arch
        self.episode: Episode | None = None

    def reset(self, task: str | None = None, seed: int = 0, split: str = "train") -> Observation:
        self.episode = self.client.reset(self.arch, task=task, seed=seed, split=split,
                                         **self.options)
        return Observation(messages=list(self.episode.messages), task=self.episode.task)

    def step(self, action: str) -> StepOutcome:
        if self.episode is None:
            raise RuntimeError("step before reset")
        result = self.client.step(self.episode, action)
        return StepOutcome(
            observation=Observation(messages=list(self.episode.messages), task=self.episode.task),
            reward=result.reward, done=result.done,
            info={"reward_parts": result.reward_parts, "record": result.record,
                  "evaluation_id": result.evaluation_id, "turn": result.turn})

    def close(self) -> None:
        """Ends the current episode on the service, if any (each token holds a bounded number)."""
        if self.episode is not None:
            episode, self.episode = self.episode, None
            self.client.close(episode)
