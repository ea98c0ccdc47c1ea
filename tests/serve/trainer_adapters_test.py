"""The trainer adapters driven by the trainers' own APIs on the CPU, with a tiny random-weight
model built here (no download) and `ptxbench serve --no-gpu` as the judge (PTXBENCH_EXE):

- TRL: GRPOTrainer runs two steps with `reward_funcs=[KernelReward]`, its generation biased so
  that some completions open a code block including cuBLAS (tiered: FORBIDDEN, -1) and others
  are prose (NO_CODE, -0.5), and two with `environment_factory=KernelEnvironment.factory(...)`;
  the service's rewards reach the trainer's log history.
- verl and verifiers cannot be installed here (verl pins transformers < 5.11 and pulls ray;
  verifiers 0.4 has replaced the documented SingleTurnEnv/Rubric API and pulls ~30 packages), so
  each is a minimal stand-in of its documented interface, driven the way the framework drives
  it: verl's AgentLoopBase/AgentLoopOutput/register with a server manager that generates with
  the tiny model, and verifiers' Rubric/SingleTurnEnv scored on the tiny model's completions.
"""

from __future__ import annotations

import asyncio
import pathlib
import sys
import types

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from serve_fixture import TASK, Service  # noqa: E402
from verifiers_stand_in import install_verifiers_stand_in  # noqa: E402

from ptxbench_client import Client  # noqa: E402

TIERED = {"kind": "tiered"}


@pytest.fixture(scope="module")
def service():
    running = Service(reward=TIERED)
    yield running
    assert running.close() == 0


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A random-weight Qwen2 model and a ChatML tokenizer with TRL's Qwen3 template (tools)."""
    import torch
    import trl
    from ptxbench_train.tiny_model import build_tiny_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = build_tiny_model(tmp_path_factory.mktemp("model") / "tiny", size="tiny",
                              max_positions=32768, vocab_size=512)
    tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    template = pathlib.Path(trl.__file__).parent / "chat_templates" / "qwen3.jinja"
    tokenizer.chat_template = template.read_text()
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(str(folder), local_files_only=True)
    return model, tokenizer


def grpo_args(tmp_path, **extra):
    from trl import GRPOConfig

    settings = dict(output_dir=str(tmp_path), per_device_train_batch_size=2, num_generations=2,
                    max_completion_length=8, max_steps=2, logging_steps=1, report_to=[],
                    use_cpu=True, save_strategy="no", learning_rate=1e-4, seed=0)
    return GRPOConfig(**{**settings, **extra})


def library_bias(tokenizer, bias: float) -> dict:
    """generate()'s sequence_bias towards a reply that opens with a code block including cuBLAS:
    at the start of a line (the prompt ends with one) the fence is biased by `bias`, and once
    there, the rest of `#include <cublas.h>` is all but certain. A random model then writes that
    block in some completions and prose in others (seeded: the same every run), so the service's
    rewards differ: FORBIDDEN (tiered gaming, -1) against NO_CODE (-0.5)."""
    newline = tokenizer.encode("\n", add_special_tokens=False)
    reply = newline + tokenizer.encode("```\n#include <cublas.h>\n", add_special_tokens=False)
    return {"sequence_bias": {tuple(reply[:k]): (bias if k == 2 else 20.0)
                              for k in range(2, len(reply) + 1)}}


def logged(trainer, name):
    return [entry[name] for entry in trainer.state.log_history if name in entry]


def test_trl_reward_funcs_reach_the_log(service, tiny, tmp_path):
    from datasets import Dataset
    from trl import GRPOTrainer

    from ptxbench_client.trl import KernelReward

    model, tokenizer = tiny
    seen = []  # (reward, verdict) of every completion scored

    class Recording(KernelReward):
        def __call__(self, completions, **kwargs):
            rewards = super().__call__(completions, **kwargs)
            seen.extend(zip(rewards, [p["verdict"] for p in self.last_parts]))
            return rewards

    reward = Recording(Client(service.url, service.token))
    rows = Dataset.from_list([{"prompt": [{"role": "user", "content": f"Write {TASK}."}],
                               "task": TASK}] * 4)
    args = grpo_args(tmp_path, generation_kwargs=library_bias(tokenizer, 6.0),
                     max_completion_length=16)
    trainer = GRPOTrainer(model=model, processing_class=tokenizer, reward_funcs=[reward],
                          args=args, train_dataset=rows)
    trainer.train()
    means = logged(trainer, "rewards/ptxbench/mean")
    assert len(means) == 2, trainer.state.log_history
    assert len(seen) == 4, seen  # two steps of one prompt and two generations
    # The trainer logs the mean of what the service scored: the rewards are not one constant.
    assert means == pytest.approx([(seen[0][0] + seen[1][0]) / 2, (seen[2][0] + seen[3][0]) / 2]), (means, seen)
    assert {v for _, v in seen} == {"NO_CODE", "FORBIDDEN"}, seen
    assert {r for r, _ in seen} == {-0.5, -1.0}, seen


