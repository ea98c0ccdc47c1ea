"""HTTP client of API v1 of `ptxbench serve` (docs/openapi.yaml), standard library only."""

from __future__ import annotations

import hashlib
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
    # What the reward was computed from (docs/serve.md "Reward parts"): verdict, compiled,
    # correct, verified, families with FLOP shares, speedup, speed_of_light, exploits.
    reward_parts: dict[str, Any] = field(default_factory=dict)


@dataclass
class Episode:
    session: str
    task: str
    messages: list[dict[str, str]] = field(default_factory=list)


class Client:
    def __init__(self, base_url: str, token: str, timeout_s: float = 900.0,
                 refusal_wait_s: float = 600.0):
        """`refusal_wait_s`: how long `reset` and `step` keep retrying a refusal (429: the queue
        or the client's limit; 503: too many connections, draining) after its Retry-After. A
        refused request has judged and changed nothing, and a trainer's rollout should not see an
        overloaded service as the tool's answer. 0 raises the ServiceError at once."""
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout_s = timeout_s
        self.refusal_wait_s = refusal_wait_s

    def _until_accepted(self, call, until: float | None = None):
        """call(), retried after each refusal's Retry-After for refusal_wait_s, and never past
        `until` (a time.monotonic() deadline of the caller)."""
        deadline = time.monotonic() + self.refusal_wait_s
        if until is not None:
            deadline = min(deadline, until)
        while True:
            try:
                return call()
            except ServiceError as error:
                wait = error.retry_after or 1.0
                if error.status not in (429, 503) or time.monotonic() + wait > deadline:
                    raise
                time.sleep(wait)

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
    def reward_config(self) -> dict[str, Any]:
        """The service's reward function: {"kind", "version", the kind's fields}."""
        return self._json("GET", "/v1/env/reward")

    def reset(self, arch: str, *, task: str | None = None, context: str = "none", seed: int = 0,
              max_turns: int = 8, target_speedup: float | None = None,
              split: str = "train", reward: dict[str, Any] | None = None) -> Episode:
        """Opens an episode; `reward` chooses this episode's reward function (docs/serve.md)."""
        body: dict[str, Any] = {"arch": arch, "context": context, "seed": seed,
                                "max_turns": max_turns, "split": split}
        if task is not None:
            body["task"] = task
        if reward is not None:
            body["reward"] = reward
        if target_speedup is not None:
            body["target_speedup"] = target_speedup
        out = self._until_accepted(lambda: self._json("POST", "/v1/env/reset", body))
        return Episode(session=out["session"], task=out["task"], messages=out["messages"])

    def step(self, episode: Episode, reply: str) -> StepResult:
        """Evaluates the reply; appends it and the feedback to the episode's messages. A refusal
        is retried for `refusal_wait_s` (see the constructor)."""
        out = self._until_accepted(lambda: self._json(
            "POST", "/v1/env/step", {"session": episode.session, "reply": reply}))
        episode.messages.append({"role": "assistant", "content": reply})
        episode.messages.append({"role": "user", "content": out["feedback"]})
        return StepResult(turn=out["turn"], feedback=out["feedback"], reward=out["reward"],
                          done=out["done"], record=out["record"],
                          evaluation_id=out["evaluation_id"],
                          reward_parts=out.get("reward_parts", {}))

    def close(self, episode: Episode) -> None:
        """Ends the episode on the service (DELETE /v1/env/sessions/{id}), freeing one of the
        token's sessions. Closing an episode the service no longer holds raises ServiceError."""
        with self._request("DELETE", f"/v1/env/sessions/{episode.session}"):
            pass

    def step_all(self, steps: list[tuple[Episode, str]], *,
                 max_workers: int = 16) -> list[StepResult]:
        """Steps of many episodes at once (one reply each), in the order given: each is one
        blocking POST /v1/env/step on its own thread, so the service judges them together (its
        --workers and the token's MAX_IN_FLIGHT bound how many run at once). A step the service
        refuses raises its ServiceError here once all have returned."""
        from concurrent.futures import ThreadPoolExecutor

        if len({id(episode) for episode, _ in steps}) != len(steps):
            raise ValueError("steps: one reply per episode (an episode takes its steps in turn)")
        with ThreadPoolExecutor(max_workers=max(1, min(max_workers, len(steps) or 1))) as pool:
            futures = [pool.submit(self.step, episode, reply) for episode, reply in steps]
            return [future.result() for future in futures]

    # --- batches ---------------------------------------------------------------------------
    def submit_batch(self, items: list[dict[str, Any]],
                     reward: dict[str, Any] | None = None) -> dict[str, Any]:
        """POST /v1/batches: items are {"key", "task", "arch", "code" or "reply"}; returns the
        batch ({"id", "items": [{"key", "state", ...}]}); refused items have state "refused"."""
        body: dict[str, Any] = {"items": items}
        if reward is not None:
            body["reward"] = reward
        return self._json("POST", "/v1/batches", body)

    def batch(self, batch_id: str, *, wait_s: int = 0, records: bool = False) -> dict[str, Any]:
        """GET /v1/batches/{id}; `wait_s` (<= 60) long-polls until every item is done."""
        query = urllib.parse.urlencode({"wait_s": wait_s, "records": int(records)})
        return self._json("GET", f"/v1/batches/{batch_id}?{query}")

    def evaluate_batch(self, items: list[dict[str, Any]], *,
                       reward: dict[str, Any] | None = None, records: bool = False,
                       timeout_s: float | None = None) -> list[dict[str, Any]]:
        """Every item's result ({"key", "reward", "parts", ...}) in the order given. Items the
        service refuses for now (queue full, client limit) are sent again with their keys after
        Retry-After, so nothing is evaluated twice; an item refused for good (409: a key reused
        for another candidate, 400) raises ServiceError."""
        deadline = time.monotonic() + (self.timeout_s if timeout_s is None else timeout_s)
        pending = {item["key"]: item for item in items}
        results: dict[str, dict[str, Any]] = {}
        batches: list[str] = []
        while pending:
            # The batch's keys make a resent POST safe; a refused one (503: too many
            # connections) judged nothing.
            out = self._until_accepted(lambda: self.submit_batch(list(pending.values()), reward),
                                       deadline)
            batches.append(out["id"])
            refused_now = False
            for result in out["items"]:
                if result["state"] != "refused":
                    pending.pop(result["key"], None)
                elif result["status"] in (429, 503):
                    refused_now = True
                else:
                    raise ServiceError(result["status"], result["error"])
            if pending:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{len(pending)} items still refused by the service")
                # Finished items free the client's slots: wait for some before trying again.
                self._until_accepted(lambda: self.batch(batches[-1], wait_s=5 if refused_now else 0,
                                                        records=False), deadline)
        for batch_id in batches:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"batch {batch_id}: not done in time")
                out = self._until_accepted(lambda: self.batch(
                    batch_id, wait_s=int(max(1, min(60, left))), records=records), deadline)
                if all(r["state"] in ("done", "refused") for r in out["items"]):
                    break
            for result in out["items"]:
                if result["state"] == "done":
                    results[result["key"]] = result
        return [results[item["key"]] for item in items]


def candidate_key(task: str, arch: str, text: str, salt: str = "") -> str:
    """An idempotency key that stands for the candidate itself: the same text for the same task
    is one evaluation however often a trainer retries it. `salt` separates deliberate repeats
    (e.g. a run id, when a trainer wants each run's own verdicts)."""
    digest = hashlib.sha256("\0".join([salt, task, arch, text]).encode()).hexdigest()
    return "c" + digest[:40]
