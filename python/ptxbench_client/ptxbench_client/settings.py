"""How adapters that a trainer loads by name (verl's custom_reward_function, its agent loops,
verifiers' load_environment) find the service: arguments first, then the environment variables
PTXBENCH_URL and PTXBENCH_TOKEN. Also the one rule for a reward of None where a trainer only
takes numbers."""

from __future__ import annotations

import os

from ptxbench_client.client import Client


def client_from(url: str | None = None, token: str | None = None) -> Client:
    url = url or os.environ.get("PTXBENCH_URL")
    token = token or os.environ.get("PTXBENCH_TOKEN")
    if not url or not token:
        raise RuntimeError("ptxbench: the service is unknown: pass url= and token=, or set "
                           "PTXBENCH_URL and PTXBENCH_TOKEN")
    return Client(url, token)


class NoReward(Exception):
    """The judge could not establish a verdict (NOT_RUN: no GPU of the arch behind the service;
    INTERNAL_ERROR: the judge failed). A trainer that takes only numbers must not count it as 0."""


def number_or_raise(reward: float | None, verdict: str, null_reward: float | None) -> float:
    """The reward as a number; None becomes `null_reward` when one is given, else NoReward."""
    if reward is not None:
        return float(reward)
    if null_reward is not None:
        return float(null_reward)
    raise NoReward(f"no reward for verdict {verdict}: is the service on a GPU of the arch? "
                   "(null_reward= scores such samples with a number of your choice)")