def test_trl_environment_factory_reaches_the_log(service, tiny, tmp_path):
    from datasets import Dataset
    from trl import GRPOTrainer

    from ptxbench_client.trl import KernelEnvironment

    model, tokenizer = tiny
    rows = Dataset.from_list([{"prompt": [{"role": "user", "content": "Kernel task:"}],
                               "task": TASK}] * 4)
    trainer = GRPOTrainer(
        model=model, processing_class=tokenizer, args=grpo_args(tmp_path), train_dataset=rows,
        environment_factory=KernelEnvironment.factory(Client(service.url, service.token),
                                                      max_turns=2))
    trainer.train()
    means = logged(trainer, "rewards/KernelEnvironment/mean")
    assert means == [-0.5, -0.5], trainer.state.log_history


# --- verl: a stand-in of verl.experimental.agent_loop.agent_loop (documented interface) ---------

def install_verl_stand_in():
    module = types.ModuleType("verl.experimental.agent_loop.agent_loop")
    registry: dict[str, dict] = {}

    class AgentLoopBase:
        def __init__(self, trainer_config, server_manager, tokenizer, processor, dataset_cls,
                     data_config, **kwargs):
            self.config = trainer_config.config
            self.server_manager = server_manager
            self.tokenizer = tokenizer

    class AgentLoopOutput:
        def __init__(self, *, prompt_ids, response_ids, response_mask, reward_score=None,
                     num_turns=0, metrics=None, extra_fields=None, **kwargs):
            assert len(response_ids) == len(response_mask)
            self.prompt_ids, self.response_ids = prompt_ids, response_ids
            self.response_mask, self.reward_score = response_mask, reward_score
            self.num_turns, self.extra_fields = num_turns, extra_fields or {}

    def register(name):
        def decorate(cls):
            registry[name] = {"_target_": f"{cls.__module__}.{cls.__qualname__}"}
            return cls
        return decorate

    module.AgentLoopBase, module.AgentLoopOutput, module.register = (
        AgentLoopBase, AgentLoopOutput, register)
    module.registry = registry
    for name in ["verl", "verl.experimental", "verl.experimental.agent_loop"]:
        sys.modules.setdefault(name, types.ModuleType(name))
    sys.modules[module.__name__] = module
    return module


class TinyServerManager:
    """verl's server manager: generate(request_id, prompt_ids, sampling_params) -> token ids."""

    def __init__(self, model, new_tokens=8):
        self.model, self.new_tokens = model, new_tokens

    async def generate(self, *, request_id, prompt_ids, sampling_params, **kwargs):
        import torch

        ids = torch.tensor([prompt_ids])
        out = self.model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=True,
                                  max_new_tokens=self.new_tokens, pad_token_id=0)
        return types.SimpleNamespace(token_ids=out[0, len(prompt_ids):].tolist())


def test_verl_compute_score_and_agent_loop(service, tiny):
    from ptxbench_client import verl as adapter

    scored = adapter.compute_score("ptxbench", "no code", TASK, {"arch": "hopper"},
                                   url=service.url, token=service.token)
    assert scored["score"] == -0.5 and scored["verdict"] == "NO_CODE"
    batch = adapter.compute_score_batch(["ptxbench"] * 2, ["a", "b"], [TASK] * 2, None,
                                        url=service.url, token=service.token,
                                        reward={"kind": "pass_at_speedup"})
    assert [s["score"] for s in batch] == [0.0, 0.0]

    stand_in = install_verl_stand_in()
    model, tokenizer = tiny
    config = types.SimpleNamespace(actor_rollout_ref=types.SimpleNamespace(
        rollout=types.SimpleNamespace(response_length=4096)))
    loop = adapter.KernelAgentLoop(
        types.SimpleNamespace(config=config), TinyServerManager(model), tokenizer, None, None,
        types.SimpleNamespace(config={}), url=service.url, token=service.token, max_turns=2)
    assert "ptxbench_kernel" in stand_in.registry
    output = asyncio.run(loop.run({"temperature": 1.0}, raw_prompt=[],
                                  extra_info={"task": TASK}))
    assert output.reward_score == -0.5
    assert output.extra_fields["turn_scores"] == [-0.5, -0.5]
    assert output.num_turns == 4
    # the model's tokens are trained on, the service's feedback is not
    assert 0 in output.response_mask and output.response_mask[0] == 1
    assert output.response_mask[-1] == 1


# --- verifiers: through the stand-in of vf.Rubric / vf.SingleTurnEnv (verifiers_stand_in.py) ---

def test_verifiers_load_environment_scores_rollouts(service, tiny):
    import torch

    install_verifiers_stand_in()
    from ptxbench_client.verifiers_env import load_environment

    model, tokenizer = tiny
    env = load_environment(tasks=[TASK], url=service.url, token=service.token)
    assert len(env.dataset) == 1
    row = env.dataset[0]
    assert row["answer"] == TASK and row["prompt"][0]["role"] == "system"
    ids = tokenizer.apply_chat_template(row["prompt"], add_generation_prompt=True,
                                        return_tensors="pt", return_dict=True)["input_ids"]
    out = model.generate(ids, max_new_tokens=8, do_sample=True, pad_token_id=0)
    completion = [{"role": "assistant",
                   "content": tokenizer.decode(out[0, ids.shape[1]:], skip_special_tokens=True)}]
    score = asyncio.run(env.rubric.score(completion, row["answer"], row["info"]))
    assert score == -0.5
    held_out = load_environment(split="heldout-none", url=service.url, token=service.token)
    assert len(held_out.dataset) == 0
    del torch
