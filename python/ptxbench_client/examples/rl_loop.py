"""An RL trainer's loop against `ptxbench serve`: one episode per seed, a policy that maps the
conversation to a reply, and the per-step rewards a trainer would turn into advantages.

    python examples/rl_loop.py --url http://127.0.0.1:8750 --token TOKEN --arch hopper \
        --replies DIR      # DIR/turn-1.md, turn-2.md, ...: a replay policy, for trying it out

Replace `policy` with your model's sampling call (vLLM, TRL's generation, an API client).
"""

import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from ptxbench_client import Client  # noqa: E402


def replay_policy(directory: pathlib.Path):
    def policy(messages, turn):
        path = directory / f"turn-{turn}.md"
        return path.read_text() if path.exists() else "I have nothing more to try."
    return policy


def run_episode(client, policy, arch, seed, task=None, context="none", max_turns=4):
    episode = client.reset(arch, task=task, context=context, seed=seed, max_turns=max_turns)
    rewards = []
    for turn in range(1, max_turns + 1):
        reply = policy(episode.messages, turn)
        step = client.step(episode, reply)
        rewards.append(step.reward)
        print(f"seed {seed} {episode.task} turn {step.turn}: {step.record['verdict']} "
              f"reward {step.reward}")
        if step.done:
            break
    return episode, rewards


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--arch", default="hopper")
    parser.add_argument("--task")
    parser.add_argument("--context", default="none")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--max-turns", type=int, default=4)
    parser.add_argument("--replies", type=pathlib.Path, required=True)
    args = parser.parse_args()
    client = Client(args.url, args.token)
    print("reward:", client.reward_config())
    policy = replay_policy(args.replies)
    for seed in range(args.seeds):
        _, rewards = run_episode(client, policy, args.arch, seed, args.task, args.context,
                                 args.max_turns)
        # An unestablished verdict (NOT_RUN) has no reward: leave it out of the return.
        print(f"seed {seed}: return {sum(r for r in rewards if r is not None):.3f}")


if __name__ == "__main__":
    main()
