"""TRL adapters (docs/training-with-ptxbench.md): a reward function for `GRPOTrainer(reward_funcs=
[...])` and an environment class for its multi-turn rollouts (`environment_factory=`).

    from ptxbench_client import Client
    from ptxbench_client.trl import KernelReward, KernelEnvironment
    client = Client(url, token)
    trainer = GRPOTrainer(model, reward_funcs=[KernelReward(client)], train_dataset=rows, ...)
    # rows carry a "task" column (and optionally "arch"); the reward of a NOT_RUN or
    # INTERNAL_ERROR verdict is None, which TRL leaves out of the mean.
    trainer = GRPOTrainer(model, environment_factory=KernelEnvironment.factory(client), ...)
"""

from __future__ import annotations

from typing import Any, Callable

from ptxbench_client.client import Client, Episode, ServiceError
from ptxbench_client.scoring import completion_text, score_replies


class KernelReward:
    """`reward_funcs` entry: `f(completions, **columns) -> list[float | None]`. Each completion is
    judged as a model reply (its last fenced code block is the candidate) on its row's task; the
    whole list goes to the service as one batch. `last_parts` keeps the reward parts of the last
    call (verdict, speedup, families ...) for a trainer that logs or shapes them."""

    def __init__(self, client: Client, *, arch: str = "hopper", task_column: str = "task",
                 arch_column: str = "arch", reward: dict[str, Any] | None = None,
                 salt: str = "", name: str = "ptxbench"):
        self.client = client
        self.arch = arch
        self.task_column = task_column
        self.arch_column = arch_column
        self.reward = reward
        self.salt = salt
        self.__name__ = name  # TRL logs rewards/<__name__>/mean
        self.last_parts: list[dict[str, Any] | None] = []

    def __call__(self, completions: list[Any], **kwargs: Any) -> list[float | None]:
        if self.task_column not in kwargs:
            raise KeyError(f"{self.task_column}: the dataset needs this column (the task's name)")
        tasks = list(kwargs[self.task_column])
        arches = list(kwargs.get(self.arch_column) or [self.arch] * len(tasks))
        replies = [completion_text(c) for c in completions]
        results = score_replies(self.client, tasks, arches, replies, reward=self.reward,
                                salt=self.salt)
        self.last_parts = [r.get("parts") for r in results]
        return [r.get("reward") for r in results]


class KernelEnvironment:
    """An episode of the service's RL environment as a TRL environment: `reset(**row)` opens it
    on the row's task and returns the task's prompt (TRL appends it to the last user message),
    the tool `evaluate_kernel` judges a reply and returns the feedback a model sees in `ptxbench
    run`, and `get_reward` is the reward of the last evaluated reply. A rollout that never called
    the tool is judged as a reply without code, by the service, like any other."""

    def __init__(self, client: Client, *, arch: str = "hopper", context: str = "none",
                 max_turns: int = 4, reward: dict[str, Any] | None = None,
                 task_column: str = "task"):
        self._client = client
        self._arch = arch
        self._context = context
        self._max_turns = max_turns
        self._reward = reward
        self._task_column = task_column
        self._episode: Episode | None = None
        self._rewards: list[float | None] = []
        self._done = False

    @classmethod
    def factory(cls, client: Client, **options: Any) -> Callable[[], "KernelEnvironment"]:
        """The no-argument callable `environment_factory` takes."""
        return lambda: cls(client, **options)

    def reset(self, **row: Any) -> str | None:
        self._episode = self._client.reset(self._arch, task=row.get(self._task_column),
                                           context=self._context, seed=int(row.get("seed", 0)),
                                           max_turns=self._max_turns, reward=self._reward)
        self._rewards = []
        self._done = False
        return self._episode.messages[-1]["content"]

    def evaluate_kernel(self, reply: str) -> str:
        """Compiles and judges a CUDA kernel on the GPU (correctness, executed instructions,
        speed against cuBLAS/cuDNN) and returns the verdict and what to fix.

        Args:
            reply: The full candidate: one ```cuda fenced block holding the whole .cu file.
        """
        if self._episode is None:
            raise RuntimeError("the environment was not reset")
        if self._done:
            raise RuntimeError("the episode is over: no more evaluations")
        step = self._client.step(self._episode, reply)
        self._rewards.append(step.reward)
        self._done = step.done
        return step.feedback

    def get_reward(self) -> float | None:
        if self._episode is None:
            return None
        if not self._rewards:
            try:
                self.evaluate_kernel("")
            except ServiceError:
                return None
        return self._rewards[-1]
