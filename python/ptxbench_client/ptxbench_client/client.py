"""HTTP client of API v1 of `ptxbench serve` (docs/openapi.yaml), standard library only."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Iterator


class ServiceError(Exception):
    """A response other than 2xx: `status` is the HTTP status, `message` the service's reason,
    `retry_after` the seconds to wait before trying again (429: the queue is full or the client
    at its limit; 503: the service drains), None when the service gave none."""

    def __init__(self, status: int, message: str, retry_after: float | None = None):
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message
        self.retry_after = retry_after


@dataclass
class StepResult:
    turn: int
    feedback: str
    reward: float | None  # None: the judge could not establish the verdict (e.g. NOT_RUN)
    done: bool
    record: dict[str, Any]
    evaluation_id: str


@dataclass
class Episode:
    session: str
    task: str
    messages: list[dict[str, str]] = field(default_factory=list)


class Client:
    def __init__(self, base_url: str, token: str, timeout_s: float = 900.0):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout_s = timeout_s

    # --- transport -------------------------------------------------------------------------
    def _request(self, method: str, path: str, body: dict | None = None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base_url + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            return urllib.request.urlopen(request, timeout=self.timeout_s)
        except urllib.error.HTTPError as error:
            text = error.read().decode(errors="replace")
            try:
                message = json.loads(text).get("error", text)
            except ValueError:
                message = text
            retry_after = error.headers.get("Retry-After")
            raise ServiceError(error.code, message,
                               float(retry_after) if retry_after else None) from None

    def _json(self, method: str, path: str, body: dict | None = None) -> dict[str, Any]:
        with self._request(method, path, body) as response:
            return json.loads(response.read())

    # --- tasks and prompts -----------------------------------------------------------------
    def health(self) -> dict[str, Any]:
        return self._json("GET", "/v1/health")

    def tasks(self) -> list[dict[str, Any]]:
        return self._json("GET", "/v1/tasks")["tasks"]

    def task(self, name: str) -> dict[str, Any]:
        return self._json("GET", f"/v1/tasks/{urllib.parse.quote(name)}")

    def prompt(self, task: str, arch: str, context: str = "none") -> list[dict[str, str]]:
        query = urllib.parse.urlencode({"arch": arch, "context": context})
        return self._json("GET", f"/v1/tasks/{urllib.parse.quote(task)}/prompt?{query}")["messages"]

    # --- evaluations -----------------------------------------------------------------------
    def submit(self, task: str, arch: str, *, code: str | None = None, reply: str | None = None,
               source_name: str | None = None) -> str:
        """Queues a candidate (`code`, a .cu source) or a model `reply`; returns the id."""
        body: dict[str, Any] = {"task": task, "arch": arch}
        if code is not None:
            body["code"] = code
        if reply is not None:
            body["reply"] = reply
        if source_name is not None:
            body["source_name"] = source_name
        return self._json("POST", "/v1/evaluations", body)["id"]

    def evaluation(self, evaluation_id: str) -> dict[str, Any]:
        """{"id", "state": queued|running|done, "record" once done}."""
        return self._json("GET", f"/v1/evaluations/{evaluation_id}")

    def stream(self, evaluation_id: str) -> Iterator[tuple[str, dict[str, Any]]]:
        """Server-sent events of the evaluation: ("state", {...}) ... ("record", record)."""
        with self._request("GET", f"/v1/evaluations/{evaluation_id}/stream") as response:
            event, data = None, []
            for raw in response:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[len("event: "):]
                elif line.startswith("data: "):
                    data.append(line[len("data: "):])
                elif line == "" and event is not None:
                    yield event, json.loads("\n".join(data) or "{}")
                    event, data = None, []

    def wait(self, evaluation_id: str, poll_s: float = 0.5) -> dict[str, Any]:
        """The evaluation record (the JSON of `ptxbench eval --json`), once done."""
        for event, data in self.stream(evaluation_id):
            if event == "record":
                return data
        while True:  # the stream ended early (the service drains): poll
            state = self.evaluation(evaluation_id)
            if state["state"] == "done":
                return state["record"]
            time.sleep(poll_s)

    def evaluate(self, task: str, arch: str, **candidate: str) -> dict[str, Any]:
        return self.wait(self.submit(task, arch, **candidate))

    # --- RL environment --------------------------------------------------------------------
    def reward_config(self) -> dict[str, float]:
        return self._json("GET", "/v1/env/reward")

    def reset(self, arch: str, *, task: str | None = None, context: str = "none", seed: int = 0,
              max_turns: int = 8, target_speedup: float | None = None,
              split: str = "train") -> Episode:
        body: dict[str, Any] = {"arch": arch, "context": context, "seed": seed,
                                "max_turns": max_turns, "split": split}
        if task is not None:
            body["task"] = task
        if target_speedup is not None:
            body["target_speedup"] = target_speedup
        out = self._json("POST", "/v1/env/reset", body)
        return Episode(session=out["session"], task=out["task"], messages=out["messages"])

    def step(self, episode: Episode, reply: str) -> StepResult:
        """Evaluates the reply; appends it and the feedback to the episode's messages."""
        out = self._json("POST", "/v1/env/step", {"session": episode.session, "reply": reply})
        episode.messages.append({"role": "assistant", "content": reply})
        episode.messages.append({"role": "user", "content": out["feedback"]})
        return StepResult(turn=out["turn"], feedback=out["feedback"], reward=out["reward"],
                          done=out["done"], record=out["record"],
                          evaluation_id=out["evaluation_id"])
