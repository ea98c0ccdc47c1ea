"""Client of `ptxbench serve`: evaluations and the RL environment (docs/serve.md)."""

from ptxbench_client.client import Client, Episode, ServiceError, StepResult, candidate_key

__all__ = ["Client", "Episode", "ServiceError", "StepResult", "candidate_key"]
